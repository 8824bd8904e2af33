// The plan: what a run knows of each item. One table serves as the dedup index and the cache: every item a
// run meets and every fresh cache entry, by its key. Its vocabulary is small:
//   lookup(key)        → NEW (first met, not cached: to be sent; from now on pending), PENDING (sent or queued),
//                        or a Known status (cached, or answered earlier in this run)
//   settle(key, status)  an answer arrived
//   statusOf(key)      → the status, or undefined while pending
//   counts             records, unique, invalid, cached: what a dry run prints and the summary tells
// How it is stored is this file's business alone: a status index packed with two flags in one integer of
// an ItemIndex (a 96-bit hash per key, not the key itself: a million-line list must not sit in memory).
// A cache's snapshot is probed only for keys the index has not met: cost follows the run's items.
import { ItemIndex } from './item-index.js';
import type { CacheScope, LoadReport } from '../cache/store.js';
import type { Snapshot } from '../cache/snapshot.js';

/** What lookup() answers. NEW and PENDING are singletons; a Known is one object per status, made once. */
export type Lookup = typeof NEW | typeof PENDING | Known;
export const NEW = { kind: 'new' } as const;
export const PENDING = { kind: 'pending' } as const;
export interface Known {
  readonly kind: 'known';
  readonly status: string;
}

// The packing: v = status index, + CACHED when it came from the cache, + CACHED again (SEEN) once this run has
// met that cached item (so it is counted once); -1 while pending; STALE for a cached answer no longer fresh
// (it hides an older one in the snapshot: the latest answer counts).
const PENDING_V = -1;
const CACHED = 1 << 20;
const SEEN = CACHED * 2;
const STALE = SEEN * 2;

export interface PlanCounts {
  /** Records read (blank lines are none). */
  records: number;
  /** Distinct valid items (cached ones included). */
  unique: number;
  /** Records whose item cannot be an address or domain (never sent). */
  invalid: number;
  /** Distinct items answered from the cache. */
  cached: number;
}

export class Plan {
  private readonly index = new ItemIndex();
  private readonly known: Known[] = [];
  private readonly byName = new Map<string, number>();
  readonly counts: PlanCounts = { records: 0, unique: 0, invalid: 0, cached: 0 };

  private snapshot: Snapshot | null = null;

  /** Read the fresh entries of a cache into the plan (the recent ones; the snapshot is probed as keys come). */
  async loadCache(scope: CacheScope): Promise<LoadReport> {
    const report = await scope.load({
      expect: (entries) => this.index.reserve(entries),
      add: (bytes, start, end, status) => this.index.setUtf8(bytes, start, end, this.intern(status) + CACHED),
      stale: (bytes, start, end) => this.index.setUtf8(bytes, start, end, STALE),
    });
    this.snapshot = report.snapshot;
    return report;
  }

  lookup(key: string): Lookup {
    const h = this.index.hashOf(key);
    const v = this.index.getHashed(h);
    if (v === undefined && this.snapshot !== null) {
      // The snapshot remembers which of its entries this run met: they are not copied into the index.
      const status = this.snapshot.status(h);
      if (status !== null) {
        if (this.snapshot.firstMeeting) {
          this.counts.unique++;
          this.counts.cached++;
        }
        return this.knownAs(status);
      }
    }
    if (v === undefined || v === STALE) {
      this.index.setHashed(h, PENDING_V);
      this.counts.unique++;
      return NEW;
    }
    if (v === PENDING_V) return PENDING;
    if (v >= CACHED && v < SEEN) {
      this.index.setHashed(h, v + CACHED);
      this.counts.unique++;
      this.counts.cached++;
    }
    return this.known[v % CACHED]!;
  }

  /** Let go of the cache's snapshot (an open file). */
  close(): void {
    this.snapshot?.close();
    this.snapshot = null;
  }

  settle(key: string, status: string): void {
    this.index.set(key, this.intern(status));
  }

  /** The status of an item met before; undefined while it is pending. */
  statusOf(key: string): string | undefined {
    const v = this.index.get(key);
    return v === undefined || v === PENDING_V || v === STALE ? undefined : this.known[v % CACHED]!.status;
  }

  /** The Known of a status (for records whose status is decided without the index, like `invalid`). */
  knownAs(status: string): Known {
    return this.known[this.intern(status)]!;
  }

  private intern(status: string): number {
    let i = this.byName.get(status);
    if (i === undefined) {
      i = this.known.length;
      this.known.push({ kind: 'known', status });
      this.byName.set(status, i);
    }
    return i;
  }
}
