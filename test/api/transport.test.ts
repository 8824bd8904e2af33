// The transports (src/api/transport.ts): the proxy settings taken from the environment, and the body cap
// of the proxy transport. Everything stays on 127.0.0.1: the "proxy" below answers CONNECT by tunnelling to
// a local origin whatever host is named, and answers absolute-form requests itself, so nothing is resolved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BodyTooLargeError, directTransport, MalformedAnswerError, proxySettings, proxyTransport, TimeoutError, type Transport } from '../../src/api/transport.js';
import { run } from '../fake-io.js';

const API = new URL('https://api.example.test');

describe('proxySettings', () => {
  const bad = (value: string) => () => proxySettings({ HTTPS_PROXY: value }, API);

  it('a % that starts no percent-encoding in the password is a usage error naming the variable, never the password', () => {
    for (const value of ['http://user:p%ss@proxy.example.com:3128', 'http://us%er:secret@proxy.example.com:3128', 'http://u:%ED%A0%80@proxy:3128']) {
      let err: unknown;
      try {
        bad(value)();
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ kind: 'usage' });
      const message = (err as Error).message;
      expect(message).toBe(
        'HTTPS_PROXY has a % in its user name or password that starts no percent-encoding; write a % there as %25 (http://user:p%25ss@host:port).',
      );
      expect(message).not.toContain('secret');
    }
  });

  it('a correctly percent-encoded user name and password are taken as given', () => {
    expect(proxySettings({ HTTPS_PROXY: 'http://u%40corp:p%25ss@proxy.example.com:3128' }, API)).toEqual({
      https: 'http://u%40corp:p%25ss@proxy.example.com:3128',
      http: undefined,
      no: undefined,
    });
  });

  it('HTTP_PROXY is checked the same way', () => {
    expect(() => proxySettings({ HTTP_PROXY: 'http://u:100%@proxy:3128' }, API)).toThrow(/^HTTP_PROXY has a % in its user name or password/);
  });
});

