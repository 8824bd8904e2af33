// What to do with a batch once the service (or the network) has answered: pure rules, no timers, no state.
// The scheduler (scheduler.ts) carries the decision out; these rules are unit-tested as a table.
import type { Outcome } from '../api/client.js';
import { ERROR, QUOTA_EXCEEDED } from '../core/statuses.js';

export interface DecideOptions {
  /** --retries: how many times a batch is sent again after a retryable failure. */
  retries: number;
  /** --wait: items the quota left unvalidated wait for the reset instead of ending quota_exceeded. */
  wait: boolean;
  /** A number in [0, 1) for the back-off's jitter. */
  random: () => number;
}

/**
 * What a batch's items get:
 * - 'answers': each its status from the answer (missing or unusable ones `error`); those the quota left
 *   unvalidated (`quota_exceeded` in the answer) are requeued with --wait, else end `quota_exceeded`.
 * - a status for all: `error` (failed for good) or `quota_exceeded` (the quota stop, without --wait).
 * - 'requeue': back to the front of the queue (a 429 with --wait; a batch split in halves).
 * - 'retry': sent again after `afterMs`.
 * - 'drop': nothing (the run stops on a refused key; its items stay unvalidated and uncached).
 */
export type Decision =
  | { then: 'answers'; quotaHit: boolean }
  | { then: typeof ERROR | typeof QUOTA_EXCEEDED; quotaHit: boolean; reason?: string }
  | { then: 'requeue'; quotaHit: boolean; batchSize?: number }
  | { then: 'retry'; afterMs: number; reason: string }
  | { then: 'drop'; fatal: 'auth' };

/** Why an item refused alone as too large (413, or a 400 naming the size) failed. */
export const tooLargeAlone = (status: number) => `the service refused a single item as too large (HTTP ${status})`;

/** Back-off after the n-th failed attempt (from 0): full jitter, doubling from 0.5 s, at most 30 s. */
export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 30_000;
/** A Retry-After on a failed request is honoured up to this long (the quota wait of --wait is apart). */
export const RETRY_AFTER_CAP_MS = 60_000;

export function backoffMs(attempt: number, retryAfterSeconds: number | undefined, random: () => number): number {
  if (retryAfterSeconds !== undefined) return Math.min(retryAfterSeconds * 1000, RETRY_AFTER_CAP_MS);
  return random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
}

/**
 * The decision for a batch of `size` items whose attempt number `attempt` (from 0) ended in `outcome`;
 * `over` is how many items of a 2xx answer came back quota_exceeded.
 */
export function decide(outcome: Outcome, size: number, attempt: number, over: number, o: DecideOptions): Decision {
  switch (outcome.type) {
    case 'ok':
      return { then: 'answers', quotaHit: over > 0 };
    case 'quota':
      return o.wait ? { then: 'requeue', quotaHit: true } : { then: QUOTA_EXCEEDED, quotaHit: true };
    case 'auth':
      return { then: 'drop', fatal: 'auth' };
    case 'too-large':
      // Halved down to one item; refused alone, it is tried again as a failed request is, then ends error.
      if (size > 1) return { then: 'requeue', quotaHit: false, batchSize: Math.floor(size / 2) };
      if (attempt >= o.retries) return { then: ERROR, quotaHit: false, reason: tooLargeAlone(outcome.status) };
      return { then: 'retry', afterMs: backoffMs(attempt, outcome.rate.retryAfter, o.random), reason: tooLargeAlone(outcome.status) };
    case 'failed':
      return { then: ERROR, quotaHit: false, reason: outcome.reason };
    case 'retry':
    case 'unreachable':
      if (attempt >= o.retries) return { then: ERROR, quotaHit: false, reason: outcome.reason };
      return { then: 'retry', afterMs: backoffMs(attempt, outcome.rate.retryAfter, o.random), reason: outcome.reason };
  }
}

/**
 * How long --wait waits for the quota to reset at `resetAt`, or null when it cannot: the wait would pass
 * --max-wait (`leftMs`: what --max-wait still allows). A second is added, so that the first request after
 * the wait finds the new window open. (An unknown reset time is no wait: the quota gate stops before asking.)
 */
export function quotaWaitMs(resetAt: number, now: number, leftMs: number): number | null {
  const ms = Math.max(0, resetAt - now) + 1000;
  return ms <= leftMs ? ms : null;
}
