// Every status idv knows, in one place.

/** idv's own: never sent (cannot be an address or domain). */
export const INVALID = 'invalid';
/** idv's own: could not be validated (service or network kept failing, or the item was missing). */
export const ERROR = 'error';
export const QUOTA_EXCEEDED = 'quota_exceeded';

export const KNOWN_STATUSES: readonly string[] = [
  'ok',
  'alias',
  'disposable',
  'fake',
  QUOTA_EXCEEDED,
  INVALID,
  ERROR,
];

/** Every status a command can give (its --split files). `domains` has no alias. */
export const STATUSES_OF: Readonly<Record<'emails' | 'domains', readonly string[]>> = {
  emails: KNOWN_STATUSES,
  domains: KNOWN_STATUSES.filter((s) => s !== 'alias'),
};

/** Results worth keeping in the cache: everything the service decided, not what it did not. */
export function isCacheable(status: string): boolean {
  return status !== QUOTA_EXCEEDED && status !== ERROR && status !== INVALID;
}

const KNOWN_BY_FOLDED = new Map(KNOWN_STATUSES.map((s) => [s, s]));

/**
 * A status as the service gave it, folded onto the known status it differs from only in case (`OK`, `Disposable`:
 * a filter, --split and the cache then see `ok`, `disposable`); any other passes through as it came.
 */
export function foldStatus(status: string): string {
  return KNOWN_BY_FOLDED.get(status.toLowerCase()) ?? status;
}

/** What a status may look like: a plain word of letters, digits, `_` and `-`, at most 40 characters. */
const PLAIN_STATUS = /^[A-Za-z0-9_-]{1,40}$/;
export function isPlainStatus(status: string): boolean {
  return PLAIN_STATUS.test(status);
}

/** How a status is coloured on a terminal (a chalk style); a status the service adds later is blue. */
export const STATUS_COLOUR: Readonly<Record<string, 'green' | 'cyan' | 'magenta' | 'red' | 'gray' | 'yellow' | 'redBold'>> = {
  ok: 'green',
  alias: 'cyan',
  disposable: 'magenta',
  fake: 'red',
  [INVALID]: 'gray',
  [QUOTA_EXCEEDED]: 'yellow',
  [ERROR]: 'redBold',
};
