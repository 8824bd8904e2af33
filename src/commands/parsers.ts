// Flag value parsers, for commander's argParser: each returns the typed value, or throws a usage error (exit
// 2): a whole line naming the flag, or (InvalidArgumentError) the sentence after `--flag "value": `. Ranges
// are checked here, once.
import { InvalidArgumentError } from 'commander';
import type { CacheTtl } from '../cache/ttl.js';
import { isPlainStatus, KNOWN_STATUSES, STATUSES_OF } from '../core/statuses.js';
import type { Kind } from '../core/defaults.js';
import { parseCacheTtl } from '../cache/ttl.js';
import { usageError } from '../core/errors.js';

export const wholeNumber =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string): number => {
    const t = value.trim();
    if (!/^\d{1,15}$/.test(t) || Number(t) < min || Number(t) > max) {
      const range = max < Number.MAX_SAFE_INTEGER ? ` from ${min} to ${max}` : ` of at least ${min}`;
      throw new InvalidArgumentError(`Give a whole number${range}.`);
    }
    return Number(t);
  };
/**
 * A path a flag names (-o, --report, --split): an empty one (a variable left unset) or one that looks like a flag
 * (`--report -o out.csv`, where commander took `-o` as the report's name and out.csv as an input) is refused, not
 * written; `-` (standard output) passes where `dash` allows it.
 */
export const pathFlag =
  (flag: string, what: 'file' | 'folder', dash = true) =>
  (text: string): string => {
    if (text.trim() === '') throw usageError(`${flag} "${text}" names no ${what}: give one, or leave ${flag} out`);
    if (text.startsWith('-') && !(dash && text === '-')) throw usageError(`${flag} "${text}" looks like a flag, not a ${what}: give ${flag} its ${what} (./${text} for one of that name)`);
    return text;
  };

/** The longest --timeout: a day (Node fires a timer set beyond 24.8 days at once, which would time every request out). */
export const MAX_TIMEOUT_SECONDS = 86_400;


/**
 * The mark of a status idv does not know yet but the service may add: `--only ok,new:verified`. Any other name
 * that is no status is refused (exit 2, before anything is paid): a filter that matches nothing would write an
 * empty "clean" list, or keep what it was meant to drop.
 */
export const NEW_STATUS = 'new:';

/**
 * Words people filter by, and the statuses that mean them: `--only valid` is answered with `--only ok,alias`,
 * never with `invalid`, which is one letter-pair away and means the opposite.
 */
export const STATUS_WORDS: Readonly<Record<string, readonly string[]>> = words([
  [['valid', 'good', 'deliverable', 'safe', 'clean', 'real', 'genuine', 'legit', 'accepted', 'keep', 'pass', 'passed', 'verified', 'usable'], ['ok', 'alias']],
  [['bad', 'undeliverable', 'reject', 'rejected', 'remove', 'drop', 'junk', 'dirty', 'unsafe', 'unusable'], ['disposable', 'fake', 'invalid']],
  [['risky', 'suspicious', 'suspect', 'spam', 'spammy', 'fraud', 'fraudulent'], ['disposable', 'fake']],
  [['temporary', 'temp', 'throwaway', 'burner', 'trash', 'trashmail', 'tempmail', 'onetime', 'one-time'], ['disposable']],
  [['nonexistent', 'non-existent', 'bogus', 'unreal', 'made-up', 'dummy'], ['fake']],
  [['malformed', 'syntax', 'unsendable', 'broken', 'typo', 'typos', 'empty', 'blank'], ['invalid']],
  [['plus', 'plus-alias', 'subaddress', 'tagged', 'aliased', 'forwarding'], ['alias']],
  [['failed', 'failure', 'failures', 'errors', 'unknown', 'unverified', 'unchecked', 'pending', 'retry', 'undecided'], ['error', 'quota_exceeded']],
  [['quota', 'over-quota', 'over_quota', 'exceeded', 'capped', 'limit', 'limited', 'unsent'], ['quota_exceeded']],
]);

function words(groups: Array<[string[], string[]]>): Record<string, readonly string[]> {
  return Object.fromEntries(groups.flatMap(([names, statuses]) => names.map((name) => [name, statuses])));
}

/**
 * `--only ok, Alias` → ['ok', 'alias']: names trimmed and lower-cased, empty ones dropped, `new:NAME` taken as
 * NAME; any other name that is no status refused, with the statuses meant (those `kind` can give: domains are
 * never `alias`).
 */
