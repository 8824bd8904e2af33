// The scheduler with a scripted client: batching, concurrency, the quota gate, retries, splits, --max-spend,
// --wait, the circuit breaker; and every combination of them ends, paying for each item at most once.
import fc from 'fast-check';
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Client, Outcome } from '../../src/api/client.js';
import { MAX_EMPTY_WINDOWS } from '../../src/dispatch/quota-gate.js';
import { Scheduler, type SchedulerOptions, type WorkItem } from '../../src/dispatch/scheduler.js';
import { fakeService, type ServiceModel } from './fake-service.js';

type Script = (items: string[], call: number) => Outcome | Promise<Outcome>;

const BASE = {
  endpoint: '/emails/validate',
  field: 'emails',
  host: 'api.example.test',
  batchSize: 3,
  concurrency: 2,
  retries: 2,
  wait: false,
};

function harness(script: Script, opts: Partial<SchedulerOptions> = {}) {
  const calls: string[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const client: Client = {
    async validate(_e, _f, items) {
      const call = calls.push(items);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      try {
        return await script(items, call);
      } finally {
        inFlight--;
      }
    },
    close: async () => undefined,
  };
  const results = new Map<string, string>();
  const d = new Scheduler({
    ...BASE,
    client,
    signal: new AbortController().signal,
    sleep: async () => undefined,
    onResults: (rs: Array<[WorkItem, string]>) => rs.forEach(([i, s]) => results.set(i.send, s)),
    ...opts,
  });
  const run = async (items: string[]) => {
    for (const i of items) {
      d.push({ key: i, send: i });
      await d.whenQueueHasRoom();
    }
    return d.finish();
  };
  return { d, calls, results, run, maxInFlight: () => maxInFlight };
}

const ok = (items: string[], rate = {}): Outcome => ({
  type: 'ok',
  results: new Map(items.map((i) => [i, 'ok'])),
  rate,
});
const items = (n: number) => Array.from({ length: n }, (_, i) => `u${i}@x.com`);
const count = (m: Map<string, string>, status: string) => [...m.values()].filter((s) => s === status).length;

/** A run of `n` items against a fake service, on its fake clock. */
async function against(model: ServiceModel, opts: Partial<SchedulerOptions>, n: number) {
  const service = fakeService(model);
  const results = new Map<string, string[]>();
  const d = new Scheduler({
    ...BASE,
    client: service.client,
    signal: new AbortController().signal,
    now: service.now,
    sleep: service.sleep,
    random: () => 0.5,
    onResults: (rs: Array<[WorkItem, string]>) => rs.forEach(([i, s]) => results.set(i.send, [...(results.get(i.send) ?? []), s])),
    ...opts,
  });
  for (const i of items(n)) {
    d.push({ key: i, send: i });
    await d.whenQueueHasRoom();
  }
  const outcome = await d.finish().then(
    (stats) => ({ stats, error: null }),
    (error: unknown) => ({ stats: d.stats, error }),
  );
  const final = new Map([...results].map(([k, v]) => [k, v.at(-1)!]));
  return { ...outcome, service, results, final, d };
}


/** A clock that only sleeps move: `now` for the scheduler, `sleep` that records each wait and moves the clock. */
function fakeClock(start = 0) {
  const clock = { at: start, slept: [] as number[] };
  return {
    slept: clock.slept,
    now: () => clock.at,
    sleep: async (ms: number) => {
      clock.slept.push(ms);
      clock.at += ms;
    },
  };
}

describe('scheduler', () => {
  it('a signal aborted before the scheduler exists (Ctrl-C while the cache loads): created fine, sends nothing', async () => {
    const h = harness((it) => ok(it), { signal: AbortSignal.abort('SIGINT') });
    await expect(h.run(items(4))).rejects.toMatchObject({ kind: 'interrupted' });
    expect(h.calls).toEqual([]);
  });

  it('sends every item once in batches, bounded in flight', async () => {
    const h = harness((it) => ok(it));
    await h.run(items(10));
    expect(h.calls.map((c) => c.length)).toEqual([3, 3, 3, 1]);
    expect(h.calls.flat().sort()).toEqual(items(10).sort());
    expect(h.maxInFlight()).toBeLessThanOrEqual(2);
    expect([...h.results.values()].every((s) => s === 'ok')).toBe(true);
  });

  it('a part-filled batch waits for more input, and goes at once while reading waits on the output', async () => {
    const h = harness((it) => ok(it), { batchSize: 5 });
    for (const i of items(2)) h.d.push({ key: i, send: i });
    await new Promise((r) => setTimeout(r, 20));
    expect(h.calls).toEqual([]);
    h.d.sendPartialBatches(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(h.calls).toEqual([items(2)]);
    h.d.sendPartialBatches(false);
    await h.d.finish();
  });

  it('stops at quota_exceeded: the rest is quota_exceeded and never sent', async () => {
    const h = harness(
      (it, call) => (call === 1 ? { type: 'ok', results: new Map(it.map((i, n) => [i, n < 2 ? 'ok' : 'quota_exceeded'])), rate: {} } : ok(it)),
      { concurrency: 1 },
    );
    const stats = await h.run(items(9));
    expect(h.calls.length).toBe(1);
    expect(stats.quotaStopped).toBe(true);
    expect(stats.quotaStop).toBe('quota');
    expect(count(h.results, 'ok')).toBe(2);
    expect(count(h.results, 'quota_exceeded')).toBe(7);
  });

  it('stops after a 429 and cuts batches to the remaining quota', async () => {
    const h = harness((it, call) => (call === 1 ? ok(it, { remaining: 2 }) : call === 2 ? ok(it, { remaining: 0 }) : { type: 'quota', rate: {} }), {
      concurrency: 1,
    });
    await h.run(items(9));
    expect(h.calls.map((c) => c.length)).toEqual([3, 2]);
    expect(count(h.results, 'quota_exceeded')).toBe(4);
  });

  it('a remaining count that is not a whole number (none the header parser gives) never makes an empty request', async () => {
    const h = harness((it) => ok(it, { remaining: 0.5, reset: 60 }), { concurrency: 1 });
    await h.run(items(9));
    expect(h.calls).toEqual([items(9).slice(0, 3)]);
    expect(count(h.results, 'quota_exceeded')).toBe(6);
  });

  it('retries, then gives up with error, and other batches go on', async () => {
    const h = harness((it) => (it.includes('u0@x.com') ? { type: 'retry', reason: 'HTTP 503', rate: {} } : ok(it)));
    await h.run(items(6));
    expect(h.calls.filter((c) => c.includes('u0@x.com')).length).toBe(3); // 1 + 2 retries
    expect(h.results.get('u0@x.com')).toBe('error');
    expect(h.results.get('u5@x.com')).toBe('ok');
    expect(h.d.lastFailure()).toBe('HTTP 503');
  });

  it('splits a batch refused as too large and keeps the smaller size', async () => {
    const h = harness((it) => (it.length > 1 ? { type: 'too-large', rate: {} } : ok(it)), { batchSize: 4, concurrency: 1 });
    await h.run(items(4));
    expect(h.calls.map((c) => c.length)).toEqual([4, 2, 1, 1, 1, 1]);
    expect(h.results.size).toBe(4);
  });

  it('later batches stay as small as the smallest split made them: a later split of a bigger batch does not grow them back', async () => {
    // The 2-item batch is refused first (size 1 from then on), the 4-item batch after it (halves of 2).
    const h = harness(
      async (it) => {
        if (it.length === 4) await new Promise((r) => setTimeout(r, 30));
        return it.length > 1 ? { type: 'too-large', rate: {} } : ok(it);
      },
      { batchSize: 4, concurrency: 2 },
    );
    await h.run(items(6));
    expect(h.calls.slice(0, 2).map((c) => c.length)).toEqual([4, 2]);
    expect(h.calls.slice(2).map((c) => c.length)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(count(h.results, 'ok')).toBe(6);
  });

  it('a missing item is error, not re-sent', async () => {
    const h = harness((it) => ({ type: 'ok', results: new Map(it.slice(1).map((i) => [i, 'ok'])), rate: {} }), { concurrency: 1 });
    await h.run(items(3));
    expect(h.calls.length).toBe(1);
    expect(h.results.get('u0@x.com')).toBe('error');
  });

  it('401 is fatal with the auth kind, and `fatal` says so while the run is still going', async () => {
    const h = harness(() => ({ type: 'auth' }));
    const fatal = h.d.fatal.then((e) => e.kind);
    await expect(h.run(items(3))).rejects.toMatchObject({ kind: 'auth' });
    expect(await fatal).toBe('auth');
  });

  it('--wait sleeps until the reset and resends what got quota_exceeded', async () => {
    const clock = fakeClock(1_000_000);
    const h = harness(
      (it, call) =>
        call === 1
          ? { type: 'ok', results: new Map(it.map((i, n) => [i, n === 0 ? 'ok' : 'quota_exceeded'])), rate: { remaining: 0, reset: 30 } }
          : ok(it, { remaining: 10, reset: 3600 }),
      { concurrency: 1, wait: true, now: clock.now, sleep: clock.sleep },
    );
    await h.run(items(3));
    expect(clock.slept).toEqual([31_000]);
    expect(h.calls).toEqual([items(3), items(3).slice(1)]);
    expect([...h.results.values()]).toEqual(['ok', 'ok', 'ok']);
  });

  it('--max-wait shorter than the reset stops instead', async () => {
    const h = harness(() => ({ type: 'quota', rate: { retryAfter: 600 } }), { wait: true, maxWaitSeconds: 60, concurrency: 1 });
    const stats = await h.run(items(2));
    expect(stats.quotaStopped).toBe(true);
    expect(stats.quotaStop).toBe('max-wait');
    expect(h.calls.length).toBe(1);
  });
});

describe('the scheduler after a quota stop', () => {
  it('a batch waiting out its back-off when the quota stop comes is not sent again: its items end quota_exceeded', async () => {
    const calls: string[][] = [];
    let wake: () => void = () => undefined;
    let slept = 0;
    const results = new Map<string, string>();
    const d = new Scheduler({
      ...BASE,
      client: {
        async validate(_e, _f, items) {
          calls.push(items);
          if (items[0] === 'a@x.com') return { type: 'retry', reason: 'HTTP 503', rate: {} };
          return { type: 'quota', rate: {} };
        },
        close: async () => undefined,
      },
      batchSize: 1,
      retries: 3,
      signal: new AbortController().signal,
      // The first batch's back-off ends only once the other batch has met the 429.
      sleep: () => (slept++ === 0 ? new Promise<void>((r) => (wake = r)) : Promise.resolve()),
      onResults: (rs: Array<[WorkItem, string]>) => {
        for (const [i, s] of rs) results.set(i.send, s);
        if (rs.some(([, s]) => s === 'quota_exceeded')) setImmediate(wake);
      },
    });
    d.push({ key: 'a@x.com', send: 'a@x.com' });
    d.push({ key: 'b@x.com', send: 'b@x.com' });
    await d.finish();
    expect(calls).toEqual([['a@x.com'], ['b@x.com']]); // never a second ['a@x.com']
    expect(Object.fromEntries(results)).toEqual({ 'a@x.com': 'quota_exceeded', 'b@x.com': 'quota_exceeded' });
  });

  it('a 413 answered after a 429 stop ends the run: the halves end quota_exceeded, never sent (no spin)', async () => {
    let answer429: () => void = () => undefined;
    const first429 = new Promise<void>((r) => (answer429 = r));
    const h = harness(
      async (it, call) => {
        if (call === 1) {
          answer429();
          return { type: 'quota', rate: {} };
        }
        await first429; // the 413 comes after the 429 stopped the run
        return { type: 'too-large', rate: {} };
      },
      { batchSize: 4, concurrency: 2 },
    );
    const stats = await h.run(items(8));
    expect(h.calls.map((c) => c.length)).toEqual([4, 4]);
    expect(stats.quotaStopped).toBe(true);
    expect(count(h.results, 'quota_exceeded')).toBe(8);
  });
});

describe('--max-spend', () => {
  it('--max-spend 10 with a batch the service halves (413): a re-sent item is charged once, all 10 validated', async () => {
    const r = await against({ maxBatch: 5 }, { batchSize: 10, concurrency: 1, maxSpend: 10 }, 30);
    expect(r.error).toBeNull();
    expect(r.service.requests.map((q) => q.length)).toEqual([10, 5, 5]);
    expect(count(r.final, 'ok')).toBe(10);
    expect(count(r.final, 'quota_exceeded')).toBe(20);
    expect(r.stats.capped).toBe(20);
  });

  it('an item requeued by --wait is not charged again', async () => {
    const r = await against({ quota: 4, windowSeconds: 60 }, { batchSize: 6, concurrency: 1, maxSpend: 6, wait: true }, 8);
    expect(r.error).toBeNull();
    expect(r.service.requests.map((q) => q.length)).toEqual([6, 2]);
    expect(count(r.final, 'ok')).toBe(6);
    expect(r.stats.capped).toBe(2);
  });
});

describe('--wait: every wait ends', () => {
  it('--max-wait bounds the total of all waits over several quota windows, not each wait', async () => {
    // Windows of 60 s with 2 validations each: the first wait is 61 s, the second 60 s (121 s in all), a third would pass 150 s.
    const r = await against({ quota: 2, windowSeconds: 60 }, { batchSize: 2, concurrency: 1, wait: true, maxWaitSeconds: 150 }, 10);
    expect(r.error).toBeNull();
    expect(count(r.final, 'ok')).toBe(6);
    expect(count(r.final, 'quota_exceeded')).toBe(4);
    expect(r.stats.quotaStop).toBe('max-wait');
    expect(r.service.slept()).toBe(121_000);
    expect(r.stats.waitedMs).toBe(121_000);
  });

  it('without --max-wait, every window is waited for until the list is done', async () => {
    const r = await against({ quota: 2, windowSeconds: 60 }, { batchSize: 2, concurrency: 1, wait: true }, 10);
    expect(r.error).toBeNull();
    expect(count(r.final, 'ok')).toBe(10);
    expect(r.service.slept()).toBe(61_000 + 3 * 60_000);
  });

  for (const [name, answer] of [
    ['every item quota_exceeded', (it: string[]): Outcome => ({ type: 'ok', results: new Map(it.map((i) => [i, 'quota_exceeded'])), rate: { remaining: 0, reset: 0 } })],
    ['429', (): Outcome => ({ type: 'quota', rate: { remaining: 0, reset: 0 } })],
  ] as const) {
    it(`a service that answers ${name} with r=0;t=0 after every reset: --wait gives up after ${MAX_EMPTY_WINDOWS} empty windows`, async () => {
      const clock = fakeClock();
      const h = harness(answer, { concurrency: 1, wait: true, now: clock.now, sleep: clock.sleep });
      const stats = await h.run(items(3));
      expect(stats.quotaStop).toBe('empty-windows');
      expect(clock.slept).toEqual(Array(MAX_EMPTY_WINDOWS).fill(1000));
      expect(h.calls.length).toBe(MAX_EMPTY_WINDOWS + 1);
      expect(count(h.results, 'quota_exceeded')).toBe(3);
    });
  }

  it('a window that validated something starts the count of empty windows again', async () => {
    let now = 0;
    // Each reset validates one item, then quota_exceeded with t=0: slow, but never empty.
    const h = harness(
      (it) => ({ type: 'ok', results: new Map(it.map((i, n) => [i, n === 0 ? 'ok' : 'quota_exceeded'])), rate: { remaining: 0, reset: 0 } }),
      { concurrency: 1, batchSize: 5, wait: true, now: () => now, sleep: async (ms) => void (now += ms) },
    );
    const stats = await h.run(items(5));
    expect(stats.quotaStopped).toBe(false);
    expect(count(h.results, 'ok')).toBe(5);
  });

  it('without --max-wait, waiting stops at the ceiling of 32 days in all', async () => {
    // Each window validates one item and resets in 20 days: the second wait would pass 32 days.
    let now = 0;
    const h = harness(
      (it) => ({ type: 'ok', results: new Map(it.map((i, n) => [i, n === 0 ? 'ok' : 'quota_exceeded'])), rate: { remaining: 0, reset: 20 * 86_400 } }),
      { concurrency: 1, batchSize: 5, wait: true, now: () => now, sleep: async (ms) => void (now += ms) },
    );
    const stats = await h.run(items(5));
    expect(stats.quotaStop).toBe('max-wait');
    expect(count(h.results, 'ok')).toBe(2);
    expect(stats.waitedMs).toBe(20 * 86_400_000 + 1000);
  });
});

describe('the circuit breaker', () => {
  const refused: Outcome = { type: 'unreachable', reason: 'network error (ECONNREFUSED)', rate: {} };
  const forbidden: Outcome = { type: 'failed', reason: 'the service answered HTTP 403: Forbidden', rate: {}, turnedAway: true };

  it('a host that refuses every connection: the run stops (exit 1) once a batch has used its tries, naming the host and the cause', async () => {
    const h = harness(() => refused, { retries: 3, concurrency: 1 });
    const err = await h.run(items(9)).catch((e: unknown) => e);
    expect(err).toMatchObject({
      kind: 'failed',
      message:
        'The service at api.example.test gave no answer to 4 requests in a row: network error (ECONNREFUSED); check --base-url and the network, then run the same command again (results received so far are cached).',
    });
    expect(h.calls.length).toBe(4);
    expect(h.results.size).toBe(0); // no `error` rows: the output is not written
  });

  it('a 403 to the first batch, before any answer, stops the run at once (a one-batch run\'s output is left as it was)', async () => {
    const h = harness(() => forbidden, { concurrency: 1 });
    const err = await h.run(items(2)).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'failed', message: expect.stringMatching(/^The service at api\.example\.test turned away the first request: the service answered HTTP 403: Forbidden; check --base-url,/) });
    expect(h.calls.length).toBe(1);
    expect(h.results.size).toBe(0); // no `error` rows: the output is not written
  });

  it('a 403 to every batch after the host has answered stops the run at the second in a row', async () => {
    let n = 0;
    const h = harness((it) => (n++ === 0 ? ok(it) : forbidden), { concurrency: 1 });
    const err = await h.run(items(9)).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'failed', message: expect.stringMatching(/^The service at api\.example\.test turned away 2 requests in a row: the service answered HTTP 403: Forbidden; check --base-url,/) });
    expect(h.calls.length).toBe(3);
  });

  it('one batch failing while others are answered is not a host failure: that batch ends error', async () => {
    const h = harness((it) => (it.includes('u0@x.com') ? refused : ok(it)), { retries: 3, concurrency: 2 });
    await h.run(items(9));
    expect(h.results.get('u0@x.com')).toBe('error');
    expect(count(h.results, 'ok')).toBe(6);
  });

  it('--retries 0 and a single batch: one failure is no streak (the batch ends error)', async () => {
    const h = harness(() => refused, { retries: 0 });
    await h.run(items(2));
    expect([...h.results.values()]).toEqual(['error', 'error']);
  });

  it('a request that times out after 30 s before the host has answered anything stops the run at once, retries left', async () => {
    let now = 0;
    const h = harness(
      () => {
        now += 30_000;
        return { type: 'unreachable', reason: 'no answer within 30 s', rate: {} };
      },
      { retries: 10, concurrency: 1, now: () => now },
    );
    const err = await h.run(items(3)).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'failed', message: expect.stringContaining('gave no answer to the first request: no answer within 30 s') });
    expect(h.calls.length).toBe(1);
  });

  it('requests that time out for 30 s once the host has answered stop the run at the second, even while retries are left', async () => {
    let now = 0;
    let n = 0;
    const h = harness(
      (it) => {
        if (n++ === 0) return ok(it);
        now += 30_000;
        return { type: 'unreachable', reason: 'no answer within 30 s', rate: {} };
      },
      { retries: 10, concurrency: 1, now: () => now },
    );
    const err = await h.run(items(6)).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'failed', message: expect.stringContaining('gave no answer to 2 requests in a row: no answer within 30 s') });
    expect(h.calls.length).toBe(3);
  });
});

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

