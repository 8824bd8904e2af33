// The IETF rate-limit headers (`RateLimit`, `RateLimit-Policy`) and `Retry-After`.
//   RateLimit-Policy: "validations";q=50;w=3600
//   RateLimit: "validations";r=49;t=3599
// Tolerant of spacing, parameter order, several policies (the one named "validations" wins, else the
// first), and of the older draft's `RateLimit-Remaining` / `RateLimit-Reset` headers.

export interface RateInfo {
  /** Validations left in this window. */
  remaining?: number;
  /** Seconds until the window resets. */
  reset?: number;
  /** Quota per window and window length, from RateLimit-Policy. */
  quota?: number;
  window?: number;
  /** Seconds, from Retry-After. */
  retryAfter?: number;
}

/**
 * The latest reset time idv believes: quota windows are an hour, a day, at most a month. A reset time beyond
 * this (`t=9999999999999`, a Retry-After date years ahead) is a broken or hostile header, treated as unknown.
 */
export const MAX_RESET_SECONDS = 32 * 86_400;

type Params = Map<string, string>;

/** A quoted string's content; anything else as it is. */
const unquote = (text: string): string => text.replace(/^"(.*)"$/, '$1');

/** Parse a structured-field list into (name, params) members. */
function members(value: string): Array<{ name: string; params: Params }> {
  return value.split(',').map((member) => {
    const parts = member.split(';').map((part) => part.trim());
    // the older form without a name: limit=50, remaining=49, reset=3599
    const nameless = parts[0]!.includes('=');
    const name = nameless ? '' : unquote(parts.shift()!);
    const params: Params = new Map();
    for (const part of parts) {
      const eq = part.indexOf('=');
      if (eq !== -1) params.set(part.slice(0, eq).trim().toLowerCase(), unquote(part.slice(eq + 1).trim()));
    }
    return { name, params };
  });
}

function pick(value: string | undefined): Params | undefined {
  if (!value) return undefined;
  const list = members(value);
  const named = list.find((member) => member.name === 'validations') ?? list.find((member) => member.params.size > 0);
  if (!named) return undefined;
  if (named.name === '') {
    // merge nameless members: "limit=50, remaining=49, reset=3599"
    const merged: Params = new Map();
    for (const member of list) if (member.name === '') for (const [name, value] of member.params) merged.set(name, value);
    return merged;
  }
  return named.params;
}

/**
 * A count or a number of seconds: a whole number, or nothing. `r=0.5` would make a batch of half an item
 * (an empty request, sent without end); `-1`, `1e3`, `NaN` and numbers past 15 digits are none either.
 */
function num(text: string | undefined): number | undefined {
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

/** A number of seconds until a reset, or undefined when it is none or beyond any plausible window. */
function seconds(count: number | undefined): number | undefined {
  return count !== undefined && count <= MAX_RESET_SECONDS ? count : undefined;
}

export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d{1,20}$/.test(text)) return seconds(Number(text));
  // An HTTP date starts with its day's name (RFC 9110): Date.parse alone takes "1.5" or "-1" for dates in 2001.
  if (!/^[A-Za-z]{3,9},? /.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return seconds(Math.max(0, Math.ceil((date - now) / 1000)));
}

export type HeaderGetter = (name: string) => string | undefined;

export function parseRateHeaders(get: HeaderGetter, now = Date.now()): RateInfo {
  const info: RateInfo = {};
  const rateLimit = pick(get('ratelimit'));
  if (rateLimit) {
    info.remaining = num(rateLimit.get('r') ?? rateLimit.get('remaining'));
    info.reset = seconds(num(rateLimit.get('t') ?? rateLimit.get('reset')));
  }
  info.remaining ??= num(get('ratelimit-remaining')?.trim());
  info.reset ??= seconds(num(get('ratelimit-reset')?.trim()));
  const policy = pick(get('ratelimit-policy'));
  if (policy) {
    info.quota = num(policy.get('q'));
    info.window = num(policy.get('w'));
  }
  info.retryAfter = parseRetryAfter(get('retry-after'), now);
  return info;
}

/** The raw header values, for --verbose. */
export function describeRateHeaders(get: HeaderGetter): string {
  const parts: string[] = [];
  for (const header of ['RateLimit', 'RateLimit-Policy', 'Retry-After']) {
    const value = get(header.toLowerCase());
    if (value) parts.push(`${header}: ${value}`);
  }
  return parts.join('; ');
}
