// How a request reaches the service: one POST, its status, headers and whole body as text.
// Direct connections use node:http(s) with a keep-alive Agent: lighter than undici (README, Performance)
// and as fast. Through HTTPS_PROXY / HTTP_PROXY, undici's EnvHttpProxyAgent does the CONNECT tunnelling and
// NO_PROXY matching; it is loaded only then. Both share one time limit, one capped body reader, one set of errors.
import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { usageError } from '../core/errors.js';
import type { NetworkOptions } from '../system/io.js';
import { isLoopback } from '../system/loopback.js';

export interface RawResponse {
  statusCode: number;
  /** A response header by lower-case name; repeated headers joined with ", ". */
  header(name: string): string | undefined;
  text: string;
}

export interface Transport {
  /**
   * One POST; a 2xx answer whose body passes `maxBytes` is cut off and fails with BodyTooLargeError. Any other
   * answer is decided by its status line and headers: its body is read only for a message (see readMessage).
   */
  post(path: string, headers: Record<string, string>, body: string, signal: AbortSignal, maxBytes: number): Promise<RawResponse>;
  close(): Promise<void>;
}

export interface TransportOptions {
  /** The limit of one whole exchange: connect, send, headers, body. */
  timeoutMs: number;
  connections: number;
  /** Certificates to trust and a name lookup, when not the system's. */
  network?: NetworkOptions;
}

