// The result cache: one append-only log per (base URL, endpoint) in $XDG_CACHE_HOME/idv/.
//
// Why a log of lines: no native addon is allowed (Node 20 has no built-in SQLite), and an append-only
// file gives what a nightly job needs cheaply: each answer is appended with one O_APPEND write as soon
// as it arrives (a killed run loses at most its requests in flight), two runs at once append whole lines
// without corrupting each other, and a torn last line (power loss, kill -9 mid-write) is detected on load
// by its shape and dropped with a warning. Loading is one sequential read into the run's dedup map.
// The file is rewritten (compacted) when most of its lines are damaged, expired or repeated.
//
// Line format: <unix seconds>\t<status>\t<key>\n   (keys never hold white space: such items are invalid)
import { appendFileSync, createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isCacheable, isPlainStatus } from '../statuses.js';
import { tempFileGone, tempFileOpened } from '../temp-files.js';

const HEADER_PREFIX = '# idv cache v1 ';
/** A time has at most 13 digits (load() and compact() must agree on what a good line is). */
const MAX_TS_DIGITS = 13;
/** What compact() keeps: load()'s rule for a good line, as one pattern. */
const GOOD_LINE = new RegExp(`^(\\d{1,${MAX_TS_DIGITS}})\\t([A-Za-z0-9_-]{1,40})\\t(\\S+?)\\r?$`);
/** Entries dated more than this ahead of the clock are not trusted (expired): a clock set wrong wrote them. */
const FUTURE_SLACK_SECONDS = 60;
/** A compaction renews its lock this often; a lock not renewed for LOCK_STALE_MS belongs to a dead run. */
const LOCK_BEAT_MS = 5_000;
const LOCK_STALE_MS = 60_000;
/** The shortest line worth counting: `<10-digit time>\tok\ta@b.co\n`. */
const MIN_LINE = 21;

export function cacheDir(env: Record<string, string | undefined>): string {
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(base, 'idv');
}

export interface LoadReport {
  loaded: number;
  expired: number;
  damaged: number;
  rebuilt: boolean;
}

/** Where load() puts what it reads: keys are handed over as bytes of the file, never as strings of their own. */
export interface CacheReceiver {
  /** About how many entries the log holds (from its size), once, before the first add. */
  expect(entries: number): void;
  /** A fresh entry: its key is the UTF-8 in bytes[start, end); `status` is one shared string per status. Later lines win. */
  add(bytes: Uint8Array, start: number, end: number, status: string): void;
}

export interface CacheScope {
  path: string;
  /** The first failed append of this run (a read-only or full cache folder): later runs will pay again. */
  writeError(): NodeJS.ErrnoException | null;
  /** Read every fresh entry. */
  load(into: CacheReceiver): Promise<LoadReport>;
  /** Append results now (synchronously: a crash right after keeps them). */
  append(entries: Array<[string, string]>): void;
}

// (Long on purpose: one closure per log file, whose load() parses lines in place as bytes; see parseLine.)
/** How long an entry stays fresh, in seconds: one duration, or one by status (`--cache-ttl ok=90d,7d`). */
export type Ttl = number | ((status: string) => number);

