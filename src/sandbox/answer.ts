// What the sandbox answers to one request, decided the moment it arrives (quota is taken in arrival order):
// a pure function of the request and the sandbox's state, apart from the HTTP plumbing (server.ts).
import http from 'node:http';
import { classifyDomain, classifyEmail } from './rules.js';
import type { QuotaWindow } from './quota.js';

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

export const ENDPOINTS: Record<string, { field: 'emails' | 'domains'; classify: (item: string) => string }> = {
  '/emails/validate': { field: 'emails', classify: classifyEmail },
  '/domains/validate': { field: 'domains', classify: classifyDomain },
};

/** A request body, read: its text, 'too-large' past the sandbox's limit, or null when the client went away. */
export type Body = string | 'too-large' | null;

/** The items of a validate request, or why there are none. */
export function parseItems(body: Body, field: 'emails' | 'domains' | undefined): { items: string[] | null; error: string } {
  let parsed: unknown;
  try {
    parsed = typeof body === 'string' ? JSON.parse(body) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { items: null, error: 'The request body must be a JSON object.' };
  const obj = parsed as Record<string, unknown>;
  const name = field ?? ('emails' in obj ? 'emails' : 'domains');
  const value = Object.hasOwn(obj, name) ? obj[name] : undefined;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return { items: value as string[], error: '' };
  if (Array.isArray(value)) return { items: null, error: `Field "${name}" must be an array of strings.` };
  return { items: null, error: `Missing field "${name}": expected an array of ${name === 'emails' ? 'email addresses' : 'domains'}.` };
}

export type Reply =
  | { kind: 'send'; status: number; headers: Record<string, string>; body: string }
  | { kind: 'reset' }
  | { kind: 'hang' };

export interface Request {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Body;
  items: string[] | null;
  itemsError: string;
}

export interface SandboxState {
  key: string;
  quota: QuotaWindow;
  /** The fault aimed at this request, if any (taken from the queue by the caller). */
  fault: Fault | undefined;
  maxBatch: number | null;
  maxBatchStyle: '413' | '400';
}

export const message = (text: string) => JSON.stringify({ message: text });

/** `Authorization: Bearer <key>` with the sandbox's key. */
export function authorized(header: string | undefined, key: string): boolean {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] === key;
}
const json = (status: number, body: string, headers: Record<string, string> = {}): Reply => ({
  kind: 'send',
  status,
  headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  body,
});

/** The answer to a request for an endpoint that is not a validate endpoint, or not a POST; null for a validate request. */
export function answerOther(r: Request): Reply | null {
  if (!Object.hasOwn(ENDPOINTS, r.path)) return json(404, message('Not found.'));
  if (r.method !== 'POST') return json(405, message('Method not allowed.'), { Allow: 'POST' });
  return null;
}

/** The answer to a POST to a validate endpoint (answerOther() gave null). */
export function answerValidate(r: Request, s: SandboxState): Reply {
  const endpoint = ENDPOINTS[r.path]!;
  if (!authorized(r.authorization, s.key)) return json(401, '{"message": "Unauthorized."}', { 'WWW-Authenticate': 'Bearer' });

  const { fault, quota } = s;
  switch (fault?.kind) {
    case 'hang':
    case 'reset':
      return { kind: fault.kind };
    case 'status': {
      const headers: Record<string, string> = quota.headers();
      if (fault.status === 429) headers['Retry-After'] = String(quota.secondsToReset());
      const body = fault.body ?? message(http.STATUS_CODES[fault.status] ? `${http.STATUS_CODES[fault.status]}.` : 'Error.');
      return { kind: 'send', status: fault.status, headers: { ...headers, 'Content-Type': guessContentType(body), ...(fault.headers ?? {}) }, body };
    }
    case 'garbage':
      return {
        kind: 'send',
        status: 200,
        headers: { ...quota.headers(), 'Content-Type': 'text/html; charset=utf-8' },
        body: '<html><body><h1>Service temporarily unavailable</h1></body></html>\n',
      };
  }
  if (r.body === 'too-large') return json(413, message('Request entity too large.'), { ...quota.headers(), Connection: 'close' });
  if (r.items === null) return json(400, message(r.itemsError || 'Bad request.'), quota.headers());
  if (s.maxBatch !== null && r.items.length > s.maxBatch) {
    return s.maxBatchStyle === '413'
      ? json(413, message(`Request entity too large: at most ${s.maxBatch} ${endpoint.field} per request.`), quota.headers())
      : json(400, message(`Too many ${endpoint.field}: at most ${s.maxBatch} per request.`), quota.headers());
  }
  // A request that validates nothing costs nothing, so it is answered also when the quota is used up: with
  // the rate-limit headers, which is how idv auth login and status learn the quota at no cost.
  if (r.items.length === 0) return json(200, resultsBody(endpoint.field, new Map()), quota.headers());
  if (quota.limited && quota.remaining() === 0) {
    return json(429, message('Too many requests.'), { ...quota.headers(), 'Retry-After': String(quota.secondsToReset()) });
  }
  // The first N items (N = the quota left, in submitted order) are validated; later ones are quota_exceeded.
  const results = new Map<string, string>();
  for (const item of r.items) {
    if (results.has(item)) continue;
    results.set(item, quota.take() ? endpoint.classify(item) : 'quota_exceeded');
  }
  const headers = quota.headers();
  if (fault?.kind === 'drop') {
    const target = fault.item ?? [...results.keys()].pop();
    if (target !== undefined) results.delete(target);
  } else if (fault?.kind === 'status-for') {
    if (fault.item === undefined) for (const k of results.keys()) results.set(k, fault.status);
    else if (results.has(fault.item)) results.set(fault.item, fault.status);
  }
  let body = resultsBody(endpoint.field, results);
  if (fault?.kind === 'truncated') body = body.slice(0, Math.floor(body.length / 2));
  return json(200, body, headers);
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
