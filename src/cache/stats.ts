// `idv cache stats` and `idv cache clear`: what the cache folder holds, and emptying it.
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { HEADER_PREFIX, textLines } from './log.js';

export interface CacheStats {
  path: string;
  files: number;
  entries: number;
  bytes: number;
  oldest?: number;
  scopes: ScopeStats[];
}

export interface ScopeStats {
  baseUrl: string;
  endpoint: string;
  entries: number;
}

export async function cacheStats(dir: string): Promise<CacheStats> {
  const stats: CacheStats = { path: dir, files: 0, entries: 0, bytes: 0, scopes: [] };
  for (const file of await logsIn(dir)) {
    const st = await lstat(file).catch(() => null);
    if (!st?.isFile()) continue; // a symbolic link or a folder named like a log is none of idv's
    stats.files++;
    stats.bytes += st.size;
    const scope = await scopeStats(file, (ts) => {
      if (stats.oldest === undefined || ts < stats.oldest) stats.oldest = ts;
    });
    stats.entries += scope.entries;
    stats.scopes.push(scope);
  }
  return stats;
}

/** One log's service, endpoint and entries; `seen` is told each entry's time. */
async function scopeStats(file: string, seen: (ts: number) => void): Promise<ScopeStats> {
  const scope: ScopeStats = { baseUrl: '?', endpoint: '?', entries: 0 };
  for await (const lines of textLines(file)) {
    for (const line of lines) {
      if (line.startsWith(HEADER_PREFIX)) {
        const [baseUrl = '?', endpoint = '?'] = line.slice(HEADER_PREFIX.length).split(' ');
        Object.assign(scope, { baseUrl, endpoint });
        continue;
      }
      const tab = line.indexOf('\t');
      const ts = tab > 0 ? Number(line.slice(0, tab)) : NaN;
      if (!Number.isInteger(ts)) continue;
      scope.entries++;
      seen(ts);
    }
  }
  return scope;
}

/** Remove every cached result (logs, snapshots, leftover temporary files); how many logs and results went. */
export async function clearCache(dir: string): Promise<{ logs: number; results: number }> {
  const results = (await cacheStats(dir)).entries;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return { logs: 0, results: 0 };
  }
  let logs = 0;
  for (const name of names) {
    if (!/\.(log|idx|tmp|old)$/.test(name)) continue; // .old: a log or snapshot moved aside (files.ts renameOver)
    await rm(join(dir, name), { force: true });
    if (name.endsWith('.log')) logs++;
  }
  return { logs, results };
}

async function logsIn(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir))
      .filter((n) => n.endsWith('.log'))
      .sort()
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
}
