// How a request reaches the service: one POST, its status, headers and whole body as text.
//
// Direct connections use Node's own http/https with a keep-alive Agent: measured with `npm run bench`,
// it costs ~50 MB less memory than undici (whose parser is a WebAssembly module) and is at least as fast.
// Through an HTTPS_PROXY / HTTP_PROXY, undici's EnvHttpProxyAgent does the CONNECT tunnelling and NO_PROXY
// matching; it is loaded only then.
import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import { usageError } from '../errors.js';
import { isLoopback } from '../loopback.js';

export interface RawResponse {
  statusCode: number;
  /** A response header by lower-case name; repeated headers joined with ", ". */
  header(name: string): string | undefined;
  text: string;
}

export interface Transport {
  /** One POST; an answer whose body passes `maxBytes` is cut off and fails with BodyTooLargeError. */
  post(path: string, headers: Record<string, string>, body: string, signal: AbortSignal, maxBytes: number): Promise<RawResponse>;
  close(): Promise<void>;
}

/** No answer (connect, headers and whole body) within the per-request time limit. */
export class TimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms / 1000} s`);
  }
}

/** An answer larger than any legitimate one for the request: not read further. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the service sent an answer larger than ${formatBytes(maxBytes)}`);
  }
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : `${Math.round(n / 1024)} KiB`;
}

/** A kept-alive socket the server had closed: worth one immediate second try. */
class StaleSocketError extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

/** Response headers as RawResponse.header reads them. */
function headerGetter(headers: Record<string, string | string[] | undefined>): RawResponse['header'] {
  return (name) => {
    const v = headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  };
}

/** The connection ended before the whole answer arrived. */
const cutShort = () => Object.assign(new Error('the answer was cut short'), { code: 'ECONNRESET' });

interface TransportOptions {
  timeoutMs: number;
  connections: number;
}

// (Long on purpose: one closure owns the keep-alive agent; exchange() is one request's whole life.)
export async function directTransport(base: URL, o: TransportOptions): Promise<Transport> {
  const https = base.protocol === 'https:';
  const mod = https ? await import('node:https') : await import('node:http');
  // `timeout` makes Node honour the server's `Keep-Alive: timeout=N` hint (idle sockets are closed a second
  // before the server would close them); without one, Node 20 keeps idle sockets open indefinitely.
  const agent: HttpAgent = new mod.Agent({ keepAlive: true, maxSockets: o.connections, maxFreeSockets: o.connections, timeout: 5_000 });
  const host = base.hostname.replace(/^\[(.*)\]$/, '$1'); // [::1] → ::1
  const port = base.port ? Number(base.port) : https ? 443 : 80;

  /**
   * One exchange. A request that fails on a kept-alive socket before any answer byte (the server closed
   * the idle connection as we reused it) is sent once more at once on a fresh socket, without using up
   * one of the caller's retries: that is the usual fate of a pooled connection, not a failing service.
   */
  const post: Transport['post'] = async (path, headers, body, signal, maxBytes) => {
    try {
      return await exchange(path, headers, body, signal, maxBytes);
    } catch (err) {
      if (!(err instanceof StaleSocketError) || signal.aborted) throw err instanceof StaleSocketError ? err.cause : err;
      return exchange(path, headers, body, signal, maxBytes).catch((again) => {
        throw again instanceof StaleSocketError ? again.cause : again;
      });
    }
  };

  const exchange = (path: string, headers: Record<string, string>, body: string, signal: AbortSignal, maxBytes: number) =>
    new Promise<RawResponse>((resolve, reject) => {
      const abortError = () =>
        signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), { name: 'AbortError' });
      if (signal.aborted) return reject(abortError());
      const payload = Buffer.from(body, 'utf8');
      let settled = false;
      let answered = false;
      const finish = (err: Error | null, res?: RawResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve(res!);
      };
      const req = mod.request({
        host,
        port,
        path,
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': String(payload.length) },
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        const stale = req.reusedSocket && !answered && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
        finish(stale ? new StaleSocketError(err) : err);
      });
      // One limit for the whole exchange: connect, send, headers, body.
      const timer = setTimeout(() => {
        const err = new TimeoutError(o.timeoutMs);
        req.destroy(err);
        finish(err);
      }, o.timeoutMs);
      const onAbort = () => {
        const err = abortError();
        req.destroy(err);
        finish(err);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('response', (res: IncomingMessage) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            const err = new BodyTooLargeError(maxBytes);
            req.destroy(err);
            return finish(err);
          }
          chunks.push(chunk);
        });
        res.on('error', (err) => finish(err));
        res.on('end', () => {
          if (!res.complete) return finish(cutShort());
          const text = Buffer.concat(chunks, size).toString('utf8');
          finish(null, { statusCode: res.statusCode ?? 0, header: headerGetter(res.headers), text });
        });
        res.on('close', () => {
          if (!res.complete) finish(cutShort());
        });
      });
      req.end(payload);
    });

  return {
    post,
    close: async () => agent.destroy(),
  };
}

