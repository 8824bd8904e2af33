// Whether the service accepts a key, asked at no cost: a validate request with an empty list, which
// validates nothing and so spends no quota, and whose answer carries the rate-limit headers (the quota left
// and its reset). A 2xx or a 429 means the key passed; a 401 that it did not; anything else, or no answer,
// that the service cannot tell (idv auth login then saves the key with a note).
import { ENDPOINT, FIELD } from '../core/defaults.js';
import { interruptedError } from '../core/errors.js';
import type { Io } from '../system/io.js';
import type { RateInfo } from '../api/ratelimit.js';
import { formatDuration } from '../core/duration.js';
import { clockTime } from '../output/summary.js';

export type Verdict =
  | { verdict: 'works'; rate: RateInfo; usedUp: boolean }
  | { verdict: 'refused'; why: string }
  | { verdict: 'unknown'; why: string };

/** A check is one request: no retry, and no longer than this (login and status wait for it). */
const CHECK_TIMEOUT_MS = 10_000;

/** Ask the service at `baseUrl` (resolveBaseUrl's) whether it takes `key`. */
export async function askService(key: string, baseUrl: string, io: Io): Promise<Verdict> {
  const { createClient } = await import('../api/client.js');
  const client = await createClient({ baseUrl, key, timeoutMs: CHECK_TIMEOUT_MS, connections: 1, env: io.env, secrets: io.secrets });
  try {
    const outcome = await client.validate(ENDPOINT.emails, FIELD.emails, [], io.signal);
    switch (outcome.type) {
      case 'ok':
        return { verdict: 'works', rate: outcome.rate, usedUp: outcome.rate.remaining === 0 };
      case 'quota':
        return { verdict: 'works', rate: { ...outcome.rate, remaining: 0 }, usedUp: true };
      case 'auth':
        return { verdict: 'refused', why: `${baseUrl} answered HTTP 401` };
      case 'too-large':
        return { verdict: 'unknown', why: `${baseUrl} answered that the request was too large` };
      default:
        return { verdict: 'unknown', why: `${outcome.reason}, from ${baseUrl}` };
    }
  } catch (err) {
    if (io.signal.aborted) throw interruptedError(io.signal.reason);
    throw err;
  } finally {
    await client.close();
  }
}

/** `The service accepts the key: quota left 991 of 1,000, resets in 59m 59s (at 13:59 GMT+1).` */
export function quotaSentence(rate: RateInfo, usedUp: boolean, now: number): string {
  const reset = rate.reset ?? rate.retryAfter;
  const when = reset === undefined ? '' : `, resets in ${formatDuration(reset)} (at ${clockTime(now + reset * 1000, now)})`;
  const of = rate.quota === undefined ? '' : ` of ${rate.quota.toLocaleString('en-US')}`;
  if (usedUp) return `The service accepts the key; its quota is used up${of ? ` (0${of})` : ''}${when}.`;
  if (rate.remaining === undefined) return 'The service accepts the key (it did not say how much quota is left).';
  return `The service accepts the key: quota left ${rate.remaining.toLocaleString('en-US')}${of}${when}.`;
}