/** No answer (connect, headers and whole body) within the per-request time limit. */
export class TimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms / 1000} s`);
  }
}

/** An answer that is none the client can read (a malformed answer: retried). */
export class MalformedAnswerError extends Error {}

/** An answer larger than any legitimate one for the request: not read further. */
export class BodyTooLargeError extends MalformedAnswerError {
  constructor(readonly maxBytes: number) {
    super(`the service sent an answer larger than ${formatBytes(maxBytes)}`);
  }
}

/** The proxy said no to the tunnel (407, 403…): retrying will not help, the message says what to fix. */
export class ProxyRefusedError extends Error {}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

// --- The common half -------------------------------------------------------------------------------

/** Given to an exchange: what to do (once) if its wait is cut, by the caller's abort or the time limit. */
export type WhenCut = (cancel: () => void) => void;

/** Given to an exchange: its answer is decided (a status that is not 2xx), the time limit no longer applies. */
export type Decided = () => void;

/** What is read of a body that is only a message (a 4xx or 5xx): a small part, within a short time. */
export const MESSAGE_BYTES = 16 * 1024;
export const MESSAGE_MS = 1_000;

/**
 * Run one exchange within `ms` and the caller's `signal`; a wait the exchange does not end itself (its
 * `cancel`) is cut here. Past the limit it fails with TimeoutError, whatever the exchange failed with; aborted
 * by the caller, with the abort's reason. (No AbortController per request: on the direct path it costs CPU.)
 */
export async function withinTimeLimit<T>(signal: AbortSignal, ms: number, exchange: (whenCut: WhenCut, decided: Decided) => Promise<T>): Promise<T> {
  if (signal.aborted) throw abortError(signal);
  let timedOut = false;
  let cancel = () => {};
  let cut = () => {};
  const stopped = new Promise<never>((_, reject) => {
    cut = () => {
      cancel();
      reject(new Error('stopped'));
    };
  });
  const timer = setTimeout(() => {
    timedOut = true;
    cut();
  }, ms);
  signal.addEventListener('abort', cut, { once: true });
  try {
    const decided = () => clearTimeout(timer);
    return await Promise.race([exchange((onCut) => (cancel = onCut), decided), stopped]);
  } catch (err) {
    if (signal.aborted) throw abortError(signal);
    if (timedOut) throw new TimeoutError(ms);
    throw err;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', cut);
    stopped.catch(() => undefined);
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), { name: 'AbortError' });
}

/**
 * An answer's body as text (without a byte-order mark); past `maxBytes` it is not read further (the stream is
 * destroyed). An answer cut short fails in the stream itself (node:http: "aborted", ECONNRESET; undici:
 * UND_ERR_SOCKET). A body compressed all the same (`coding`: gzip, deflate, br; idv asks for none, a proxy or
 * a CDN may still compress) is read decompressed, the cap counting what it decompresses to.
 */
export async function readCapped(body: Readable, maxBytes: number, coding?: string): Promise<string> {
  let early: unknown; // while zlib loads: the body failing or cut short before it is listened to
  const hold = (err: unknown) => (early ??= err);
  body.on('error', hold);
  const decoder = coding ? await decompressor(coding) : null;
  body.off('error', hold);
  if (early !== undefined) throw early;
  if (body.destroyed && !body.readableEnded) throw new Error('the answer was cut short');
  const text = decoder ?? body;
  let bodyFailed = false; // the decoder's error is then the body's own (a network error), not a bad encoding
  if (decoder) {
    const fail = (err: Error) => ((bodyFailed = true), decoder.destroy(err));
    body.on('error', fail);
    body.on('close', () => {
      if (!body.readableEnded) fail(new Error('the answer was cut short'));
    });
    body.pipe(decoder);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    text.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      body.destroy();
      text.destroy();
      reject(new BodyTooLargeError(maxBytes));
    });
    text.on('end', () => resolve(Buffer.concat(chunks, size).toString('utf8').replace(/^\uFEFF/, '')));
    text.on('error', (err) => reject(decoder && !bodyFailed ? new MalformedAnswerError(`the service sent an answer that is not ${coding!.trim().toLowerCase()} as it says`) : err));
    text.on('close', () => {
      if (!text.readableEnded) reject(new Error('the answer was cut short'));
    });
  });
}

/**
 * The body of an answer its status already decides (a 429 stops the run, a 401 is a refused key): read only
 * for a message, so at most MESSAGE_BYTES within MESSAGE_MS. A body that is longer, slower, cut short or not
 * in its encoding gives what arrived of it (maybe nothing), never an error; the rest is not read.
 */
export async function readMessage(body: Readable, coding?: string): Promise<string> {
  const decoder = coding ? await decompressor(coding).catch(() => null) : null;
  const text = decoder ?? body;
  if (decoder) body.on('error', () => decoder.destroy()).pipe(decoder);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      body.destroy();
      text.destroy();
      resolve(Buffer.concat(chunks).subarray(0, MESSAGE_BYTES).toString('utf8').replace(/^\uFEFF/, ''));
    };
    const timer = setTimeout(done, MESSAGE_MS);
    text.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MESSAGE_BYTES) done();
    });
    text.on('end', done);
    text.on('error', done);
    text.on('close', done);
    if (body.destroyed) done();
  });
}

/** A stream that undoes a Content-Encoding, or null for one idv does not know (the body as it is). */
async function decompressor(coding: string): Promise<Transform | null> {
  const c = coding.trim().toLowerCase();
  if (!['gzip', 'x-gzip', 'deflate', 'br'].includes(c)) return null;
  const zlib = await import('node:zlib'); // loaded only for a compressed answer
  if (c === 'br') return zlib.createBrotliDecompress();
  if (c !== 'deflate') return zlib.createGunzip();
  // `deflate` is zlib's format, but some servers send raw deflate (no header), which browsers read too: the
  // first two bytes tell.
  let inner: Transform | undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (!inner) {
        const zlibHeader = chunk.length >= 2 && (chunk[0]! & 0x0f) === 8 && ((chunk[0]! << 8) | chunk[1]!) % 31 === 0;
        inner = zlibHeader ? zlib.createInflate() : zlib.createInflateRaw();
        inner.on('data', (d: Buffer) => this.push(d));
        inner.on('error', (err: Error) => this.destroy(err));
      }
      inner.write(chunk, () => done());
    },
    flush(done) {
      if (!inner) return done();
      inner.once('end', () => done());
      inner.end();
    },
  });
}

/**
 * An answer's body: a 2xx one whole (capped), any other only as a message, its status line having decided
 * the answer already (the exchange's time limit then ends: a 429 whose body never ends is still a 429).
 */
function readBody(body: Readable, statusCode: number, coding: string | undefined, maxBytes: number, decided: Decided): Promise<string> {
  if (statusCode >= 200 && statusCode < 300) return readCapped(body, maxBytes, coding);
  decided();
  return readMessage(body, coding);
}

/** Response headers as RawResponse.header reads them. */
function headerGetter(headers: Record<string, string | string[] | undefined>): RawResponse['header'] {
  return (name) => {
    const value = headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

// --- Direct: node:http(s) ----------------------------------------------------------------------------

export async function directTransport(base: URL, options: TransportOptions): Promise<Transport> {
  const https = base.protocol === 'https:';
  const http = https ? await import('node:https') : await import('node:http');
  // `timeout` makes Node honour the server's `Keep-Alive: timeout=N` hint (idle sockets are closed a second
  // before the server would close them); without one, Node 20 keeps idle sockets open indefinitely.
  const agent: HttpAgent = new http.Agent({
    keepAlive: true,
    maxSockets: options.connections,
    maxFreeSockets: options.connections,
    timeout: 5_000,
    ...options.network,
  });
  return new DirectTransport(http.request, agent, base, options.timeoutMs);
}

/** A kept-alive socket the server had closed: worth one immediate second try. */
class StaleSocketError extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

type RequestFunction = (typeof import('node:http'))['request'];

class DirectTransport implements Transport {
  private readonly host: string;
  private readonly port: number;

  constructor(
    private readonly request: RequestFunction,
    private readonly agent: HttpAgent,
    base: URL,
    private readonly timeoutMs: number,
  ) {
    this.host = base.hostname.replace(/^\[(.*)\]$/, '$1'); // [::1] → ::1
    this.port = base.port ? Number(base.port) : base.protocol === 'https:' ? 443 : 80;
  }

  /**
   * A request that fails on a kept-alive socket before any answer byte (the server closed the idle
   * connection as we reused it) is sent once more at once on a fresh socket, without using up one of the
   * caller's retries: that is the usual fate of a pooled connection, not a failing service.
   */
  async post(path: string, headers: Record<string, string>, body: string, signal: AbortSignal, maxBytes: number): Promise<RawResponse> {
    const once = () => withinTimeLimit(signal, this.timeoutMs, (whenCut, decided) => this.exchange(path, headers, body, maxBytes, whenCut, decided));
    try {
      return await once();
    } catch (err) {
      if (!(err instanceof StaleSocketError) || signal.aborted) throw err instanceof StaleSocketError ? err.cause : err;
      return once().catch((again) => {
        throw again instanceof StaleSocketError ? again.cause : again;
      });
    }
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }

  private async exchange(path: string, headers: Record<string, string>, body: string, maxBytes: number, whenCut: WhenCut, decided: Decided): Promise<RawResponse> {
    const payload = Buffer.from(body, 'utf8');
    const req = this.request({
      host: this.host,
      port: this.port,
      path,
      method: 'POST',
      agent: this.agent,
      headers: { ...headers, 'content-length': String(payload.length) },
    });
    whenCut(() => req.destroy(new Error('aborted')));
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      req.once('response', resolve);
      // Kept after the answer, so that a late error has a listener; it then settles nothing.
      req.on('error', (err: NodeJS.ErrnoException) => {
        const stale = req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
        reject(stale ? new StaleSocketError(err) : err);
      });
    });
    req.end(payload);
    const res = await answered;
    const header = headerGetter(res.headers);
    const statusCode = res.statusCode ?? 0;
    return { statusCode, header, text: await readBody(res, statusCode, header('content-encoding'), maxBytes, decided) };
  }
}

// --- Through a proxy: undici ---------------------------------------------------------------------------

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
  const get = (name: string) => env[name] || env[name.toLowerCase()] || undefined;
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

type Undici = typeof import('undici');
type Dispatcher = InstanceType<Undici['EnvHttpProxyAgent']>;

export async function proxyTransport(base: URL, options: TransportOptions, proxy: ProxySettings): Promise<Transport> {
  return new ProxyTransport(await import('undici'), base, options, proxy);
}

/** undici's own time-outs, each set to the exchange's limit. */
const UNDICI_TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

class ProxyTransport implements Transport {
  private dispatcher: Dispatcher;
  /** Dispatchers replaced after a time-out, still finishing what they hold. */
  private readonly retired: Dispatcher[] = [];

  constructor(
    private readonly undici: Undici,
    private readonly base: URL,
    private readonly options: TransportOptions,
    private readonly proxy: ProxySettings,
  ) {
    this.dispatcher = this.newDispatcher();
  }

  async post(path: string, headers: Record<string, string>, body: string, signal: AbortSignal, maxBytes: number): Promise<RawResponse> {
    try {
      // undici does not cancel a request still waiting for its CONNECT tunnel: withinTimeLimit cuts the wait.
      return await withinTimeLimit(signal, this.options.timeoutMs, async (whenCut, decided) => {
        const cut = new AbortController();
        whenCut(() => cut.abort());
        const res = await this.dispatcher.request({ origin: this.base.origin, path, method: 'POST', headers, body, signal: cut.signal });
        const header = headerGetter(res.headers);
        const { statusCode } = res;
        return { statusCode, header, text: await readBody(res.body, statusCode, header('content-encoding'), maxBytes, decided) };
      });
    } catch (err) {
      throw this.failure(err, signal);
    }
  }

  async close(): Promise<void> {
    // A tunnel still waiting for its CONNECT answer would hold destroy() up: give it a moment, no more.
    const all = [this.dispatcher, ...this.retired].map((dispatcher) => dispatcher.destroy().catch(() => undefined));
    await Promise.race([Promise.all(all), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
  }

  /** What a failed exchange throws: a time-out renews the connections; a proxy's refusal says what to fix. */
  private failure(err: unknown, signal: AbortSignal): unknown {
    if (signal.aborted || err instanceof MalformedAnswerError) return err;
    if (err instanceof TimeoutError || UNDICI_TIMEOUTS.has((err as { code?: string }).code ?? '')) {
      this.renew();
      return err instanceof TimeoutError ? err : new TimeoutError(this.options.timeoutMs);
    }
    const answered = /Proxy response \((\d{3})\)/.exec((err as Error).message ?? '');
    if (!answered) return err;
    const status = Number(answered[1]);
    if (status === 407) {
      const proxyUrl = new URL((this.base.protocol === 'https:' ? this.proxy.https : this.proxy.http) ?? this.proxy.https ?? this.proxy.http ?? 'http://x');
      return new ProxyRefusedError(
        proxyUrl.username
          ? 'the proxy refused the credentials in the proxy URL (HTTP 407); check the user name and password there'
          : 'the proxy asks for credentials (HTTP 407); put them in the proxy URL: http://user:password@host:port',
      );
    }
    if (status === 401 || status === 403 || status === 405) return new ProxyRefusedError(`the proxy refused the connection (HTTP ${status})`);
    // 502, 503…: a proxy or its upstream failing for now; retried like any network error.
    return Object.assign(new Error(`the proxy answered HTTP ${status}`), { code: `proxy answered HTTP ${status}` });
  }

  /**
   * After a time-out, later requests go through fresh connections: undici would queue them behind a tunnel
   * still waiting for its CONNECT answer, and fail them with it. Requests still running on the old
   * connections finish there (close() waits for them: an answer already paid for is not thrown away).
   */
  private renew(): void {
    const old = this.dispatcher;
    this.dispatcher = this.newDispatcher();
    this.retired.push(old);
    old.close().catch(() => undefined);
  }

  private newDispatcher(): Dispatcher {
    const { undici, options, proxy } = this;
    const { timeoutMs: ms, network } = options;
    return new undici.EnvHttpProxyAgent({
      // Given explicitly, so that undici never reads process.env itself (the command's env is the Io's).
      httpProxy: proxy.http ?? '',
      httpsProxy: proxy.https ?? proxy.http ?? '',
      noProxy: proxy.no ?? '',
      connections: options.connections,
      headersTimeout: ms,
      bodyTimeout: ms,
      // The connections NO_PROXY sends direct; inside a tunnel, requestTls is the TLS session with the service.
      connect: { timeout: ms, ...network },
      ...(network?.ca === undefined ? {} : { requestTls: { ca: network.ca } }),
      // The connection to the proxy itself (its CONNECT) gets the same limit; undici's default is 300 s,
      // during which an unanswered tunnel would hold a connection slot and starve later batches.
      clientFactory: (origin: URL, opts: object) =>
        new undici.Pool(origin, { ...opts, headersTimeout: ms, bodyTimeout: ms, connect: { timeout: ms, ...network } }),
      // The connections to the service, tunnelled through the proxy (see tunnelOnce).
      factory: (origin: string | URL, opts: { connect?: unknown }) =>
        new undici.Pool(origin, { ...opts, connect: tunnelOnce(opts.connect) } as ConstructorParameters<Undici['Pool']>[1]),
    });
  }
}

type Connector = (opts: object, callback: (err: Error | null, socket?: unknown) => void) => void;

/**
 * undici's tunnelling connect, with a proxy that closes the connection during CONNECT reported as a plain
 * failure: undici's own error (UND_ERR_SOCKET) counts as recoverable, and it reconnects at once without end
 * (thousands of connections a second, a request that never fails). Given another code, the request fails,
 * and idv's own retries, with back-off, decide.
 */
function tunnelOnce(connect: unknown): unknown {
  if (typeof connect !== 'function') return connect;
  return ((opts, callback) =>
    (connect as Connector)(opts, (err, socket) => {
      if (err && (err as { code?: string }).code === 'UND_ERR_SOCKET') {
        callback(Object.assign(new Error('the proxy closed the connection'), { code: 'the proxy closed the connection' }));
      } else callback(err, socket);
    })) satisfies Connector;
}
