// The result cache: one append-only log per (base URL, endpoint) in $XDG_CACHE_HOME/idv/, and beside it
// a snapshot (snapshot.ts) that small runs probe instead of reading the log.
//
// Why a log of lines: no native addon is allowed (Node 20 has no built-in SQLite), and an append-only
// file gives what a nightly job needs cheaply: each answer is appended with one O_APPEND write as soon
// as it arrives (a killed run loses at most its requests in flight), two runs at once append whole lines
// without corrupting each other, and a torn last line (power loss, kill -9 mid-write) is detected on load
// by its shape and dropped with a warning.
//
// Why a snapshot beside it (issue 14): reading a million-line log costs every run ~0.7 s, however few items
// it has. The snapshot holds the latest result per key up to a byte offset of the log, sorted into hash
// buckets; a run reads only the log's lines after that offset (the few appended since) and probes the
// snapshot for its own items. When the lines since pass REBUILD_BYTES, the run that sees it merges them into
// a new snapshot (written atomically). The log stays the truth: a snapshot that does not match it (another
// file, a compacted or truncated log) is ignored and rebuilt.
//
// Line format: <unix seconds>\t<status>\t<key>\n   (keys never hold white space: such items are invalid)
import { appendFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, utimes, writeFile, open as openFile, type FileHandle } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { isCacheable, isPlainStatus } from '../statuses.js';
import { KeyHash } from '../key-hash.js';
import { randomHex, replaceFile } from '../temp-files.js';
import { HEADER_PREFIX, readLines, textLines, TORN_LINE_END } from './log.js';
import { Entries, openSnapshot, writeSnapshot, type Freshness, type Snapshot } from './snapshot.js';
import { ttlOf, uniformTtl, type CacheTtl } from './ttl.js';

/** Entries dated more than this ahead of the clock are not trusted (expired): a clock set wrong wrote them. */
const FUTURE_SLACK_SECONDS = 60;
/** A compaction renews its lock this often; a lock not renewed for LOCK_STALE_MS belongs to a dead run. */
const LOCK_BEAT_MS = 5_000;
const LOCK_STALE_MS = 60_000;
/** The shortest line worth counting: `<10-digit time>\tok\ta@b.co\n`. */
const MIN_LINE = 21;
/** Lines since the snapshot beyond this many bytes (~20,000 results) are merged into a new one. */
const REBUILD_BYTES = 1024 * 1024;

/** `$XDG_CACHE_HOME/idv`: where it is comes from paths.ts, with the config folder's rules. */
export { cacheDir } from '../paths.js';

export interface LoadReport {
  /** Fresh results handed to the receiver, plus the snapshot's entries. */
  loaded: number;
  expired: number;
  damaged: number;
  /** The log was rewritten (damaged lines dropped, or mostly waste). */
  rebuilt: boolean;
  /** The snapshot to probe for items the receiver was not handed; null when the log was read whole. */
  snapshot: Snapshot | null;
}

/** Where load() puts the log's lines it reads: keys are handed over as bytes of the file, never as strings of their own. */
export interface CacheReceiver {
  /** About how many entries the log holds (from its size), once, before the first add. */
  expect(entries: number): void;
  /** A fresh entry: its key is the UTF-8 in bytes[start, end); `status` is one shared string per status. Later lines win. */
  add(bytes: Uint8Array, start: number, end: number, status: string): void;
  /** An entry no longer fresh: it hides any earlier answer for its key (in the snapshot) — the latest answer counts. */
  stale?(bytes: Uint8Array, start: number, end: number): void;
}

export interface CacheScope {
  path: string;
  /** The first failed append of this run (a read-only or full cache folder): later runs will pay again. */
  writeError(): NodeJS.ErrnoException | null;
  /** Read what is fresh: the log's recent lines into the receiver, and the snapshot for the rest. */
  load(into: CacheReceiver): Promise<LoadReport>;
  /** Append results now (synchronously: a crash right after keeps them). */
  append(entries: Array<[string, string]>): void;
}

