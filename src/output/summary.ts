// The closing summary on standard error: a small table people read at a glance.
import { formatDuration } from '../duration.js';
import type { Chalk } from './colors.js';
import { statusColour } from './format.js';
import { KNOWN_STATUSES } from '../statuses.js';
import { terminalSafe } from '../terminal-text.js';

export interface SummaryFacts {
  records: number;
  counts: ReadonlyMap<string, number>;
  fromCache: number;
  sentItems: number;
  requests: number;
  elapsedMs: number;
  remaining?: number;
  quota?: number;
  resetAt?: number;
  now: number;
  dryRun?: boolean;
  /** On a terminal: a bar per status, its length the status's share of the records. */
  bars?: boolean;
}

const BAR_CELLS = 20;

/** `█████░░░…`: the share in BAR_CELLS cells, at least one for any record at all. */
function bar(n: number, total: number): string {
  const filled = n === 0 ? 0 : Math.max(1, Math.round((BAR_CELLS * n) / total));
  return '█'.repeat(filled) + '░'.repeat(BAR_CELLS - filled);
}

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

export function formatSummary(f: SummaryFacts, chalk: Chalk | null): string {
  const order = [...KNOWN_STATUSES, ...[...f.counts.keys()].filter((s) => !KNOWN_STATUSES.includes(s)).sort()];
  const rows = order.filter((s) => (f.counts.get(s) ?? 0) > 0);
  const width = Math.max(6, ...rows.map((s) => terminalSafe(s).length));
  const countWidth = Math.max(1, ...rows.map((s) => (f.counts.get(s) ?? 0).toLocaleString('en-US').length));
  const lines: string[] = [];
  lines.push(`${plural(f.records, 'record')} in ${formatElapsed(f.elapsedMs)}`);
  for (const s of rows) {
    const n = f.counts.get(s)!;
    const pct = f.records ? ((100 * n) / f.records).toFixed(1).padStart(5) + '%' : '';
    const name = terminalSafe(s).padEnd(width);
    const paint = chalk ? statusColour(chalk, s) : (t: string) => t;
    const shape = f.bars && f.records ? `  ${paint(bar(n, f.records))}` : '';
    lines.push(`  ${paint(name)}  ${n.toLocaleString('en-US').padStart(countWidth)}  ${pct}${shape}`);
  }
  const tail: string[] = [];
  tail.push(`${plural(f.fromCache, 'item')} from the cache`);
  tail.push(`${plural(f.sentItems, 'item')} sent in ${plural(f.requests, 'request')}`);
  if (f.remaining !== undefined) {
    let q = `quota left ${f.remaining.toLocaleString('en-US')}${f.quota !== undefined ? ` of ${f.quota.toLocaleString('en-US')}` : ''}`;
    if (f.resetAt !== undefined) q += `, resets in ${formatDuration((f.resetAt - f.now) / 1000)}`;
    tail.push(q);
  }
  lines.push(tail.join(' · '));
  return lines.join('\n') + '\n';
}

function formatElapsed(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : formatDuration(ms / 1000);
}

/** When a quota resets: `04:21 UTC` within a day of `now`, else with its date (`2026-12-23 04:21 UTC`). */
export function clockTime(ms: number, now: number): string {
  const iso = new Date(ms).toISOString();
  return Math.abs(ms - now) < 86_400_000 ? `${iso.slice(11, 16)} UTC` : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
