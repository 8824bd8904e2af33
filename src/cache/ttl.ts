// How long a cached result counts: `--cache-ttl 7d`, or per status, `--cache-ttl ok=90d,disposable=180d,7d`
// (the bare value is the default for every other status; without one, the default is DEFAULTS.cacheTtl).
import { DEFAULTS } from '../defaults.js';
import { parseDuration } from '../duration.js';
import { isPlainStatus } from '../statuses.js';
import { usageError } from '../errors.js';

export interface TtlPolicy {
  /** Seconds, for a status not named below. */
  fallback: number;
  /** Seconds, by status. */
  byStatus: Readonly<Record<string, number>>;
}

export function uniformTtl(seconds: number): TtlPolicy {
  return { fallback: seconds, byStatus: {} };
}

export function ttlOf(policy: TtlPolicy, status: string): number {
  return Object.hasOwn(policy.byStatus, status) ? policy.byStatus[status]! : policy.fallback;
}

/** Parse the flag's value; a malformed one throws the usage error that says how to write it. */
export function parseTtlPolicy(text: string, flag = '--cache-ttl'): TtlPolicy {
  let fallback: number | undefined;
  const byStatus: Record<string, number> = {};
  for (const part of text.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq === -1) {
      if (fallback !== undefined) throw ttlError(flag, text, 'it gives two defaults');
      fallback = parseDuration(part, flag);
      continue;
    }
    const status = part.slice(0, eq).trim().toLowerCase();
    if (!isPlainStatus(status)) throw ttlError(flag, text, `"${status}" is not a status name`);
    if (Object.hasOwn(byStatus, status)) throw ttlError(flag, text, `it names ${status} twice`);
    byStatus[status] = parseDuration(part.slice(eq + 1), flag);
  }
  if (fallback === undefined && Object.keys(byStatus).length === 0) throw ttlError(flag, text, 'it is empty');
  return { fallback: fallback ?? parseDuration(DEFAULTS.cacheTtl, flag), byStatus };
}

function ttlError(flag: string, text: string, why: string): Error {
  return usageError(`${flag} "${text}": ${why}; write a duration (7d) or durations by status (ok=90d,disposable=180d,7d).`);
}
