// The plan: what a run knows of each item (NEW: first met, to be sent; PENDING: sent or queued; or a Known
// status and its source) and the counts a dry run prints. Items met are kept in a KeyTable (a 96-bit hash per
// key: a million-line list must not sit in memory); the cache is asked for the others, as the run meets them.
import { KeyTable } from '../core/key-table.js';
import type { CachedResults } from '../cache/results.js';
import type { CacheScope, LoadReport } from '../cache/store.js';

/** What lookup() answers. NEW and PENDING are singletons; a Known is one object per status and source, made once. */
export type Lookup = typeof NEW | typeof PENDING | Known;
export const NEW = { kind: 'new' } as const;
export const PENDING = { kind: 'pending' } as const;
/** Where a status came from: the service (this run's answer, or what this run decided when it could not ask: quota_exceeded, error), the cache, or idv's own check (invalid). */
export type Source = 'service' | 'cache' | 'check';
export interface Known {
  readonly kind: 'known';
  readonly status: string;
  readonly source: Source;
}

/** The index's value while an item is pending; a settled item's is its status's index. */
const PENDING_V = -1;

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
  private readonly index = new KeyTable();
  private readonly known: Known[] = [];
  /** A Known's index by its status, one map per source. */
  private readonly byName: Record<Source, Map<string, number>> = { service: new Map(), cache: new Map(), check: new Map() };
  readonly counts: PlanCounts = { records: 0, unique: 0, invalid: 0, cached: 0 };
  private scope: CacheScope | null = null;
  private cached: CachedResults | null = null;

  /** Load a cache scope: from now on it is asked for every item the plan has not met. */
  async loadCache(scope: CacheScope): Promise<LoadReport> {
    const { report, results } = await scope.load();
    this.scope = scope;
    this.cached = results;
    return report;
  }

  /** NEW the first time an uncached item is met (it is pending from then on), else PENDING or its Known. */
  lookup(key: string): Lookup {
    const h = this.index.hashOf(key);
    const v = this.index.getHashed(h);
    if (v === PENDING_V) return PENDING;
    if (v !== undefined) return this.known[v]!;
    const hit = this.cached === null ? null : this.cached.find(h);
    if (hit !== null) {
      if (hit.first) {
        this.counts.unique++;
        this.counts.cached++;
      }
      return this.knownAs(hit.status, 'cache');
    }
    this.index.setHashed(h, PENDING_V);
    this.counts.unique++;
    return NEW;
  }

  /** Read what other runs have appended to the cache since it was loaded. */
  async refreshCache(): Promise<void> {
    if (this.scope && this.cached) await this.scope.refresh(this.cached);
  }

  /**
   * A pending item another run has answered since, as the cache now tells: settled here and counted as
   * from the cache; null when the cache does not have it.
   */
  takeFromCache(key: string): Known | null {
    const hit = this.cached === null ? null : this.cached.find(this.index.hashOf(key));
    if (hit === null) return null;
    this.counts.cached++;
    this.settle(key, hit.status, 'cache');
    return this.knownAs(hit.status, 'cache');
  }

  /** Let go of the cache (its snapshot is an open file). */
  close(): void {
    this.cached?.close();
    this.cached = null;
    this.scope = null;
  }

  settle(key: string, status: string, source: Source = 'service'): void {
    this.index.set(key, this.intern(status, source));
  }

  /** The status of an item met before; undefined while it is pending. */
  statusOf(key: string): string | undefined {
    return this.knownOf(key)?.status;
  }

  /** The status of an item met before and where it came from; undefined while it is pending. */
  knownOf(key: string): Known | undefined {
    const v = this.index.get(key);
    return v === undefined || v === PENDING_V ? undefined : this.known[v]!;
  }

  /** The Known of a status (for records whose status is decided without the index, like `invalid`). */
  knownAs(status: string, source: Source = 'service'): Known {
    return this.known[this.intern(status, source)]!;
  }

  private intern(status: string, source: Source): number {
    const byName = this.byName[source];
    let i = byName.get(status);
    if (i === undefined) {
      i = this.known.length;
      this.known.push({ kind: 'known', status, source });
      byName.set(status, i);
    }
    return i;
  }
}
