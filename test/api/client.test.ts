// The client's outcome for each kind of answer, against a real server on 127.0.0.1: what the scheduler and
// its circuit breaker act on (no answer from the host vs an answer; a refusal it gives to every request).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, MAX_NEW_STATUSES, maxAnswerBytes, namesTheSize, type Client, type Outcome } from '../../src/api/client.js';
import fc from 'fast-check';
import { Secrets } from '../../src/system/secrets.js';

let server: http.Server;
let base = '';
/** What the server does with the next request. */
let next: (res: http.ServerResponse) => void = () => undefined;
/** What the server received last. */
let received: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string } = { headers: {}, body: '' };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      next(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function outcomeOf(url: string, timeoutMs = 20_000): Promise<Outcome> {
  const client = await createClient({ baseUrl: url, key: 'sk_test_abc', timeoutMs, connections: 1, env: {}, secrets: new Secrets() });
  try {
    return await client.validate('/emails/validate', 'emails', ['a@example.com'], new AbortController().signal);
  } finally {
    await client.close();
  }
}
const reply = (status: number, body = '{}') => (res: http.ServerResponse) => res.writeHead(status, { 'content-type': 'application/json' }).end(body);

describe('client outcomes', () => {
  const rows: Array<[string, (res: http.ServerResponse) => void, Partial<Outcome> & { type: Outcome['type'] }]> = [
    ['403: failed, turned away (what every request gets)', reply(403, '{"message":"Forbidden"}'), { type: 'failed', reason: 'the service answered HTTP 403: Forbidden', turnedAway: true }],
    ['404: failed, turned away', reply(404), { type: 'failed', reason: 'the service answered HTTP 404', turnedAway: true }],
    ['400 not naming the size: failed, not a refusal of every request', reply(400, '{"message":"bad"}'), { type: 'failed', reason: 'the service answered HTTP 400: bad', turnedAway: false }],
    ['503: retried, an answer', reply(503), { type: 'retry', reason: 'the service answered HTTP 503' }],
    ['a malformed 200: retried, an answer', reply(200, 'nope'), { type: 'retry', reason: 'the service sent a malformed answer (HTTP 200)' }],
    ['a connection reset before any answer: unreachable', (res) => res.socket?.resetAndDestroy(), { type: 'unreachable', reason: 'network error (ECONNRESET)' }],
  ];
  for (const [name, answer, expected] of rows) {
    it(name, async () => {
      next = answer;
      expect(await outcomeOf(base)).toMatchObject(expected);
    });
  }

  it('no answer within --timeout: unreachable', async () => {
    next = () => undefined;
    expect(await outcomeOf(base, 300)).toMatchObject({ type: 'unreachable', reason: 'no answer within 0.3 s' });
  });

  it('a port where nothing listens: unreachable, connection refused', async () => {
    const s = net.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    expect(await outcomeOf(`http://127.0.0.1:${port}`)).toMatchObject({ type: 'unreachable', reason: 'network error (ECONNREFUSED)' });
  });
});

describe('the --verbose line of a request', () => {
  async function logged(answer: (res: http.ServerResponse) => void, url = base): Promise<string[]> {
    next = answer;
    const lines: string[] = [];
    const client = await createClient({ baseUrl: url, key: 'sk_test_abcdef123456', timeoutMs: 20_000, connections: 1, env: {}, secrets: new Secrets(), log: (l) => lines.push(l) });
    try {
      await client.validate('/emails/validate', 'emails', ['a@example.com', 'b@example.com'], new AbortController().signal);
    } finally {
      await client.close();
    }
    return lines.map((l) => l.replace(/ in \d+ ms/, ' in N ms'));
  }

  it('an answer: the status, the time, the rate-limit headers as sent, the key masked', async () => {
    const lines = await logged((res) => res.writeHead(200, { RateLimit: '"validations";r=9;t=60', 'RateLimit-Policy': '"validations";q=10;w=60' }).end('{"emails":{}}'));
    expect(lines).toEqual([
      'POST /emails/validate 2 items → 200 in N ms; RateLimit: "validations";r=9;t=60; RateLimit-Policy: "validations";q=10;w=60; key ****3456',
    ]);
  });

  it('no answer: why, and no rate-limit headers', async () => {
    const lines = await logged((res) => res.socket?.resetAndDestroy());
    expect(lines).toEqual(['POST /emails/validate 2 items → network error (ECONNRESET) in N ms; key ****3456']);
  });
});

const KEY = 'sk_test_abcdef123456';
/** A client of the test server (its secrets and --verbose lines kept), closed after `use`. */
async function withClient<T>(use: (c: Client, secrets: Secrets, lines: string[]) => Promise<T>, o: { url?: string; env?: Record<string, string> } = {}): Promise<T> {
  const secrets = new Secrets();
  const lines: string[] = [];
  const client = await createClient({ baseUrl: o.url ?? base, key: KEY, timeoutMs: 20_000, connections: 1, env: o.env ?? {}, secrets, log: (l) => lines.push(l) });
  try {
    return await use(client, secrets, lines);
  } finally {
    await client.close();
  }
}
const send = (c: Client, items: string[], field = 'emails') => c.validate(`/${field}/validate`, field, items, new AbortController().signal);
const json = (status: number, body: unknown, headers: Record<string, string> = {}) => (res: http.ServerResponse) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body));
/** The statuses an ok outcome gives these items (in order of asking: the first new statuses are the accepted ones). */
const statuses = (o: Outcome, items: string[]) => {
  if (o.type !== 'ok') throw new Error(`not ok: ${JSON.stringify(o)}`);
  return items.map((i) => o.results.get(i));
};

