// A scope of the result cache: the log of one base URL and endpoint in $XDG_CACHE_HOME/idv/, and beside it
// a snapshot (snapshot.ts) that small runs probe instead of reading the log; why a log, and why a snapshot that
// the log overrules: docs/choices.md ("The cache store"). Line format: <unix seconds>\t<status>\t<key>\n.
// Its metadata calls (stat, a new log) are synchronous: each is one small system call, cheaper than a trip
// through the thread pool, and a run makes them before anything else can go on.
import { closeSync, constants, fstatSync, lstatSync, openSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { isCacheable, isPlainStatus } from '../core/statuses.js';
import { KeyHash } from '../core/key-hash.js';
import { compactLog } from './compact.js';
import { appendTo, NOFOLLOW, openToRead, writeWhole } from './files.js';
import { HEADER_PREFIX, readLines, TORN_LINE_END, type RangeRead } from './log.js';
import { CachedResults } from './results.js';
import { Entries, openSnapshot, writeSnapshot, type LogIdentity, type Snapshot } from './snapshot.js';
import { trustedFolder, UntrustedFolder } from './trust.js';
import { freshnessAt, isFresh, uniformTtl, type CacheTtl, type Freshness } from './ttl.js';

/** The shortest line worth counting: `<10-digit time>\tok\ta@b.co\n`. */
const MIN_LINE = 21;
/** Lines since the snapshot beyond this many bytes (about 20,000 results) are merged into a new one. */
const REBUILD_BYTES = 1024 * 1024;
/** The log bytes a snapshot keeps to know it is the snapshot of this log. */
const FINGERPRINT_BYTES = 64;

/** `$XDG_CACHE_HOME/idv`: where it is comes from paths.ts, with the config folder's rules. */
export { cacheDir } from '../system/paths.js';

export interface LoadReport {
  /** Fresh results read from the log, plus the snapshot's entries. */
  loaded: number;
  expired: number;
  damaged: number;
  /** The log was rewritten (damaged lines dropped, or mostly waste). */
  rebuilt: boolean;
  /** Bytes of the log the snapshot covers; null when the log was read whole. */
  snapshotCovers: number | null;
}

export interface Loaded {
  report: LoadReport;
  /** What the cache knows, to be asked key by key. */
  results: CachedResults;
}

export interface CacheScope {
  /** The cache folder; `id` names this scope's files in it. */
  readonly dir: string;
  readonly id: string;
  readonly path: string;
  /** Read what is fresh: the log's recent lines, and the snapshot for the rest. Throws UntrustedFolder. */
  load(): Promise<Loaded>;
  /** Read into `results` what was appended to the log since they were loaded (by other runs too). */
  refresh(results: CachedResults): Promise<void>;
  /** Append results now (synchronously: a crash right after keeps them). */
  append(entries: Array<[string, string]>): void;
  /** The first failed append of this run (a read-only or full cache folder): later runs will pay again. */
  writeError(): NodeJS.ErrnoException | null;
}

export interface ScopeTuning {
  /** Lines since the snapshot beyond this many bytes make a new snapshot (tests make it small). */
  rebuildBytes?: number;
}

export function openScope(dir: string, baseUrl: string, endpoint: string, ttl: CacheTtl | number, now = Date.now, tuning: ScopeTuning = {}): CacheScope {
  const policy = typeof ttl === 'number' ? uniformTtl(ttl) : ttl;
  return new Scope(dir, baseUrl.replace(/\/+$/, ''), endpoint, policy, now, tuning.rebuildBytes ?? REBUILD_BYTES);
}

class Scope implements CacheScope {
  readonly id: string;
  readonly path: string;
  private readonly index: string;
  private readonly header: string;
  private failedAppend: NodeJS.ErrnoException | null = null;

  constructor(
    readonly dir: string,
    baseUrl: string,
    endpoint: string,
    private readonly policy: CacheTtl,
    private readonly now: () => number,
    private readonly rebuildBytes: number,
  ) {
    this.id = createHash('sha256').update(`${baseUrl}\n${endpoint}`).digest('hex').slice(0, 16);
    this.path = join(dir, `${this.id}.log`);
    this.index = `${this.path}.idx`;
    this.header = `${HEADER_PREFIX}${baseUrl} ${endpoint}\n`;
  }

  async load(): Promise<Loaded> {
    trustedFolder(this.dir);
    const report: LoadReport = { loaded: 0, expired: 0, damaged: 0, rebuilt: false, snapshotCovers: null };
    let log = this.identity();
    if (!log) return { report, results: this.create() };
    let snapshot = openSnapshot(this.index, this.path, log, this.fresh());
    let merged = 0; // damaged lines met while merging into a new snapshot
    if (log.size - (snapshot?.covered ?? 0) > this.rebuildBytes) {
      ({ log, snapshot, damaged: merged, rebuilt: report.rebuilt } = await this.renewSnapshot(snapshot, log));
    }
    const results = new CachedResults(snapshot);
    const read = await this.readInto(results, report, snapshot?.covered ?? 0, log.size, snapshot === null);
    results.mark = { ino: log.ino, offset: read.end };
    // Without a snapshot the whole log was read again, counting every damaged line itself.
    report.damaged = snapshot === null ? Math.max(merged, read.damaged) : merged + read.damaged;
    report.snapshotCovers = snapshot?.covered ?? null;
    if (snapshot) report.loaded += snapshot.entries;
    if (read.damaged > 0 || (snapshot === null && mostlyWaste(read.lines, read.damaged + report.expired))) {
      report.rebuilt = await compactLog(this.path, this.header, this.fresh(), this.now);
      // The new file holds what was just read: a refresh goes on from its end, not from its start.
      const compacted = report.rebuilt ? this.identity() : null;
      if (compacted) results.mark = { ino: compacted.ino, offset: compacted.size };
    }
    return { report, results };
  }

  async refresh(results: CachedResults): Promise<void> {
    try {
      const log = this.identity();
      if (!log) return;
      // A compaction made a new file, or the log was cut: read it again from the start (the latest line wins).
      const from = log.ino === results.mark.ino && log.size >= results.mark.offset ? results.mark.offset : 0;
      if (log.size <= from) return;
      const f = this.fresh();
      const read = await readLines(this.path, from, log.size, (buf, start, end, ts, status) =>
        results.noteLater(buf, start, end, isFresh(ts, status, f) ? status : null),
      );
      results.mark = { ino: log.ino, offset: read.end }; // a line still being written is read next time
    } catch {
      /* the cache is for saving money, not for failing runs: what was not read is sent */
    }
  }

  append(entries: Array<[string, string]>): void {
    if (this.failedAppend) return; // said once; the output is still written
    const ts = Math.floor(this.now() / 1000);
    let text = '';
    for (const [key, status] of entries) {
      if (isCacheable(status) && isPlainStatus(status)) text += `${ts}\t${status}\t${key}\n`;
    }
    if (!text) return;
    try {
      appendToLog(this.path, text);
    } catch (err) {
      this.failedAppend = err as NodeJS.ErrnoException;
    }
  }

  writeError(): NodeJS.ErrnoException | null {
    return this.failedAppend;
  }

  private fresh(): Freshness {
    return freshnessAt(this.policy, this.now());
  }

  /** The log's file and size; null when there is none. A link or anything but a file in its place is refused. */
  private identity(): LogIdentity | null {
    const st = lstatSync(this.path, { throwIfNoEntry: false });
    if (st === undefined) return null;
    if (!st.isFile()) throw new UntrustedFolder(`${this.path} is not a file (a symbolic link, or something else in its place); remove it`);
    return { ino: st.ino, dev: st.dev, size: st.size };
  }

  /** A new, empty log (its header names the scope); nothing cached yet, and nothing to read again. */
  private create(): CachedResults {
    const results = new CachedResults();
    try {
      const fd = openSync(this.path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
      try {
        writeWhole(fd, Buffer.from(this.header));
        const st = fstatSync(fd);
        results.mark = { ino: st.ino, offset: st.size };
      } finally {
        closeSync(fd);
      }
    } catch {
      /* made by another run meanwhile, or a read-only folder: a refresh reads what is there */
    }
    return results;
  }

  /** The log's lines in [from, to) into `results`, counted in `report`; `estimate`: reserve room from the first block. */
  private async readInto(results: CachedResults, report: LoadReport, from: number, to: number, estimate: boolean): Promise<RangeRead> {
    const f = this.fresh();
    const read = await readLines(
      this.path,
      from,
      to,
      (buf, start, end, ts, status) => {
        const fresh = isFresh(ts, status, f); // too old, or dated in the future (a clock set wrong): not trusted
        if (fresh) report.loaded++;
        else report.expired++;
        results.note(buf, start, end, fresh ? status : null);
      },
      estimate ? (bytes, lines) => lines > 0 && results.reserve(estimatedLines(to, bytes, lines)) : undefined,
    );
    if (read.torn) this.healTornLine();
    return read;
  }

  /** Merge the log's lines since `old` into a new snapshot, compacting the log first when it is mostly waste. */
  private async renewSnapshot(old: Snapshot | null, log: LogIdentity) {
    const built = await this.writeMerged(old, log);
    old?.close();
    let rebuilt = false;
    if (built.compact) {
      rebuilt = await compactLog(this.path, this.header, this.fresh(), this.now);
      log = this.identity() ?? log;
      if (rebuilt) await this.writeMerged(null, log);
    }
    // Null when it could not be written (a read-only cache folder): the log is then read whole.
    return { log, snapshot: openSnapshot(this.index, this.path, log, this.fresh()), damaged: built.damaged, rebuilt };
  }

  /** A new snapshot: the old one's entries and the log's lines since, the latest per key. */
  private async writeMerged(old: Snapshot | null, log: LogIdentity): Promise<{ damaged: number; compact: boolean }> {
    const entries = old ? old.all() : new Entries(Math.ceil(log.size / 48));
    const h = new KeyHash();
    const read = await readLines(this.path, old?.covered ?? 0, log.size, (buf, start, end, ts, status) => {
      h.ofUtf8(buf, start, end);
      entries.push(h.a, h.b, h.c, ts, status);
    });
    if (read.torn) this.healTornLine();
    const lines = (old?.lines ?? 0) + read.lines;
    try {
      const fingerprint = await this.bytesBefore(read.end);
      const written = await writeSnapshot(this.index, entries, { covered: read.end, lines, ino: log.ino, dev: log.dev, fingerprint }, this.fresh());
      return { damaged: read.damaged, compact: read.damaged > 0 || mostlyWaste(lines, lines - written.fresh) };
    } catch {
      return { damaged: read.damaged, compact: read.damaged > 0 }; // a read-only cache folder: go on without a snapshot
    }
  }

  private async bytesBefore(end: number): Promise<Buffer> {
    const start = Math.max(0, end - FINGERPRINT_BYTES);
    const file = await openToRead(this.path);
    try {
      const buf = Buffer.alloc(end - start);
      await file.read(buf, 0, buf.length, start);
      return buf;
    } finally {
      await file.close();
    }
  }

  /** Later appends must start on a line of their own. */
  private healTornLine(): void {
    try {
      appendTo(this.path, TORN_LINE_END);
    } catch {
      /* a read-only cache: results are still written to the output */
    }
  }
}

/** How long an append waits for a log that is missing (ms, in steps): a compaction on Windows moves the old one aside, then puts the new one in place. */
const GAP_STEPS = 10;
const GAP_STEP_MS = 5;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Append lines to the log, which load() made. Missing, it is waited for a moment before it is made again (a
 * log made in that moment would be replaced by the compacted one, and its lines, paid for, lost with it).
 */
function appendToLog(path: string, text: string): void {
  for (let step = 0; ; step++) {
    try {
      return appendTo(path, text, step >= GAP_STEPS);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || step >= GAP_STEPS) throw err;
      Atomics.wait(pause, 0, 0, GAP_STEP_MS);
    }
  }
}

/** More than half of many lines are expired, repeated or damaged: worth rewriting the log. */
function mostlyWaste(lines: number, waste: number): boolean {
  return lines > 10_000 && waste * 2 > lines;
}

/**
 * How many lines a log of `size` bytes holds, from the first block's mean line length; capped at one line
 * per MIN_LINE bytes: a first block of damaged scraps must not reserve gigabytes.
 */
function estimatedLines(size: number, blockBytes: number, blockLines: number): number {
  return Math.min(Math.ceil((size * blockLines) / Math.max(1, blockBytes)), Math.ceil(size / MIN_LINE));
}
