// What a loaded cache scope knows, asked key by key: the log's lines read by this run (those after the
// snapshot, or the whole log when there is none), and the snapshot for the rest. The latest line of a key
// counts: one no longer fresh hides an older answer the snapshot holds.
import { KeyHash } from '../core/key-hash.js';
import { KeyTable } from '../core/key-table.js';
import { hitsOf, type CacheHit, type Snapshot } from './snapshot.js';

/** A key whose latest line is no longer fresh. */
const STALE = -1;
/** Added to a status index once this run has met the key (so that it is counted once). */
const SEEN = 1 << 20;

/** How far this run has read a log: the file (a compaction makes a new one) and the byte offset. */
export interface LogMark {
  ino: number;
  offset: number;
}

export class CachedResults {
  /** Set by the scope as it reads; lines from here on are newer than what this object knows. */
  mark: LogMark = { ino: -1, offset: 0 };
  private readonly recent = new KeyTable();
  private readonly hash = new KeyHash();
  private readonly statuses = new Map<string, number>();
  private readonly hits: Array<[CacheHit, CacheHit]> = [];

  constructor(private snapshot: Snapshot | null = null) {}

  /** About how many lines are coming (from the log's size), once, before they come. */
  reserve(lines: number): void {
    this.recent.reserve(lines);
  }

  /** A line read from the log: the key in bytes[start, end), its status, or null when it is no longer fresh. */
  note(bytes: Uint8Array, start: number, end: number, status: string | null): void {
    this.recent.setHashed(this.hash.ofUtf8(bytes, start, end), status === null ? STALE : this.indexOf(status));
  }

  /** A line another run appended since the load: as note(), but a key this run has met stays met. */
  noteLater(bytes: Uint8Array, start: number, end: number, status: string | null): void {
    const h = this.hash.ofUtf8(bytes, start, end);
    const old = this.recent.getHashed(h);
    const met = old === undefined ? this.snapshot?.find(h, false)?.first === false : old >= SEEN;
    this.recent.setHashed(h, status === null ? STALE : this.indexOf(status) + (met ? SEEN : 0));
  }

  /** The fresh result of a key, or null. */
  find(h: KeyHash): CacheHit | null {
    const v = this.recent.size === 0 ? undefined : this.recent.getHashed(h);
    if (v === undefined) return this.snapshot === null ? null : this.snapshot.find(h);
    if (v === STALE) return null;
    if (v < SEEN) this.recent.setHashed(h, v + SEEN);
    return this.hits[v % SEEN]![v < SEEN ? 0 : 1]!;
  }

  /** Let go of the snapshot (an open file). */
  close(): void {
    this.snapshot?.close();
    this.snapshot = null;
  }

  private indexOf(status: string): number {
    let i = this.statuses.get(status);
    if (i === undefined) {
      i = this.hits.length;
      this.hits.push(hitsOf(status));
      this.statuses.set(status, i);
    }
    return i;
  }
}