export interface ScopeTuning {
  /** Lines since the snapshot beyond this many bytes make a new snapshot (tests make it small). */
  rebuildBytes?: number;
}

export function openScope(
  dir: string,
  baseUrl: string,
  endpoint: string,
  ttl: CacheTtl | number,
  now = Date.now,
  tuning: ScopeTuning = {},
): CacheScope {
  const policy = typeof ttl === 'number' ? uniformTtl(ttl) : ttl;
  const id = sha256(`${baseUrl.replace(/\/+$/, '')}\n${endpoint}`).slice(0, 16);
  const path = join(dir, `${id}.log`);
  const index = `${path}.idx`;
  const header = `${HEADER_PREFIX}${baseUrl.replace(/\/+$/, '')} ${endpoint}\n`;
  const rebuildBytes = tuning.rebuildBytes ?? REBUILD_BYTES;
  let writeError: NodeJS.ErrnoException | null = null;

  const freshness = (): Freshness => ({ ttl: (s) => ttlOf(policy, s), now: now() / 1000, futureSlack: FUTURE_SLACK_SECONDS });
  // Fresh while younger than its TTL: written at second `ts`, so at most now - ts old.
  const isFresh = (ts: number, status: string, f: Freshness) => ts > f.now - f.ttl(status) && ts <= f.now + f.futureSlack;

  async function load(into: CacheReceiver): Promise<LoadReport> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const report: LoadReport = { loaded: 0, expired: 0, damaged: 0, rebuilt: false, snapshot: null };
    let log = await identity();
    if (!log) {
      await writeFile(path, header, { flag: 'wx', mode: 0o600 }).catch(() => undefined);
      return report;
    }
    let snapshot = openSnapshot(index, path, log, freshness());
    if (snapshot === null && log.size <= rebuildBytes) return readWhole(into, report, log.size);
    if (snapshot !== null && log.size - snapshot.covered <= rebuildBytes) return readSince(snapshot, into, report, log.size);
    // The lines since the snapshot (or the whole log) are many: merge them into a new snapshot.
    const built = await rebuild(snapshot, log);
    snapshot?.close();
    report.damaged = built.damaged;
    if (built.compact) {
      report.rebuilt = await compact();
      log = (await identity()) ?? log;
      if (report.rebuilt) await rebuild(null, log);
    }
    snapshot = openSnapshot(index, path, log, freshness());
    if (snapshot === null) return readWhole(into, report, log.size); // could not write it (read-only cache): read the log
    return readSince(snapshot, into, report, log.size);
  }

  async function identity(): Promise<{ ino: number; dev: number; size: number } | null> {
    try {
      const st = await stat(path);
      return { ino: st.ino, dev: st.dev, size: st.size };
    } catch {
      return null;
    }
  }

  /** No snapshot, and a log small enough to read: every line into the receiver (compacted when mostly waste). */
  async function readWhole(into: CacheReceiver, report: LoadReport, size: number): Promise<LoadReport> {
    const read = await readInto(into, report, 0, size, true);
    const waste = read.damaged + report.expired;
    if (read.damaged > 0 || (read.lines > 10_000 && waste * 2 > read.lines)) {
      report.rebuilt = await compact();
    }
    return report;
  }

  /** The lines appended since the snapshot into the receiver; the snapshot answers for the rest. */
  async function readSince(snapshot: Snapshot, into: CacheReceiver, report: LoadReport, size: number): Promise<LoadReport> {
    const read = await readInto(into, report, snapshot.covered, size, false);
    report.loaded += snapshot.entries;
    report.snapshot = snapshot;
    if (read.damaged > 0) report.rebuilt = await compact();
    return report;
  }

  async function readInto(into: CacheReceiver, report: LoadReport, from: number, to: number, estimate: boolean) {
    const f = freshness();
    const read = await readLines(
      path,
      from,
      to,
      (buf, start, end, ts, status) => {
        if (isFresh(ts, status, f)) {
          report.loaded++;
          into.add(buf, start, end, status);
        } else {
          report.expired++; // too old, or dated in the future (a clock set wrong): not to be trusted either
          into.stale?.(buf, start, end);
        }
      },
      // The first block's mean line length tells how many entries the whole log holds, near enough;
      // capped at one entry per MIN_LINE bytes: a first block of damaged scraps must not reserve gigabytes.
      estimate ? (bytes, lines) => lines > 0 && into.expect(Math.min(Math.ceil((to * lines) / Math.max(1, bytes)), Math.ceil(to / MIN_LINE))) : undefined,
    );
    report.damaged += read.damaged;
    if (read.torn) healTornLine();
    return read;
  }

  /** A new snapshot: the old one's entries and the log's lines since, the latest per key. */
  async function rebuild(old: Snapshot | null, log: { ino: number; dev: number; size: number }): Promise<{ damaged: number; compact: boolean }> {
    const from = old?.covered ?? 0;
    const entries = old ? old.all() : new Entries(Math.ceil(log.size / 48));
    const h = new KeyHash();
    const read = await readLines(path, from, log.size, (buf, start, end, ts, status) => {
      h.ofUtf8(buf, start, end);
      entries.push(h.a, h.b, h.c, ts, status);
    });
    if (read.torn) healTornLine();
    const lines = (old?.lines ?? 0) + read.lines;
    try {
      const fingerprint = await bytesBefore(read.end, 64);
      const written = await writeSnapshot(index, entries, { covered: read.end, lines, ino: log.ino, dev: log.dev, fingerprint }, freshness());
      const waste = lines - written.fresh;
      return { damaged: read.damaged, compact: read.damaged > 0 || (lines > 10_000 && waste * 2 > lines) };
    } catch {
      return { damaged: read.damaged, compact: read.damaged > 0 }; // a read-only cache folder: go on without a snapshot
    }
  }

  async function bytesBefore(end: number, n: number): Promise<Buffer> {
    const start = Math.max(0, end - n);
    const fh = await openFile(path, 'r');
    try {
      const buf = Buffer.alloc(end - start);
      await fh.read(buf, 0, buf.length, start);
      return buf;
    } finally {
      await fh.close();
    }
  }

  function healTornLine(): void {
    // Later appends must start on a line of their own.
    try {
      appendFileSync(path, TORN_LINE_END);
    } catch {
      /* read-only cache: results are still written to the output */
    }
  }

  return {
    path,
    load,
    append(entries) {
      if (writeError) return; // said once; the output is still written
      const ts = Math.floor(now() / 1000);
      let text = '';
      for (const [key, status] of entries) {
        if (!isCacheable(status) || !isPlainStatus(status)) continue;
        text += `${ts}\t${status}\t${key}\n`;
      }
      if (!text) return;
      try {
        appendFileSync(path, text);
      } catch (err) {
        writeError = err as NodeJS.ErrnoException;
      }
    },
    writeError: () => writeError,
  };

  /**
   * Rewrite the log with only its good, fresh lines (latest per key). One rewriter at a time (see takeLock).
   * Lines another run appends meanwhile are carried over: those written before the rename are copied from
   * the old file's tail, and a last look at the old file after the rename catches an append that had opened
   * it just before.
   */
  async function compact(): Promise<boolean> {
    const lock = `${path}.lock`;
    if (!(await takeLock(lock, now))) return false; // another run is at it
    let old: FileHandle | null = null;
    try {
      old = await openFile(path, 'r');
      const size = (await old.stat()).size;
      const kept = new Map<string, string>();
      const f = freshness();
      let beat = now();
      // The same parser as load(): what it calls a good line is what is kept.
      const { end } = await readLines(path, 0, size, (buf, start, stop, ts, status) => {
        if (isFresh(ts, status, f)) {
          const key = buf.toString('utf8', start, stop);
          kept.set(key, `${ts}\t${status}\t${key}\n`);
        }
        if (now() - beat > LOCK_BEAT_MS) {
          beat = now();
          void utimes(lock, beat / 1000, beat / 1000).catch(() => undefined); // still alive
        }
      });
      let out = header;
      for (const line of kept.values()) out += line;
      let copied = end;
      await replaceFile(path, async (tmp) => {
        await writeFile(tmp, out, { mode: 0o600 });
        // What was appended since it was read (by this run or another), whole lines or not, as it is.
        copied = await copyTail(old!, end, tmp);
      });
      await new Promise((r) => setTimeout(r, 20));
      await copyTail(old, copied, path);
      return true;
    } catch {
      return false;
    } finally {
      await old?.close().catch(() => undefined);
      await rm(lock, { force: true }).catch(() => undefined);
    }
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Append what `from` holds from byte `at` on to the file `to`; give where it ended. */
async function copyTail(from: FileHandle, at: number, to: string): Promise<number> {
  const size = (await from.stat()).size;
  if (size <= at) return at;
  const buf = Buffer.alloc(size - at);
  const { bytesRead } = await from.read(buf, 0, buf.length, at);
  await writeFile(to, buf.subarray(0, bytesRead), { flag: 'a' });
  return at + bytesRead;
}

/**
 * The compaction lock: a file created exclusively, whose time its holder renews while it works. One older
 * than LOCK_STALE_MS was left by a run that died (kill -9, power loss) and is taken over; without that, one
 * killed compaction would block every later one for good. (A lock folder of idv 1.0 is taken over the same way.)
 */
async function takeLock(lock: string, now: () => number): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lock, `${now()}\n`, { flag: 'wx', mode: 0o600 });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
    try {
      const st = await stat(lock);
      if (now() - st.mtimeMs < LOCK_STALE_MS) return false; // its holder is alive
      // Claim the stale lock by renaming it: of two runs that found it stale, one rename succeeds.
      const claimed = `${lock}.${randomHex(4)}.stale`;
      await rename(lock, claimed);
      await rm(claimed, { recursive: true, force: true });
    } catch {
      return false;
    }
  }
  return false;
}

