// A local emulator of the Valid Identities API on loopback: the documented endpoints, auth, quota,
// 429 and the IETF rate-limit headers, deterministic classification (./rules.ts), plus test hooks
// (fault injection, batch-size limits, quota control, a record of every request received).
import { isLoopback } from '../api/loopback.js';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { classifyDomain, classifyEmail } from './rules.js';

export interface SandboxOptions {
  /** Default 0 = any free port. */
  port?: number;
  /** Default '127.0.0.1'; anything that is not loopback is refused. */
  host?: string;
  /** The one Bearer key accepted; default 'sk_sandbox_' + 16 random hex chars. */
  key?: string;
  /** Validations per window; default 1000; 0 = unlimited (then no RateLimit/RateLimit-Policy headers). */
  quota?: number;
  /** Window length in seconds, default 3600. */
  window?: number;
  /** Artificial latency added to every validate request (default 0). */
  delayMs?: number;
  /** Clock in ms (default Date.now), used for the quota window. */
  now?: () => number;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  /** The array sent under "emails"/"domains" (null if the body is not parseable, the field is missing or not all strings). */
  items: string[] | null;
  /** HTTP status answered (0 if the socket was reset / hung, or while the answer is still pending). */
  status: number;
  /** Wall-clock ms (Date.now, not `now`). */
  startedAt: number;
  /** Wall-clock ms when the answer finished or the socket closed (0 while pending). */
  endedAt: number;
}

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

export interface Sandbox {
  url: string;
  port: number;
  key: string;
  /** Every request received, in arrival order (validate ones and others). */
  requests: ReceivedRequest[];
  /** The highest number of validate requests being handled at once so far. */
  maxInFlight: number;
  /** The next `times` (default 1) validate requests get this fault (FIFO queue). */
  inject(fault: Fault, times?: number): void;
  /** Refuse batches with more than n items: 413, or 400 naming the size. null = no limit. */
  setMaxBatch(n: number | null, style?: '413' | '400'): void;
  /** Set the remaining quota of the current window. */
  setRemaining(n: number): void;
  /** Start a fresh window with the full quota. */
  refill(): void;
  /** Close the server and every connection (idle keep-alive, hung) promptly. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

const ENDPOINTS: Record<string, { field: 'emails' | 'domains'; classify: (item: string) => string }> = {
  '/emails/validate': { field: 'emails', classify: classifyEmail },
  '/domains/validate': { field: 'domains', classify: classifyDomain },
};


function checkInteger(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`sandbox: ${name} must be an integer between ${min} and ${max}, got ${value}`);
  }
}

/** JSON text of an object whose keys keep their insertion order (even integer-like ones) and may be `__proto__`. */
function jsonObject(entries: Iterable<[string, string]>): string {
  const parts: string[] = [];
  for (const [k, v] of entries) parts.push(`${JSON.stringify(k)}:${v}`);
  return `{${parts.join(',')}}`;
}

function resultsBody(field: string, results: Map<string, string>): string {
  const inner = jsonObject(
    [...results].map(([item, status]): [string, string] => [item, JSON.stringify({ status })]),
  );
  return `{${JSON.stringify(field)}:${inner}}`;
}

function message(text: string): string {
  return JSON.stringify({ message: text });
}

function guessContentType(body: string): string {
  const t = body.trimStart();
  if (t.startsWith('<')) return 'text/html; charset=utf-8';
  try {
    JSON.parse(body);
    return 'application/json; charset=utf-8';
  } catch {
    return 'text/plain; charset=utf-8';
  }
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopback(host)) {
    throw new Error(`sandbox: refusing to listen on ${host}: only loopback (127.0.0.1, ::1, localhost) is allowed`);
  }
  const port = opts.port ?? 0;
  checkInteger('port', port, 0, 65535);
  const quota = opts.quota ?? 1000;
  checkInteger('quota', quota, 0);
  const windowSec = opts.window ?? 3600;
  checkInteger('window', windowSec, 1);
  const delayMs = opts.delayMs ?? 0;
  if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError(`sandbox: delayMs must be >= 0, got ${delayMs}`);
  const key = opts.key ?? 'sk_sandbox_' + randomBytes(8).toString('hex');
  if (key === '' || /\s/.test(key)) throw new Error('sandbox: the key must be non-empty, without white space');
  const now = opts.now ?? Date.now;
  const limited = quota > 0;
  const windowMs = windowSec * 1000;