describe('the request', () => {
  it('one POST to the base path and endpoint: the items under their field as JSON, the key as a bearer token, JSON accepted', async () => {
    next = json(200, { domains: {} });
    await withClient((c) => send(c, ['x.com', 'y.org'], 'domains'), { url: `${base}/v2//` });
    expect(received).toEqual({
      method: 'POST',
      url: '/v2/domains/validate',
      headers: expect.objectContaining({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'identity' }),
      body: '{"domains":["x.com","y.org"]}',
    });
  });

  it('a stop while the request is out: thrown, not an outcome', async () => {
    next = () => undefined; // never answers
    const stop = new AbortController();
    await withClient(async (c) => {
      const out = c.validate('/emails/validate', 'emails', ['a@x.com'], stop.signal);
      setTimeout(() => stop.abort(new Error('stopped')), 50);
      await expect(out).rejects.toThrow();
    });
  });
});

describe('outcome by HTTP status', () => {
  const answer = (status: number, body: unknown = {}, headers: Record<string, string> = {}, items = ['a@x.com', 'b@x.com']) => {
    next = json(status, body, headers);
    return withClient((c) => send(c, items));
  };
  it('2xx with results: ok, the rate-limit headers read', async () => {
    for (const status of [200, 201, 299]) {
      const o = await answer(status, { emails: { 'a@x.com': { status: 'ok' } } }, { RateLimit: '"validations";r=9;t=60', 'RateLimit-Policy': '"validations";q=10;w=60' });
      expect(o, String(status)).toMatchObject({ type: 'ok', rate: { remaining: 9, reset: 60, quota: 10, window: 60 } });
      expect(statuses(o, ['a@x.com', 'b@x.com'])).toEqual(['ok', undefined]);
    }
  });
  it('300: failed, not turned away', async () => {
    expect(await answer(300)).toEqual({ type: 'failed', reason: 'the service answered HTTP 300', rate: {}, turnedAway: false });
  });
  it('401: the key is refused', async () => {
    expect(await answer(401, { message: 'no' })).toEqual({ type: 'auth' });
  });
  it('429: the quota, with when it comes back', async () => {
    expect(await answer(429, {}, { 'Retry-After': '30' })).toEqual({ type: 'quota', rate: { retryAfter: 30 } });
  });
  it('413, or a 400 that names the size of the request: too large', async () => {
    expect(await answer(413)).toEqual({ type: 'too-large', status: 413, rate: {} });
    for (const message of ['Too many items', 'batch too large', 'payload too big', 'at most 100 items', 'max 100 emails', 'batch size exceeds 100', '100 emails per request']) {
      expect(await answer(400, { message }), message).toEqual({ type: 'too-large', status: 400, rate: {} });
    }
  });
  it('a 400 naming the size for a single item: too large too (the breaker stops a service that refuses every lone item)', async () => {
    expect(await answer(400, { message: 'too many items' }, {}, ['a@x.com'])).toEqual({ type: 'too-large', status: 400, rate: {} });
  });
  it('a 400 whose message holds size words without naming the size of the request: failed, not split', async () => {
    for (const message of ['Request rejected: limit exceeded for this account plan.', 'got a malformed size value', 'over the limit', 'maximum is 100', 'maxima']) {
      expect(await answer(400, { message }), message).toEqual({ type: 'failed', reason: `the service answered HTTP 400: ${message}`, rate: {}, turnedAway: false });
    }
  });
  it('only a 400 (or 413) names the size: another status whose message holds size words keeps its own outcome', async () => {
    expect(await answer(422, { message: 'too many items' })).toEqual({ type: 'failed', reason: 'the service answered HTTP 422: too many items', rate: {}, turnedAway: false });
    expect(await answer(503, { message: 'over the size limit' })).toEqual({ type: 'retry', reason: 'the service answered HTTP 503', rate: {} });
  });
  it('408 and 5xx: retried; other 4xx: failed', async () => {
    for (const status of [408, 500, 502, 599]) expect(await answer(status), String(status)).toEqual({ type: 'retry', reason: `the service answered HTTP ${status}`, rate: {} });
    for (const status of [402, 409, 499]) expect(await answer(status), String(status)).toEqual({ type: 'failed', reason: `the service answered HTTP ${status}`, rate: {}, turnedAway: false });
  });
  it("the answer's message: one line, under 200 characters, the key masked; none when empty, not text or not JSON", async () => {
    const reason = async (body: unknown) => ((await answer(409, body)) as { reason: string }).reason;
    expect(await reason({ message: 'a\n  b\tc' })).toBe('the service answered HTTP 409: a b c');
    expect(await reason({ message: 'm'.repeat(199) })).toBe(`the service answered HTTP 409: ${'m'.repeat(199)}`);
    expect(await reason({ message: 'm'.repeat(200) })).toBe('the service answered HTTP 409');
    expect(await reason({ message: '' })).toBe('the service answered HTTP 409');
    expect(await reason({ message: 42 })).toBe('the service answered HTTP 409');
    expect(await reason('{"message":')).toBe('the service answered HTTP 409');
    expect(await reason({ message: `key ${KEY} refused` })).toBe('the service answered HTTP 409: key **** refused');
  });
});

