// The scheduler (src/dispatch/scheduler.ts): every combination of its features, and any service (a property),
// ends, paying for each item at most once.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Client, Outcome } from '../../../src/api/client.js';
import { Scheduler, type WorkItem } from '../../../src/dispatch/scheduler.js';
import { BASE, items, count, against } from './harness.js';

// Every combination of the scheduler's features against a service with a quota, a largest batch and failing
// requests. The expectations are what a user is promised: the run ends, no item is paid for twice, --max-spend
// is never passed, and each item gets one final status, as many `ok` as the cap, the quota and the waits allow.
describe('feature combinations', () => {
  const N = 20;
  const caps = [undefined, 10] as const;
  const maxBatches = [undefined, 4] as const;
  const quotas = [undefined, 7] as const;
  const waits = [{ wait: false }, { wait: true }, { wait: true, maxWaitSeconds: 90 }] as const;
  const failing = [
    { name: 'no failures', faults: 0, retries: 3 },
    { name: 'two 503s, --retries 3', faults: 2, retries: 3 },
    { name: 'two 503s, --retries 1', faults: 2, retries: 1 },
  ] as const;
  const rows = caps.flatMap((cap) =>
    maxBatches.flatMap((maxBatch) => quotas.flatMap((quota) => waits.flatMap((w) => failing.map((f) => ({ cap, maxBatch, quota, w, f }))))),
  );

  for (const { cap, maxBatch, quota, w, f } of rows) {
    const name = `--max-spend ${cap ?? 'none'} · largest batch ${maxBatch ?? 'any'} · quota ${quota ?? 'none'} · ${w.wait ? `--wait${'maxWaitSeconds' in w ? ' --max-wait 90s' : ''}` : 'no --wait'} · ${f.name}`;
    it(name, async () => {
      const faults: Outcome[] = Array(f.faults).fill({ type: 'retry', reason: 'the service answered HTTP 503', rate: {} });
      const r = await against({ quota, windowSeconds: 60, maxBatch, faults }, { batchSize: 8, concurrency: 1, retries: f.retries, maxSpend: cap, ...w }, N);
      expect(r.error).toBeNull();
      // Every item exactly one final status.
      expect([...r.results.values()].every((v) => v.length === 1)).toBe(true);
      expect(r.final.size).toBe(N);
      // Paid once, charged within the cap.
      expect([...r.service.paid.values()].every((n) => n === 1)).toBe(true);
      const distinctSent = new Set(r.service.requests.flat()).size;
      expect(distinctSent).toBeLessThanOrEqual(cap ?? N);
      // The first batch (8 items) fails for good when the faults outlast its retries.
      const errors = f.faults > f.retries ? 8 : 0;
      const capacity = quota === undefined ? Infinity : !w.wait ? quota : 'maxWaitSeconds' in w ? 2 * quota : Infinity;
      const okExpected = Math.min(N - errors, (cap ?? Infinity) - errors, capacity);
      expect(count(r.final, 'error')).toBe(errors);
      expect(count(r.final, 'ok')).toBe(okExpected);
      expect(count(r.final, 'quota_exceeded')).toBe(N - errors - okExpected);
      expect(r.service.paid.size).toBe(okExpected);
      if ('maxWaitSeconds' in w) expect(r.stats.waitedMs).toBeLessThanOrEqual(90_000);
      if (cap !== undefined && r.stats.quotaStop === null) expect(r.stats.capped).toBe(N - distinctSent);
      expect(r.service.requests.length).toBeLessThanOrEqual(f.faults + 2 * N);
    });
  }
});

describe('any service', () => {
  it('whatever each request gets, the run ends, every item has at most one status, none is paid for twice, the cap holds', async () => {
    const rate = fc.record({ remaining: fc.option(fc.nat(12), { nil: undefined }), reset: fc.option(fc.nat(90), { nil: undefined }) });
    const outcome = fc.oneof(
      fc.record({ kind: fc.constant('ok' as const), over: fc.nat(10), rate }),
      fc.record({ kind: fc.constantFrom('quota' as const, 'too-large' as const, 'retry' as const, 'unreachable' as const, 'failed' as const, 'forbidden' as const), rate }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(outcome, { maxLength: 40 }),
        fc.record({ maxSpend: fc.option(fc.integer({ min: 1, max: 25 }), { nil: undefined }), wait: fc.boolean(), retries: fc.nat(3), batchSize: fc.integer({ min: 1, max: 8 }), concurrency: fc.integer({ min: 1, max: 3 }) }),
        async (script, opts) => {
          let call = 0;
          let now = 0;
          const paid = new Map<string, number>();
          const sent = new Set<string>();
          const client: Client = {
            async validate(_e, _f, it) {
              await new Promise((r) => setImmediate(r));
              if (++call > 300) throw new Error('the scheduler does not stop');
              it.forEach((i) => sent.add(i));
              const s = script[call - 1] ?? { kind: 'ok' as const, over: 0, rate: {} };
              switch (s.kind) {
                case 'ok': {
                  const results = new Map(it.map((i, n) => [i, n >= it.length - s.over ? 'quota_exceeded' : 'ok']));
                  for (const [i, st] of results) if (st === 'ok') paid.set(i, (paid.get(i) ?? 0) + 1);
                  return { type: 'ok', results, rate: s.rate };
                }
                case 'forbidden':
                  return { type: 'failed', reason: 'HTTP 403', rate: s.rate, turnedAway: true };
                case 'failed':
                case 'retry':
                case 'unreachable':
                  return { type: s.kind, reason: s.kind, rate: s.rate };
                case 'too-large':
                  return { type: s.kind, status: 413, rate: s.rate };
                default:
                  return { type: s.kind, rate: s.rate };
              }
            },
            close: async () => undefined,
          };
          const results = new Map<string, number>();
          const d = new Scheduler({
            ...BASE,
            ...opts,
            client,
            signal: new AbortController().signal,
            now: () => now,
            sleep: async (ms) => {
              await new Promise((r) => setImmediate(r));
              now += ms;
            },
            onResults: (rs: Array<[WorkItem, string]>) => rs.forEach(([i]) => results.set(i.send, (results.get(i.send) ?? 0) + 1)),
          });
          for (const i of items(20)) {
            d.push({ key: i, send: i });
            await d.whenQueueHasRoom();
          }
          const error = await d.finish().then(
            () => null,
            (e: unknown) => e,
          );
          expect(call).toBeLessThanOrEqual(300);
          expect([...results.values()].every((n) => n === 1)).toBe(true);
          if (error === null) expect(results.size).toBe(20);
          else expect(error).toMatchObject({ kind: expect.stringMatching(/^(auth|failed)$/) });
          expect([...paid.values()].every((n) => n === 1)).toBe(true);
          expect(sent.size).toBeLessThanOrEqual(opts.maxSpend ?? 20);
        },
      ),
      { seed: 20260522, numRuns: 300 },
    );
  });
});
