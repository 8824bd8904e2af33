// The sandbox's HTTP plumbing: listening on loopback, reading each request's body, carrying a reply out
// (after its delay: an answer, a reset connection, or nothing at all) and closing every socket at once.
// What to reply is decided elsewhere (answer.ts), by the `Respond` function it is given.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isLoopback } from '../system/loopback.js';

/** A request body, read: its text, 'too-large' past MAX_BODY_BYTES, or null when the client went away. */
export type Body = string | 'too-large' | null;

/** What to do with one request, after `delayMs`: send an answer, reset the connection, or never answer. */
export type Reply = (
  | { kind: 'send'; status: number; headers: Record<string, string>; body: string }
  | { kind: 'reset' }
  | { kind: 'hang' }
) & { delayMs?: number };

/** One request as it arrives; its body and its end come later. */
export interface Incoming {
  method: string;
  /** The path without its query. */
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: Promise<Body>;
  /** Settles when the exchange ends, with the status sent: 0 when none was (reset, never answered, client gone). */
  ended: Promise<number>;
}

/** The reply to one request; null sends nothing (the client went away). */
export type Respond = (request: Incoming) => Promise<Reply | null>;

/** Far above any batch idv sends; past it the body is not kept (a 413). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Listen on a loopback `host` (anything else is refused) and `port` (0: any free one). */
export async function listenOnLoopback(address: { host: string; port: number }, respond: Respond): Promise<LoopbackServer> {
  if (!isLoopback(address.host)) {
    throw new Error(`sandbox: refusing to listen on ${address.host}: only loopback (127.0.0.1, ::1, localhost) is allowed`);
  }
  const server = new LoopbackServer(respond);
  await server.listen(address.host, address.port);
  return server;
}

class LoopbackServer {
  url = '';
  port = 0;
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();
  /** Replies waiting out their delay, each woken at once by close(). */
  private readonly sleepers = new Map<NodeJS.Timeout, () => void>();
  private closing: Promise<void> | null = null;

  constructor(private readonly respond: Respond) {
    this.server = http.createServer((req, res) => void this.exchange(req, res));
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server.on('clientError', (_err, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      else socket.destroy();
    });
  }

  listen(host: string, port: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ port, host }, () => {
        this.server.off('error', reject);
        const address = this.server.address() as AddressInfo;
        const urlHost = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
        this.port = address.port;
        this.url = `http://${urlHost}:${address.port}`;
        resolve();
      });
    });
  }

  /** Close the server and every connection (idle keep-alive, never answered) promptly; idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async exchange(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const incoming: Incoming = {
      method: req.method ?? '',
      path: query < 0 ? url : url.slice(0, query),
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
      body: readBody(req),
      ended: new Promise((resolve) => res.on('close', () => resolve(res.writableFinished ? res.statusCode : 0))),
    };
    try {
      const reply = await this.respond(incoming);
      if (reply) await this.deliver(req, res, reply);
    } catch (err) {
      if (res.headersSent || res.destroyed) res.destroy();
      else send(res, 500, JSON.stringify({ message: `Sandbox error: ${err instanceof Error ? err.message : String(err)}` }));
    }
  }

  /** A 'hang' is answered by close() or by the client giving up. */
  private async deliver(req: http.IncomingMessage, res: http.ServerResponse, reply: Reply): Promise<void> {
    if (reply.kind === 'hang') return;
    await this.sleep(reply.delayMs ?? 0);
    if (reply.kind === 'reset') req.socket.resetAndDestroy();
    else send(res, reply.status, reply.body, reply.headers);
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.sleepers.delete(timer);
        resolve();
      }, ms);
      this.sleepers.set(timer, resolve);
    });
  }

  private shutDown(): Promise<void> {
    return new Promise<void>((resolve) => {
      // Wake every delayed reply: it then goes nowhere, as its socket is gone.
      for (const [timer, wake] of this.sleepers) {
        clearTimeout(timer);
        wake();
      }
      this.sleepers.clear();
      const waits: Promise<void>[] = [new Promise<void>((closed) => this.server.close(() => closed()))];
      // A socket still in the set has not emitted 'close' yet (its listener removes it).
      for (const socket of this.sockets) waits.push(new Promise<void>((closed) => socket.once('close', () => closed())));
      this.server.closeAllConnections();
      for (const socket of this.sockets) socket.destroy();
      // Resolved once every socket is closed and every exchange's `ended` has settled.
      void Promise.all(waits).then(() => setImmediate(resolve));
    });
  }
}

function readBody(req: http.IncomingMessage): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (body: Body): void => {
      if (done) return;
      done = true;
      resolve(body);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) finish('too-large');
      else if (!done) chunks.push(chunk);
    });
    req.on('end', () => finish(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => finish(null));
    req.on('close', () => finish(null));
  });
}

/** A header given as '' is left out (a test removes a default header that way). */
function send(res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const all: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8', ...headers };
  all['Content-Length'] = String(Buffer.byteLength(body));
  for (const [name, value] of Object.entries(all)) {
    if (value !== '') res.setHeader(name, value);
  }
  res.writeHead(status);
  res.end(body);
}
