// A local emulator of the Valid Identities API on loopback: the HTTP plumbing (listening, reading bodies,
// delays, sockets, closing). What it answers is answer.ts's; its quota is quota.ts's; its verdicts are
// rules.ts's. Test hooks: fault injection, batch-size limits, quota control, a record of every request.
import { isLoopback } from '../loopback.js';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { answerOther, answerValidate, authorized, ENDPOINTS, message, parseItems, type Body, type Fault, type Reply } from './answer.js';
import { QuotaWindow } from './quota.js';
import { randomHex } from '../temp-files.js';

export type { Fault } from './answer.js';

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

function checkInteger(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`sandbox: ${name} must be an integer between ${min} and ${max}, got ${value}`);
  }
}

// (Long on purpose: one closure owns the server's state — sockets, sleeping handlers, the fault queue — and
// its parts are the named inner functions below; what it answers is answer.ts's.)
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
  const key = opts.key ?? 'sk_sandbox_' + randomHex(8);
  if (key === '' || /\s/.test(key)) throw new Error('sandbox: the key must be non-empty, without white space');
  const now = opts.now ?? Date.now;
  const window = new QuotaWindow(quota, windowSec, now);

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
      if (!window.limited) throw new Error('sandbox: setRemaining needs a limited quota (quota > 0)');
      checkInteger('remaining', n, 0);
      window.setRemaining(n);
    },
    refill(): void {
      window.refill();
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

  function readBody(req: http.IncomingMessage): Promise<Body> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = (v: Body): void => {
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

  /** Carry a reply out: after the delay, send it, reset the connection, or never answer ('hang'). */
  async function deliver(req: http.IncomingMessage, res: http.ServerResponse, reply: Reply, delay: number): Promise<void> {
    if (reply.kind === 'hang') return; // answered by close() or by the client giving up
    await sleep(delay);
    if (reply.kind === 'reset') req.socket.resetAndDestroy();
    else send(res, reply.status, reply.body, reply.headers);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, record: ReceivedRequest): Promise<void> {
    const body = await readBody(req);
    const { items, error } = parseItems(body, Object.hasOwn(ENDPOINTS, record.path) ? ENDPOINTS[record.path]!.field : undefined);
    record.items = items;
    if (body === null) return; // the client went away
    const request = { method: record.method, path: record.path, authorization: req.headers.authorization, body, items, itemsError: error };
    const other = answerOther(request);
    if (other) return deliver(req, res, other, 0);

    // A validate request: counts towards maxInFlight until its answer ends.
    inFlight++;
    if (inFlight > sandbox.maxInFlight) sandbox.maxInFlight = inFlight;
    let counted = true;
    res.on('close', () => {
      if (counted) {
        counted = false;
        inFlight--;
      }
    });
    // A fault is aimed at the next authorized request; the quota is taken now, in arrival order.
    const fault = authorized(request.authorization, key) ? faults.shift() : undefined;
    const reply = answerValidate(request, { key, quota: window, fault, maxBatch, maxBatchStyle });
    await deliver(req, res, reply, delayMs);
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