export const statusList = (flag: string, kind: Kind = 'emails') => (value: string) => {
  const names = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  // An empty list (`--only "$UNSET"`) would write nothing, or filter nothing, after paying: said, not guessed.
  if (names.length === 0) throw usageError(`${flag} "${value}" names no status: give one or more (${flag} ${STATUSES_OF[kind].slice(0, 2).join(',')}), or leave ${flag} out`);
  const refusal = names.map((name) => refusalOf(name, names, (fixed) => `${flag} ${fixed.join(',')}`, STATUSES_OF[kind])).find((r) => r !== null);
  if (refusal) throw usageError(`${flag} ${refusal}`);
  return names.map((name) => (name.startsWith(NEW_STATUS) ? name.slice(NEW_STATUS.length) : name));
};

/** --cache-ttl: its status names checked like --only's (`new:NAME=30d` too), its durations by parseCacheTtl. */
export function cacheTtl(text: string): CacheTtl {
  // A name that cannot be one (white space, a quote…) is parseCacheTtl's to refuse.
  const names = text
    .split(',')
    .filter((p) => p.includes('='))
    .map((p) => p.slice(0, p.indexOf('=')).trim().toLowerCase())
    .filter((name) => isPlainStatus(name) || name.startsWith(NEW_STATUS));
  const refusal = names.map((name) => refusalOf(name, [name], (fixed) => fixed.join(','))).find((r) => r !== null);
  if (refusal) throw usageError(`--cache-ttl ${refusal}`);
  return parseCacheTtl(text.replace(/(^|,)\s*new:/gi, '$1'));
}

/**
 * Why `name` (one of `names`) is refused, as the rest of a line after the flag, or null: a known status passes,
 * and so does `new:NAME`; a word of STATUS_WORDS is answered with its statuses, a slip of a status with that
 * status (`suggest` makes the whole flag as it should be written), anything else with how to mark a new status.
 */
function refusalOf(name: string, names: string[], suggest: (fixed: string[]) => string, given: readonly string[] = KNOWN_STATUSES): string | null {
  if (KNOWN_STATUSES.includes(name)) return null;
  if (name.startsWith(NEW_STATUS)) {
    const status = name.slice(NEW_STATUS.length);
    return isPlainStatus(status) ? null : `"${name}": after ${NEW_STATUS} comes a status name (letters, digits, _ and -), like ${NEW_STATUS}verified`;
  }
  const meaning = Object.hasOwn(STATUS_WORDS, name) ? STATUS_WORDS[name]!.filter((s) => given.includes(s)) : null;
  const replace = (by: readonly string[]) => [...new Set(names.flatMap((n) => (n === name ? by : [n])))];
  if (meaning?.length === 0) return `"${name}" is no status, and what it means (${STATUS_WORDS[name]!.join(', ')}) is never given here`;
  if (meaning) return `"${name}" is no status; the statuses that mean it: ${suggest(replace(meaning))}`;
  const word = mistypedWord(name);
  const meant = mistypedStatus(name);
  // A slip of a word (`valids`) is answered as the word, unless a status is as close: never with a status it only looks like.
  if (word !== null && (meant === null || editDistance(name, word) < editDistance(name, meant))) {
    const by = STATUS_WORDS[word]!.filter((s) => given.includes(s));
    if (by.length > 0) return `"${name}" is no status; did you mean "${word}"? The statuses that mean it: ${suggest(replace(by))}`;
  }
  if (meant !== null) return `"${name}" is no status; did you mean ${suggest(replace([meant]))}?`;
  return `"${name}" is no status idv knows (${KNOWN_STATUSES.join(', ')}); one the service may add is written ${NEW_STATUS}${name}`;
}

/** The known status `name` is a slip of (one or two edits, fewer than either's length, not its negation), or null. */
export function mistypedStatus(name: string): string | null {
  if (KNOWN_STATUSES.includes(name)) return null;
  return closest(name, KNOWN_STATUSES, (status) => negates(name, status));
}

/** The word of STATUS_WORDS `name` is a slip of (`valids`, `goood`), by the same rule. */
function mistypedWord(name: string): string | null {
  return Object.hasOwn(STATUS_WORDS, name) ? null : closest(name, Object.keys(STATUS_WORDS), (word) => negates(name, word));
}

/** The name a slip of `word` most likely meant (`skip` passes some over): within two edits, fewer than its length. */
export function closest(word: string, names: readonly string[], skip?: (name: string) => boolean): string | null {
  let best: string | null = null;
  let bestDistance = 3;
  for (const name of names) {
    if (skip?.(name)) continue;
    const d = editDistance(word, name, bestDistance);
    // "no" is two edits from "ok", but shares nothing with it: no slip of it.
    if (d < bestDistance && d < Math.min(word.length, name.length)) [best, bestDistance] = [name, d];
  }
  return best;
}

/** Whether one word is the other with a negating prefix (valid and invalid, fake and nonfake): never a slip. */
function negates(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return /^(in|un|non|not|no)[-_]?$/.test(long.slice(0, long.length - short.length)) && long.endsWith(short);
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
