// `idv cache stats | clear`: what the result cache holds, and emptying it (after asking, in a terminal).
import { Command } from 'commander';
import { addFlags, given, readFlags, value, type OptionsOf } from './flag-table.js';
import { helpAfter, type Block } from './help-text.js';
import { topicsLine } from './help-topics.js';
import { usageError } from '../core/errors.js';
import { oneLine, warn, type Io } from '../system/io.js';
import { cacheDir } from '../system/paths.js';
import { cacheStats, clearCache, type CacheStats, type Counts, type EntryStats } from '../cache/stats.js';
import { freshnessAt, parseCacheTtl, type CacheTtl } from '../cache/ttl.js';
import { cacheTtl } from './parsers.js';
import { DEFAULTS } from '../core/defaults.js';
import { formatDuration } from '../core/duration.js';
import { displayWidth, padEndTo, padStartTo } from '../system/display-width.js';

/** The flags of `cache stats` and `cache clear`: the grammar of every command (-f, -q, --no-color). */
const STATS_FLAGS = {
  format: value<'table' | 'json'>('-f, --format <format>', 'table (lines for a person) or json (one object)', { choices: ['table', 'json'], what: 'format' }),
  cacheTtl: value('--cache-ttl <duration>', 'count as expired what these TTLs drop: ok=90d,7d (default 7d)', { parse: cacheTtl }),
  noColor: given('--no-color', 'no colour (it prints none)'),
};
const CLEAR_FLAGS = {
  yes: given('-y, --yes', 'remove without asking (required when standard input is not a terminal)'),
  quiet: given('-q, --quiet', 'no line saying what was removed'),
  noColor: given('--no-color', 'no colour (it prints none)'),
};
type CacheOptions = { action: 'stats' | 'clear' } & Partial<OptionsOf<typeof STATS_FLAGS> & OptionsOf<typeof CLEAR_FLAGS>>;

const CACHE_FACTS: Block[] = [
  {
    prose: 'Results are kept for --cache-ttl (default 7d; by status too: --cache-ttl ok=90d,disposable=180d,7d), per service and endpoint.',
  },
  topicsLine('files', 'environment', 'durations'),
];

export function cacheCommand(io: Io): Command {
  const stats = [{ command: 'idv cache stats' }, { command: 'idv cache stats --cache-ttl ok=90d,7d', comment: 'expired by the TTLs a run gives' }, { command: 'idv cache stats -f json' }];
  const clear = [{ command: 'idv cache clear', comment: 'asks first' }, { command: 'idv cache clear --yes', comment: 'in a script' }];
  const cache = helpAfter(new Command('cache').description('inspect and empty the local result cache'), io, [
    { title: 'Examples:', examples: [...stats, ...clear] },
    ...CACHE_FACTS,
  ]);
  const statsCommand = addFlags(new Command('stats').description('entries by status and service, expired ones, sizes and ages'), STATS_FLAGS);
  statsCommand.action((parsed: Record<string, unknown>) => run({ action: 'stats', ...readFlags(STATS_FLAGS, parsed) }, io));
  cache.addCommand(helpAfter(statsCommand, io, [{ title: 'Examples:', examples: stats }]));
  const clearCommand = addFlags(new Command('clear').description('remove every cached result (asks first in a terminal)'), CLEAR_FLAGS);
  clearCommand.action((parsed: Record<string, unknown>) => run({ action: 'clear', ...readFlags(CLEAR_FLAGS, parsed) }, io));
  cache.addCommand(helpAfter(clearCommand, io, [{ title: 'Examples:', examples: clear }]));
  return cache;
}

export async function run(o: CacheOptions, io: Io): Promise<void> {
  const dir = cacheDir(io.env, io.platform);
  if (o.action === 'clear') return clear(dir, o, io);
  const ttl = o.cacheTtl ?? parseCacheTtl(DEFAULTS.cacheTtl);
  const now = Date.now();
  const s = await cacheStats(dir, freshnessAt(ttl, now));
  const text = o.format === 'json' ? JSON.stringify(statsObject(s, ttl, now)) + '\n' : statsLines(s, ttl, now / 1000).map((l) => oneLine(io, l) + '\n').join('');
  io.stdout.write(text);
}

/** `-f json`: one object, every date in ISO 8601 and every duration in seconds. */
function statsObject(s: CacheStats, ttl: CacheTtl, now: number) {
  const iso = (ts: number | undefined) => (ts === undefined ? null : new Date(ts * 1000).toISOString());
  const entries = (e: EntryStats) => ({ entries: e.entries, expired: e.expired, oldest: iso(e.oldest), newest: iso(e.newest), byStatus: Object.fromEntries(byStatus(e)) });
  return {
    path: s.path,
    now: new Date(now).toISOString(),
    ttl: { default: ttl.fallback, byStatus: Object.fromEntries(ttl.byStatus) },
    files: s.files,
    bytes: s.bytes,
    damaged: s.damaged,
    ...entries(s),
    scopes: s.scopes.map((sc) => ({ baseUrl: sc.baseUrl, endpoint: sc.endpoint, bytes: sc.bytes, ...entries(sc) })),
  };
}

