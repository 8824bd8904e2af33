// How a finished run ends: exit 0, or the error that says why not (quota 4, errors 1). Pure.
import { IdvError } from '../../errors.js';
import { formatDuration } from '../../duration.js';
import { clockTime, notWaited } from '../../output/summary.js';
import { ERROR, QUOTA_EXCEEDED } from '../../statuses.js';
import { MAX_EMPTY_WINDOWS, type QuotaStop } from '../../dispatch/quota-gate.js';
import type { ValidateOptions } from './flags.js';
import type { Finished } from './pipeline.js';

export interface Ending {
  /** Records per status. */
  counts: ReadonlyMap<string, number>;
  /** When the quota resets (ms since epoch), when the service said. */
  resetAt?: number;
  now: number;
  /** Whether results are cached (then a rerun does not pay twice). */
  cached: boolean;
  /** Why the last batch failed, in words. */
  lastFailure?: string;
  /** --max-spend, and how many items it left unsent; whether the service's quota stopped the run. */
  maxSpend?: number;
  capped: number;
  quotaStopped: boolean;
  /** Why the quota stopped the run, when it did: with --wait, why waiting gave up. */
  quotaStop?: QuotaStop | null;
  /** --wait: its bound and how long the run waited already. */
  wait?: { maxWaitSeconds?: number; waitedMs: number };
}

/** Why --wait stopped waiting, said after the count of records it left quota_exceeded. */
const WAIT_GAVE_UP: Partial<Record<QuotaStop, string>> = {
  'max-wait': '; --wait stopped: waiting for the reset would pass --max-wait (or 32 days of waiting in all)',
  'empty-windows': `; --wait stopped: the service validated nothing after ${MAX_EMPTY_WINDOWS} resets in a row`,
};

/** Why --wait gave up waiting after it had waited (too many empty windows, or all the waiting it may do). */
function waitGaveUp(e: Ending): string {
  if (e.quotaStop === 'max-wait' && didNotWait(e) !== '') return ''; // said with the reset: it did not wait for this one
  return (e.quotaStop && WAIT_GAVE_UP[e.quotaStop]) ?? '';
}

/** With --wait: that it did not wait for this reset, and why (too far, or not said). */
function didNotWait(e: Ending): string {
  if (!e.wait || e.quotaStop === 'empty-windows') return '';
  const note = notWaited(e.resetAt === undefined ? undefined : e.resetAt - e.now, e.wait.maxWaitSeconds, e.wait.waitedMs);
  return note ? `; ${note}` : '';
}

const records = (n: number) => `${n.toLocaleString('en-US')} record${n === 1 ? '' : 's'}`;

/** The error a run ends with, or null for exit 0. The quota (4) wins over errors (1): a rerun retries both. */
export function outcomeOf(e: Ending): IdvError | null {
  const over = e.counts.get(QUOTA_EXCEEDED) ?? 0;
  const errors = e.counts.get(ERROR) ?? 0;
  const again = e.cached ? '; run the same command again to go on: results already received are cached and not paid for twice.' : '.';
  if (over > 0 && e.capped > 0 && !e.quotaStopped) {
    return new IdvError(
      'quota',
      `Spend cap reached: --max-spend ${e.maxSpend!.toLocaleString('en-US')} items sent; ${records(over)} not validated (quota_exceeded)${again}`,
    );
  }
  if (over > 0) {
    const known = e.resetAt !== undefined;
    const when = known
      ? `It resets in ${formatDuration((e.resetAt! - e.now) / 1000)} (at ${clockTime(e.resetAt!, e.now)})${didNotWait(e)}`
      : `The service did not say when it resets${didNotWait(e) ? ', so --wait did not wait' : ''}`;
    const then = e.cached ? `; run the same command again ${known ? 'then' : 'later'}: results already received are cached and not paid for twice.` : '.';
    return new IdvError('quota', `Quota used up: ${records(over)} not validated (quota_exceeded)${waitGaveUp(e)}. ${when}${then}`);
  }
  if (errors > 0) {
    const why = e.lastFailure ? `: ${e.lastFailure}` : '';
    return new IdvError('failed', `${records(errors)} could not be validated (error${why}); run the same command again to retry them.`);
  }
  return null;
}

/** How a run that went to its end ended, for outcomeOf(). */
export function endingOf(options: ValidateOptions, done: Finished, cached: boolean): Ending {
  const { stats } = done;
  return {
    counts: done.counts,
    resetAt: stats.resetAt,
    now: Date.now(),
    cached,
    lastFailure: done.lastFailure,
    maxSpend: options.maxSpend,
    capped: stats.capped,
    quotaStopped: stats.quotaStopped,
    quotaStop: stats.quotaStop,
    wait: options.wait ? { maxWaitSeconds: options.maxWaitSeconds, waitedMs: stats.waitedMs } : undefined,
  };
}