  // --- quota window -------------------------------------------------------------------------
  let windowStart = now();
  let remaining = quota;
  function roll(): number {
    const t = now();
    if (t >= windowStart + windowMs) {
      windowStart += Math.floor((t - windowStart) / windowMs) * windowMs;
      remaining = quota;
    }
    return t;
  }
  function secondsToReset(t: number): number {
    return Math.max(0, Math.ceil((windowStart + windowMs - t) / 1000));
  }
  function rateHeaders(t: number): Record<string, string> {
    if (!limited) return {};
    return {
      'RateLimit-Policy': `"validations";q=${quota};w=${windowSec}`,
      RateLimit: `"validations";r=${remaining};t=${secondsToReset(t)}`,
    };
  }

  // --- test hooks state ---------------------------------------------------------------------
  const faults: Fault[] = [];
  let maxBatch: number | null = null;
  let maxBatchStyle: '413' | '400' = '413';
  let inFlight = 0;
  const sleepers = new Map<NodeJS.Timeout, () => void>();
  const sockets = new Set<Socket>();

  const sandbox: Sandbox = {
    url: '',
    port: 0,
    key,
    requests: [],
    maxInFlight: 0,
    inject(fault: Fault, times = 1): void {
      checkInteger('times', times, 0);
      for (let i = 0; i < times; i++) faults.push(fault);
    },
    setMaxBatch(n: number | null, style: '413' | '400' = '413'): void {
      if (n !== null) checkInteger('max batch', n, 1);
      maxBatch = n;
      maxBatchStyle = style;
    },
    setRemaining(n: number): void {
      if (!limited) throw new Error('sandbox: setRemaining needs a limited quota (quota > 0)');
      checkInteger('remaining', n, 0);
      roll();
      remaining = n;
    },
    refill(): void {
      windowStart = now();
      remaining = quota;
    },
    close: () => closeServer(),
  };

