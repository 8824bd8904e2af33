// The cache's snapshot, `<log>.idx`: the latest result of every key the log had up to a byte offset, sorted into
// hash buckets, so that a small run probes it for its own items and a large one reads it whole (docs/choices.md).
// File layout (32-bit little-endian words):
//   header   16 words: MAGIC, VERSION, entries, bucket bits, covered bytes (lo, hi), lines covered,
//            statuses JSON bytes, fingerprint bytes, log inode (lo, hi), log device (lo, hi), 3 reserved
//   fingerprint  the last FINGERPRINT bytes of the log before `covered` (padded to 64 bytes)
//   statuses     JSON array of the status names, padded to a multiple of 4 bytes
//   directory    2^bits + 1 words: entry index where bucket i starts
//   entries      5 words each: hash a, b, c, time (unsigned seconds), status index
import { closeSync, fstatSync, readSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import type { KeyHash } from '../core/key-hash.js';
import { replaceFile } from '../system/temp-files.js';
import { openToReadSync, renameOver } from './files.js';
import type { Freshness } from './ttl.js';

const MAGIC = 0x31584449; // "IDX1"
const VERSION = 1;
const HEADER_WORDS = 16;
const FINGERPRINT = 64;
const W = 5; // words per entry
/** Disk probes before the snapshot is read whole: past this, the run is a large one. */
const PROBES_IN_PLACE = 1024;
/** Aim for about this many entries a bucket (one bucket: one read of a few hundred bytes). */
const BUCKET_TARGET = 4;

/** Entries in log order, before sorting: a growable array of 5-word entries. */
export class Entries {
  words: Int32Array;
  n = 0;
  readonly statuses: string[] = [];
  private readonly statusIndex = new Map<string, number>();

  constructor(capacity: number) {
    this.words = new Int32Array(Math.max(1, capacity) * W);
  }

  push(a: number, b: number, c: number, ts: number, status: string): void {
    if ((this.n + 1) * W > this.words.length) {
      const bigger = new Int32Array(this.words.length * 2);
      bigger.set(this.words);
      this.words = bigger;
    }
    let s = this.statusIndex.get(status);
    if (s === undefined) {
      s = this.statuses.length;
      this.statuses.push(status);
      this.statusIndex.set(status, s);
    }
    const w = this.n * W;
    this.words[w] = a;
    this.words[w + 1] = b;
    this.words[w + 2] = c;
    this.words[w + 3] = ts;
    this.words[w + 4] = s;
    this.n++;
  }
}

export interface LogIdentity {
  ino: number;
  dev: number;
  size: number;
}

/** What the cache knows of a key: its fresh status, and whether this run meets it for the first time (so it is counted once). */
export interface CacheHit {
  readonly status: string;
  readonly first: boolean;
}

/** The two hits of a status (first meeting, met before): made once, so that a lookup allocates nothing. */
export function hitsOf(status: string): [CacheHit, CacheHit] {
  return [
    { status, first: true },
    { status, first: false },
  ];
}

export interface Snapshot {
  /** Bytes of the log it covers; lines from there on are newer. */
  readonly covered: number;
  readonly lines: number;
  readonly entries: number;
  /** The fresh status of a key, by its hash, or null (absent, or expired); `mark: false` leaves it unmet. */
  find(h: KeyHash, mark?: boolean): CacheHit | null;
  /** Every entry, for a merge (the file is read whole). */
  all(): Entries;
  close(): void;
}

/**
 * Sort `entries` into buckets (latest entry per key kept: later entries win) and write the snapshot
 * atomically. `fingerprint` is the log's bytes just before `covered`.
 */
export async function writeSnapshot(
  path: string,
  entries: Entries,
  log: { covered: number; lines: number; ino: number; dev: number; fingerprint: Buffer },
  fresh: Freshness,
): Promise<{ entries: number; fresh: number }> {
  const bits = bucketBits(entries.n);
  const { dir, sorted, n } = bucketed(entries, bits);
  const oldest = entries.statuses.map((s) => fresh.now - fresh.ttl(s));
  let freshCount = 0;
  for (let w = 0; w < n * W; w += W) {
    const ts = sorted[w + 3]! >>> 0;
    if (ts > oldest[sorted[w + 4]!]! && ts <= fresh.now + fresh.futureSlack) freshCount++;
  }
  const statuses = Buffer.from(JSON.stringify(entries.statuses), 'utf8');
  const statusBytes = pad4(statuses.length);
  const header = new Int32Array(HEADER_WORDS);
  header.set([MAGIC, VERSION, n, bits, lo(log.covered), hi(log.covered), log.lines, statuses.length, log.fingerprint.length, lo(log.ino), hi(log.ino), lo(log.dev), hi(log.dev)]);
  const fp = Buffer.alloc(FINGERPRINT);
  log.fingerprint.copy(fp);
  const st = Buffer.alloc(statusBytes);
  statuses.copy(st);
  const parts = [bytesOf(header), fp, st, bytesOf(dir), bytesOf(sorted.subarray(0, n * W))];
  // Runs probing the old one hold it open (this one too, while it merges): on Windows it is moved aside.
  await replaceFile(path, (tmp) => writeFile(tmp, Buffer.concat(parts), { mode: 0o600 }), renameOver);
  return { entries: n, fresh: freshCount };
}

/**
 * Open the snapshot of a log if it is the snapshot of this log (same file, not truncated or rewritten
 * below what it covers); null otherwise, or when this machine is big-endian (the words are little-endian).
 */
export function openSnapshot(path: string, logPath: string, log: LogIdentity, fresh: Freshness): Snapshot | null {
  if (endianness() !== 'LE') return null;
  let fd: number;
  try {
    fd = openToReadSync(path);
  } catch {
    return null;
  }
  try {
    const head = Buffer.alloc(HEADER_WORDS * 4 + FINGERPRINT);
    if (readSync(fd, head, 0, head.length, 0) !== head.length) return dropped(fd);
    const h = (i: number) => head.readInt32LE(i * 4);
    const [n, bits, covered, lines, statusLength, fpLength] = [h(2), h(3), join(h(4), h(5)), h(6), h(7), h(8)];
    if (h(0) !== MAGIC || h(1) !== VERSION || bits < 0 || bits > 24 || n < 0 || fpLength > FINGERPRINT || statusLength > 64 * 1024) return dropped(fd);
    if (join(h(9), h(10)) !== log.ino || join(h(11), h(12)) !== log.dev || covered > log.size) return dropped(fd);
    const statusBytes = pad4(statusLength);
    const dirAt = head.length + statusBytes;
    const entriesAt = dirAt + ((1 << bits) + 1) * 4;
    if (fstatSync(fd).size !== entriesAt + n * W * 4) return dropped(fd); // cut short
    // The log's bytes before `covered` must be the ones the snapshot was made from.
    const fingerprint = head.subarray(HEADER_WORDS * 4, HEADER_WORDS * 4 + fpLength);
    if (!sameBytes(logPath, covered - fpLength, fingerprint)) return dropped(fd);
    const statusText = Buffer.alloc(statusLength);
    readSync(fd, statusText, 0, statusLength, head.length);
    const statuses = JSON.parse(statusText.toString('utf8')) as unknown;
    if (!Array.isArray(statuses) || !statuses.every((s) => typeof s === 'string')) return dropped(fd);
    return new SnapshotFile(fd, path, { n, bits, covered, lines, dirAt, entriesAt, statuses: statuses as string[] }, fresh);
  } catch {
    return dropped(fd);
  }
}

interface Layout {
  n: number;
  bits: number;
  covered: number;
  lines: number;
  dirAt: number;
  entriesAt: number;
  statuses: string[];
}

/** A status word with this bit set: its entry was met in this run (the whole file in memory only). */
const MET = 1 << 30;

class SnapshotFile implements Snapshot {
  private probes = 0;
  /** The entries met while probing in place; marked in the words once the file is read whole. */
  private met: Set<number> | null = new Set();
  /** The whole file, once the run has shown itself a large one. */
  private words: Int32Array | null = null;
  private fd: number | null;
  private readonly shift: number;
  /** Per status index: the oldest time still fresh, and its two hits. */
  private readonly oldest: number[];
  private readonly hits: Array<[CacheHit, CacheHit]>;
  private readonly newest: number;
  private readonly scratch = Buffer.alloc(BUCKET_TARGET * 8 * W * 4);
  /** Where the directory and the entries start, in words. */
  private readonly dirWord: number;
  private readonly entriesWord: number;

  constructor(fd: number, private readonly path: string, private readonly layout: Layout, fresh: Freshness) {
    this.fd = fd;
    this.shift = 32 - layout.bits;
    this.dirWord = layout.dirAt >> 2;
    this.entriesWord = layout.entriesAt >> 2;
    this.oldest = layout.statuses.map((s) => fresh.now - fresh.ttl(s));
    this.hits = layout.statuses.map(hitsOf);
    this.newest = fresh.now + fresh.futureSlack;
  }

  get covered(): number {
    return this.layout.covered;
  }
  get lines(): number {
    return this.layout.lines;
  }
  get entries(): number {
    return this.layout.n;
  }

  find(h: KeyHash, mark = true): CacheHit | null {
    if (this.words === null && ++this.probes > PROBES_IN_PLACE) this.readWhole();
    const bucket = this.layout.bits === 0 ? 0 : h.a >>> this.shift;
    const words = this.words;
    if (words === null) return this.findOnDisk(h, bucket, mark);
    const from = words[this.dirWord + bucket]! >>> 0;
    const to = words[this.dirWord + bucket + 1]! >>> 0;
    return this.scan(words, this.entriesWord + from * W, from, to - from, h, mark);
  }

  /** The bucket read from the file: its directory entry, then its entries. */
  private findOnDisk(h: KeyHash, bucket: number, mark: boolean): CacheHit | null {
    const d = this.read(this.layout.dirAt + bucket * 4, 8);
    const from = d[0]! >>> 0;
    const to = d[1]! >>> 0;
    if (to <= from || to > this.layout.n) return null;
    return this.scan(this.read(this.layout.entriesAt + from * W * 4, (to - from) * W * 4), 0, from, to - from, h, mark);
  }

  /** The key among the `n` entries at word `at` (the first is entry `first`), if it is there and fresh. */
  private scan(words: Int32Array, at: number, first: number, n: number, h: KeyHash, mark: boolean): CacheHit | null {
    for (let i = 0, w = at; i < n; i++, w += W) {
      if (words[w] === h.a && words[w + 1] === h.b && words[w + 2] === h.c) return this.hit(words, w, first + i, mark);
    }
    return null;
  }

  /** The entry at word `w` if it is fresh, met (marked) now. */
  private hit(words: Int32Array, w: number, index: number, mark: boolean): CacheHit | null {
    const ts = words[w + 3]! >>> 0;
    const word = words[w + 4]!;
    const s = word & ~MET;
    if (s < 0 || s >= this.oldest.length || !(ts > this.oldest[s]! && ts <= this.newest)) return null;
    let met: boolean;
    if (this.met === null) {
      met = (word & MET) !== 0;
      if (mark) words[w + 4] = word | MET;
    } else {
      met = this.met.has(index);
      if (mark) this.met.add(index);
    }
    return this.hits[s]![met ? 1 : 0]!;
  }

  all(): Entries {
    if (this.words === null) this.readWhole();
    const e = new Entries(this.layout.n);
    const words = this.words!;
    for (let i = 0, w = this.entriesWord; i < this.layout.n; i++, w += W) {
      e.push(words[w]!, words[w + 1]!, words[w + 2]!, words[w + 3]!, this.layout.statuses[words[w + 4]! & ~MET] ?? '');
    }
    return e;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private readWhole(): void {
    this.fd ??= openToReadSync(this.path);
    const buf = readAll(this.fd);
    const words = new Int32Array(buf.buffer, buf.byteOffset, buf.length >> 2);
    for (const i of this.met ?? []) words[this.entriesWord + i * W + 4]! |= MET;
    this.met = null;
    this.words = words;
    this.close();
  }

  private read(at: number, bytes: number): Int32Array {
    const buf = bytes <= this.scratch.length ? this.scratch : Buffer.alloc(bytes);
    const got = readSync(this.fd!, buf, 0, bytes, at);
    return new Int32Array(buf.buffer, buf.byteOffset, got >> 2);
  }
}

function readAll(fd: number): Buffer {
  const size = fstatSync(fd).size;
  const buf = Buffer.alloc(size); // its own memory, so that an Int32Array view is aligned
  let at = 0;
  while (at < size) {
    const got = readSync(fd, buf, at, size - at, at);
    if (got === 0) break;
    at += got;
  }
  return buf;
}

/** Counting sort by bucket (stable: log order kept within a bucket), then the latest entry per key. */
function bucketed(e: Entries, bits: number): { dir: Uint32Array; sorted: Int32Array; n: number } {
  const buckets = 1 << bits;
  const shift = 32 - bits;
  const bucketOf = (i: number) => (bits === 0 ? 0 : e.words[i * W]! >>> shift);
  const start = new Uint32Array(buckets + 1);
  for (let i = 0; i < e.n; i++) start[bucketOf(i) + 1]!++;
  for (let b = 0; b < buckets; b++) start[b + 1]! += start[b]!;
  const next = start.slice(0, buckets);
  const sorted = new Int32Array(e.n * W);
  for (let i = 0; i < e.n; i++) {
    const to = next[bucketOf(i)]!++ * W;
    sorted.set(e.words.subarray(i * W, i * W + W), to);
  }
  // Within each bucket keep the last entry of each key, in place.
  const dir = new Uint32Array(buckets + 1);
  let out = 0;
  for (let b = 0; b < buckets; b++) {
    dir[b] = out;
    const from = start[b]!;
    const to = start[b + 1]!;
    const seen = to - from > 32 ? new Set<string>() : null;
    // Walk backwards: the first met of a key is its latest; keep those, then restore their order.
    const kept: number[] = [];
    for (let i = to - 1; i >= from; i--) {
      const w = i * W;
      if (seen) {
        const id = `${sorted[w]},${sorted[w + 1]},${sorted[w + 2]}`;
        if (seen.has(id)) continue;
        seen.add(id);
      } else if (kept.some((k) => sorted[k * W] === sorted[w] && sorted[k * W + 1] === sorted[w + 1] && sorted[k * W + 2] === sorted[w + 2])) continue;
      kept.push(i);
    }
    for (let k = kept.length - 1; k >= 0; k--) {
      const i = kept[k]!;
      if (i !== out) sorted.copyWithin(out * W, i * W, i * W + W);
      out++;
    }
  }
  dir[buckets] = out;
  return { dir, sorted, n: out };
}

function bucketBits(n: number): number {
  let bits = 0;
  while (bits < 24 && (1 << bits) * BUCKET_TARGET < n) bits++;
  return bits;
}

function sameBytes(path: string, at: number, expected: Buffer): boolean {
  if (at < 0) return false;
  let fd: number;
  try {
    fd = openToReadSync(path);
  } catch {
    return false;
  }
  try {
    const got = Buffer.alloc(expected.length);
    return readSync(fd, got, 0, got.length, at) === got.length && got.equals(expected);
  } finally {
    closeSync(fd);
  }
}

function dropped(fd: number): null {
  closeSync(fd);
  return null;
}

const pad4 = (n: number) => (n + 3) & ~3;
const lo = (n: number) => n >>> 0;
const hi = (n: number) => Math.floor(n / 2 ** 32) | 0;
const join = (l: number, h: number) => (h >>> 0) * 2 ** 32 + (l >>> 0);
const bytesOf = (a: Int32Array | Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
