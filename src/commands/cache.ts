// `idv cache stats | clear`.
import { Command, Option } from 'commander';
import { ENVIRONMENT, FILES, helpAfter, pick, type Block } from './help-text.js';
import { oneLine, warn, type Io } from '../io.js';
import { cacheDir, cacheStats, clearCache } from '../cache/store.js';

export interface CacheOptions {
  action: 'stats' | 'clear';
  format?: 'json';
}

const CACHE_FACTS: Block[] = [
  {
    prose: 'Results are kept for --cache-ttl (default 7d; by status too: --cache-ttl ok=90d,disposable=180d,7d), per service and endpoint.',
  },
  { list: 'Environment', items: pick(ENVIRONMENT, 'XDG_CACHE_HOME') },
  { list: 'Files', items: pick(FILES, '~/.cache/idv/') },
];

/** `idv cache` and its subcommands. */
export function cacheCommand(io: Io): Command {
  const stats = [{ command: 'idv cache stats' }, { command: 'idv cache stats --format json' }];
  const clear = [{ command: 'idv cache clear' }];
  const cache = helpAfter(new Command('cache').description('inspect and empty the local result cache'), io, [
    { title: 'Examples:', examples: [...stats, ...clear] },
    ...CACHE_FACTS,
  ]);
  const statsCommand = new Command('stats')
    .description('entries, size, path and oldest entry of the cache')
    .addOption(new Option('--format <format>', 'json for a machine-readable object').choices(['json']))
    .action((f: { format?: 'json' }) => run({ action: 'stats', format: f.format }, io));
  cache.addCommand(helpAfter(statsCommand, io, [{ title: 'Examples:', examples: stats }]));
  const clearCommand = new Command('clear').description('remove every cached result').action(() => run({ action: 'clear' }, io));
  cache.addCommand(helpAfter(clearCommand, io, [{ title: 'Examples:', examples: clear }]));
  return cache;
}

export async function run(o: CacheOptions, io: Io): Promise<void> {
  const dir = cacheDir(io.env);
  if (o.action === 'clear') {
    const n = await clearCache(dir);
    warn(io, `Cleared the cache in ${dir} (${n} file${n === 1 ? '' : 's'}).`);
    return;
  }
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

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
