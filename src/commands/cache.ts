// `idv cache stats | clear`.
import { Command, Option } from 'commander';
import { oneLine, warn, type Io } from '../io.js';
import { cacheDir, cacheStats, clearCache } from '../cache/store.js';

export interface CacheOptions {
  action: 'stats' | 'clear';
  format?: 'json';
}

/** `idv cache` and its subcommands. */
export function cacheCommand(io: Io): Command {
  const cache = new Command('cache').description('inspect and empty the local result cache').addHelpText(
    'after',
    `
Examples:
  $ idv cache stats
  $ idv cache stats --format json
  $ idv cache clear

Results are kept in $XDG_CACHE_HOME/idv/ (default ~/.cache/idv/) for --cache-ttl (default 7d;
by status too: --cache-ttl ok=90d,disposable=180d,7d).`,
  );
  cache.addCommand(
    new Command('stats')
      .description('entries, size, path and oldest entry of the cache')
      .addOption(new Option('--format <format>', 'json for a machine-readable object').choices(['json']))
      .addHelpText('after', '\nExamples:\n  $ idv cache stats\n  $ idv cache stats --format json')
      .action((f: { format?: 'json' }) => run({ action: 'stats', format: f.format }, io)),
  );
  cache.addCommand(
    new Command('clear')
      .description('remove every cached result')
      .addHelpText('after', '\nExamples:\n  $ idv cache clear')
      .action(() => run({ action: 'clear' }, io)),
  );
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
