// How a request reaches the service: one POST, its status, headers and whole body as text.
//
// Direct connections use Node's own http/https with a keep-alive Agent: measured with `npm run bench`,
// it costs ~50 MB less memory than undici (whose parser is a WebAssembly module) and is at least as fast.
// Through an HTTPS_PROXY / HTTP_PROXY, undici's EnvHttpProxyAgent does the CONNECT tunnelling and NO_PROXY
// matching; it is loaded only then.
import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import { usageError } from '../errors.js';

export interface RawResponse {
  statusCode: number;
  /** A response header by lower-case name; repeated headers joined with ", ". */
  header(name: string): string | undefined;
  text: string;
}

export interface Transport {
  post(path: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<RawResponse>;
  close(): Promise<void>;
}

/** No answer (connect, headers and whole body) within the per-request time limit. */
export class TimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms / 1000} s`);
  }
}

interface TransportOptions {
  timeoutMs: number;
  connections: number;
}

export async function directTransport(base: URL, o: TransportOptions): Promise<Transport> {
  const https = base.protocol === 'https:';
  const mod = https ? await import('node:https') : await import('node:http');
  const agent: HttpAgent = new mod.Agent({ keepAlive: true, maxSockets: o.connections, maxFreeSockets: o.connections });
  const host = base.hostname.replace(/^\[(.*)\]$/, '$1'); // [::1] → ::1
  const port = base.port ? Number(base.port) : https ? 443 : 80;

  const post: Transport['post'] = (path, headers, body, signal) =>
    new Promise((resolve, reject) => {
      const payload = Buffer.from(body, 'utf8');
      let settled = false;
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
      // One limit for the whole exchange: connect, send, headers, body.
      const timer = setTimeout(() => {
        const err = new TimeoutError(o.timeoutMs);
        req.destroy(err);
        finish(err);
      }, o.timeoutMs);
      const onAbort = () => {
        const err = signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), { name: 'AbortError' });
        req.destroy(err);
        finish(err);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('error', (err) => finish(err));
      req.on('response', (res: IncomingMessage) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', (err) => finish(err));
        res.on('end', () => {
          if (!res.complete) return finish(Object.assign(new Error('the answer was cut short'), { code: 'ECONNRESET' }));
          const h = res.headers;
          finish(null, {
            statusCode: res.statusCode ?? 0,
            header: (name) => {
              const v = h[name];
              return Array.isArray(v) ? v.join(', ') : v;
            },
            text,
          });
        });
        res.on('close', () => {
          if (!res.complete) finish(Object.assign(new Error('the answer was cut short'), { code: 'ECONNRESET' }));
        });
      });
      req.end(payload);
    });

  return {
    post,
    close: async () => agent.destroy(),
  };
}

/** The proxy said no to the tunnel (407, 403…): retrying will not help, the message says what to fix. */
export class ProxyRefusedError extends Error {}

/** A proxy variable's value as a URL: `host:port` means http://host:port, as curl takes it. */
export function proxyUrl(name: string, value: string): string {
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
  return withScheme;
}

export async function proxyTransport(
  base: URL,
  o: TransportOptions,
  proxy: { https?: string; http?: string; no?: string },
): Promise<Transport> {
  const httpsProxy = proxy.https ? proxyUrl('HTTPS_PROXY', proxy.https) : undefined;
  const httpProxy = proxy.http ? proxyUrl('HTTP_PROXY', proxy.http) : undefined;
  const undici = await import('undici');
  const dispatcher = new undici.EnvHttpProxyAgent({
    httpProxy,
    httpsProxy,
    noProxy: proxy.no,
    connections: o.connections,
    headersTimeout: o.timeoutMs,
    bodyTimeout: o.timeoutMs,
    connect: { timeout: o.timeoutMs },
  });
  const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
  const exchange = async (path: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<RawResponse> => {
    const res = await dispatcher.request({ origin: base.origin, path, method: 'POST', headers, body, signal });
    const text = await res.body.text();
    return {
      statusCode: res.statusCode,
      header: (name) => {
        const v = res.headers[name];
        return Array.isArray(v) ? v.join(', ') : v;
      },
      text,
    };
  };
  return {
    async post(path, headers, body, signal) {
      // The same limit as directTransport's: the whole exchange. undici does not cancel a request still
      // waiting for its CONNECT tunnel (its own CONNECT has a 300 s limit), so the wait is cut here.
      const timeout = new TimeoutError(o.timeoutMs);
      const both = AbortSignal.any([signal, AbortSignal.timeout(o.timeoutMs)]);
      let onAbort = () => {};
      const cut = new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.aborted ? signal.reason : timeout);
        both.addEventListener('abort', onAbort, { once: true });
      });
      try {
        return await Promise.race([exchange(path, headers, body, both), cut]);
      } catch (err) {
        if (signal.aborted) throw err;
        if (both.aborted || TIMEOUTS.has((err as { code?: string }).code ?? '')) throw timeout;
        const refused = /Proxy response \((\d{3})\)/.exec((err as Error).message ?? '');
        if (refused) {
          const status = Number(refused[1]);
          throw new ProxyRefusedError(
            status === 407
              ? 'the proxy asks for credentials (HTTP 407); put them in the proxy URL: http://user:password@host:port'
              : `the proxy refused the connection (HTTP ${status})`,
          );
        }
        throw err;
      } finally {
        both.removeEventListener('abort', onAbort);
        cut.catch(() => undefined);
      }
    },
    close: async () => {
      // A tunnel still waiting for its CONNECT answer would hold destroy() up: give it a moment, no more.
      await Promise.race([dispatcher.destroy().catch(() => undefined), new Promise((r) => setTimeout(r, 500).unref())]);
    },
  };
}
