// A refusal is decided by the service's status line and headers, whatever its body: a 429 or 401 whose body
// never ends, or is gigabytes long, stops the run as any 429 (exit 4) or 401 (exit 3), with nothing more sent;
// a 400 splits a batch only when it names the size of the request, and one refusing even lone items stops the run;
// a status that differs only in case from a known one is that one.
import { describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { homeForEachTest } from '../helpers.js';
import { run } from '../fake-io.js';

const home = homeForEachTest();
const KEY = 'sk_test_0123456789abcdef';
const items = Array.from({ length: 12 }, (_, i) => `u${i}@example.com`);

/** A loopback server answering every request with `answer`; keeps the items of each request it received. */
async function server(answer: (res: http.ServerResponse, emails: string[]) => void) {
  const received: string[][] = [];
  const s = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { emails } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { emails: string[] };
      received.push(emails);
      res.on('error', () => undefined);
      answer(res, emails);
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

async function validate(answer: (res: http.ServerResponse) => void, more: string[] = []) {
  const s = await server(answer);
  try {
    const r = await run(['emails', await home.list(items), '--batch-size', '5', '--concurrency', '1', '--timeout', '2s', '--no-cache', ...more], {
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

/** A 400 with `message` to every request, as JSON. */
const refusing = (message: string) => (res: http.ServerResponse) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ message }));

describe('a 400 splits the batch only when it names the batch size', () => {
  it("a 400 for a plan's limit (its message holds \"limit\", not the batch size): each batch sent once and ended error, never halved", async () => {
    const message = 'Request rejected: limit exceeded for this account plan.';
    const r = await validate(refusing(message), ['--retries', '1']);
    expect(r.stdout).toBe(`email,status\n${items.map((i) => `${i},error\n`).join('')}`);
    expect(r.stderr).toMatch(new RegExp(`^idv: 12 records could not be validated \\(error: the service answered HTTP 400: ${message.replace(/\./g, '\\.')}\\)`, 'm'));
    expect(r.exitCode).toBe(1);
    expect(r.received).toEqual([items.slice(0, 5), items.slice(5, 10), items.slice(10)]);
  });

  it('a 400 naming the batch size even for single items: halved, each lone item tried again, then the breaker stops the run in one line (exit 1)', async () => {
    const s = await server(refusing('Too many emails in one request: at most 0 are allowed.'));
    try {
      const r = await run(['emails', await home.list(items), '--batch-size', '4', '--concurrency', '1', '--retries', '1'], {
        env: { ...home.env, IDV_BASE_URL: s.url, IDV_API_KEY: KEY },
      });
      const host = new URL(s.url).host;
      // The one item refused alone after its retry may or may not be written before the stop reaches the output
      // (as with a 413): never any other record.
      expect(['', 'email,status\nu0@example.com,error\n']).toContain(r.stdout);
      expect(r.stderr).toBe(
        `idv: The service at ${host} refused even single items as too large (HTTP 400), 8 requests in a row; check --base-url (and any proxy in front of the service), then run the same command again; results received so far are cached.\n`,
      );
      expect(r.exitCode).toBe(1);
      const [u0, u1, u2, u3, u4] = items;
      expect(s.received).toEqual([[u0, u1, u2, u3], [u0, u1], [u0], [u0], [u1, u2, u3, u4], [u1, u2], [u1], [u1]]);
    } finally {
      await s.close();
    }
  });
});

describe('a service status that differs only in case from a known one is that status', () => {
  /** `OK` for a…, `Disposable` for b…, `CON` (a new status) for c…, `ok` for the rest. */
  const casedStatuses = (res: http.ServerResponse, emails: string[]) => {
    const status = (e: string) => (e.startsWith('a') ? 'OK' : e.startsWith('b') ? 'Disposable' : e.startsWith('c') ? 'CON' : 'ok');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ emails: Object.fromEntries(emails.map((e) => [e, { status: status(e) }])) }));
  };
  const four = ['ann@example.com', 'bob@example.com', 'cid@example.com', 'wes@example.com'];

  it('--exclude disposable drops `Disposable`; the statuses are written folded, a new one as it came; the rerun reads the folded ones from the cache', async () => {
    const s = await server(casedStatuses);
    try {
      const env = { ...home.env, IDV_BASE_URL: s.url, IDV_API_KEY: KEY };
      const file = await home.list(four);
      const r = await run(['emails', file, '--exclude', 'disposable,fake'], { env });
      expect(r.stdout).toBe('email,status\nann@example.com,ok\ncid@example.com,CON\nwes@example.com,ok\n');
      expect(r.exitCode).toBe(0);
      const again = await run(['emails', file], { env });
      expect(again.stdout).toBe('email,status\nann@example.com,ok\nbob@example.com,disposable\ncid@example.com,CON\nwes@example.com,ok\n');
      expect(s.received).toEqual([four]);
    } finally {
      await s.close();
    }
  });

  it('--split writes one file per status: `OK` goes to ok.csv, no OK.csv or Disposable.csv beside', async () => {
    const s = await server(casedStatuses);
    try {
      const dir = join(home.dir, 'sp');
      const r = await run(['emails', await home.list(four), '--split', dir, '-q'], { env: { ...home.env, IDV_BASE_URL: s.url, IDV_API_KEY: KEY } });
      expect(r.exitCode).toBe(0);
      expect((await readdir(dir)).sort()).toEqual(['CON.csv', 'alias.csv', 'disposable.csv', 'error.csv', 'fake.csv', 'invalid.csv', 'ok.csv', 'quota_exceeded.csv']);
      expect(await readFile(join(dir, 'ok.csv'), 'utf8')).toBe('email,status\nann@example.com,ok\nwes@example.com,ok\n');
      expect(await readFile(join(dir, 'disposable.csv'), 'utf8')).toBe('email,status\nbob@example.com,disposable\n');
    } finally {
      await s.close();
    }
  });
});
