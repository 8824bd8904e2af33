// Unit tests of the dispatcher with a scripted client: batching, concurrency, quota gate, retries, splits.
import { describe, expect, it } from 'vitest';
import type { Client, Outcome } from '../src/api/client.js';
import { createDispatcher, type DispatchOptions, type WorkItem } from '../src/dispatch/dispatch.js';

type Script = (items: string[], call: number) => Outcome | Promise<Outcome>;

function harness(script: Script, opts: Partial<DispatchOptions> = {}) {
  const calls: string[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const client: Client = {
    async validate(_e, _f, items) {
      calls.push(items);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      try {
        return await script(items, calls.length);
      } finally {
        inFlight--;
      }
    },
    close: async () => undefined,
  };
  const results = new Map<string, string>();
  const d = createDispatcher({
    client,
    endpoint: '/emails/validate',
    field: 'emails',
    batchSize: 3,
    concurrency: 2,
    retries: 2,
    wait: false,
    signal: new AbortController().signal,
    sleep: async () => undefined,
    onResults: (rs: Array<[WorkItem, string]>) => rs.forEach(([i, s]) => results.set(i.send, s)),
    ...opts,
  });
  const run = async (items: string[]) => {
    for (const i of items) {
      d.push({ key: i, send: i });
      await d.room();
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

describe('dispatcher', () => {
  it('a signal aborted before the dispatcher exists (Ctrl-C while the cache loads): created fine, sends nothing', async () => {
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

  it('stops at quota_exceeded: the rest is quota_exceeded and never sent', async () => {
    const h = harness((it, call) =>
      call === 1 ? { type: 'ok', results: new Map(it.map((i, n) => [i, n < 2 ? 'ok' : 'quota_exceeded'])), rate: {} } : ok(it),
      { concurrency: 1 },
    );
    const stats = await h.run(items(9));
    expect(h.calls.length).toBe(1);
    expect(stats.quotaStopped).toBe(true);
    expect([...h.results.values()].filter((s) => s === 'ok').length).toBe(2);
    expect([...h.results.values()].filter((s) => s === 'quota_exceeded').length).toBe(7);
  });

  it('stops after a 429 and cuts batches to the remaining quota', async () => {
    const h = harness((it, call) => (call === 1 ? ok(it, { remaining: 2 }) : call === 2 ? ok(it, { remaining: 0 }) : { type: 'quota', rate: {} }), {
      concurrency: 1,
    });
    await h.run(items(9));
    expect(h.calls.map((c) => c.length)).toEqual([3, 2]);
    expect([...h.results.values()].filter((s) => s === 'quota_exceeded').length).toBe(4);
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

  it('a missing item is error, not re-sent', async () => {
    const h = harness((it) => ({ type: 'ok', results: new Map(it.slice(1).map((i) => [i, 'ok'])), rate: {} }), { concurrency: 1 });
    await h.run(items(3));
    expect(h.calls.length).toBe(1);
    expect(h.results.get('u0@x.com')).toBe('error');
  });

  it('401 is fatal with the auth kind', async () => {
    const h = harness(() => ({ type: 'auth' }));
    await expect(h.run(items(3))).rejects.toMatchObject({ kind: 'auth' });
  });

  it('--wait sleeps until the reset and resends what got quota_exceeded', async () => {
    const slept: number[] = [];
    let now = 1_000_000;
    const h = harness(
      (it, call) =>
        call === 1
          ? { type: 'ok', results: new Map(it.map((i, n) => [i, n === 0 ? 'ok' : 'quota_exceeded'])), rate: { remaining: 0, reset: 30 } }
          : ok(it, { remaining: 10, reset: 3600 }),
      {
        concurrency: 1,
        wait: true,
        now: () => now,
        sleep: async (ms) => {
          slept.push(ms);
          now += ms;
        },
      },
    );
    await h.run(items(3));
    expect(slept).toEqual([31_000]);
    expect(h.calls).toEqual([items(3), items(3).slice(1)]);
    expect([...h.results.values()]).toEqual(['ok', 'ok', 'ok']);
  });

  it('--max-wait shorter than the reset stops instead', async () => {
    const h = harness(() => ({ type: 'quota', rate: { retryAfter: 600 } }), { wait: true, maxWaitSeconds: 60, concurrency: 1 });
    const stats = await h.run(items(2));
    expect(stats.quotaStopped).toBe(true);
    expect(h.calls.length).toBe(1);
  });
});
