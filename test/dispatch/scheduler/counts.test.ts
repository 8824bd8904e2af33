// The scheduler (src/dispatch/scheduler.ts): what the summary and the report count.
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../../src/dispatch/scheduler.js';
import { BASE, harness, ok, items, heldClient, tick } from './harness.js';

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
