// The client's outcome for each kind of answer, against a real server on 127.0.0.1: what the scheduler and
// its circuit breaker act on (no answer from the host vs an answer; a refusal it gives to every request).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Outcome } from '../../src/api/client.js';
import { Secrets } from '../../src/secrets.js';

let server: http.Server;
let base = '';
/** What the server does with the next request. */
let next: (res: http.ServerResponse) => void = () => undefined;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => next(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function outcomeOf(url: string, timeoutMs = 5000): Promise<Outcome> {
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
    const client = await createClient({ baseUrl: url, key: 'sk_test_abcdef123456', timeoutMs: 5000, connections: 1, env: {}, secrets: new Secrets(), log: (l) => lines.push(l) });
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
