// `idv cache stats | clear`.
import { oneLine, warn, type Io } from '../io.js';
import { cacheDir } from '../paths.js';
import { cacheStats, clearCache } from '../cache/stats.js';

export interface CacheOptions {
  action: 'stats' | 'clear';
  format?: 'json';
}

export async function run(o: CacheOptions, io: Io): Promise<void> {
  const dir = cacheDir(io.env);
  if (o.action === 'clear') {
    const { logs } = await clearCache(dir);
    warn(io, `Cleared the cache in ${dir} (${logs} file${logs === 1 ? '' : 's'}).`);
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
