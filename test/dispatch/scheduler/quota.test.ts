// The scheduler (src/dispatch/scheduler.ts) and the quota: a stop, the count the service gives, --max-spend.
import { describe, expect, it } from 'vitest';
import { Scheduler, type WorkItem } from '../../../src/dispatch/scheduler.js';
import { BASE, harness, ok, items, count, against, tick } from './harness.js';

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
        return { type: 'too-large', status: 413, rate: {} };
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