export function openScope(dir: string, baseUrl: string, endpoint: string, ttl: Ttl, now = Date.now): CacheScope {
  const ttlOf = typeof ttl === 'number' ? () => ttl : ttl;
  const id = createHash('sha256').update(`${baseUrl.replace(/\/+$/, '')}\n${endpoint}`).digest('hex').slice(0, 16);
  const path = join(dir, `${id}.log`);
  const header = `${HEADER_PREFIX}${baseUrl.replace(/\/+$/, '')} ${endpoint}\n`;
  let writeError: NodeJS.ErrnoException | null = null;
  return {
    path,
    async load(into) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const report: LoadReport = { loaded: 0, expired: 0, damaged: 0, rebuilt: false };
      // Fresh while younger than its status's TTL: written at second `ts`, so at most now - ts old.
      const newest = now() / 1000 + FUTURE_SLACK_SECONDS;
      /** The statuses met so far, as text and as bytes (each line's status is matched in place), with the oldest time still fresh. */
      const statuses: Array<{ name: string; bytes: Buffer; oldest: number }> = [];
      let lines = 0;
      let size = 0;
      let endsClean = true;
      try {
        const st = await stat(path);
        size = st.size;
      } catch {
        await writeFile(path, header, { flag: 'wx', mode: 0o600 }).catch(() => undefined);
        return report;
      }
      if (size > 0) {
        // Read as bytes, not text: a million lines must not make three million strings, and the keys go to
        // the index straight from the bytes (ItemIndex.setUtf8).
        let carry: Buffer | null = null;
        let first = true;
        for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 })) {
          const buf: Buffer = carry ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
          let start = 0;
          let nl: number;
          while ((nl = buf.indexOf(10, start)) !== -1) {
            parseLine(buf, start, nl);
            start = nl + 1;
          }
          carry = start < buf.length ? buf.subarray(start) : null;
          if (first) {
            // The first block's mean line length tells how many entries the whole log holds, near enough.
            first = false;
            // Capped at one entry per MIN_LINE bytes: a first block of damaged scraps must not reserve gigabytes.
            if (lines > 0) into.expect(Math.min(Math.ceil((size * lines) / Math.max(1, start)), Math.ceil(size / MIN_LINE)));
          }
        }
        if (carry) {
          endsClean = false;
          report.damaged++; // a torn last line
        }
      }
      function parseLine(buf: Buffer, start: number, end: number): void {
        if (end > start && buf[end - 1] === 13) end--; // a line end turned CRLF by an editor or a copy
        if (end === start) return;
        if (buf[start] === 35 /* # */) return;
        lines++;
        // <unix seconds>\t<status>\t<key>
        let ts = 0;
        let t1 = start;
        for (; t1 < end; t1++) {
          const ch = buf[t1]!;
          if (ch === 9) break;
          if (ch < 48 || ch > 57 || t1 - start >= MAX_TS_DIGITS) {
            report.damaged++;
            return;
          }
          ts = ts * 10 + (ch - 48);
        }
        const t2 = t1 === end ? -1 : buf.indexOf(9, t1 + 1);
        if (t1 === start || t2 === -1 || t2 > end || t2 + 1 >= end) {
          report.damaged++;
          return;
        }
        const status = statusAt(buf, t1 + 1, t2);
        if (status === null) {
          report.damaged++;
          return;
        }
        if (ts <= status.oldest || ts > newest) {
          report.expired++; // too old, or dated in the future (a clock set wrong): not to be trusted either
          return;
        }
        report.loaded++;
        into.add(buf, t2 + 1, end, status.name);
      }
      function statusAt(buf: Buffer, start: number, end: number): (typeof statuses)[number] | null {
        const n = end - start;
        outer: for (const s of statuses) {
          if (s.bytes.length !== n) continue;
          for (let i = 0; i < n; i++) if (buf[start + i] !== s.bytes[i]) continue outer;
          return s;
        }
        const name = buf.toString('latin1', start, end);
        if (!isPlainStatus(name)) return null;
        const s = { name, bytes: Buffer.from(name, 'latin1'), oldest: now() / 1000 - ttlOf(name) };
        if (statuses.length < 64) statuses.push(s);
        return s;
      }
      if (!endsClean) {
        // Later appends must start on a line of their own.
        try {
          appendFileSync(path, '\n');
        } catch {
          /* read-only cache: results are still written to the output */
        }
      }
      const waste = report.damaged + report.expired;
      if (report.damaged > 0 || (lines > 10_000 && waste * 2 > lines)) {
        report.rebuilt = await compact(report.damaged > 0 || waste * 2 > lines);
      }
      return report;
    },
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

  /** Rewrite the log with only its good, fresh lines (latest per key). One rewriter at a time (see takeLock). */
  async function compact(go: boolean): Promise<boolean> {
    if (!go) return false;
    const lock = `${path}.lock`;
    if (!(await takeLock(lock, now))) return false; // another run is at it
    try {
      const fresh = new Map<string, string>();
      const newest = now() / 1000 + FUTURE_SLACK_SECONDS;
      let beat = now();
      for await (const lines of linesOf(path)) {
        for (const line of lines) {
          const m = GOOD_LINE.exec(line);
          if (m && Number(m[1]) > now() / 1000 - ttlOf(m[2]!) && Number(m[1]) <= newest) fresh.set(m[3]!, `${m[1]}\t${m[2]}\t${m[3]}\n`);
        }
        if (now() - beat > LOCK_BEAT_MS) {
          beat = now();
          await utimes(lock, beat / 1000, beat / 1000).catch(() => undefined); // still alive
        }
      }
      const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      let out = header;
      for (const line of fresh.values()) out += line;
      tempFileOpened(tmp);
      try {
        await writeFile(tmp, out, { mode: 0o600 });
        await rename(tmp, path);
      } finally {
        tempFileGone(tmp);
      }
      return true;
    } finally {
      await rm(lock, { force: true }).catch(() => undefined);
    }
  }
}

/**
 * The whole lines of a log as text, a block at a time (a torn last line is left out). load() reads bytes
 * instead, for speed; compaction and stats, which run seldom, read text.
 */
async function* linesOf(path: string): AsyncGenerator<string[]> {
  let carry = '';
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 })) {
    const lines = (carry + (chunk as string)).split('\n');
    carry = lines.pop() ?? '';
    yield lines;
  }
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
      const claimed = `${lock}.${randomBytes(4).toString('hex')}.stale`;
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
    for await (const lines of linesOf(file)) {
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
    if (!/\.(log|tmp)$/.test(name)) continue;
    await rm(join(dir, name), { force: true });
    if (name.endsWith('.log')) removed++;
  }
  return removed;
}