describe('a malformed proxy variable on a run', () => {
  it('exit 2 with one line before anything is opened: -o and --split are left as they were, no .tmp file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idv-proxy-'));
    try {
      await writeFile(join(dir, 'list.txt'), 'ada@example.com\n');
      await writeFile(join(dir, 'out.csv'), 'old\n');
      const r = await run(['emails', 'list.txt', '-o', 'out.csv', '--split', 'split', '--base-url', API.href], {
        cwd: dir,
        env: { HOME: dir, IDV_API_KEY: 'sk_test_0123456789abcdef', HTTPS_PROXY: 'http://user:p%ss@127.0.0.1:9' },
      });
      expect(r).toEqual({
        exitCode: 2,
        stdout: '',
        stderr: 'idv: HTTPS_PROXY has a % in its user name or password that starts no percent-encoding; write a % there as %25 (http://user:p%25ss@host:port).\n',
      });
      expect((await readdir(dir)).sort()).toEqual(['list.txt', 'out.csv']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('proxyTransport', () => {
  const closers: Array<() => void> = [];
  afterAll(() => closers.forEach((c) => c()));

  /** An origin answering every POST with `size` bytes, and a proxy tunnelling every CONNECT to it. */
  async function proxyToOrigin(size: number): Promise<string> {
    const origin = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      let left = size;
      const more = () => {
        while (left > 0) {
          const piece = chunk.subarray(0, Math.min(left, chunk.length));
          left -= piece.length;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    const sockets = new Set<net.Socket>();
    const proxy = http.createServer((req, res) => origin.emit('request', req, res));
    proxy.on('connect', (_req, client: net.Socket, head: Buffer) => {
      sockets.add(client);
      const upstream = net.connect((origin.address() as AddressInfo).port, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client).pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    for (const s of [origin, proxy]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    closers.push(() => {
      for (const s of sockets) s.destroy();
      origin.close();
      proxy.close();
      origin.closeAllConnections();
      proxy.closeAllConnections();
    });
    return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  }

  it('an answer larger than the cap is cut off with BodyTooLargeError, as the direct transport does', async () => {
    const proxy = await proxyToOrigin(4 * 1024 * 1024);
    const t = await proxyTransport(new URL('http://api.example.test'), { timeoutMs: 10_000, connections: 1 }, { http: proxy });
    try {
      const answer = t.post('/v1/emails', {}, '{}', new AbortController().signal, 64 * 1024);
      await expect(answer).rejects.toBeInstanceOf(BodyTooLargeError);
      await expect(answer).rejects.toThrow('the service sent an answer larger than 64 KiB');
    } finally {
      await t.close();
    }
  });

  it('an answer within the cap is read whole', async () => {
    const proxy = await proxyToOrigin(60 * 1024);
    const t = await proxyTransport(new URL('http://api.example.test'), { timeoutMs: 10_000, connections: 1 }, { http: proxy });
    try {
      const res = await t.post('/v1/emails', {}, '{}', new AbortController().signal, 64 * 1024);
      expect(res.statusCode).toBe(200);
      expect(res.text).toBe('x'.repeat(60 * 1024));
    } finally {
      await t.close();
    }
  });
});

describe('the common half, through either transport', () => {
  /** What the origin does with the next request (the request's body already read). */
  let next: (res: http.ServerResponse) => void = () => undefined;
  let originPort = 0;
  let proxyUrl = '';
  const sockets = new Set<net.Socket>();
  const servers: net.Server[] = [];

  beforeAll(async () => {
    const origin = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => next(res));
    });
    const proxy = http.createServer((req, res) => origin.emit('request', req, res));
    proxy.on('connect', (_req, client: net.Socket, head: Buffer) => {
      const upstream = net.connect(originPort, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client).pipe(upstream);
      });
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => (client.destroy(), upstream.destroy()));
      }
    });
    for (const s of [origin, proxy]) {
      servers.push(s);
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    }
    originPort = (origin.address() as AddressInfo).port;
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    for (const s of sockets) s.destroy();
    for (const s of servers) {
      (s as http.Server).closeAllConnections();
      s.close();
    }
  });

  const open = (kind: 'direct' | 'proxy', timeoutMs = 20_000): Promise<Transport> =>
    kind === 'direct'
      ? directTransport(new URL(`http://127.0.0.1:${originPort}`), { timeoutMs, connections: 1 })
      : proxyTransport(new URL('http://api.example.test'), { timeoutMs, connections: 1 }, { http: proxyUrl });

  async function postWith(kind: 'direct' | 'proxy', o: { timeoutMs?: number; maxBytes?: number; signal?: AbortSignal } = {}) {
    const t = await open(kind, o.timeoutMs);
    try {
      return await t.post('/v1/emails/validate', { 'content-type': 'application/json' }, '{"emails":[]}', o.signal ?? new AbortController().signal, o.maxBytes ?? 1024);
    } finally {
      await t.close();
    }
  }

  for (const kind of ['direct', 'proxy'] as const) {
    describe(kind, () => {
      it('an answer: its status, its headers by lower-case name (repeated ones joined), its body as text', async () => {
        next = (res) => {
          res.setHeader('RateLimit', '"validations";r=9;t=60');
          res.setHeader('X-Twice', ['a', 'b']);
          res.writeHead(201, { 'content-type': 'application/json' }).end('{"emails":{}}');
        };
        const res = await postWith(kind);
        expect(res.statusCode).toBe(201);
        expect(res.header('ratelimit')).toBe('"validations";r=9;t=60');
        expect(res.header('x-twice')).toBe('a, b');
        expect(res.header('retry-after')).toBeUndefined();
        expect(res.text).toBe('{"emails":{}}');
      });

      it('an answer of exactly the cap is read whole; one byte more fails with BodyTooLargeError', async () => {
        next = (res) => res.writeHead(200).end('x'.repeat(1024));
        expect((await postWith(kind)).text).toHaveLength(1024);
        next = (res) => res.writeHead(200).end('x'.repeat(1025));
        await expect(postWith(kind)).rejects.toThrow(new BodyTooLargeError(1024));
      });

      it('an answer compressed all the same (gzip, deflate, br: a proxy or CDN may) is read decompressed; a byte-order mark is dropped', async () => {
        const body = '{"emails":{"a@x.com":"ok"}}';
        for (const [coding, packed] of [['gzip', zlib.gzipSync(body)], ['x-gzip', zlib.gzipSync(body)], ['deflate', zlib.deflateSync(body)], ['br', zlib.brotliCompressSync(body)]] as const) {
          next = (res) => res.writeHead(200, { 'content-encoding': coding }).end(packed);
          expect((await postWith(kind)).text, coding).toBe(body);
        }
        next = (res) => res.writeHead(200).end('\uFEFF' + body);
        expect((await postWith(kind)).text).toBe(body);
      });

      it('raw deflate (no zlib header, as some servers send it) is read too; a body that does not decompress is a malformed answer, not a network error', async () => {
        const body = '{"emails":{"a@x.com":"ok"}}';
        next = (res) => res.writeHead(200, { 'content-encoding': 'deflate' }).end(zlib.deflateRawSync(body));
        expect((await postWith(kind)).text).toBe(body);
        next = (res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from('this is not gzip at all'));
        const err = await postWith(kind).then(() => null, (e: unknown) => e);
        expect(err).toBeInstanceOf(MalformedAnswerError);
        expect((err as Error).message).toBe('the service sent an answer that is not gzip as it says');
      });

      it('the cap counts what a compressed answer decompresses to; a compressed answer cut short fails', async () => {
        next = (res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync('x'.repeat(1025)));
        await expect(postWith(kind)).rejects.toThrow(new BodyTooLargeError(1024));
        next = (res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync('x'.repeat(1024)));
        expect((await postWith(kind)).text).toHaveLength(1024);
        const packed = zlib.gzipSync('{"emails":{"a@x.com":"ok"}}');
        next = (res) => {
          res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(packed.length) });
          res.write(packed.subarray(0, 10), () => res.socket?.destroy());
        };
        await expect(postWith(kind)).rejects.toThrow();
      });

      it('an answer cut short (the connection closed before its Content-Length): a network error, never a short text', async () => {
        next = (res) => {
          res.writeHead(200, { 'content-length': '100' });
          res.write('{"emails":', () => res.socket?.destroy());
        };
        const err = (await postWith(kind).then(() => null, (e: unknown) => e)) as { code?: string } | null;
        expect(err).not.toBeNull();
        expect(err!.code).toBe(kind === 'direct' ? 'ECONNRESET' : 'UND_ERR_SOCKET');
      });

      it('no answer within the time limit: TimeoutError at the limit', async () => {
        next = () => undefined;
        const t0 = Date.now();
        // A limit not applied would wait for ever on this server: the test's time-out says so.
        await expect(postWith(kind, { timeoutMs: 300 })).rejects.toThrow(new TimeoutError(300));
        expect(Date.now() - t0).toBeGreaterThanOrEqual(290); // not before it
      });

      it("the caller's abort ends the wait at once, with its reason", async () => {
        next = () => undefined;
        const stop = new AbortController();
        setTimeout(() => stop.abort(new Error('SIGINT')), 100);
        // A time limit of an hour: only the abort can end this wait before the test's time-out.
        await expect(postWith(kind, { signal: stop.signal, timeoutMs: 3_600_000 })).rejects.toThrow('SIGINT');
      });
    });
  }

  for (const kind of ['direct', 'proxy'] as const) {
    it(`${kind}: a request cut by the time limit gives its connection back: the next one, on one connection, is answered`, async () => {
      const t = await open(kind, 300);
      try {
        const signal = new AbortController().signal;
        next = () => undefined;
        await expect(t.post('/a', {}, '{}', signal, 1024)).rejects.toThrow(new TimeoutError(300));
        next = (res) => res.writeHead(200).end('after');
        expect((await t.post('/b', {}, '{}', signal, 1024)).text).toBe('after');
      } finally {
        await t.close();
      }
    });
  }

  for (const kind of ['direct', 'proxy'] as const) {
    it(`${kind}: the caller's abort closes the request's connection: the service sees it go`, async () => {
      let gone: () => void = () => undefined;
      const seenGone = new Promise<void>((resolve) => (gone = resolve));
      next = (res) => res.on('close', gone);
      const stop = new AbortController();
      setTimeout(() => stop.abort(new Error('SIGTERM')), 200);
      const t = await open(kind);
      try {
        await expect(t.post('/a', {}, '{}', stop.signal, 1024)).rejects.toThrow('SIGTERM');
        // Before the transport closes (which would close every connection anyway).
        const waited = await Promise.race([seenGone.then(() => 'gone'), new Promise((r) => setTimeout(() => r('still open'), 2000))]);
        expect(waited).toBe('gone');
      } finally {
        await t.close();
      }
    });
  }

  it('direct: a kept-alive connection the server closed is tried once more at once, on a fresh one', async () => {
    const t = await open('direct');
    const used = new WeakSet<net.Socket>();
    let resets = 0;
    next = (res) => {
      const socket = res.socket!;
      if (used.has(socket)) {
        resets++;
        return void socket.resetAndDestroy();
      }
      used.add(socket);
      res.writeHead(200).end('ok');
    };
    try {
      const signal = new AbortController().signal;
      expect((await t.post('/a', {}, '{}', signal, 1024)).text).toBe('ok');
      expect((await t.post('/b', {}, '{}', signal, 1024)).text).toBe('ok');
      expect(resets).toBe(1);
    } finally {
      await t.close();
    }
  });
});
