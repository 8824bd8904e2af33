// How long a cached result counts, by its status: `--cache-ttl ok=90d,disposable=180d,7d` (the bare value is
// the default for every other status; without one, the default is DEFAULTS.cacheTtl).
import { DEFAULTS } from '../core/defaults.js';
import { parseDuration } from '../core/duration.js';
import { usageError } from '../core/errors.js';
import { isPlainStatus } from '../core/statuses.js';

export interface CacheTtl {
  /** Seconds, for a status not named. */
  readonly fallback: number;
  /** Seconds, per status named. */
  readonly byStatus: ReadonlyMap<string, number>;
}

/** The seconds a result with this status stays fresh. */
export function ttlOf(ttl: CacheTtl, status: string): number {
  return ttl.byStatus.get(status) ?? ttl.fallback;
}

const FLAG = '--cache-ttl';

/** `7d`, `ok=90d,disposable=180d,7d`, `ok=90d` (others: the default 7d). Names are statuses, lower case. */
export function parseCacheTtl(text: string): CacheTtl {
  let fallback: number | undefined;
  const byStatus = new Map<string, number>();
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => p === '')) throw usageError(`${FLAG} takes durations separated by commas, like ok=90d,disposable=180d,7d, not "${text}".`);
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq === -1) {
      if (fallback !== undefined) throw usageError(`${FLAG} "${text}" gives the default duration twice; give it once, beside status=duration pairs.`);
      fallback = parseDuration(part, FLAG);
      continue;
    }
    const status = part.slice(0, eq).trim().toLowerCase();
    if (!isPlainStatus(status)) throw usageError(`${FLAG}: "${part.slice(0, eq)}" is not a status name; write status=duration, like ok=90d.`);
    if (byStatus.has(status)) throw usageError(`${FLAG} names ${status} twice.`);
    byStatus.set(status, parseDuration(part.slice(eq + 1), FLAG));
  }
  return { fallback: fallback ?? parseDuration(DEFAULTS.cacheTtl, FLAG), byStatus };
}

export function uniformTtl(seconds: number): CacheTtl {
  return { fallback: seconds, byStatus: new Map() };
}

/** Entries dated more than this ahead of the clock are not trusted: a clock set wrong wrote them. */
const FUTURE_SLACK_SECONDS = 60;

/** What "fresh" means at one moment: a result's TTL by status, and now. */
export interface Freshness {
  /** Seconds a result of this status counts. */
  ttl(status: string): number;
  /** Now, in seconds. */
  now: number;
  /** Entries dated further ahead than this are not trusted. */
  futureSlack: number;
}

export function freshnessAt(ttl: CacheTtl, nowMs: number): Freshness {
  return { ttl: (s) => ttlOf(ttl, s), now: nowMs / 1000, futureSlack: FUTURE_SLACK_SECONDS };
}

/** Written at second `ts`, so at most now - ts old: fresh while younger than its status's TTL, and not from the future. */
export function isFresh(ts: number, status: string, f: Freshness): boolean {
  return ts > f.now - f.ttl(status) && ts <= f.now + f.futureSlack;
}
