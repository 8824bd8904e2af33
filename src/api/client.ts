// The HTTP client for the service: one request per batch, auth header, outcome classification,
// rate-limit headers. It never retries by itself (dispatch decides) and never puts the key in a message.
import { answerMap } from './answer-map.js';
import { describeRateHeaders, parseRateHeaders, type RateInfo } from './ratelimit.js';
import { maskKey } from '../system/api-key.js';
import type { Secrets } from '../system/secrets.js';
import type { NetworkOptions } from '../system/io.js';
import { MalformedAnswerError, directTransport, proxySettings, proxyTransport, ProxyRefusedError, TimeoutError, type RawResponse } from './transport.js';
import { foldStatus, isPlainStatus, KNOWN_STATUSES } from '../core/statuses.js';

/** The statuses of a 2xx answer, by item as sent: undefined for an item it lacks or gave no usable status. */
export interface Results {
  get(item: string): string | undefined;
}

/**
 * What became of one request. 'retry': the service answered, but not usefully for now (408, 5xx, a malformed
 * or oversized answer). 'unreachable': no answer came from the host at all (refused, name not found,
 * unreachable, reset, TLS failure, timed out): retried too, and what the circuit breaker counts.
 * 'failed': an answer that retrying will not change; `turnedAway` when it is one the host gives to every
 * request (403, 404, a proxy refusing the tunnel), which the circuit breaker counts too.
 */
export type Outcome =
  | { type: 'ok'; results: Results; rate: RateInfo }
  | { type: 'quota'; rate: RateInfo }
  | { type: 'auth' }
  | { type: 'too-large'; status: 400 | 413; rate: RateInfo }
  | { type: 'retry'; reason: string; rate: RateInfo }
  | { type: 'unreachable'; reason: string; rate: RateInfo }
  | { type: 'failed'; reason: string; rate: RateInfo; turnedAway?: boolean };

export interface ClientOptions {
  baseUrl: string;
  key: string;
  timeoutMs: number;
  connections: number;
  env: Record<string, string | undefined>;
  /** What must never reach a message: text from the service passes through secrets.redact() here. */
  secrets: Secrets;
  /** One line per request, for --verbose. */
  log?: (line: string) => void;
  /** Certificates and name lookup, when not the system's (Io.network). */
  network?: NetworkOptions;
}

export interface Client {
  validate(endpoint: string, field: string, items: string[], signal: AbortSignal): Promise<Outcome>;
  close(): Promise<void>;
}

/**
 * The largest answer read for a request of n items: far above any legitimate one (an item is at most 254
 * characters, 6 bytes each when JSON-escaped, and its result object a few fields), so that a broken or
 * hostile server cannot make idv hold hundreds of megabytes. Beyond it the answer is malformed (retried).
 */
export function maxAnswerBytes(items: number): number {
  return 1024 * 1024 + items * 16 * 1024;
}

/**
 * Whether a 400's message names the size of the request (too many items, a batch or payload too large, at most
 * N items): only then is the batch split. A message that merely holds "limit" or "size" (a plan's limit, a
 * malformed size field) does not: halving would send one request per item for nothing.
 */
export function namesTheSize(message: string): boolean {
  return SIZE_NAMED.some((words) => words.test(message));
}

const ITEMS = '(items|emails|domains|addresses|entries|records|elements|values)';
const SIZE_NAMED = [
  new RegExp(`\\btoo many ${ITEMS}`, 'i'),
  /\b(batch|payload|request|body|entity|list|array)( entity)?( size)? (is )?too (large|big|long)\b/i,
  new RegExp(`\\b(at most|max(imum)?( of| is)?|up to|limit of|more than) \\d+ ${ITEMS}`, 'i'),
  new RegExp(`\\b${ITEMS} per (request|batch|call)\\b`, 'i'),
  /\b(batch|request|payload) size\b/i,
];

export async function createClient(options: ClientOptions): Promise<Client> {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const proxy = proxySettings(options.env, base);
  const transport = proxy ? await proxyTransport(base, options, proxy) : await directTransport(base, options);
  const { secrets } = options;
  secrets.add(options.key);
  if (proxy) for (const proxyUrl of [proxy.https, proxy.http]) if (proxyUrl) secrets.add(proxyPassword(proxyUrl));
  const accepted = new Set<string>(); // the new statuses accepted so far this run
  // identity: an answer compressed all the same is read (transport.ts), but none is asked for.
  const headers = { authorization: `Bearer ${options.key}`, 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'identity' };
  const masked = maskKey(options.key);

  async function validate(endpoint: string, field: string, items: string[], signal: AbortSignal): Promise<Outcome> {
    const started = Date.now();
    const path = prefix + endpoint;
    // One line per request for --verbose: what came back, how long it took, the rate-limit headers.
    const log = (what: string, rateText = '') =>
      options.log?.(secrets.redact(`POST ${path} ${plural(items.length)} → ${what} in ${Date.now() - started} ms${rateText}; key ${masked}`));
    let res: RawResponse;
    try {
      res = await transport.post(path, headers, JSON.stringify({ [field]: items }), signal, maxAnswerBytes(items.length));
    } catch (err) {
      if (signal.aborted) throw err;
      const outcome = noAnswer(err, secrets);
      log(err instanceof ProxyRefusedError || err instanceof MalformedAnswerError ? err.message : outcome.reason);
      return outcome;
    }
    const rateText = options.log ? describeRateHeaders(res.header) : '';
    log(String(res.statusCode), rateText && `; ${rateText}`);
    return outcomeOf(res, field, items.length, secrets, accepted);
  }

  return { validate, close: () => transport.close() };
}

