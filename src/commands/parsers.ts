// Flag value parsers, for commander's argParser: each returns the typed value, or throws the sentence
// commander prints after "option '…' argument '…' is invalid.". Ranges are checked here, once.
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../duration.js';
import type { CacheTtl } from '../cache/ttl.js';
import { KNOWN_STATUSES } from '../statuses.js';

export const wholeNumber =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string): number => {
    const t = value.trim();
    if (!/^\d{1,15}$/.test(t) || Number(t) < min || Number(t) > max) {
      const range = max < Number.MAX_SAFE_INTEGER ? ` from ${min} to ${max}` : min > 0 ? ` of at least ${min}` : '';
      throw new InvalidArgumentError(`Give a whole number${range}.`);
    }
    return Number(t);
  };
/** The longest --timeout: a day (Node fires a timer set beyond 24.8 days at once, which would time every request out). */
export const MAX_TIMEOUT_SECONDS = 86_400;
export const positiveSeconds = (value: string) => {
  const t = value.trim();
  if (!/^\d{1,9}(\.\d{1,9})?$/.test(t) || !(Number(t) > 0) || Number(t) > MAX_TIMEOUT_SECONDS) {
    throw new InvalidArgumentError(`Give a number of seconds above 0, at most ${MAX_TIMEOUT_SECONDS} (a day).`);
  }
  return Number(t);
};
export const duration = (flag: string) => (value: string) => parseDuration(value, flag);

/** `ok, alias` → ['ok', 'alias']: names trimmed and lower-cased, empty ones dropped; a mistyped status refused. */
export const statusList = (value: string) => {
  const names = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  for (const name of names) refuseMistyped(name);
  return names;
};

/** --cache-ttl's status names, checked like --only's (the durations are parseCacheTtl's). */
export function ttlNames(ttl: CacheTtl): CacheTtl {
  for (const name of ttl.byStatus.keys()) refuseMistyped(name);
  return ttl;
}

/**
 * A name one or two edits from a known status, and not that status, is a slip that would cost money (a
 * "clean" file still holding the disposables): refused, with the status meant. Any other name passes (the
 * service may add statuses); the run warns about it.
 */
function refuseMistyped(name: string): void {
  const meant = mistypedStatus(name);
  if (meant !== null) throw new InvalidArgumentError(`"${name}" is no status: did you mean "${meant}"?`);
}

/** The known status `name` is a slip of (one or two edits, fewer than either's length), or null. */
export function mistypedStatus(name: string): string | null {
  if (KNOWN_STATUSES.includes(name)) return null;
  let best: string | null = null;
  let bestDistance = 3;
  for (const status of KNOWN_STATUSES) {
    const d = editDistance(name, status, bestDistance);
    // "no" is two edits from "ok", but shares nothing with it: no slip of it.
    if (d < bestDistance && d < Math.min(name.length, status.length)) [best, bestDistance] = [status, d];
  }
  return best;
}

/** Edits (insert, delete, change, swap two neighbours) from a to b; `limit` once it reaches it. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const change = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + change);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current.push(d);
    }
    [before, previous] = [previous, current];
  }
  return Math.min(previous[b.length]!, limit);
}