/** Statuses, most entries first (then by name). */
function byStatus(e: EntryStats): Array<[string, Counts]> {
  return [...e.byStatus].sort((a, b) => b[1].entries - a[1].entries || a[0].localeCompare(b[0]));
}

/** The lines for a person: the totals, then a table by status and one by service, ages said from now. */
function statsLines(s: CacheStats, ttl: CacheTtl, now: number): string[] {
  const when = (ts: number | undefined) => (ts === undefined ? '-' : `${ago(ts, now)} (${utc(ts)})`);
  const lines = [
    `path     ${s.path}`,
    `size     ${formatBytes(s.bytes)} in ${plural(s.files, 'file')}`,
    `entries  ${num(s.entries)}${s.entries ? `, ${num(s.expired)} expired (${ttlWords(ttl)})` : ''}`,
    `oldest   ${when(s.oldest)}`,
    `newest   ${when(s.newest)}`,
  ];
  if (s.damaged) lines.push(`damaged  ${plural(s.damaged, 'line')} of no result (idv rewrites them away)`);
  if (s.entries === 0) return lines;
  lines.push('', ...table(['status', 'entries', 'expired'], byStatus(s).map(([status, c]) => [status, num(c.entries), num(c.expired)])));
  // A service's address may be long: on a line of its own, its figures under it (80 columns hold both).
  lines.push('', 'by service');
  for (const sc of s.scopes) {
    const oldest = sc.oldest === undefined ? '' : `, oldest ${ago(sc.oldest, now)}`;
    lines.push(`  ${sc.baseUrl} ${sc.endpoint}`, `    ${plural(sc.entries, 'entry', 'entries')}, ${num(sc.expired)} expired, ${formatBytes(sc.bytes)}${oldest}`);
  }
  return lines;
}

/** Columns lined up in display columns: the first to the left, the others (numbers) to the right. */
function table(head: string[], rows: string[][]): string[] {
  const all = [head, ...rows];
  const widths = head.map((_, c) => Math.max(...all.map((r) => displayWidth(r[c] ?? ''))));
  return all.map((r) => r.map((cell, c) => (c === 0 ? padEndTo(cell, widths[c]!) : padStartTo(cell, widths[c]!))).join('  '));
}

/** How the TTLs count: `older than 7d`, `ok after 90d, others after 7d`. */
function ttlWords(ttl: CacheTtl): string {
  if (ttl.byStatus.size === 0) return `older than ${short(ttl.fallback)}`;
  return [...[...ttl.byStatus].map(([status, seconds]) => `${status} after ${short(seconds)}`), `others after ${short(ttl.fallback)}`].join(', ');
}

/** A TTL as it is given: `7d`, `36h`, `90m`; else `1h 30m`. */
function short(seconds: number): string {
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['m', 60]] as const) if (seconds >= size && seconds % size === 0) return `${seconds / size}${unit}`;
  return formatDuration(seconds);
}

/** How long ago `ts` was (unix seconds), as a person says it: `just now`, `12 minutes ago`, `3 days ago`. */
export function ago(ts: number, now: number): string {
  const s = now - ts;
  if (s < -60) return 'ahead of the clock';
  if (s < 60) return 'just now';
  if (s < 3600) return `${plural(Math.floor(s / 60), 'minute')} ago`;
  if (s < 2 * 86400) return `${plural(Math.floor(s / 3600), 'hour')} ago`;
  return `${plural(Math.floor(s / 86400), 'day')} ago`;
}

/** `2026-11-24 21:19 UTC`. */
function utc(ts: number): string {
  return new Date(ts * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

const num = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, word: string, words = `${word}s`) => `${num(n)} ${n === 1 ? word : words}`;

/** Empty the cache: asked first in a terminal; a script must say --yes, since no one can answer it. */
async function clear(dir: string, o: CacheOptions, io: Io): Promise<void> {
  const yes = o.yes === true;
  if (!yes && !io.term.canAsk()) {
    throw usageError('idv cache clear asks before it removes anything, and standard input is not a terminal; add --yes to clear the cache without asking.');
  }
  const { entries } = await cacheStats(dir, freshnessAt(parseCacheTtl(DEFAULTS.cacheTtl), Date.now()));
  if (entries === 0) return warn(io, `The cache in ${dir} holds no results; nothing to remove.`);
  if (!yes) {
    const answer = await io.term.ask(oneLine(io, `Remove all ${plural(entries, 'cached result')} in ${dir}? [y/N] `), io.signal);
    if (!/^\s*y(es)?\s*$/i.test(answer ?? '')) return warn(io, 'Nothing removed.');
  }
  const removed = await clearCache(dir);
  if (!o.quiet) warn(io, `Removed ${plural(removed.results, 'cached result')} from ${dir}.`);
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