export interface CacheStats {
  path: string;
  files: number;
  entries: number;
  bytes: number;
  oldest?: number;
  scopes: Array<{ baseUrl: string; endpoint: string; entries: number }>;
}

export async function cacheStats(dir: string): Promise<CacheStats> {
  const stats: CacheStats = { path: dir, files: 0, entries: 0, bytes: 0, scopes: [] };
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return stats;
  }
  for (const name of names.filter((n) => n.endsWith('.log')).sort()) {
    const file = join(dir, name);
    stats.files++;
    stats.bytes += (await stat(file)).size;
    let scope = { baseUrl: '?', endpoint: '?', entries: 0 };
    for await (const lines of textLines(file)) {
      for (const line of lines) {
        if (line.startsWith(HEADER_PREFIX)) {
          const [baseUrl = '?', endpoint = '?'] = line.slice(HEADER_PREFIX.length).split(' ');
          scope = { ...scope, baseUrl, endpoint };
          continue;
        }
        const tab = line.indexOf('\t');
        if (tab <= 0) continue;
        const ts = Number(line.slice(0, tab));
        if (!Number.isInteger(ts)) continue;
        scope.entries++;
        if (stats.oldest === undefined || ts < stats.oldest) stats.oldest = ts;
      }
    }
    stats.entries += scope.entries;
    stats.scopes.push(scope);
  }
  return stats;
}

export async function clearCache(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!/\.(log|idx|tmp)$/.test(name)) continue;
    await rm(join(dir, name), { force: true });
    if (name.endsWith('.log')) removed++;
  }
  return removed;
}
