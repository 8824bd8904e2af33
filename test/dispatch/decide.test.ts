// decide(): what a batch's answer means, as a table (no timers, no state).
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/api/client.js';
import { backoffMs, decide, quotaWaitMs, type Decision } from '../../src/dispatch/decide.js';

const ok: Outcome = { type: 'ok', results: new Map(), rate: {} };
const retry = (retryAfter?: number): Outcome => ({ type: 'retry', reason: 'the service answered HTTP 503', rate: { retryAfter } });
const half = () => 0.5;
const unreachable: Outcome = { type: 'unreachable', reason: 'network error (ECONNREFUSED)', rate: {} };
const forbidden: Outcome = { type: 'failed', reason: 'the service answered HTTP 403', rate: {}, turnedAway: true };

describe('decide', () => {
  const rows: Array<[string, Outcome, { size?: number; attempt?: number; over?: number; wait?: boolean }, Decision]> = [
    ['a full answer', ok, {}, { then: 'answers', quotaHit: false }],
    ['an answer with quota_exceeded items: the quota is used up', ok, { over: 2 }, { then: 'answers', quotaHit: true }],
    ['429 without --wait: all quota_exceeded, stop', { type: 'quota', rate: {} }, {}, { then: 'quota_exceeded', quotaHit: true }],
    ['429 with --wait: requeued, wait', { type: 'quota', rate: {} }, { wait: true }, { then: 'requeue', quotaHit: true }],
    ['401: the run stops', { type: 'auth' }, {}, { then: 'drop', fatal: 'auth' }],
    ['too large, 8 items: split in halves', { type: 'too-large', status: 413, rate: {} }, { size: 8 }, { then: 'requeue', quotaHit: false, batchSize: 4 }],
    ['too large, 3 items: halves of 1', { type: 'too-large', status: 413, rate: {} }, { size: 3 }, { then: 'requeue', quotaHit: false, batchSize: 1 }],
    ['too large alone, retries left: tried again after a back-off, not halved', { type: 'too-large', status: 413, rate: {} }, { size: 1, attempt: 0 }, { then: 'retry', afterMs: 250, reason: 'the service refused a single item as too large (HTTP 413)' }],
    ['too large alone, retries used up: error', { type: 'too-large', status: 413, rate: {} }, { size: 1, attempt: 3 }, { then: 'error', quotaHit: false, reason: 'the service refused a single item as too large (HTTP 413)' }],
    ['a 4xx: error at once', { type: 'failed', reason: 'the service answered HTTP 400', rate: {} }, {}, { then: 'error', quotaHit: false, reason: 'the service answered HTTP 400' }],
    ['retryable, first attempt', retry(), { attempt: 0 }, { then: 'retry', afterMs: 250, reason: 'the service answered HTTP 503' }],
    ['retryable, third attempt: back-off doubles', retry(), { attempt: 2 }, { then: 'retry', afterMs: 1000, reason: 'the service answered HTTP 503' }],
    ['retryable, Retry-After 7', retry(7), { attempt: 1 }, { then: 'retry', afterMs: 7000, reason: 'the service answered HTTP 503' }],
    ['retryable, retries used up: error', retry(), { attempt: 3 }, { then: 'error', quotaHit: false, reason: 'the service answered HTTP 503' }],
    ['no answer from the host: retried like a 503', unreachable, { attempt: 1 }, { then: 'retry', afterMs: 500, reason: 'network error (ECONNREFUSED)' }],
    ['no answer from the host, retries used up: error', unreachable, { attempt: 3 }, { then: 'error', quotaHit: false, reason: 'network error (ECONNREFUSED)' }],
    ['a 403 (turned away): error at once, not retried', forbidden, { attempt: 0 }, { then: 'error', quotaHit: false, reason: 'the service answered HTTP 403' }],
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
  it('waits until the reset and a second more, within --max-wait', () => {
    expect(quotaWaitMs(10_000, 4_000, Infinity)).toBe(7_000);
    expect(quotaWaitMs(3_000, 4_000, Infinity)).toBe(1_000);
    expect(quotaWaitMs(10_000, 4_000, 6_999)).toBe(null);
    expect(quotaWaitMs(10_000, 4_000, 7_000)).toBe(7_000); // --max-wait exactly as long as the wait: it waits
  });
});