const plural = (count: number) => `${count} item${count === 1 ? '' : 's'}`;

function outcomeOf(res: RawResponse, field: string, count: number, secrets: Secrets, accepted: Set<string>): Outcome {
  const { statusCode, text } = res;
  const rate = parseRateHeaders(res.header);
  if (statusCode >= 200 && statusCode < 300) {
    const results = parseBody(text, field, secrets, accepted);
    if (!results) return { type: 'retry', reason: `the service sent a malformed answer (HTTP ${statusCode})`, rate };
    return { type: 'ok', results, rate };
  }
  if (statusCode === 401) return { type: 'auth' };
  if (statusCode === 429) return { type: 'quota', rate };
  if (statusCode === 413) return { type: 'too-large', status: 413, rate };
  if (statusCode === 400 && namesTheSize(text)) return { type: 'too-large', status: 400, rate };
  if (statusCode === 408 || statusCode >= 500) return { type: 'retry', reason: `the service answered HTTP ${statusCode}`, rate };
  const reason = secrets.redact(`the service answered HTTP ${statusCode}${messageOf(text)}`);
  return { type: 'failed', reason, rate, turnedAway: statusCode === 403 || statusCode === 404 };
}

/** The outcome of a request that got no usable answer: a proxy's refusal, an oversized answer, or none at all. */
function noAnswer(err: unknown, secrets: Secrets): Extract<Outcome, { reason: string }> {
  if (err instanceof ProxyRefusedError) return { type: 'failed', reason: secrets.redact(err.message), rate: {}, turnedAway: true };
  if (err instanceof MalformedAnswerError) return { type: 'retry', reason: secrets.redact(err.message), rate: {} };
  const reason = secrets.redact(err instanceof TimeoutError ? err.message : `network error (${describeNetworkError(err)})`);
  return { type: 'unreachable', reason, rate: {} };
}

/** The password of a proxy URL, if it has one (it is a secret like the key). */
function proxyPassword(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.password ? decodeURIComponent(parsed.password) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * New statuses (not one idv knows) a run accepts: far more than a service ever adds, few enough that a server
 * inventing one per item cannot flood the summary, or the --split folder with a file per item (and the process
 * with open files: EMFILE).
 */
export const MAX_NEW_STATUSES = 32;

/**
 * Only a plain word is a status: anything else (a formula, markup, 2 MB of text, the key), or a new word past
 * MAX_NEW_STATUSES, leaves the item `error`. An answer repeats a handful of statuses thousands of times: those
 * accepted are remembered (per client, so per run).
 */
function acceptable(status: string, secrets: Secrets, accepted: Set<string>): boolean {
  if (accepted.has(status)) return true;
  if (!isPlainStatus(status) || secrets.holds(status)) return false;
  if (!KNOWN_STATUSES.includes(status) && [...accepted].filter((seen) => !KNOWN_STATUSES.includes(seen)).length >= MAX_NEW_STATUSES) return false;
  accepted.add(status);
  return true;
}

/**
 * The item → status lookup of a 2xx answer; null when the answer is not one. The usual shape is read by
 * answerMap, any other through JSON.parse. A status that is not a plain word, or that repeats a secret, is none.
 */
function parseBody(text: string, field: string, secrets: Secrets, accepted: Set<string>): Results | null {
  const statuses = answerMap(text, field);
  const entries: ReadonlyMap<string, unknown> | null = statuses ?? parsedEntries(text, field);
  if (entries === null) return null;
  let folded: Map<string, unknown> | undefined;
  return {
    get(item) {
      const found = entries.get(item) ?? (folded ??= byFoldedName(entries)).get(item.toLowerCase());
      const given = statuses ? found : statusOf(found);
      const status = typeof given === 'string' ? foldStatus(given) : undefined;
      return status !== undefined && acceptable(status, secrets, accepted) ? status : undefined;
    },
  };
}

/** The entries under `field` of an answer JSON.parse reads; null when there is no object there. */
function parsedEntries(text: string, field: string): Map<string, unknown> | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const entries = isObject(body) ? (body as Record<string, unknown>)[field] : undefined;
  return isObject(entries) && !Array.isArray(entries) ? new Map(Object.entries(entries)) : null;
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;
const statusOf = (entry: unknown): unknown => (isObject(entry) ? (entry as { status?: unknown }).status : undefined);

/**
 * An answer's entries by their names lower-cased, for an item missing as sent: a server (or a proxy) that gave
 * `Zed@EXAMPLE.com` back as `zed@example.com` answered it all the same, and that answer was paid for. Of two
 * names that fold alike, the first.
 */
function byFoldedName<T>(entries: ReadonlyMap<string, T>): Map<string, T> {
  const folded = new Map<string, T>();
  for (const [name, value] of entries) {
    const key = name.toLowerCase();
    if (!folded.has(key)) folded.set(key, value);
  }
  return folded;
}

function messageOf(text: string): string {
  try {
    const said = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof said === 'string' && said.length > 0 && said.length < 200) return `: ${said.replace(/\s+/g, ' ')}`;
  } catch {
    /* not JSON: say nothing of it */
  }
  return '';
}

function describeNetworkError(err: unknown): string {
  const error = err as { code?: string; cause?: { code?: string }; message?: string };
  return error.code ?? error.cause?.code ?? error.message?.split('\n')[0] ?? 'unknown';
}
