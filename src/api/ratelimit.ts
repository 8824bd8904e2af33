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

/** Parse a structured-field list into (name, params) members. */
function members(value: string): Array<{ name: string; params: Params }> {
  const out: Array<{ name: string; params: Params }> = [];
  for (const member of value.split(',')) {
    const parts = member.split(';').map((p) => p.trim());
    const head = parts.shift() ?? '';
    const params: Params = new Map();
    let name = head.replace(/^"(.*)"$/, '$1');
    if (head.includes('=')) {
      // the older form without a name: limit=50, remaining=49, reset=3599
      parts.unshift(head);
      name = '';
    }
    for (const p of parts) {
      const eq = p.indexOf('=');
      if (eq === -1) continue;
      params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
    }
    out.push({ name, params });
  }
  return out;
}

function pick(value: string | undefined): Params | undefined {
  if (!value) return undefined;
  const list = members(value);
  const named = list.find((m) => m.name === 'validations') ?? list.find((m) => m.params.size > 0);
  if (!named) return undefined;
  if (named.name === '') {
    // merge nameless members: "limit=50, remaining=49, reset=3599"
    const merged: Params = new Map();
    for (const m of list) if (m.name === '') for (const [k, v] of m.params) merged.set(k, v);
    return merged;
  }
  return named.params;
}

/**
 * A count or a number of seconds: a whole number, or nothing. `r=0.5` would make a batch of half an item
 * (an empty request, sent without end); `-1`, `1e3`, `NaN` and numbers past 15 digits are none either.
 */
function num(v: string | undefined): number | undefined {
  return v !== undefined && /^\d{1,15}$/.test(v) ? Number(v) : undefined;
}

/** A number of seconds until a reset, or undefined when it is none or beyond any plausible window. */
function seconds(v: number | undefined): number | undefined {
  return v !== undefined && v <= MAX_RESET_SECONDS ? v : undefined;
}

export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d{1,20}$/.test(v)) return seconds(Number(v));
  // An HTTP date starts with its day's name (RFC 9110): Date.parse alone takes "1.5" or "-1" for dates in 2001.
  if (!/^[A-Za-z]{3,9},? /.test(v)) return undefined;
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return seconds(Math.max(0, Math.ceil((date - now) / 1000)));
}

export type HeaderGetter = (name: string) => string | undefined;

export function parseRateHeaders(get: HeaderGetter, now = Date.now()): RateInfo {
  const info: RateInfo = {};
  const rl = pick(get('ratelimit'));
  if (rl) {
    info.remaining = num(rl.get('r') ?? rl.get('remaining'));
    info.reset = seconds(num(rl.get('t') ?? rl.get('reset')));
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
  for (const h of ['RateLimit', 'RateLimit-Policy', 'Retry-After']) {
    const v = get(h.toLowerCase());
    if (v) parts.push(`${h}: ${v}`);
  }
  return parts.join('; ');
}