describe('the statuses of a 2xx answer', () => {
  it('an answer that is not an object of results by item under the field: malformed, retried', async () => {
    for (const body of ['null', '"ok"', '[]', '{"emails":null}', '{"emails":"ok"}', '{"emails":[]}', '{"domains":{}}', '']) {
      next = json(200, body);
      expect(await withClient((c) => send(c, ['a@x.com'])), body).toEqual({ type: 'retry', reason: 'the service sent a malformed answer (HTTP 200)', rate: {} });
    }
  });

  it('an item whose entry holds no plain-word status has none (it ends error); the key is never a status', async () => {
    const entries = { a: { status: 'ok' }, b: { status: 'not a word' }, c: { status: 5 }, d: 'ok', e: null, f: {}, g: { status: KEY }, h: { status: 'x'.repeat(41) }, i: { status: 'fake' } };
    next = json(200, { emails: entries });
    const o = await withClient((c) => send(c, Object.keys(entries)));
    expect(statuses(o, [...Object.keys(entries), 'missing'])).toEqual(['ok', undefined, undefined, undefined, undefined, undefined, undefined, undefined, 'fake', undefined]);
  });

  it('an item missing as sent but answered under its name lower-cased (a server or proxy that folds case) gets that answer', async () => {
    for (const body of [
      { emails: { 'zed@example.com': { status: 'ok' }, 'Ann@x.com': { status: 'fake' } } },
      // the same answer through JSON.parse (the exact reader refuses a name with an escape in it)
      { emails: { 'zed@example.com': { status: 'ok' }, 'Ann@x.com': { status: 'fake' }, 'q\"@x.com': { status: 'ok' } } },
    ]) {
      next = json(200, body);
      const o = await withClient((c) => send(c, ['Zed@EXAMPLE.com', 'Ann@x.com', 'ann@x.com', 'bob@x.com']));
      expect(statuses(o, ['Zed@EXAMPLE.com', 'Ann@x.com', 'ann@x.com', 'bob@x.com'])).toEqual(['ok', 'fake', 'fake', undefined]);
    }
  });

  it(`at most ${MAX_NEW_STATUSES} new statuses a run (known ones never count); those accepted stay accepted, in later answers too`, async () => {
    const news = Array.from({ length: MAX_NEW_STATUSES + 1 }, (_, i) => `new${i}`);
    const known = ['ok', 'alias', 'disposable', 'fake'];
    const body = { emails: Object.fromEntries([...known, ...news].map((s) => [`${s}@x.com`, { status: s }])) };
    await withClient(async (c) => {
      next = json(200, body);
      const first = await send(c, ['x@x.com']);
      expect(statuses(first, known.map((s) => `${s}@x.com`))).toEqual(known);
      expect(statuses(first, news.map((s) => `${s}@x.com`))).toEqual([...news.slice(0, -1), undefined]);
      expect(statuses(first, ['new0@x.com', 'ok@x.com'])).toEqual(['new0', 'ok']);
      next = json(200, body);
      const second = await send(c, ['x@x.com']);
      expect(statuses(second, [`new${MAX_NEW_STATUSES}@x.com`, 'new5@x.com', 'ok@x.com'])).toEqual([undefined, 'new5', 'ok']);
    });
    next = json(200, body);
    expect(statuses(await withClient((c) => send(c, ['x@x.com'])), [`new${MAX_NEW_STATUSES}@x.com`])).toEqual([`new${MAX_NEW_STATUSES}`]); // another run
  });

  it('an answer up to its cap is read; one byte more is refused (retried), the cap growing with the items sent', async () => {
    for (const items of [1, 3]) {
      const cap = maxAnswerBytes(items);
      const head = '{"emails":{"a@x.com":{"status":"ok"}}}';
      next = json(200, head + ' '.repeat(cap - head.length));
      expect(await withClient((c) => send(c, Array.from({ length: items }, (_, i) => `u${i}@x.com`))), `${items}`).toMatchObject({ type: 'ok' });
      next = json(200, head + ' '.repeat(cap - head.length + 1));
      expect(await withClient((c) => send(c, Array.from({ length: items }, (_, i) => `u${i}@x.com`)))).toEqual({ type: 'retry', reason: 'the service sent an answer larger than 1.0 MiB', rate: {} });
    }
    expect([maxAnswerBytes(0), maxAnswerBytes(1), maxAnswerBytes(1000)]).toEqual([1048576, 1048576 + 16384, 1048576 + 16384000]);
  });
});

