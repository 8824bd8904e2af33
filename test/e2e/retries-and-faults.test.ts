// A service that fails: 5xx retried within --retries, connection resets, time-outs, Retry-After, a batch refused
// as too large split, a 401 mid-run; exit codes when faults and quota stops meet. Runs are in this process.
import { describe, it, expect } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { idv, makeHome, sentBatches, sentItems } from '../helpers.js';
import { KEY, runChecked, items, listOf, csv, setup, since, FAST, refused } from './checked-run.js';

// --- retries -------------------------------------------------------------------------------------

describe.concurrent('retries and faults', () => {
  it('500 twice then success → all validated, 3 requests for that batch, exit 0', async ({ onTestFinished }) => {
    const xs = items(5);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'status', status: 500 }, 2);
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    const all = xs.map(([e]) => e);
    expect(sentBatches(sb)).toEqual([all, all, all]);
    expect(sb.requests.map((q) => q.status)).toEqual([500, 500, 200]);
  });

  it('503 more times than --retries → that batch is error, exit 1, other batches ok', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'status', status: 503 }, 3);
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(1);
    expect(r.stdout).toBe(csv(xs.map(([e, s], i) => [e, i < 5 ? 'error' : s])));
    expect(sb.requests.map((q) => q.status)).toEqual([503, 503, 503, 200]);
    expect(sentBatches(sb)[3]).toEqual(xs.slice(5).map(([e]) => e));
  });

  for (const [name, fault] of [
    ['reset', { kind: 'reset' }],
    ['garbage', { kind: 'garbage' }],
    ['truncated', { kind: 'truncated' }],
    ['408', { kind: 'status', status: 408 }],
  ] as const) {
    it(`${name} is retried`, async ({ onTestFinished }) => {
      const xs = items(5);
      const { sb, env, file } = await setup(onTestFinished, {}, xs);
      sb.inject(fault);
      const r = await runChecked(['emails', file, ...FAST], env);
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(r.stdout).toBe(csv(xs));
      const all = xs.map(([e]) => e);
      expect(sentBatches(sb)).toEqual([all, all]);
    });
  }

  it('a kept-alive connection the server reset as it was reused: sent again at once on a fresh one, no retry spent', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'none' }); // the first request opens the connection…
    sb.inject({ kind: 'reset' }); // …the second, on the same connection, is reset before any answer
    const r = await runChecked(['emails', file, '--batch-size', '5', '--concurrency', '1', '--retries', '0', '-q'], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    const [first, second] = [xs.slice(0, 5), xs.slice(5)].map((b) => b.map(([e]) => e));
    expect(sentBatches(sb)).toEqual([first, second, second]);
  });

  it('the summary counts items the service answered, once each, not every attempt', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'status', status: 503 }, 2);
    const r = await runChecked(['emails', file, '--retries', '2', '--batch-size', '5', '--concurrency', '1'], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(sb.requests).toHaveLength(4);
    expect(String(r.stderr)).toContain('0 items from the cache · 10 items sent in 4 requests');
  });

  it('--concurrency 12: no listener warning on stderr', async ({ onTestFinished }) => {
    const xs = items(60);
    const { env, file } = await setup(onTestFinished, {}, xs);
    const r = await runChecked(['emails', file, '--batch-size', '5', '--concurrency', '12', '-q'], env);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(r.stderr).toBe('');
  });

  it('a hung request with --timeout 5 is retried and then succeeds', async ({ onTestFinished }) => {
    const xs = items(5);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'hang' });
    // 5 s, not 1: the retry's answer must come within it too, on a loaded machine as well
    const r = await runChecked(['emails', file, '--timeout', '5', '--verbose', ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(sentBatches(sb)).toHaveLength(2);
    // the client gave up on the hung request at --timeout 5, not the default 30 s (which the test's time-out would meet)
    const requests = String(r.stderr).split('\n').filter((l) => l.startsWith('idv: POST '));
    expect(requests.map((l) => l.replace(/ in \d+ ms;.*/, ''))).toEqual(['idv: POST /emails/validate 5 items → no answer within 5 s', 'idv: POST /emails/validate 5 items → 200']);
    expect(sb.requests[0]!.endedAt - sb.requests[0]!.startedAt).toBeGreaterThanOrEqual(4500); // not before it
  });

  it('Retry-After: 1 on a 503 is honoured', async ({ onTestFinished }) => {
    const xs = items(5);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'status', status: 503, headers: { 'Retry-After': '1' } });
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(sb.requests).toHaveLength(2);
    expect(sb.requests[1]!.startedAt - sb.requests[0]!.endedAt).toBeGreaterThanOrEqual(900); // a longer wait would meet the test's time-out
  });

  it('Retry-After as an HTTP date is honoured', async ({ onTestFinished }) => {
    const xs = items(5);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    // whole seconds: at least ~1 s from now
    sb.inject({ kind: 'status', status: 503, headers: { 'Retry-After': new Date(Math.ceil(Date.now() / 1000) * 1000 + 3000).toUTCString() } });
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(sb.requests).toHaveLength(2);
    expect(sb.requests[1]!.startedAt - sb.requests[0]!.endedAt).toBeGreaterThanOrEqual(900);
  });

  for (const style of ['413', '400'] as const) {
    it(`a batch refused as too large (${style}) is split; every item validated once`, async ({ onTestFinished }) => {
      const xs = items(20);
      const { sb, env, file } = await setup(onTestFinished, {}, xs);
      sb.setMaxBatch(4, style);
      const r = await runChecked(['emails', file, '--batch-size', '10', '--concurrency', '1', '--retries', '2'], env);
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(r.stdout).toBe(csv(xs));
      const reqs = sb.requests;
      for (const q of reqs) {
        if (q.status === 200) expect(q.items!.length).toBeLessThanOrEqual(4);
        else expect(q.status).toBe(Number(style));
      }
      const firstOk = reqs.findIndex((q) => q.status === 200);
      expect(reqs.slice(firstOk).every((q) => q.items!.length <= 4)).toBe(true);
      const validated = reqs.filter((q) => q.status === 200).flatMap((q) => q.items!);
      expect(validated.sort()).toEqual(xs.map(([e]) => e).sort());
    });
  }

  it('a service that answers 413 even to one item: halved to one, each of two items tried twice, then the run stops (exit 1, one line, -o as it was)', async ({ onTestFinished }) => {
    const xs = items(40);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'status', status: 413, body: '{"message":"Request entity too large."}' }, 1000);
    const out = join(home.dir, 'out.csv');
    await writeFile(out, 'earlier\n');
    const r = await runChecked(['emails', file, '-o', out, '--batch-size', '8', '--concurrency', '1', '--retries', '1', '-q'], env);
    const host = new URL(sb.url).host;
    expect(r).toMatchObject({
      exitCode: 1,
      stdout: '',
      stderr: `idv: The service at ${host} refused even single items as too large (HTTP 413), 10 requests in a row; check --base-url (and any proxy in front of the service), then run the same command again; results received so far are cached.\n`,
    });
    const e = xs.map(([item]) => item);
    expect(sentBatches(sb)).toEqual([e.slice(0, 8), e.slice(0, 4), e.slice(0, 2), [e[0]], [e[0]], e.slice(1, 9), e.slice(1, 5), e.slice(1, 3), [e[1]], [e[1]]]);
    expect(sb.requests.map((q) => q.status)).toEqual(Array(10).fill(413));
    expect(await readFile(out, 'utf8')).toBe('earlier\n');
  });

  it('5,000 items to a service that answers 413 even to one item, at the default batch size and concurrency: a few dozen requests, not one per item', async ({ onTestFinished }) => {
    const xs = items(5000);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'status', status: 413 }, 10_000);
    const r = await runChecked(['emails', file, '-q', '--no-cache'], env);
    expect(r.exitCode).toBe(1);
    // Without a cache, the line says so: a rerun pays again for what was answered.
    expect(r.stderr).toMatch(
      /^idv: The service at \S+ refused even single items as too large \(HTTP 413\), \d+ requests in a row; check --base-url .*, then run the same command again; with --no-cache the results were not kept, so the same command pays for them again\.\n$/,
    );
    expect(sb.requests.length).toBeLessThan(150);
    expect(sb.requests.every((q) => q.status === 413)).toBe(true);
  });

  it('a quota stop with some error items exits 4 (4 wins over 1)', async ({ onTestFinished }) => {
    const xs = items(20);
    const { sb, env, file } = await setup(onTestFinished, { quota: 7 }, xs);
    sb.inject({ kind: 'status', status: 503 }, 3);
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(r.stdout).toBe(csv(xs.map(([e, st], i) => [e, i < 5 ? 'error' : i < 12 ? st : 'quota_exceeded'])));
    expect(sentBatches(sb).map((b) => b.length)).toEqual([5, 5, 5, 5, 2]);
  });

  it('a 401 after the quota stop exits 3 (3 wins over 4): the key is what needs fixing first', async ({ onTestFinished }) => {
    // Two batches in flight: the first is answered 429 once the second has arrived, the second 401 just after.
    const home = await makeHome();
    const held: http.ServerResponse[] = [];
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        held.push(res);
        if (held.length < 2) return;
        held[0]!.writeHead(429, { 'Content-Type': 'application/json', RateLimit: '"validations";r=0;t=600' }).end('{"message":"Quota exceeded."}');
        setTimeout(() => held[1]!.writeHead(401, { 'Content-Type': 'application/json' }).end('{"message":"Unauthorized."}'), 100);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    onTestFinished(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await home.cleanup();
    });
    const xs = items(10);
    const file = join(home.dir, 'list.txt');
    await writeFile(file, listOf(xs));
    const env = { ...home.env, IDV_API_KEY: KEY, IDV_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    const r = await runChecked(['emails', file, '--batch-size', '5', '--concurrency', '2', '--retries', '0'], env);
    expect(held).toHaveLength(2);
    expect(r.stderr).toBe('idv: The service refused the API key from the IDV_API_KEY environment variable (401 Unauthorized); export the right key in IDV_API_KEY, or unset it and store the right one with idv auth login (a stored key is not used while IDV_API_KEY is set).\n');
    expect(r.exitCode).toBe(3);
  });

  it('an item dropped from the answer → error, exit 1, not re-sent in that run', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'drop' }); // the last item of the first batch
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(1);
    expect(r.stdout).toBe(csv(xs.map(([e, s], i) => [e, i === 4 ? 'error' : s])));
    expect(sentItems(sb).filter((e) => e === xs[4]![0])).toHaveLength(1);
    expect(sentBatches(sb)).toHaveLength(2);
    // `error` is not cached: the rerun sends exactly that item
    const n = sb.requests.length;
    const r2 = await runChecked(['emails', file, ...FAST], env);
    expect(r2.exitCode, String(r2.stderr)).toBe(0);
    expect(r2.stdout).toBe(csv(xs));
    expect(since(sb, n).flatMap((q) => q.items ?? [])).toEqual([xs[4]![0]]);
  });

  it('401 in the middle of a run → exit 3, no request after it', async ({ onTestFinished }) => {
    const xs = items(15);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'status-for', status: 'ok', item: 'no-such-item' }); // a no-op: first request answers normally
    sb.inject({ kind: 'status', status: 401, body: '{"message": "Unauthorized."}' });
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(3);
    expect(sb.requests.map((q) => q.status)).toEqual([200, 401]);
    expect(r.stderr).toMatch(/401|key/i);
  });
});
