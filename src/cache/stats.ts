// `idv cache stats` and `idv cache clear`: what the cache folder holds, and emptying it.
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openToRead } from './files.js';
import { HEADER_PREFIX, readLines } from './log.js';
import { freshnessAt, isFresh, uniformTtl, type Freshness } from './ttl.js';

/** Entries, and those of them past their TTL (or dated ahead of the clock) at the moment asked about. */
export interface Counts {
  entries: number;
  expired: number;
}

/** What some entries are: how many, how many expired, the oldest and newest (unix seconds), and by status. */
export interface EntryStats extends Counts {
  oldest?: number;
  newest?: number;
  byStatus: Map<string, Counts>;
}

export interface CacheStats extends EntryStats {
  path: string;
  files: number;
  bytes: number;
  /** Lines of the wrong shape (a torn last line, a line an editor broke): not results. */
  damaged: number;
  scopes: ScopeStats[];
}

export interface ScopeStats extends EntryStats {
  baseUrl: string;
  endpoint: string;
  bytes: number;
}

/** The cache in `dir`, its entries counted as expired or not by `fresh` (the TTLs asked about, and now). */
export async function cacheStats(dir: string, fresh: Freshness): Promise<CacheStats> {
  const stats: CacheStats = { path: dir, files: 0, bytes: 0, damaged: 0, scopes: [], ...noEntries() };
  for (const file of await logsIn(dir)) {
    const st = await lstat(file).catch(() => null);
    if (!st?.isFile()) continue; // a symbolic link or a folder named like a log is none of idv's
    stats.files++;
    stats.bytes += st.size;
    const scope: ScopeStats = { ...(await scopeOf(file)), bytes: st.size, ...noEntries() };
    const read = await readLines(file, 0, st.size, (_buf, _start, _end, ts, status) => count(scope, ts, status, fresh));
    stats.damaged += read.damaged;
    stats.scopes.push(scope);
    add(stats, scope);
  }
  return stats;
}

function noEntries(): EntryStats {
  return { entries: 0, expired: 0, byStatus: new Map() };
}

function count(s: EntryStats, ts: number, status: string, fresh: Freshness): void {
  const expired = isFresh(ts, status, fresh) ? 0 : 1;
  s.entries++;
  s.expired += expired;
  if (s.oldest === undefined || ts < s.oldest) s.oldest = ts;
  if (s.newest === undefined || ts > s.newest) s.newest = ts;
  const by = s.byStatus.get(status) ?? { entries: 0, expired: 0 };
  by.entries++;
  by.expired += expired;
  s.byStatus.set(status, by);
}

function add(into: EntryStats, more: EntryStats): void {
  into.entries += more.entries;
  into.expired += more.expired;
  if (more.oldest !== undefined && (into.oldest === undefined || more.oldest < into.oldest)) into.oldest = more.oldest;
  if (more.newest !== undefined && (into.newest === undefined || more.newest > into.newest)) into.newest = more.newest;
  for (const [status, c] of more.byStatus) {
    const by = into.byStatus.get(status) ?? { entries: 0, expired: 0 };
    by.entries += c.entries;
    by.expired += c.expired;
    into.byStatus.set(status, by);
  }
}

/** A log's service and endpoint, from its header: a whole first line within its first 256 KiB. */
async function scopeOf(file: string): Promise<{ baseUrl: string; endpoint: string }> {
  const handle = await openToRead(file);
  try {
    const { buffer, bytesRead } = await handle.read({ buffer: Buffer.alloc(256 * 1024) });
    const nl = buffer.subarray(0, bytesRead).indexOf(10);
    const first = nl === -1 ? '' : buffer.toString('utf8', 0, nl);
    const [baseUrl = '?', endpoint = '?'] = first.startsWith(HEADER_PREFIX) ? first.slice(HEADER_PREFIX.length).split(' ') : [];
    return { baseUrl, endpoint };
  } finally {
    await handle.close();
  }
}

/** Remove every cached result (logs, snapshots, leftover temporary files); how many logs and results went. */
export async function clearCache(dir: string): Promise<{ logs: number; results: number }> {
  const results = (await cacheStats(dir, freshnessAt(uniformTtl(0), Date.now()))).entries;
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
