// The scheduler (src/dispatch/scheduler.ts) sending: batches, concurrency, retries, splits, what waits for what.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../../src/dispatch/scheduler.js';
import { BASE, harness, ok, items, count, fakeClock, heldClient, tick } from './harness.js';

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
    h.d.waiting('output', true);
    await new Promise((r) => setTimeout(r, 20));
    expect(h.calls).toEqual([items(2)]);
    h.d.waiting('output', false);
    await h.d.finish();
  });

  it('one rule for part-filled batches: they go while anyone waits on the queue (output, a paused input, other runs), and wait again once nobody does', async () => {
    const h = harness((it) => ok(it), { batchSize: 5, concurrency: 1 });
    const pushed = (from: number, n: number) => items(from + n).slice(from).forEach((i) => h.d.push({ key: i, send: i }));
    const settle = () => new Promise((r) => setTimeout(r, 20));
    pushed(0, 2);
    h.d.waiting('other-runs', true);
    h.d.waiting('input', true);
    await settle();
    expect(h.calls.map((c) => c.length)).toEqual([2]);
    h.d.waiting('other-runs', false); // the paused input still waits
    pushed(2, 1);
    await settle();
    expect(h.calls.map((c) => c.length)).toEqual([2, 1]);
    h.d.waiting('input', false); // nobody waits: a part-filled batch waits to fill
    pushed(3, 2);
    await settle();
    expect(h.calls.map((c) => c.length)).toEqual([2, 1]);
    await h.d.finish(); // input ended: it goes
    expect(h.calls.map((c) => c.length)).toEqual([2, 1, 2]);
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
    const h = harness((it) => (it.length > 1 ? { type: 'too-large', status: 413, rate: {} } : ok(it)), { batchSize: 4, concurrency: 1 });
    await h.run(items(4));
    expect(h.calls.map((c) => c.length)).toEqual([4, 2, 1, 1, 1, 1]);
    expect(h.results.size).toBe(4);
  });

  it('later batches stay as small as the smallest split made them: a later split of a bigger batch does not grow them back', async () => {
    // The 2-item batch is refused first (size 1 from then on), the 4-item batch after it (halves of 2).
    const h = harness(
      async (it) => {
        if (it.length === 4) await new Promise((r) => setTimeout(r, 30));
        return it.length > 1 ? { type: 'too-large', status: 413, rate: {} } : ok(it);
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
