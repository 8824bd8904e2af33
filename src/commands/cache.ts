// `idv cache stats | clear`: what the result cache holds, and emptying it (after asking, in a terminal).
import { Command } from 'commander';
import { addFlags, given, readFlags, value } from './flag-table.js';
import { helpAfter, type Block } from './help-text.js';
import { topicsLine } from './help-topics.js';
import { interruptedError, usageError } from '../errors.js';
import { oneLine, warn, type Io } from '../io.js';
import { cacheDir } from '../paths.js';
import { cacheStats, clearCache } from '../cache/stats.js';

export interface CacheOptions {
  action: 'stats' | 'clear';
  /** stats: lines for a person (the default), or one JSON object. */
  format?: 'table' | 'json';
  /** clear: without asking. */
  yes?: boolean;
  /** clear: no line saying what was removed. */
  quiet?: boolean;
}

/** The flags of `cache stats` and `cache clear`: the grammar of every command (-f, -q, --no-color). */
const STATS_FLAGS = {
  format: value<'table' | 'json'>('-f, --format <format>', 'table (lines for a person) or json (one object)', { choices: ['table', 'json'], what: 'format' }),
  noColor: given('--no-color', 'no colour (it prints none)'),
};
const CLEAR_FLAGS = {
  yes: given('-y, --yes', 'remove without asking (required when standard input is not a terminal)'),
  quiet: given('-q, --quiet', 'no line saying what was removed'),
  noColor: given('--no-color', 'no colour (it prints none)'),
};

const CACHE_FACTS: Block[] = [
  {
    prose: 'Results are kept for --cache-ttl (default 7d; by status too: --cache-ttl ok=90d,disposable=180d,7d), per service and endpoint.',
  },
  topicsLine('files', 'environment', 'durations'),
];

/** `idv cache` and its subcommands. */
export function cacheCommand(io: Io): Command {
  const stats = [{ command: 'idv cache stats' }, { command: 'idv cache stats -f json' }];
  const clear = [{ command: 'idv cache clear', comment: 'asks first' }, { command: 'idv cache clear --yes', comment: 'in a script' }];
  const cache = helpAfter(new Command('cache').description('inspect and empty the local result cache'), io, [
    { title: 'Examples:', examples: [...stats, ...clear] },
    ...CACHE_FACTS,
  ]);
  const statsCommand = addFlags(new Command('stats').description('entries, size, path and oldest entry of the cache'), STATS_FLAGS);
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
  const s = await cacheStats(dir);
  if (o.format === 'json') {
    io.stdout.write(
      JSON.stringify({ path: s.path, entries: s.entries, bytes: s.bytes, oldest: s.oldest ? new Date(s.oldest * 1000).toISOString() : null, scopes: s.scopes }) + '\n',
    );
    return;
  }
  const lines = [
    `path     ${s.path}`,
    `entries  ${s.entries.toLocaleString('en-US')}`,
    `size     ${formatBytes(s.bytes)}`,
    `oldest   ${s.oldest ? new Date(s.oldest * 1000).toISOString().replace('.000Z', 'Z') : '-'}`,
  ];
  for (const sc of s.scopes) lines.push(`  ${sc.baseUrl} ${sc.endpoint}: ${sc.entries.toLocaleString('en-US')} entries`);
  io.stdout.write(lines.map((l) => oneLine(io, l) + '\n').join(''));
}

/** Empty the cache: asked first in a terminal; a script must say --yes, since no one can answer it. */
async function clear(dir: string, o: CacheOptions, io: Io): Promise<void> {
  const yes = o.yes === true;
  if (!yes && !io.stdinIsTTY) {
    throw usageError('idv cache clear asks before it removes anything, and standard input is not a terminal; add --yes to clear the cache without asking.');
  }
  const { entries } = await cacheStats(dir);
  if (entries === 0) return warn(io, `The cache in ${dir} holds no results; nothing to remove.`);
  if (!yes) {
    io.stderr.write(oneLine(io, `Remove all ${results(entries)} in ${dir}? [y/N] `));
    if (!/^\s*y(es)?\s*$/i.test((await readLine(io)) ?? '')) return warn(io, 'Nothing removed.');
  }
  const removed = await clearCache(dir);
  if (!o.quiet) warn(io, `Removed ${results(removed.results)} from ${dir}.`);
}

const results = (n: number) => `${n.toLocaleString('en-US')} cached result${n === 1 ? '' : 's'}`;

/** One line typed at the terminal (echoed by it); null at the end of input. Ctrl-C ends the wait. */
function readLine(io: Io): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = (line: string | null, err?: Error) => {
      io.stdin.off('data', onData).off('end', onEnd);
      io.signal.removeEventListener('abort', onAbort);
      io.stdin.pause();
      if (err) reject(err);
      else resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      const nl = text.indexOf('\n');
      if (nl !== -1) finish(text.slice(0, nl));
    };
    const onEnd = () => finish(text === '' ? null : text);
    // The terminal echoed ^C after the question: the message goes on a line of its own.
    const onAbort = () => (io.stderr.write('\n'), finish(null, interruptedError(io.signal.reason)));
    if (io.signal.aborted) return onAbort();
    io.stdin.on('data', onData).on('end', onEnd);
    io.signal.addEventListener('abort', onAbort, { once: true });
  });
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