type Connector = (opts: object, callback: (err: Error | null, socket?: unknown) => void) => void;

/** undici's tunnelling connect, with a proxy that closes the connection reported as a plain failure (see factory). */
function tunnelOnce(connect: unknown): unknown {
  if (typeof connect !== 'function') return connect;
  return ((opts, callback) =>
    (connect as Connector)(opts, (err, socket) => {
      if (err && (err as { code?: string }).code === 'UND_ERR_SOCKET') {
        callback(Object.assign(new Error('the proxy closed the connection'), { code: 'the proxy closed the connection' }));
      } else callback(err, socket);
    })) satisfies Connector;
}

/** The proxy said no to the tunnel (407, 403…): retrying will not help, the message says what to fix. */
export class ProxyRefusedError extends Error {}

export interface ProxySettings {
  https?: string;
  http?: string;
  no?: string;
}

/**
 * The proxy to use for `base`, from HTTPS_PROXY / HTTP_PROXY / NO_PROXY (or their lower-case forms), with
 * the URLs checked (a usage error names the variable); null when there is none or `base` is loopback.
 */
export function proxySettings(env: Record<string, string | undefined>, base: URL): ProxySettings | null {
  const get = (n: string) => env[n] || env[n.toLowerCase()] || undefined;
  const https = get('HTTPS_PROXY');
  const http = get('HTTP_PROXY');
  // Loopback (the sandbox) is never reached through a proxy: a proxy elsewhere could not reach it.
  if ((!https && !http) || isLoopback(base.hostname)) return null;
  return {
    https: https && proxyUrl('HTTPS_PROXY', https),
    http: http && proxyUrl('HTTP_PROXY', http),
    no: get('NO_PROXY'),
  };
}

/** A proxy variable's value as a URL: `host:port` means http://host:port, as curl takes it. */
function proxyUrl(name: string, value: string): string {
  const text = value.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw usageError(`${name} is not a proxy URL; give one like http://proxy.example.com:3128.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`${name} must be an http:// or https:// proxy URL, not ${url.protocol}//.`);
  }
  // The URL parser lets a stray % through; undici decodes the credentials when it connects, and would throw then.
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    throw usageError(`${name} has a % in its user name or password that starts no percent-encoding; write a % there as %25 (http://user:p%25ss@host:port).`);
  }
  return withScheme;
}

