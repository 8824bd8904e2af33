// The scheduler (src/dispatch/scheduler.ts) and a signal: requests in flight get their grace, and every wait is freed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Scheduler } from '../../../src/dispatch/scheduler.js';
import { BASE, harness, ok, items, heldClient, tick } from './harness.js';

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
    d.waiting('output', true); // nothing can go (both slots taken): reading still waits
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
