// The scheduler (src/dispatch/scheduler.ts) when requests fail: the circuit breaker, and what the run says went wrong.
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../../src/api/client.js';
import { MAX_EMPTY_WINDOWS } from '../../../src/dispatch/quota-gate.js';
import { harness, ok, items, count, fakeClock } from './harness.js';

describe('the circuit breaker', () => {
  const refused: Outcome = { type: 'unreachable', reason: 'network error (ECONNREFUSED)', rate: {} };
  const forbidden: Outcome = { type: 'failed', reason: 'the service answered HTTP 403: Forbidden', rate: {}, turnedAway: true };

  it('a host that refuses every connection: the run stops (exit 1) once a batch has used its tries, naming the host and the cause', async () => {
    const h = harness(() => refused, { retries: 3, concurrency: 1 });
    const err = await h.run(items(9)).catch((e: unknown) => e);
    expect(err).toMatchObject({
      kind: 'failed',
      message:
        'The service at api.example.test gave no answer to 4 requests in a row: network error (ECONNREFUSED); check --base-url and the network, then run the same command again.',
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
