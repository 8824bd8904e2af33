// decide(): what a batch's answer means, as a table (no timers, no state). And the scheduler's rule that a
// batch waiting out its back-off is never sent after the quota stop.
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../src/api/client.js';
import { backoffMs, decide, quotaWaitMs, type Decision } from '../src/dispatch/decide.js';
import { createDispatcher, type WorkItem } from '../src/dispatch/dispatch.js';

const ok: Outcome = { type: 'ok', results: new Map(), rate: {} };
const retry = (retryAfter?: number): Outcome => ({ type: 'retry', reason: 'the service answered HTTP 503', rate: { retryAfter } });
const half = () => 0.5;

describe('decide', () => {
  const rows: Array<[string, Outcome, { size?: number; attempt?: number; over?: number; wait?: boolean }, Decision]> = [
    ['a full answer', ok, {}, { then: 'answers', quotaHit: false }],
    ['an answer with quota_exceeded items: the quota is used up', ok, { over: 2 }, { then: 'answers', quotaHit: true }],
    ['429 without --wait: all quota_exceeded, stop', { type: 'quota', rate: {} }, {}, { then: 'quota_exceeded', quotaHit: true }],
    ['429 with --wait: requeued, wait', { type: 'quota', rate: {} }, { wait: true }, { then: 'requeue', quotaHit: true }],
    ['401: the run stops', { type: 'auth' }, {}, { then: 'drop', fatal: 'auth' }],
    ['too large, 8 items: split in halves', { type: 'too-large', rate: {} }, { size: 8 }, { then: 'requeue', quotaHit: false, batchSize: 4 }],
    ['too large, 3 items: halves of 1', { type: 'too-large', rate: {} }, { size: 3 }, { then: 'requeue', quotaHit: false, batchSize: 1 }],
    ['too large alone: error', { type: 'too-large', rate: {} }, { size: 1 }, { then: 'error', quotaHit: false, reason: 'the service refused a single item as too large' }],
    ['a 4xx: error at once', { type: 'failed', reason: 'the service answered HTTP 400', rate: {} }, {}, { then: 'error', quotaHit: false, reason: 'the service answered HTTP 400' }],
    ['retryable, first attempt', retry(), { attempt: 0 }, { then: 'retry', afterMs: 250, reason: 'the service answered HTTP 503' }],
    ['retryable, third attempt: back-off doubles', retry(), { attempt: 2 }, { then: 'retry', afterMs: 1000, reason: 'the service answered HTTP 503' }],
    ['retryable, Retry-After 7', retry(7), { attempt: 1 }, { then: 'retry', afterMs: 7000, reason: 'the service answered HTTP 503' }],
    ['retryable, retries used up: error', retry(), { attempt: 3 }, { then: 'error', quotaHit: false, reason: 'the service answered HTTP 503' }],
  ];
  for (const [name, outcome, c, expected] of rows) {
    it(name, () => {
      expect(decide(outcome, c.size ?? 5, c.attempt ?? 0, c.over ?? 0, { retries: 3, wait: c.wait ?? false, random: half })).toEqual(expected);
    });
  }
});

describe('backoffMs', () => {
  it('full jitter over an exponent: random × min(30 s, 0.5 s × 2^attempt)', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((a) => backoffMs(a, undefined, () => 0.999))).toEqual(
      [499.5, 999, 1998, 3996, 7992, 15984, 29970, 29970],
    );
    expect(backoffMs(3, undefined, () => 0)).toBe(0);
    expect(backoffMs(3, undefined, () => 0.25)).toBe(1000);
  });
  it('Retry-After is honoured up to 60 s', () => {
    expect(backoffMs(0, 2, half)).toBe(2000);
    expect(backoffMs(0, 59, half)).toBe(59_000);
    expect(backoffMs(0, 3600, half)).toBe(60_000);
  });
});

describe('quotaWaitMs', () => {
  it('waits until the reset and a second more, within --max-wait; unknown reset: no wait', () => {
    expect(quotaWaitMs(10_000, 4_000, Infinity)).toBe(7_000);
    expect(quotaWaitMs(3_000, 4_000, Infinity)).toBe(1_000);
    expect(quotaWaitMs(10_000, 4_000, 6_999)).toBe(null);
    expect(quotaWaitMs(undefined, 4_000, Infinity)).toBe(null);
  });
});

describe('the scheduler after a quota stop', () => {
  it('a batch waiting out its back-off when the quota stop comes is not sent again: its items end quota_exceeded', async () => {
    const calls: string[][] = [];
    let wake: () => void = () => undefined;
    let slept = 0;
    const results = new Map<string, string>();
    const d = createDispatcher({
      client: {
        async validate(_e, _f, items) {
          calls.push(items);
          if (items[0] === 'a@x.com') return { type: 'retry', reason: 'HTTP 503', rate: {} };
          return { type: 'quota', rate: {} };
        },
        close: async () => undefined,
      },
      endpoint: '/emails/validate',
      field: 'emails',
      batchSize: 1,
      concurrency: 2,
      retries: 3,
      wait: false,
      signal: new AbortController().signal,
      // The first batch's back-off ends only once the other batch has met the 429.
      sleep: () => (slept++ === 0 ? new Promise<void>((r) => (wake = r)) : Promise.resolve()),
      onResults: (rs: Array<[WorkItem, string]>) => {
        for (const [i, s] of rs) results.set(i.send, s);
        if (s429(rs)) setImmediate(wake);
      },
    });
    const s429 = (rs: Array<[WorkItem, string]>) => rs.some(([, s]) => s === 'quota_exceeded');
    d.push({ key: 'a@x.com', send: 'a@x.com' });
    d.push({ key: 'b@x.com', send: 'b@x.com' });
    await d.finish();
    expect(calls).toEqual([['a@x.com'], ['b@x.com']]); // never a second ['a@x.com']
    expect(Object.fromEntries(results)).toEqual({ 'a@x.com': 'quota_exceeded', 'b@x.com': 'quota_exceeded' });
  });
});