/** A client whose requests wait until the test answers them, one by one, in the order they came. */
function heldClient() {
  const held: Array<{ items: string[]; signal: AbortSignal; answer(o: Outcome): void }> = [];
  const client: Client = {
    validate: (_e, _f, items, signal) =>
      new Promise<Outcome>((resolve, reject) => {
        held.push({ items, signal, answer: resolve });
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    close: async () => undefined,
  };
  return { client, held };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('what the summary and the report count', () => {
  it('requests (retries included), retries and items answered; progress after each batch is done', async () => {
    const progress: Array<{ requests: number; retries: number; sent: number; inFlight: number }> = [];
    let failedOnce = false;
    const h = harness(
      (it) => {
        if (it.includes('u0@x.com') && !failedOnce) {
          failedOnce = true;
          return { type: 'retry', reason: 'HTTP 503', rate: {} };
        }
        return ok(it);
      },
      { concurrency: 1, onProgress: (s) => progress.push({ requests: s.requests, retries: s.retries, sent: s.sent, inFlight: s.inFlight }) },
    );
    const stats = await h.run(items(6));
    expect(h.calls.length).toBe(3);
    expect({ requests: stats.requests, retries: stats.retries, sent: stats.sent, inFlight: stats.inFlight }).toEqual({ requests: 3, retries: 1, sent: 6, inFlight: 0 });
    expect(progress).toEqual([
      { requests: 2, retries: 1, sent: 3, inFlight: 0 },
      { requests: 3, retries: 1, sent: 6, inFlight: 0 },
    ]);
  });

  it('requests in flight are counted while they are', async () => {
    const { client, held } = heldClient();
    const d = new Scheduler({ ...BASE, client, signal: new AbortController().signal, onResults: () => undefined });
    for (const i of items(6)) d.push({ key: i, send: i });
    await tick();
    expect(d.stats.inFlight).toBe(2);
    held[0]!.answer(ok(held[0]!.items));
    await tick();
    expect(d.stats.inFlight).toBe(1);
    held[1]!.answer(ok(held[1]!.items));
    const stats = await d.finish();
    expect(stats.inFlight).toBe(0);
  });

  it('the latest rate-limit facts: each header as it last came, when it came, and when the quota resets', async () => {
    let now = 0;
    // As the header parser gives them: a header that was not there is a key holding undefined.
    const none = { remaining: undefined, reset: undefined, retryAfter: undefined };
    const rates = [{ ...none, remaining: 10 }, { ...none, reset: 60 }, { ...none, quota: 100, window: 3600 }, { ...none, retryAfter: 5 }, none];
    const seen: Array<{ rateAt?: number; resetAt?: number }> = [];
    const h = harness(
      (it, call) => {
        now = call * 1000;
        return ok(it, rates[call - 1]);
      },
      { batchSize: 1, concurrency: 1, now: () => now, onProgress: (s) => seen.push({ rateAt: s.rateAt, resetAt: s.resetAt }) },
    );
    const stats = await h.run(items(5));
    expect(stats.rate).toStrictEqual({ remaining: 10, reset: 60, quota: 100, window: 3600, retryAfter: 5 });
    expect(seen).toEqual([
      { rateAt: 1000, resetAt: undefined },
      { rateAt: 2000, resetAt: 62_000 },
      { rateAt: 3000, resetAt: 62_000 },
      { rateAt: 4000, resetAt: 9000 },
      { rateAt: 4000, resetAt: 9000 }, // an answer without rate-limit headers changes nothing
    ]);
  });

  it('an answer without a usable status for some items says how many, in words', async () => {
    const one = harness((it) => ({ type: 'ok', results: new Map(it.slice(1).map((i) => [i, 'ok'])), rate: {} }), { concurrency: 1 });
    await one.run(items(3));
    expect(one.d.lastFailure()).toBe("the service's answer had no usable status for 1 item");
    const two = harness((it) => ({ type: 'ok', results: new Map(it.slice(2).map((i) => [i, 'ok'])), rate: {} }), { concurrency: 1 });
    await two.run(items(3));
    expect(two.d.lastFailure()).toBe("the service's answer had no usable status for 2 items");
    expect([...two.results.values()]).toEqual(['error', 'error', 'ok']);
  });
});

describe('the quota left, as the service counts it', () => {
  it('one validation left: a batch of one item goes, then the run stops with the rest quota_exceeded', async () => {
    const h = harness((it, call) => ok(it, { remaining: call === 1 ? 1 : 0 }), { concurrency: 1 });
    const stats = await h.run(items(9));
    expect(h.calls.map((c) => c.length)).toEqual([3, 1]);
    expect(count(h.results, 'ok')).toBe(4);
    expect(count(h.results, 'quota_exceeded')).toBe(5);
    expect(stats.quotaStop).toBe('quota');
  });

  it('with requests in flight, a batch is cut to what the quota leaves once their items are taken off', async () => {
    // The first answer says 4 left while 3 items are still in flight: the next batch holds 1.
    const h = harness((it, call) => ok(it, { remaining: [4, 1, 0][call - 1] ?? 0 }), { concurrency: 2 });
    const stats = await h.run(items(12));
    expect(h.calls.map((c) => c.length)).toEqual([3, 3, 1]);
    expect(count(h.results, 'ok')).toBe(7);
    expect(count(h.results, 'quota_exceeded')).toBe(5);
    expect(stats.quotaStop).toBe('quota');
  });
});

describe('streaming: what waits for what', () => {
  it('a batch goes as soon as it is full, without waiting for the next item', async () => {
    const h = harness((it) => ok(it), { batchSize: 3 });
    for (const i of items(3)) h.d.push({ key: i, send: i });
    await new Promise((r) => setTimeout(r, 20));
    expect(h.calls).toEqual([items(3)]);
    await h.d.finish();
  });

  it('the queue ahead of the requests holds 2 × batch × concurrency items: reading waits for room until an answer comes', async () => {
    const { client, held } = heldClient();
    const results = new Map<string, string>();
    const d = new Scheduler({ ...BASE, client, signal: new AbortController().signal, onResults: (rs) => rs.forEach(([i, s]) => results.set(i.send, s)) });
    const list = items(30);
    let pushed = 0;
    while (d.queueHasRoom()) d.push({ key: list[pushed]!, send: list[pushed++]! });
    expect(pushed).toBe(2 * 3 + 2 * 3 * 2); // two batches in flight, twelve queued
    let room = false;
    void d.whenQueueHasRoom().then(() => (room = true));
    await tick();
    expect(room).toBe(false);
    held[0]!.answer(ok(held[0]!.items));
    await tick();
    expect(room).toBe(true);
    for (; pushed < list.length; pushed++) {
      d.push({ key: list[pushed]!, send: list[pushed]! });
      await Promise.race([d.whenQueueHasRoom(), tick()]);
    }
    const done = d.finish();
    for (let answered = 1; answered < 10; answered++) {
      while (held.length <= answered) await tick();
      held[answered]!.answer(ok(held[answered]!.items));
    }
    await done;
    expect(results.size).toBe(30);
    expect(held.length).toBe(10);
  });

  it('a refused key while reading waits for room: reading is freed and the run ends (auth)', async () => {
    const { client, held } = heldClient();
    const d = new Scheduler({ ...BASE, client, signal: new AbortController().signal, graceMs: 10, onResults: () => undefined });
    const list = items(30);
    let pushed = 0;
    while (d.queueHasRoom()) d.push({ key: list[pushed]!, send: list[pushed++]! });
    const room = d.whenQueueHasRoom();
    held[0]!.answer({ type: 'auth' });
    await room; // never waits for ever
    expect(d.queueHasRoom()).toBe(true);
    await expect(d.finish()).rejects.toMatchObject({ kind: 'auth' });
    expect(held.length).toBe(2);
  });

  it('a finished run leaves no listener on the signal it was given', async () => {
    const ac = new AbortController();
    const h = harness((it) => ok(it), { signal: ac.signal });
    await h.run(items(4));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });
});

describe('a signal', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  for (const [name, graceMs] of [
    ['the default 3 s', undefined],
    ['graceMs 500', 500],
  ] as const) {
    it(`requests in flight get ${name} to finish, then are cut: what came in time is kept, the rest has no status`, async () => {
      const grace = graceMs ?? 3000;
      const { client, held } = heldClient();
      const ac = new AbortController();
      const results = new Map<string, string>();
      const d = new Scheduler({ ...BASE, client, signal: ac.signal, graceMs, onResults: (rs) => rs.forEach(([i, s]) => results.set(i.send, s)) });
      for (const i of items(9)) d.push({ key: i, send: i });
      const done = d.finish().catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(0);
      expect(held.length).toBe(2);
      ac.abort('SIGINT');
      await vi.advanceTimersByTimeAsync(grace - 1);
      held[0]!.answer(ok(held[0]!.items)); // within the grace
      await vi.advanceTimersByTimeAsync(0);
      expect(held[1]!.signal.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(held[1]!.signal.aborted).toBe(true);
      expect(await done).toMatchObject({ kind: 'interrupted' });
      expect(held.length).toBe(2); // nothing new after the signal
      expect(Object.fromEntries(results)).toEqual(Object.fromEntries(items(3).map((i) => [i, 'ok'])));
    });
  }
});

describe('--wait and a batch in its back-off', () => {
  it('a batch backing off when a 429 starts the wait goes again once, after the reset; the wait is announced with its end', async () => {
    const calls: string[][] = [];
    const results = new Map<string, string>();
    const waits: Array<[number, string]> = [];
    let wake: () => void = () => undefined;
    let sleeps = 0;
    let resetPassed = false;
    const d = new Scheduler({
      ...BASE,
      client: {
        async validate(_e, _f, it) {
          calls.push(it);
          if (calls.length === 1) return { type: 'retry', reason: 'HTTP 503', rate: {} };
          if (calls.length === 2) return { type: 'quota', rate: { remaining: 0, reset: 30 } };
          return ok(it);
        },
        close: async () => undefined,
      },
      batchSize: 1,
      wait: true,
      signal: new AbortController().signal,
      now: () => 1_000_000,
      // The first batch's back-off ends while the quota wait is on; the wait ends later.
      sleep: () => (sleeps++ === 0 ? new Promise<void>((r) => (wake = r)) : new Promise<void>((r) => setTimeout(() => r(void (resetPassed = true)), 20))),
      onWait: (until, reason) => {
        waits.push([until, reason]);
        setImmediate(wake);
      },
      onResults: (rs: Array<[WorkItem, string]>) => {
        expect(resetPassed).toBe(true);
        rs.forEach(([i, s]) => results.set(i.send, s));
      },
    });
    d.push({ key: 'a@x.com', send: 'a@x.com' });
    d.push({ key: 'b@x.com', send: 'b@x.com' });
    const stats = await d.finish();
    expect(waits).toEqual([[1_031_000, 'quota']]);
    expect(calls).toEqual([['a@x.com'], ['b@x.com'], ['a@x.com'], ['b@x.com']]);
    expect(Object.fromEntries(results)).toEqual({ 'a@x.com': 'ok', 'b@x.com': 'ok' });
    expect(stats.quotaStopped).toBe(false);
  });
});

describe('batches stay full, and none is empty', () => {
  it('a part-filled batch waits for more input even when an answer frees a request slot', async () => {
    const h = harness((it) => ok(it), { batchSize: 3, concurrency: 1 });
    for (const i of items(4)) h.d.push({ key: i, send: i });
    await new Promise((r) => setTimeout(r, 30)); // the first batch is answered; its slot is free
    expect(h.calls).toEqual([items(3)]);
    for (const i of items(6).slice(4)) h.d.push({ key: i, send: i });
    await h.d.finish();
    expect(h.calls).toEqual([items(3), items(6).slice(3)]);
  });

  it('--max-spend spent while items wait in the queue: those it keeps back end quota_exceeded, and no empty request is sent', async () => {
    // Spend 4, batches of 3, one request at a time: 3 items, then 1 of the next batch; the rest are capped.
    const h = harness((it) => ok(it), { batchSize: 3, concurrency: 1, maxSpend: 4 });
    const stats = await h.run(items(9));
    expect(h.calls).toEqual([items(3), [items(4)[3]]]);
    expect(count(h.results, 'ok')).toBe(4);
    expect(count(h.results, 'quota_exceeded')).toBe(5);
    expect(stats.capped).toBe(5);
  });
});

describe('after the run stopped, an item pushed', () => {
  it('once the quota stopped the run: ends quota_exceeded at once, and is not counted as held back by --max-spend', async () => {
    const h = harness(() => ({ type: 'quota', rate: {} }), { batchSize: 3, concurrency: 1, maxSpend: 100 });
    for (const i of items(3)) h.d.push({ key: i, send: i });
    while (!h.d.stats.quotaStopped) await tick();
    h.d.push({ key: 'late@x.com', send: 'late@x.com' });
    expect(h.results.get('late@x.com')).toBe('quota_exceeded');
    const stats = await h.d.finish();
    expect(stats.capped).toBe(0);
    expect(h.calls).toEqual([items(3)]);
  });

  it('once --max-spend is spent: ends quota_exceeded at once, counted as held back', async () => {
    const h = harness((it) => ok(it), { batchSize: 3, concurrency: 1, maxSpend: 3 });
    for (const i of items(3)) h.d.push({ key: i, send: i });
    h.d.push({ key: 'late@x.com', send: 'late@x.com' });
    expect(h.results.get('late@x.com')).toBe('quota_exceeded');
    expect(h.d.stats.capped).toBe(1);
    const stats = await h.d.finish();
    expect(stats.capped).toBe(1);
    expect(h.calls).toEqual([items(3)]);
  });
});

describe('the quota count an answer in flight brings', () => {
  it('nothing left after one answer while another is in flight: its answer is waited for, and a window that reset goes on', async () => {
    const h = harness(
      async (it, call) => {
        if (call === 2) await new Promise((r) => setTimeout(r, 20));
        return ok(it, { remaining: call === 1 ? 0 : 10 });
      },
      { concurrency: 2 },
    );
    const stats = await h.run(items(9));
    expect(stats.quotaStopped).toBe(false);
    expect(count(h.results, 'ok')).toBe(9);
    expect(h.calls.map((c) => c.length)).toEqual([3, 3, 3]);
  });
});

describe('what the run says went wrong', () => {
  it('the reason of the last failure stays when answers that are fine, or a quota stop, come after it', async () => {
    const h = harness(
      (it, call) => (call === 1 ? { type: 'failed', reason: 'the service answered HTTP 400', rate: {} } : call === 4 ? { type: 'quota', rate: {} } : ok(it)),
      { batchSize: 1, concurrency: 1, retries: 0 },
    );
    await h.run(items(5));
    expect([...h.results.values()]).toEqual(['error', 'ok', 'ok', 'quota_exceeded', 'quota_exceeded']);
    expect(h.d.lastFailure()).toBe('the service answered HTTP 400');
  });

  it('a 400 to every batch (not turned away) ends each batch error; the run goes on and ends normally', async () => {
    const h = harness(() => ({ type: 'failed', reason: 'the service answered HTTP 400', rate: {} }), { concurrency: 1 });
    const stats = await h.run(items(9));
    expect(count(h.results, 'error')).toBe(9);
    expect(h.calls.length).toBe(3);
    expect(stats.quotaStopped).toBe(false);
  });

  it('a refused key: the one-line message that says what to do', async () => {
    const h = harness(() => ({ type: 'auth' }));
    await expect(h.run(items(3))).rejects.toMatchObject({
      kind: 'auth',
      message: 'The service refused the API key (401 Unauthorized); check it, or store a new one with idv auth login.',
    });
  });

  it('the first cause that stopped the run is the one given: a refused key answered after the host tripped the breaker does not replace it', async () => {
    const refused: Outcome = { type: 'unreachable', reason: 'network error (ECONNREFUSED)', rate: {} };
    const h = harness(
      async (_it, call) => {
        if (call === 3) await new Promise((r) => setTimeout(r, 30));
        return call === 3 ? { type: 'auth' } : refused;
      },
      { batchSize: 1, concurrency: 3, retries: 0 },
    );
    const err = await h.run(items(3)).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'failed', message: expect.stringContaining('gave no answer to 2 requests in a row') });
    expect(await h.d.fatal).toBe(err);
  });

  it('--wait: windows whose answers hold no usable status count as empty (an item without a status is no validation)', async () => {
    const clock = fakeClock();
    const h = harness(
      (it) => ({ type: 'ok', results: new Map(it.slice(1).map((i) => [i, 'quota_exceeded'])), rate: { remaining: 0, reset: 0 } }),
      { batchSize: 9, concurrency: 1, wait: true, now: clock.now, sleep: clock.sleep },
    );
    const stats = await h.run(items(9));
    expect(stats.quotaStop).toBe('empty-windows');
    expect(clock.slept).toEqual(Array(MAX_EMPTY_WINDOWS).fill(1000));
  });
});

describe('a signal is heard at once', () => {
  it('a reader waiting for room is freed at once, before the requests in flight end', async () => {
    const { client, held } = heldClient();
    const ac = new AbortController();
    const d = new Scheduler({ ...BASE, client, signal: ac.signal, graceMs: 50, onResults: () => undefined });
    const list = items(30);
    let pushed = 0;
    while (d.queueHasRoom()) d.push({ key: list[pushed]!, send: list[pushed++]! });
    let room = false;
    void d.whenQueueHasRoom().then(() => (room = true));
    d.sendPartialBatches(true); // nothing can go (both slots taken): reading still waits
    await tick();
    expect(room).toBe(false);
    ac.abort('SIGINT');
    await Promise.resolve();
    expect(room).toBe(true);
    expect(held.every((r) => !r.signal.aborted)).toBe(true);
    await expect(d.finish()).rejects.toMatchObject({ kind: 'interrupted' });
    expect(held.length).toBe(2);
  });

  it('a signal during a back-off: the batch is not sent again, and its items get no status', async () => {
    const ac = new AbortController();
    const h = harness(() => ({ type: 'retry', reason: 'HTTP 503', rate: {} }), {
      concurrency: 1,
      signal: ac.signal,
      graceMs: 10,
      sleep: (_ms, signal) => new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
    });
    for (const i of items(3)) h.d.push({ key: i, send: i });
    while (h.calls.length === 0) await tick();
    await tick();
    ac.abort('SIGINT');
    await expect(h.d.finish()).rejects.toMatchObject({ kind: 'interrupted' });
    expect(h.calls).toEqual([items(3)]);
    expect(h.results.size).toBe(0);
  });

  it('a signal during a --wait quota wait: the run ends interrupted, and the reset time it was waiting for is still told', async () => {
    const ac = new AbortController();
    const h = harness(() => ({ type: 'quota', rate: { remaining: 0, reset: 600 } }), {
      concurrency: 1,
      wait: true,
      signal: ac.signal,
      graceMs: 10,
      now: () => 5_000,
      sleep: (_ms, signal) => new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
      onWait: () => setImmediate(() => ac.abort('SIGINT')),
    });
    for (const i of items(3)) h.d.push({ key: i, send: i });
    await expect(h.d.finish()).rejects.toMatchObject({ kind: 'interrupted' });
    expect(h.d.stats.resetAt).toBe(605_000);
    expect(h.calls).toEqual([items(3)]);
  });

  it('--concurrency 12: no warning of a possible listener leak (one listener per request in flight is none)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const { client, held } = heldClient();
      const d = new Scheduler({ ...BASE, client, batchSize: 1, concurrency: 12, signal: new AbortController().signal, onResults: () => undefined });
      for (const i of items(12)) d.push({ key: i, send: i });
      await tick();
      expect(held.length).toBe(12);
      for (const r of held) r.answer(ok(r.items));
      await d.finish();
      await tick();
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('a request slower than the grace period is waited for when no signal came', async () => {
    vi.useFakeTimers();
    try {
      const { client, held } = heldClient();
      const results = new Map<string, string>();
      const d = new Scheduler({ ...BASE, client, signal: new AbortController().signal, onResults: (rs) => rs.forEach(([i, s]) => results.set(i.send, s)) });
      for (const i of items(3)) d.push({ key: i, send: i });
      const done = d.finish();
      await vi.advanceTimersByTimeAsync(60_000);
      expect(held[0]!.signal.aborted).toBe(false);
      held[0]!.answer(ok(held[0]!.items));
      await done;
      expect(results.size).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });
});
