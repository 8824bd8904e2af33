// What the sandbox answers to one request, decided the moment its body is read (quota is taken in arrival
// order): a pure function of the request, the service's state and, for tests, a fault given as data.
import http from 'node:http';
import { classifyDomain, classifyEmail } from './rules.js';
import type { QuotaWindow } from './quota.js';
import type { Body, Incoming, Reply } from './http-server.js';

/** What a test may make the service do to one validate request instead of (or besides) answering it well. */
export type Fault =
  /** No fault: answer this request normally (to aim a later fault at a later request). */
  | { kind: 'none' }
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'reset' }
  | { kind: 'hang' }
  | { kind: 'garbage' }
  | { kind: 'truncated' }
  | { kind: 'drop'; item?: string }
  | { kind: 'status-for'; status: string; item?: string };

/** Batches larger than `max` are refused: 413, or 400 naming the size (the service's limit is undocumented). */
export interface BatchLimit {
  max: number;
  style: '413' | '400';
}

export const ENDPOINTS: Record<string, { field: 'emails' | 'domains'; classify: (item: string) => string }> = {
  '/emails/validate': { field: 'emails', classify: classifyEmail },
  '/domains/validate': { field: 'domains', classify: classifyDomain },
};

export interface Request {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Body;
  /** The array sent under the endpoint's field; null when there is none (itemsError says why). */
  items: string[] | null;
  itemsError: string;
}

export interface ServiceState {
  key: string;
  quota: QuotaWindow;
  /** The fault aimed at this request, if any. */
  fault?: Fault;
  batchLimit?: BatchLimit;
}

export const message = (text: string) => JSON.stringify({ message: text });

/** The token of an `Authorization: Bearer <token>` header. */
export const bearerToken = (header: string | undefined) => /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];

/** The request, its body read: the items it sends, or why there are none. */
export function readRequest(incoming: Incoming, body: Body): Request {
  const endpoint = Object.hasOwn(ENDPOINTS, incoming.path) ? ENDPOINTS[incoming.path]! : undefined;
  const { items, error } = parseItems(body, endpoint?.field);
  return { method: incoming.method, path: incoming.path, authorization: incoming.authorization, body, items, itemsError: error };
}

/** The items of a validate request, or why there are none. */
export function parseItems(body: Body, field: 'emails' | 'domains' | undefined): { items: string[] | null; error: string } {
  let parsed: unknown;
  try {
    parsed = typeof body === 'string' ? JSON.parse(body) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { items: null, error: 'The request body must be a JSON object.' };
  const fields = parsed as Record<string, unknown>;
  const name = field ?? ('emails' in fields ? 'emails' : 'domains');
  const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
  if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) return { items: value as string[], error: '' };
  if (Array.isArray(value)) return { items: null, error: `Field "${name}" must be an array of strings.` };
  return { items: null, error: `Missing field "${name}": expected an array of ${name === 'emails' ? 'email addresses' : 'domains'}.` };
}

const json = (status: number, body: string, headers: Record<string, string> = {}): Reply => ({
  kind: 'send',
  status,
  headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  body,
});

/** The answer to a request for an endpoint that is not a validate endpoint, or not a POST; null for a validate request. */
export function answerOther(request: Request): Reply | null {
  if (!Object.hasOwn(ENDPOINTS, request.path)) return json(404, message('Not found.'));
  if (request.method !== 'POST') return json(405, message('Method not allowed.'), { Allow: 'POST' });
  return null;
}

/** The answer to a POST to a validate endpoint (answerOther() gave null). */
export function answerValidate(request: Request, state: ServiceState): Reply {
  if (bearerToken(request.authorization) !== state.key) return json(401, '{"message": "Unauthorized."}', { 'WWW-Authenticate': 'Bearer' });
  const endpoint = ENDPOINTS[request.path]!;
  const refused = faultReply(state.fault, state.quota) ?? refusal(request, state, endpoint.field);
  if (refused) return refused;
  const results = validateItems(request.items!, state.quota, endpoint.classify);
  const headers = state.quota.headers();
  applyFault(state.fault, results);
  let body = resultsBody(endpoint.field, results);
  if (state.fault?.kind === 'truncated') body = body.slice(0, Math.floor(body.length / 2));
  return json(200, body, headers);
}