  function sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        sleepers.delete(timer);
        resolve();
      }, ms);
      sleepers.set(timer, resolve);
    });
  }

  function readBody(req: http.IncomingMessage): Promise<string | 'too-large' | null> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = (v: string | 'too-large' | null): void => {
        if (done) return;
        done = true;
        resolve(v);
      };
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          finish('too-large');
          return;
        }
        if (!done) chunks.push(chunk);
      });
      req.on('end', () => finish(Buffer.concat(chunks).toString('utf8')));
      req.on('error', () => finish(null));
      req.on('close', () => finish(null));
    });
  }

  function send(
    res: http.ServerResponse,
    status: number,
    body: string,
    headers: Record<string, string> = {},
  ): void {
    if (res.headersSent || res.destroyed) return;
    const all: Record<string, string> = {
      'Content-Type': 'application/json; charset=utf-8',
      ...headers,
    };
    all['Content-Length'] = String(Buffer.byteLength(body));
    for (const [name, value] of Object.entries(all)) {
      if (value !== '') res.setHeader(name, value);
    }
    res.writeHead(status);
    res.end(body);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, record: ReceivedRequest): Promise<void> {
    const path = record.path;
    const endpoint = Object.hasOwn(ENDPOINTS, path) ? ENDPOINTS[path] : undefined;

    const raw = await readBody(req);
    let parsed: unknown = undefined;
    let parseOk = false;
    if (typeof raw === 'string') {
      try {
        parsed = JSON.parse(raw);
        parseOk = true;
      } catch {
        parseOk = false;
      }
    }
    let items: string[] | null = null;
    let fieldError: string | null = null;
    if (parseOk && parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const obj = parsed as Record<string, unknown>;
      const fieldName = endpoint?.field ?? ('emails' in obj ? 'emails' : 'domains');
      const value = Object.hasOwn(obj, fieldName) ? obj[fieldName] : undefined;
      if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
        items = value as string[];
      } else if (Array.isArray(value)) {
        fieldError = `Field "${fieldName}" must be an array of strings.`;
      } else {
        fieldError = `Missing field "${fieldName}": expected an array of ${fieldName === 'emails' ? 'email addresses' : 'domains'}.`;
      }
    } else {
      fieldError = 'The request body must be a JSON object.';
    }
    record.items = items;
    if (raw === null) return; // the client went away

    if (!endpoint) {
      send(res, 404, message('Not found.'));
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, message('Method not allowed.'), { Allow: 'POST' });
      return;
    }

    // A validate request: counts towards maxInFlight until its answer ends.
    inFlight++;
    if (inFlight > sandbox.maxInFlight) sandbox.maxInFlight = inFlight;
    let counted = true;
    const release = (): void => {
      if (counted) {
        counted = false;
        inFlight--;
      }
    };
    res.on('close', release);

    const auth = req.headers.authorization;
    const m = auth === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m || m[1] !== key) {
      await sleep(delayMs);
      send(res, 401, '{"message": "Unauthorized."}', { 'WWW-Authenticate': 'Bearer' });
      return;
    }

    const fault = faults.shift();
    if (fault?.kind === 'hang') return; // answered by close() or by the client giving up
    if (fault?.kind === 'reset') {
      await sleep(delayMs);
      req.socket.resetAndDestroy();
      return;
    }
    if (fault?.kind === 'status') {
      await sleep(delayMs);
      const t = roll();
      const headers: Record<string, string> = { ...rateHeaders(t) };
      if (fault.status === 429) headers['Retry-After'] = String(secondsToReset(t));
      const body = fault.body ?? message(http.STATUS_CODES[fault.status] ? `${http.STATUS_CODES[fault.status]}.` : 'Error.');
      headers['Content-Type'] = guessContentType(body);
      send(res, fault.status, body, { ...headers, ...(fault.headers ?? {}) });
      return;
    }
    if (fault?.kind === 'garbage') {
      await sleep(delayMs);
      const t = roll();
      send(res, 200, '<html><body><h1>Service temporarily unavailable</h1></body></html>\n', {
        ...rateHeaders(t),
        'Content-Type': 'text/html; charset=utf-8',
      });
      return;
    }

    if (raw === 'too-large') {
      await sleep(delayMs);
      send(res, 413, message('Request entity too large.'), { ...rateHeaders(roll()), Connection: 'close' });
      return;
    }
    if (items === null) {
      await sleep(delayMs);
      send(res, 400, message(fieldError ?? 'Bad request.'), rateHeaders(roll()));
      return;
    }
    if (maxBatch !== null && items.length > maxBatch) {
      await sleep(delayMs);
      const headers = rateHeaders(roll());
      if (maxBatchStyle === '413') {
        send(res, 413, message(`Request entity too large: at most ${maxBatch} ${endpoint.field} per request.`), headers);
      } else {
        send(res, 400, message(`Too many ${endpoint.field}: at most ${maxBatch} per request.`), headers);
      }
      return;
    }

    // Quota is decided on arrival (in arrival order), the answer is sent after the delay.
    const t = roll();
    if (limited && remaining === 0) {
      const headers = { ...rateHeaders(t), 'Retry-After': String(secondsToReset(t)) };
      await sleep(delayMs);
      send(res, 429, message('Too many requests.'), headers);
      return;
    }
    const results = new Map<string, string>();
    for (const item of items) {
      if (results.has(item)) continue;
      if (limited && remaining === 0) {
        results.set(item, 'quota_exceeded');
      } else {
        if (limited) remaining--;
        results.set(item, endpoint.classify(item));
      }
    }
    const headers = rateHeaders(t);
    await sleep(delayMs);

    if (fault?.kind === 'drop') {
      const target = fault.item ?? [...results.keys()].pop();
      if (target !== undefined) results.delete(target);
    } else if (fault?.kind === 'status-for') {
      if (fault.item === undefined) {
        for (const k of results.keys()) results.set(k, fault.status);
      } else if (results.has(fault.item)) {
        results.set(fault.item, fault.status);
      }
    }
    let body = resultsBody(endpoint.field, results);
    if (fault?.kind === 'truncated') body = body.slice(0, Math.floor(body.length / 2));
    send(res, 200, body, headers);
  }

  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const record: ReceivedRequest = {
      method: req.method ?? '',
      path: q < 0 ? url : url.slice(0, q),
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
      items: null,
      status: 0,
      startedAt: Date.now(),
      endedAt: 0,
    };
    sandbox.requests.push(record);
    res.on('close', () => {
      record.status = res.writableFinished ? res.statusCode : 0;
      record.endedAt = Date.now();
    });
    handle(req, res, record).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        send(res, 500, message(`Sandbox error: ${err instanceof Error ? err.message : String(err)}`));
      } else {
        res.destroy();
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });

  let closed: Promise<void> | null = null;
  function closeServer(): Promise<void> {
    if (closed) return closed;
    closed = new Promise<void>((resolve) => {
      // Wake every delayed handler: its answer then goes nowhere, as its socket is gone.
      for (const [timer, wake] of sleepers) {
        clearTimeout(timer);
        wake();
      }
      sleepers.clear();
      const waits: Promise<void>[] = [new Promise<void>((r) => server.close(() => r()))];
      // A socket still in the set has not emitted 'close' yet (its listener removes it).
      for (const socket of sockets) waits.push(new Promise<void>((r) => socket.once('close', () => r())));
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      // Resolve once every socket is closed and the requests' records are final.
      void Promise.all(waits).then(() => setImmediate(resolve));
    });
    return closed;
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen({ port, host }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  sandbox.port = address.port;
  const urlHost = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  sandbox.url = `http://${urlHost}:${address.port}`;
  return sandbox;
}
