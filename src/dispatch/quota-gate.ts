// The quota gate: how many validations the service says are left (RateLimit r), when its window resets, and
// what happens once the quota is used up: the run stops, or with --wait sleeps until the reset. Every wait
// ends: their total is bounded by --max-wait (else WAIT_CEILING_MS), and --wait gives up after
// MAX_EMPTY_WINDOWS resets in a row after which the service validated nothing. No timers: the scheduler sleeps.
import { MAX_RESET_SECONDS, type RateInfo } from '../api/ratelimit.js';
import { quotaWaitMs } from './decide.js';

/** --wait without --max-wait waits at most this long in all: the longest quota window idv believes. */
export const WAIT_CEILING_MS = MAX_RESET_SECONDS * 1000;
/** --wait stops after this many waits in a row that were followed by no validation at all. */
export const MAX_EMPTY_WINDOWS = 3;

/**
 * Why the quota stopped the run: the service's quota (without --wait), or --wait gave up: no reset time was
 * given, the wait would pass --max-wait (or the ceiling), or windows reset but validated nothing.
 */
export type QuotaStop = 'quota' | 'no-reset' | 'max-wait' | 'empty-windows';

export type WhenUsedUp = { waitMs: number } | { stop: QuotaStop };

export interface QuotaGateOptions {
  wait: boolean;
  /** --max-wait, in ms. */
  maxWaitMs?: number;
}

export class QuotaGate {
  /** When the quota resets (ms since epoch), when the service said so. */
  resetAt: number | undefined;
  waitedMs = 0;
  waiting = false;
  stopped: QuotaStop | null = null;
  /** Validations left, from the latest RateLimit header (items in flight not yet taken off). */
  private budget: number | undefined;
  private waits = 0;
  private validatedSinceWait = false;
  private emptyWindows = 0;

  constructor(private readonly o: QuotaGateOptions) {}

  /** The rate-limit facts of an answer that arrived at `at`. */
  note(rate: RateInfo, at: number): void {
    if (rate.remaining !== undefined) this.budget = rate.remaining;
    const reset = rate.reset ?? rate.retryAfter;
    if (reset !== undefined) this.resetAt = at + reset * 1000;
  }

  /** How many items may be sent now, `inFlight` items being unanswered: Infinity while the service has not said. */
  allowance(inFlight: number): number {
    if (this.stopped !== null || this.waiting) return 0;
    return this.budget === undefined ? Infinity : Math.max(0, this.budget - inFlight);
  }

  /** Items the service validated (answered with a status, not quota_exceeded). */
  validated(n: number): void {
    if (n > 0) this.validatedSinceWait = true;
  }

  /** The quota is used up at `now`: how long to wait for the reset, or why the run stops; null when already waiting or stopped. */
  usedUp(now: number): WhenUsedUp | null {
    this.budget = 0;
    if (this.stopped !== null || this.waiting) return null;
    const next = this.next(now);
    if ('stop' in next) this.stopped = next.stop;
    else this.waiting = true;
    return next;
  }

  /** A wait of `ms` ended; `slept`: it ran its course (the window has reset), rather than being cut by a signal. */
  waited(ms: number, slept: boolean): void {
    this.waiting = false;
    this.waitedMs += ms;
    this.waits++;
    this.validatedSinceWait = false;
    if (slept) {
      this.budget = undefined;
      this.resetAt = undefined;
    }
  }

  private next(now: number): WhenUsedUp {
    if (!this.o.wait) return { stop: 'quota' };
    this.emptyWindows = this.waits > 0 && !this.validatedSinceWait ? this.emptyWindows + 1 : 0;
    if (this.emptyWindows >= MAX_EMPTY_WINDOWS) return { stop: 'empty-windows' };
    if (this.resetAt === undefined) return { stop: 'no-reset' };
    const ms = quotaWaitMs(this.resetAt, now, (this.o.maxWaitMs ?? WAIT_CEILING_MS) - this.waitedMs);
    return ms === null ? { stop: 'max-wait' } : { waitMs: ms };
  }
}
