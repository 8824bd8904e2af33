// A refusal is decided by the service's status line and headers, whatever its body: a 429 or 401 whose body
// never ends, or is gigabytes long, stops the run as any 429 (exit 4) or 401 (exit 3), with nothing more sent.
import { describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { homeForEachTest } from '../helpers.js';
import { run } from '../fake-io.js';

const home = homeForEachTest();
const KEY = 'sk_test_0123456789abcdef';
const items = Array.from({ length: 12 }, (_, i) => `u${i}@example.com`);

/** A loopback server answering every request with `answer`; keeps the items of each request it received. */
async function server(answer: (res: http.ServerResponse) => void) {
  const received: string[][] = [];
  const s = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { emails: string[] }).emails);
      res.on('error', () => undefined);
      answer(res);
    });
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r()))),
  };
}

const QUOTA_HEADERS = { 'content-type': 'text/html', 'Retry-After': '3000', RateLimit: '"validations";r=0;t=3000' };

/** Status line and headers at once, then one space every 200 ms, for as long as the connection lasts. */
const dripping = (status: number) => (res: http.ServerResponse) => {
  res.writeHead(status, QUOTA_HEADERS);
  const timer = setInterval(() => res.write(' '), 200);
  res.on('close', () => clearInterval(timer));
};

/** Status line and headers, then a body of `{"message":"AAAA…` as fast as the reader takes it, until it goes (4 GiB). */
const endless = (status: number) => (res: http.ServerResponse) => {
  res.writeHead(status, { ...QUOTA_HEADERS, 'content-type': 'application/json' });
  const chunk = Buffer.alloc(1 << 20, 0x41);
  let sent = 0;
  const more = () => {
    while (!res.destroyed && sent++ < 4096) if (!res.write(chunk)) return void res.once('drain', more);
    res.end();
  };
  res.write('{"message":"');
  more();
};

async function validate(answer: (res: http.ServerResponse) => void) {
  const s = await server(answer);
  try {
    const r = await run(['emails', await home.list(items), '--batch-size', '5', '--concurrency', '1', '--timeout', '2s', '--no-cache'], {
      env: { ...home.env, IDV_BASE_URL: s.url, IDV_API_KEY: KEY },
    });
    return { ...r, received: s.received };
  } finally {
    await s.close();
  }
}

const allQuotaExceeded = `email,status\n${items.map((i) => `${i},quota_exceeded\n`).join('')}`;
const QUOTA_LINE = /^idv: Quota used up: 12 records not validated \(quota_exceeded\)\. It resets in 50m \(at \d\d:\d\d UTC\)\.$/m;
const AUTH_LINE =
  'idv: The service refused the API key from the IDV_API_KEY environment variable (401 Unauthorized); export the right key in IDV_API_KEY, or unset it and store the right one with idv auth login (a stored key is not used while IDV_API_KEY is set).\n';

describe('a refusal whose body never ends or is huge is decided by its status and headers', () => {
  for (const [name, answer] of [
    ['a body that drips past --timeout', dripping(429)],
    ['a 4 GiB body', endless(429)],
  ] as const) {
    it(`a 429 with ${name}: the run stops at its first request, exit 4, the reset time from its headers`, async () => {
      const r = await validate(answer);
      expect(r.stdout).toBe(allQuotaExceeded);
      expect(r.stderr).toMatch(QUOTA_LINE);
      expect(r.stderr).not.toMatch(/gave no answer|larger than/);
      expect(r.exitCode).toBe(4);
      expect(r.received).toEqual([items.slice(0, 5)]);
    });
  }

  for (const [name, answer] of [
    ['a body that drips past --timeout', dripping(401)],
    ['a 4 GiB body', endless(401)],
  ] as const) {
    it(`a 401 with ${name}: the key is refused at the first request, exit 3, nothing written`, async () => {
      const r = await validate(answer);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(AUTH_LINE);
      expect(r.exitCode).toBe(3);
      expect(r.received).toEqual([items.slice(0, 5)]);
    });
  }
});