describe('the --verbose line, and what it never shows', () => {
  it('a single item; a base path holding the key is masked', async () => {
    next = json(200, { emails: {} });
    const lines = await withClient(async (c, _s, lines) => (await send(c, ['a@x.com']), lines), { url: `${base}/${KEY}/` });
    expect(lines.map((l) => l.replace(/ in \d+ ms/, ' in N ms'))).toEqual(['POST /****/emails/validate 1 item → 200 in N ms; key ****3456']);
  });

  it('the time the request took', async () => {
    next = (res) => setTimeout(() => json(200, { emails: {} })(res), 120);
    let took = 0;
    const lines = await withClient(async (c, _s, lines) => {
      const t0 = performance.now();
      await send(c, ['a@x.com']);
      took = performance.now() - t0;
      return lines;
    });
    const ms = Number(/ in (\d+) ms/.exec(lines[0]!)?.[1]);
    expect(ms).toBeGreaterThanOrEqual(100); // the answer's delay is in it
    expect(ms).toBeLessThanOrEqual(Math.ceil(took)); // and no more than the request took, as its caller saw it
  });

  it('an answer too large: said so', async () => {
    next = json(200, ' '.repeat(maxAnswerBytes(1) + 1));
    const lines = await withClient(async (c, _s, lines) => (await send(c, ['a@x.com']), lines));
    expect(lines.map((l) => l.replace(/ in \d+ ms/, ' in N ms'))).toEqual(['POST /emails/validate 1 item → the service sent an answer larger than 1.0 MiB in N ms; key ****3456']);
  });
});

