// How a finished run ends: exit 0, or the error that says why not (quota 4, errors 1). Pure.
import { IdvError, type StopSignal } from '../../core/errors.js';
import { formatDuration } from '../../core/duration.js';
import { clockTime, notWaited } from '../../output/summary.js';
import { ERROR, QUOTA_EXCEEDED } from '../../core/statuses.js';
import { MAX_EMPTY_WINDOWS, type QuotaStop } from '../../dispatch/quota-gate.js';
import type { ValidateOptions } from './flags.js';
import type { Finished } from './pipeline.js';
import type { RunParts } from './run-facts.js';
import { shellWord } from '../../input/sources/items.js';

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
  /** The service's host, named with a failure to reach it. */
  host?: string;
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
    const reaching = e.host && /^(network error|no answer)/.test(e.lastFailure ?? '') ? ` reaching ${e.host}` : '';
    const why = e.lastFailure ? `: ${e.lastFailure}${reaching}` : '';
    return new IdvError('failed', `${records(errors)} could not be validated (error${why}); run the same command again to retry them.`);
  }
  return null;
}

/** How a run that went to its end ended, for outcomeOf(). */
export function endingOf(options: ValidateOptions, done: Finished, cached: boolean, host?: string): Ending {
  const { stats } = done;
  return {
    counts: done.counts,
    resetAt: stats.resetAt,
    now: Date.now(),
    cached,
    lastFailure: done.lastFailure,
    host,
    maxSpend: options.maxSpend,
    capped: stats.capped,
    quotaStopped: stats.quotaStopped,
    quotaStop: stats.quotaStop,
    wait: options.wait ? { maxWaitSeconds: options.maxWaitSeconds, waitedMs: stats.waitedMs } : undefined,
  };
}

/** How far an interrupted run got, and what it keeps. */
export interface Interruption {
  signal: StopSignal;
  /** Records with their result, and records read (of the total, when it is known). */
  passed: number;
  read: number;
  total: number | null;
  /** Items the service answered: what the run paid for. */
  sent: number;
  kept: NonNullable<RunParts['kept']>;
  /** -o FILE, left as it was; null for standard output. */
  output: string | null;
  /** The command line as given (its words after `idv`); the platform, for its quoting. */
  argv: readonly string[];
  platform?: NodeJS.Platform;
}

/**
 * An interruption, in one line: what was done (records with their result, items sent), what is kept (the cache,
 * or nothing), what became of -o, and the command that goes on, quoted for the shell.
 */
export function interruptionOf(i: Interruption): IdvError {
  const of = i.total !== null ? `of ${records(i.total)}` : `of the ${records(i.read)} read`;
  const done = i.passed > 0 ? `${i.passed.toLocaleString('en-US')} ${of} had their result` : `no record had its result yet (${records(i.read)} read)`;
  const sent = i.sent > 0 ? `${items(i.sent)} validated by the service` : 'nothing sent';
  const kept = {
    cache: i.sent > 0 ? '; those results are kept in the cache' : '',
    nothing: i.sent > 0 ? '; with --no-cache they are not kept, and running again pays for them again' : '',
    sandbox: '; the sandbox keeps nothing (and costs nothing)',
  }[i.kept];
  const output = i.output !== null ? `; -o ${i.output} is left as it was` : '';
  const again = shellLine(['idv', ...i.argv], i.platform);
  const next = i.kept === 'cache' && i.sent > 0 ? `To go on without paying for them again: ${again}` : `To run it again: ${again}`;
  return new IdvError('interrupted', `Interrupted (${i.signal}): ${done}, ${sent}${kept}${output}. ${next}`, i.signal);
}

const items = (n: number) => `${n.toLocaleString('en-US')} item${n === 1 ? '' : 's'}`;

/** Words as a shell reads them back: a word of plain characters as it is, any other quoted (cmd's "…" on Windows, else '…'). */
export function shellLine(words: readonly string[], platform?: NodeJS.Platform): string {
  return words.map((w) => (platform === 'win32' && !/^[\w@%+=:,./-]+$/.test(w) ? `"${w.replace(/"/g, '""')}"` : shellWord(w))).join(' ');
}