/** What a server in trouble (a proxy's error page) sends instead of an answer. */
const GARBAGE = '<html><body><h1>Service temporarily unavailable</h1></body></html>\n';

/** The reply a fault gives instead of an answer, or null for a fault that alters the answer (or none). */
function faultReply(fault: Fault | undefined, quota: QuotaWindow): Reply | null {
  switch (fault?.kind) {
    case 'hang':
    case 'reset':
      return { kind: fault.kind };
    case 'status': {
      const headers: Record<string, string> = quota.headers();
      if (fault.status === 429) headers['Retry-After'] = String(quota.secondsToReset());
      const body = fault.body ?? message(http.STATUS_CODES[fault.status] ? `${http.STATUS_CODES[fault.status]}.` : 'Error.');
      return json(fault.status, body, { ...headers, 'Content-Type': guessContentType(body), ...fault.headers });
    }
    case 'garbage':
      return json(200, GARBAGE, { ...quota.headers(), 'Content-Type': 'text/html; charset=utf-8' });
    default:
      return null;
  }
}

/** Why the service validates nothing of this request (its body, its size, the quota), or null. */
function refusal(request: Request, state: ServiceState, field: string): Reply | null {
  const { quota, batchLimit } = state;
  if (request.body === 'too-large') return json(413, message('Request entity too large.'), { ...quota.headers(), Connection: 'close' });
  if (request.items === null) return json(400, message(request.itemsError || 'Bad request.'), quota.headers());
  if (batchLimit && request.items.length > batchLimit.max) {
    return batchLimit.style === '413'
      ? json(413, message(`Request entity too large: at most ${batchLimit.max} ${field} per request.`), quota.headers())
      : json(400, message(`Too many ${field}: at most ${batchLimit.max} per request.`), quota.headers());
  }
  // A request that validates nothing costs nothing, so it is answered also when the quota is used up: with
  // the rate-limit headers, which is how idv auth login and status learn the quota at no cost.
  if (request.items.length === 0) return json(200, resultsBody(field, new Map()), quota.headers());
  if (quota.limited && quota.remaining() === 0) {
    return json(429, message('Too many requests.'), { ...quota.headers(), 'Retry-After': String(quota.secondsToReset()) });
  }
  return null;
}

/** The first N items (N = the quota left, in submitted order) are validated, later ones are quota_exceeded; a repeat is answered once. */
function validateItems(items: string[], quota: QuotaWindow, classify: (item: string) => string): Map<string, string> {
  const results = new Map<string, string>();
  for (const item of items) {
    if (results.has(item)) continue;
    results.set(item, quota.take() ? classify(item) : 'quota_exceeded');
  }
  return results;
}

/** A fault that alters the answer: an item left out, or a status given instead of the verdict. */
function applyFault(fault: Fault | undefined, results: Map<string, string>): void {
  if (fault?.kind === 'drop') {
    const target = fault.item ?? [...results.keys()].pop();
    if (target !== undefined) results.delete(target);
  } else if (fault?.kind === 'status-for') {
    if (fault.item === undefined) for (const item of results.keys()) results.set(item, fault.status);
    else if (results.has(fault.item)) results.set(fault.item, fault.status);
  }
}

/** JSON text of an object whose keys keep their insertion order (even integer-like ones) and may be `__proto__`. */
function resultsBody(field: string, results: Map<string, string>): string {
  const parts: string[] = [];
  for (const [item, status] of results) parts.push(`${JSON.stringify(item)}:${JSON.stringify({ status })}`);
  return `{${JSON.stringify(field)}:{${parts.join(',')}}}`;
}

function guessContentType(body: string): string {
  if (body.trimStart().startsWith('<')) return 'text/html; charset=utf-8';
  try {
    JSON.parse(body);
    return 'application/json; charset=utf-8';
  } catch {
    return 'text/plain; charset=utf-8';
  }
}