// (Long on purpose: one closure owns the undici dispatcher, renewed after a time-out; post() bounds each exchange.)
export async function proxyTransport(
  base: URL,
  o: TransportOptions,
  proxy: ProxySettings,
): Promise<Transport> {
  const { https: httpsProxy, http: httpProxy } = proxy;
  const undici = await import('undici');
  const makeDispatcher = () =>
    new undici.EnvHttpProxyAgent({
      // Given explicitly, so that undici never reads process.env itself (the command's env is `opts.env`).
      httpProxy: httpProxy ?? '',
      httpsProxy: httpsProxy ?? httpProxy ?? '',
      noProxy: proxy.no ?? '',
      connections: o.connections,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
      connect: { timeout: o.timeoutMs },
      // The connection to the proxy itself (its CONNECT) gets the same limit; undici's default is 300 s,
      // during which an unanswered tunnel would hold a connection slot and starve later batches.
      clientFactory: (origin: URL, opts: object) =>
        new undici.Pool(origin, { ...opts, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs, connect: { timeout: o.timeoutMs } }),
      // The connections to the service, tunnelled through the proxy. When the proxy closes the connection during
      // CONNECT, undici's error (UND_ERR_SOCKET) counts as recoverable: it reconnects at once, without end (a
      // storm of thousands of connections a second, and a request that never fails). Given another code, the
      // request fails, and idv's own retries, with back-off, decide.
      factory: (origin: string | URL, opts: { connect?: unknown }) =>
        new undici.Pool(origin, { ...opts, connect: tunnelOnce(opts.connect) } as ConstructorParameters<typeof undici.Pool>[1]),
    });
  let dispatcher = makeDispatcher();
  const retired: Array<{ destroy(): Promise<void> }> = [];
  /**
   * After a time-out, later requests go through fresh connections: undici would queue them behind a
   * tunnel that is still waiting for its CONNECT answer, and fail them with it. Requests still running on
   * the old connections finish there (close() waits for them: an answer already paid for is not thrown away).
   */
  const renew = () => {
    const old = dispatcher;
    dispatcher = makeDispatcher();
    retired.push(old);
    old.close().catch(() => undefined);
  };
  const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
  const exchange = async (path: string, headers: Record<string, string>, body: string, signal: AbortSignal, maxBytes: number): Promise<RawResponse> => {
    const res = await dispatcher.request({ origin: base.origin, path, method: 'POST', headers, body, signal });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        res.body.destroy();
        throw new BodyTooLargeError(maxBytes);
      }
      chunks.push(chunk);
    }
    return { statusCode: res.statusCode, header: headerGetter(res.headers), text: Buffer.concat(chunks, size).toString('utf8') };
  };
  return {
    async post(path, headers, body, signal, maxBytes) {
      // The same limit as directTransport's: the whole exchange. undici does not cancel a request still
      // waiting for its CONNECT tunnel (its own CONNECT has a 300 s limit), so the wait is cut here.
      // A timer of our own, held here: an AbortSignal.timeout() that only AbortSignal.any() refers to can be
      // garbage-collected before it fires, and then the limit never comes.
      const timeout = new TimeoutError(o.timeoutMs);
      const timer = new AbortController();
      const clock = setTimeout(() => timer.abort(timeout), o.timeoutMs);
      const both = AbortSignal.any([signal, timer.signal]);
      let onAbort = () => {};
      const cut = new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.aborted ? signal.reason : timeout);
        signal.addEventListener('abort', onAbort, { once: true });
        timer.signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        return await Promise.race([exchange(path, headers, body, both, maxBytes), cut]);
      } catch (err) {
        if (signal.aborted || err instanceof BodyTooLargeError) throw err;
        if (both.aborted || TIMEOUTS.has((err as { code?: string }).code ?? '')) {
          renew();
          throw timeout;
        }
        const answered = /Proxy response \((\d{3})\)/.exec((err as Error).message ?? '');
        if (answered) {
          const status = Number(answered[1]);
          if (status === 407) {
            throw new ProxyRefusedError('the proxy asks for credentials (HTTP 407); put them in the proxy URL: http://user:password@host:port');
          }
          if (status === 401 || status === 403 || status === 405) {
            throw new ProxyRefusedError(`the proxy refused the connection (HTTP ${status})`);
          }
          // 502, 503…: a proxy or its upstream failing for now; retried like any network error.
          throw Object.assign(new Error(`the proxy answered HTTP ${status}`), { code: `proxy answered HTTP ${status}` });
        }
        throw err;
      } finally {
        clearTimeout(clock);
        signal.removeEventListener('abort', onAbort);
        timer.signal.removeEventListener('abort', onAbort);
        cut.catch(() => undefined);
      }
    },
    close: async () => {
      // A tunnel still waiting for its CONNECT answer would hold destroy() up: give it a moment, no more.
      const all = [dispatcher, ...retired].map((d) => d.destroy().catch(() => undefined));
      await Promise.race([Promise.all(all), new Promise((r) => setTimeout(r, 500).unref())]);
    },
  };
}