describe('close()', () => {
  it('closes the connections it kept open', async () => {
    const open = new Set<net.Socket>();
    const track = (socket: net.Socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    };
    server.on('connection', track);
    try {
      next = json(200, { emails: {} });
      const client = await createClient({ baseUrl: base, key: KEY, timeoutMs: 20_000, connections: 1, env: {}, secrets: new Secrets() });
      await send(client, ['a@x.com']);
      expect(open.size).toBe(1); // kept alive for the next request
      await client.close();
      for (let i = 0; i < 50 && open.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(open.size).toBe(0);
    } finally {
      server.off('connection', track);
    }
  });
});

describe('through a proxy', () => {
  /** A proxy on 127.0.0.1 that answers every CONNECT with `status`. */
  async function proxy(status: string): Promise<{ url: string; close: () => Promise<void>; connects: string[] }> {
    const connects: string[] = [];
    const p = http.createServer((_req, res) => res.writeHead(500).end());
    p.on('connect', (req: http.IncomingMessage, socket: net.Socket) => {
      connects.push(req.url ?? '');
      socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\n\r\n`);
    });
    await new Promise<void>((r) => p.listen(0, '127.0.0.1', r));
    const port = (p.address() as AddressInfo).port;
    return { url: `127.0.0.1:${port}`, connects, close: () => new Promise((r) => (p.closeAllConnections(), p.close(() => r()))) };
  }

  it("a proxy's refusal is turned away (what every request gets) and says what to fix; its password is a secret", async () => {
    const refusing = await proxy('407 Proxy Authentication Required');
    try {
      const env = { HTTPS_PROXY: `http://me:pa%3Ass%2Fw@${refusing.url}` };
      const [o, secrets, lines] = await withClient(async (c, secrets, lines) => [await send(c, ['a@x.com']), secrets, lines] as const, { url: 'https://api.example.test', env });
      const refused = 'the proxy refused the credentials in the proxy URL (HTTP 407); check the user name and password there';
      expect(o).toEqual({ type: 'failed', reason: refused, rate: {}, turnedAway: true });
      expect(refusing.connects).toEqual(['api.example.test:443']);
      expect(secrets.redact('pa:ss/w and me')).toBe('**** and me');
      expect(lines.map((l) => l.replace(/ in \d+ ms/, ' in N ms'))).toEqual([`POST /emails/validate 1 item → ${refused} in N ms; key ****3456`]);
      // Without credentials in its URL, the proxy's 407 asks for them.
      const bare = await withClient((c) => send(c, ['a@x.com']), { url: 'https://api.example.test', env: { HTTPS_PROXY: `http://${refusing.url}` } });
      expect(bare).toMatchObject({ type: 'failed', reason: 'the proxy asks for credentials (HTTP 407); put them in the proxy URL: http://user:password@host:port' });
    } finally {
      await refusing.close();
    }
  });

  it('a proxy URL without a password, or only in HTTP_PROXY: nothing else becomes a secret', async () => {
    const refusing = await proxy('403 Forbidden');
    try {
      const env = { HTTP_PROXY: `http://me@${refusing.url}`, HTTPS_PROXY: `http://${refusing.url}` };
      const [o, secrets] = await withClient(async (c, secrets) => [await send(c, ['a@x.com']), secrets] as const, { url: 'https://api.example.test', env });
      expect(o).toEqual({ type: 'failed', reason: 'the proxy refused the connection (HTTP 403)', rate: {}, turnedAway: true });
      expect(secrets.redact(`me 127.0.0.1 undefined ${KEY}`)).toBe('me 127.0.0.1 undefined ****');
    } finally {
      await refusing.close();
    }
  });
});

describe('namesTheSize: only a 400 that names the size of the request splits the batch', () => {
  const items = fc.constantFrom('items', 'emails', 'domains', 'addresses', 'entries');
  const n = fc.integer({ min: 1, max: 100_000 });
  const padding = fc.constantFrom('', 'Request rejected: ', 'Error. ', ' (see the docs)');
  it('a message naming the batch size, in any case and wording, does', () => {
    const naming = fc.oneof(
      items.map((i) => `too many ${i}`),
      fc.tuple(fc.constantFrom('batch', 'payload', 'request', 'request entity', 'batch size'), fc.constantFrom('large', 'big')).map(([what, big]) => `${what} too ${big}`),
      fc.tuple(fc.constantFrom('at most', 'max', 'maximum', 'up to', 'more than'), n, items).map(([bound, k, i]) => `${bound} ${k} ${i}`),
      fc.tuple(items, fc.constantFrom('request', 'batch')).map(([i, per]) => `${i} per ${per}`),
    );
    fc.assert(
      fc.property(padding, naming, padding, fc.boolean(), (before, words, after, upper) => {
        const message = `${before}${upper ? words.toUpperCase() : words} ${after}`;
        expect(namesTheSize(message), message).toBe(true);
      }),
      { seed: 20261128, numRuns: 1000 },
    );
  });
  it("a message that holds size words without naming the request's size (a plan's limit, a size field) does not", () => {
    const other = fc.constantFrom(
      'limit exceeded for this account plan',
      'got a malformed size value',
      'monthly limit reached',
      'over the limit',
      'size',
      'maximum retries',
      'max 100',
      'the domain is too long',
      'too many requests',
      'Bad request.',
    );
    fc.assert(
      fc.property(padding, other, padding, fc.boolean(), (before, words, after, upper) => {
        const message = `${before}${upper ? words.toUpperCase() : words} ${after}`;
        expect(namesTheSize(message), message).toBe(false);
      }),
      { seed: 20261128, numRuns: 500 },
    );
  });
});
