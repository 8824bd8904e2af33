// The scheduler (src/dispatch/scheduler.ts) with --wait: every wait ends, and a batch in its back-off goes again once.
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../../src/api/client.js';
import { MAX_EMPTY_WINDOWS } from '../../../src/dispatch/quota-gate.js';
import { Scheduler, type WorkItem } from '../../../src/dispatch/scheduler.js';
import { BASE, harness, ok, items, count, against, fakeClock } from './harness.js';

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
