// The closing summary on standard error: a small table people read at a glance.
import { formatDuration } from '../core/duration.js';
import type { Chalk } from './colors.js';
import { statusColour } from './format.js';
import { KNOWN_STATUSES } from '../core/statuses.js';
import { terminalSafe } from '../system/terminal-text.js';
import { PERSON_WIDTH } from '../system/terminal-size.cjs';
import { wrap } from '../system/wrap.js';
import { displayWidth, padEndTo } from '../system/display-width.js';

export interface SummaryFacts {
  records: number;
  /** Lines that held text and were no records (the header apart): said after the records. */
  skipped?: number;
  counts: ReadonlyMap<string, number>;
  fromCache: number;
  /** Whether the run used a cache (not with --no-cache, --sandbox): without one, nothing is said of it. */
  cacheUsed?: boolean;
  sentItems: number;
  requests: number;
  elapsedMs: number;
  remaining?: number;
  quota?: number;
  resetAt?: number;
  now: number;
  /** On a terminal: a bar per status, its length the status's share of the records. */
  bars?: boolean;
  /** The widest line: the terminal's width (PERSON_WIDTH when not a terminal). */
  width?: number;
}

const BAR_CELLS = 20;

/** `█████░░░…`: the share in BAR_CELLS cells, at least one for any record at all. */
function bar(n: number, total: number): string {
  const filled = n === 0 ? 0 : Math.max(1, Math.round((BAR_CELLS * n) / total));
  return '█'.repeat(filled) + '░'.repeat(BAR_CELLS - filled);
}

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

export function formatSummary(f: SummaryFacts, chalk: Chalk | null): string {
  const width = f.width ?? PERSON_WIDTH;
  const order = [...KNOWN_STATUSES, ...[...f.counts.keys()].filter((s) => !KNOWN_STATUSES.includes(s)).sort()];
  const rows = order.filter((s) => (f.counts.get(s) ?? 0) > 0);
  const nameWidth = Math.max(6, ...rows.map((s) => displayWidth(terminalSafe(s))));
  const countWidth = Math.max(1, ...rows.map((s) => (f.counts.get(s) ?? 0).toLocaleString('en-US').length));
  // A row is `  name  count  pct%`, and its bar after two spaces when the line has room for it.
  const bars = f.bars === true && f.records > 0 && 2 + nameWidth + 2 + countWidth + 2 + 6 + 2 + BAR_CELLS <= width;
  const lines = [`${plural(f.records, 'record')}${f.skipped ? ` (${plural(f.skipped, 'line')} skipped)` : ''} in ${formatElapsed(f.elapsedMs)}`];
  for (const s of rows) {
    const n = f.counts.get(s)!;
    const pct = f.records ? ((100 * n) / f.records).toFixed(1).padStart(5) + '%' : '';
    const name = padEndTo(terminalSafe(s), nameWidth);
    const paint = chalk ? statusColour(chalk, s) : (t: string) => t;
    const shape = bars ? `  ${paint(bar(n, f.records))}` : '';
    lines.push(`  ${paint(name)}  ${n.toLocaleString('en-US').padStart(countWidth)}  ${pct}${shape}`);
  }
  // Only what happened: no cache line without a cache, no "0 items sent in 0 requests".
  const tail = [
    ...(f.cacheUsed === false ? [] : [`${plural(f.fromCache, 'item')} from the cache`]),
    f.sentItems > 0 || f.requests > 0 ? `${plural(f.sentItems, 'item')} sent in ${plural(f.requests, 'request')}` : 'nothing sent',
  ];
  if (f.remaining !== undefined) {
    let q = `quota left ${f.remaining.toLocaleString('en-US')}${f.quota !== undefined ? ` of ${f.quota.toLocaleString('en-US')}` : ''}`;
    if (f.resetAt !== undefined) q += `, resets in ${formatDuration((f.resetAt - f.now) / 1000)}`;
    tail.push(q);
  }
  lines.push(...joinFitting(tail, ' · ', width));
  return lines.join('\n') + '\n';
}

/** Parts joined by `sep` on as few lines of at most `width` as they fit on; a part split only when it is wider. */
export function joinFitting(parts: string[], sep: string, width: number): string[] {
  const lines: string[] = [];
  for (const part of parts) {
    const last = lines.length - 1;
    if (last >= 0 && displayWidth(lines[last]!) + sep.length + displayWidth(part) <= width) lines[last] += sep + part;
    else lines.push(...wrap(part, width).split('\n'));
  }
  return lines;
}

function formatElapsed(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : formatDuration(ms / 1000);
}

/**
 * When a quota resets, in local time with its zone (the TZ environment variable's, or `timeZone`): `05:21 GMT+1`
 * within a day of `now`, else with its date (`2026-12-23 05:21 GMT+1`).
 */
export function clockTime(ms: number, now: number, timeZone?: string): string {
  const parts = Object.fromEntries(zoned(timeZone).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const time = `${parts.hour}:${parts.minute} ${parts.timeZoneName}`;
  return Math.abs(ms - now) < 86_400_000 ? time : `${parts.year}-${parts.month}-${parts.day} ${time}`;
}

function zoned(timeZone: string | undefined): Intl.DateTimeFormat {
  const options: Intl.DateTimeFormatOptions = { hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' };
  try {
    return new Intl.DateTimeFormat('en-US', { ...options, timeZone });
  } catch {
    return new Intl.DateTimeFormat('en-US', options); // a zone ICU does not know: the process's own
  }
}

/**
 * Why --wait stopped instead of waiting (`did not wait: reset in 59m exceeds --max-wait 1m`), or null when it
 * would have waited. `resetInMs` undefined: the service did not say when the quota resets.
 */
export function notWaited(resetInMs: number | undefined, maxWaitSeconds: number | undefined, waitedMs = 0): string | null {
  if (resetInMs === undefined) return 'did not wait: the service did not say when the quota resets';
  if (maxWaitSeconds === undefined || Math.max(0, resetInMs) + 1000 <= maxWaitSeconds * 1000 - waitedMs) return null;
  const left = waitedMs > 0 ? ` (${formatDuration(Math.max(0, maxWaitSeconds - waitedMs / 1000))} of it left)` : '';
  return `did not wait: reset in ${formatDuration(resetInMs / 1000)} exceeds --max-wait ${formatDuration(maxWaitSeconds)}${left}`;
}
