import { fakeIo as sharedFakeIo, run as runCli } from './fake-io.js';
import { describe, it, expect, afterEach, vi } from 'vitest';
import { PassThrough } from 'node:stream';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/sandbox/server.js';
import { classifyDomain, classifyEmail, DISPOSABLE_DOMAINS, FAKE_DOMAINS, FAKE_TLDS } from '../src/sandbox/rules.js';
import { run as runSandboxCommand } from '../src/commands/sandbox.js';
import type { Io } from '../src/io.js';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

const open: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function start(opts: SandboxOptions = {}): Promise<Sandbox> {
  const s = await startSandbox(opts);
  open.push(s);
  return s;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: () => unknown;
}

async function post(
  s: Sandbox,
  path: string,
  body: unknown,
  init: { key?: string | null; raw?: string; method?: string; signal?: AbortSignal } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const key = init.key === undefined ? s.key : init.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  const method = init.method ?? 'POST';
  const res = await fetch(s.url + path, {
    method,
    headers,
    body: method === 'GET' ? undefined : (init.raw ?? JSON.stringify(body)),
    signal: init.signal,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

const emails = (s: Sandbox, items: string[], init?: Parameters<typeof post>[3]) =>
  post(s, '/emails/validate', { emails: items }, init);

describe('rules', () => {
  it('classifies disposable providers and their subdomains', () => {
    expect(classifyEmail('a@mailinator.com')).toBe('disposable');
    expect(classifyEmail('A@MAILINATOR.COM')).toBe('disposable');
    expect(classifyEmail('a@eu.mailinator.com')).toBe('disposable');
    expect(classifyEmail('a+tag@yopmail.com')).toBe('disposable'); // domain rule first
    expect(classifyDomain('Guerrillamail.com')).toBe('disposable');
    expect(classifyDomain('x.maildrop.cc')).toBe('disposable');
    expect(classifyDomain('notmailinator.com')).toBe('ok');
    for (const d of DISPOSABLE_DOMAINS) expect(classifyDomain(d)).toBe('disposable');
    expect(DISPOSABLE_DOMAINS.length).toBeGreaterThanOrEqual(15);
  });

  it('classifies reserved TLDs and the fake list as fake', () => {
    for (const tld of FAKE_TLDS) expect(classifyEmail(`a@foo.${tld}`)).toBe('fake');
    for (const d of FAKE_DOMAINS) expect(classifyDomain(d)).toBe('fake');
    expect(classifyEmail('a+b@shop.test')).toBe('fake');
    expect(classifyDomain('example.test')).toBe('fake');
    expect(classifyEmail('no-at-sign')).toBe('fake');
    expect(classifyEmail('@example.com')).toBe('fake');
    expect(classifyEmail('a@')).toBe('fake');
    expect(classifyDomain('latest.com')).toBe('ok'); // not a subdomain of test.com
  });

  it('classifies plus-aliases (emails only) and the rest as ok', () => {
    expect(classifyEmail('name+news@example.com')).toBe('alias');
    expect(classifyEmail('a@b@example.org')).toBe('ok'); // the part after the last @
    expect(classifyEmail('jane@example.com')).toBe('ok');
    expect(classifyEmail('jane@example.org')).toBe('ok');
    expect(classifyDomain('example.com')).toBe('ok');
    expect(classifyDomain('plus+sign.com')).toBe('ok'); // no alias status for domains
  });
});

describe('sandbox server', () => {
  it('validates emails and domains, keyed by the item as submitted', async () => {
    const s = await start();
    expect(s.url).toBe(`http://127.0.0.1:${s.port}`);
    expect(s.key).toMatch(/^sk_sandbox_[0-9a-f]{16}$/);
    const r = await emails(s, ['Jane@Example.com', 'x@mailinator.com', 'a+b@example.com', 'c@fake.com']);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.json()).toEqual({
      emails: {
        'Jane@Example.com': { status: 'ok' },
        'x@mailinator.com': { status: 'disposable' },
        'a+b@example.com': { status: 'alias' },
        'c@fake.com': { status: 'fake' },
      },
    });
    const d = await post(s, '/domains/validate', { domains: ['example.com', 'yopmail.com', 'x.invalid'] });
    expect(d.json()).toEqual({
      domains: { 'example.com': { status: 'ok' }, 'yopmail.com': { status: 'disposable' }, 'x.invalid': { status: 'fake' } },
    });
    const empty = await emails(s, []);
    expect(empty.status).toBe(200);
    expect(empty.json()).toEqual({ emails: {} });
    expect(s.requests.map((q) => [q.method, q.path, q.status])).toEqual([
      ['POST', '/emails/validate', 200],
      ['POST', '/domains/validate', 200],
      ['POST', '/emails/validate', 200],
    ]);
    expect(s.requests[0]!.items).toEqual(['Jane@Example.com', 'x@mailinator.com', 'a+b@example.com', 'c@fake.com']);
    expect(s.requests[0]!.authorization).toBe(`Bearer ${s.key}`);
    expect(s.requests[0]!.contentType).toBe('application/json');
    expect(s.requests[0]!.endedAt).toBeGreaterThanOrEqual(s.requests[0]!.startedAt);
  });

  it('answers 404, 405 and 400 for wrong paths, methods and bodies', async () => {
    const s = await start({ quota: 10 });
    const nf = await post(s, '/nope', { emails: [] });
    expect(nf.status).toBe(404);
    expect(nf.json()).toEqual({ message: 'Not found.' });
    const m = await post(s, '/emails/validate', null, { method: 'GET' });
    expect(m.status).toBe(405);
    const bad = await post(s, '/emails/validate', null, { raw: 'not json' });
    expect(bad.status).toBe(400);
    expect(typeof (bad.json() as { message: unknown }).message).toBe('string');
    // The documented curl example's wrong field name is refused.
    const wrongField = await post(s, '/emails/validate', { domains: ['a@example.com'] });
    expect(wrongField.status).toBe(400);
    expect(wrongField.text).toContain('emails');
    expect(s.requests.map((q) => q.status)).toEqual([404, 405, 400, 400]);
    expect(s.requests[2]!.items).toBeNull();
    expect(s.requests[3]!.items).toBeNull();
    // None of it consumed quota.
    const ok = await emails(s, ['a@example.com']);
    expect(ok.headers.get('ratelimit')).toMatch(/r=9;/);
  });

  it('answers 401 with the documented body and consumes nothing', async () => {
    const s = await start({ quota: 5, key: 'sk_test_right' });
    const r = await emails(s, ['a@example.com', 'b@example.com'], { key: 'sk_test_wrong' });
    expect(r.status).toBe(401);
    expect(r.json()).toEqual({ message: 'Unauthorized.' });
    expect(r.text).toBe('{"message": "Unauthorized."}');
    const none = await emails(s, ['a@example.com'], { key: null });
    expect(none.status).toBe(401);
    const ok = await emails(s, ['a@example.com']);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit')).toMatch(/^"validations";r=4;t=\d+$/);
    expect(s.requests.map((q) => q.status)).toEqual([401, 401, 200]);
  });

  it('sends the rate-limit headers with the remaining quota and the reset time', async () => {
    let t = 1_000_000;
    const s = await start({ quota: 50, window: 3600, now: () => t });
    t += 1500;
    const r = await emails(s, ['a@example.com', 'b@example.com']);
    expect(r.headers.get('ratelimit-policy')).toBe('"validations";q=50;w=3600');
    expect(r.headers.get('ratelimit')).toBe('"validations";r=48;t=3599'); // ceil(3598.5)
  });

  it('omits the rate-limit headers when the quota is unlimited', async () => {
    const s = await start({ quota: 0 });
    const r = await emails(s, Array.from({ length: 1500 }, (_, i) => `u${i}@example.com`));
    expect(r.status).toBe(200);
    expect(Object.keys((r.json() as { emails: object }).emails)).toHaveLength(1500);
    expect(r.headers.get('ratelimit')).toBeNull();
    expect(r.headers.get('ratelimit-policy')).toBeNull();
    expect(() => s.setRemaining(3)).toThrow();
  });

  it('validates the first N items and marks the later ones quota_exceeded', async () => {
    const s = await start({ quota: 3 });
    const items = ['e@example.com', 'd@mailinator.com', 'c@example.com', 'b@example.com', 'a@example.com'];
    const r = await emails(s, items);
    expect(r.status).toBe(200);
    const map = (r.json() as { emails: Record<string, { status: string }> }).emails;
    expect(Object.keys(map)).toEqual(items);
    expect(items.map((i) => map[i]!.status)).toEqual(['ok', 'disposable', 'ok', 'quota_exceeded', 'quota_exceeded']);
    expect(r.headers.get('ratelimit')).toMatch(/^"validations";r=0;t=\d+$/);
  });

  it('answers 429 with Retry-After once the quota is used up', async () => {
    let t = 0;
    const s = await start({ quota: 2, window: 60, now: () => t });
    await emails(s, ['a@example.com', 'b@example.com']);
    t = 20_000;
    const r = await emails(s, ['c@example.com']);
    expect(r.status).toBe(429);
    expect(r.json()).toEqual({ message: 'Too many requests.' });
    expect(r.headers.get('retry-after')).toBe('40');
    expect(r.headers.get('ratelimit')).toBe('"validations";r=0;t=40');
    expect(r.headers.get('ratelimit-policy')).toBe('"validations";q=2;w=60');
  });

  it('starts a new window with the full quota when the clock passes its end', async () => {
    let t = 5_000;
    const s = await start({ quota: 2, window: 10, now: () => t });
    expect((await emails(s, ['a@example.com', 'b@example.com'])).status).toBe(200);
    expect((await emails(s, ['c@example.com'])).status).toBe(429);
    t = 15_000; // exactly the end: a new window
    const r = await emails(s, ['c@example.com']);
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit')).toBe('"validations";r=1;t=10');
    t = 37_000; // two windows later: aligned on the first one (35s..45s)
    const r2 = await emails(s, ['d@example.com']);
    expect(r2.headers.get('ratelimit')).toBe('"validations";r=1;t=8');
  });

  it('setRemaining and refill change the quota of the window', async () => {
    let t = 0;
    const s = await start({ quota: 10, window: 100, now: () => t });
    s.setRemaining(1);
    const r = await emails(s, ['a@example.com', 'b@example.com']);
    expect(Object.values((r.json() as { emails: Record<string, { status: string }> }).emails).map((v) => v.status)).toEqual([
      'ok',
      'quota_exceeded',
    ]);
    expect((await emails(s, ['c@example.com'])).status).toBe(429);
    t = 30_000;
    s.refill();
    const r2 = await emails(s, ['c@example.com']);
    expect(r2.status).toBe(200);
    expect(r2.headers.get('ratelimit')).toBe('"validations";r=9;t=100');
  });

  it('answers duplicated items once and charges them once', async () => {
    const s = await start({ quota: 10 });
    const r = await emails(s, ['a@example.com', 'b@example.com', 'a@example.com', 'A@example.com']);
    expect(r.text).toBe(
      '{"emails":{"a@example.com":{"status":"ok"},"b@example.com":{"status":"ok"},"A@example.com":{"status":"ok"}}}',
    );
    expect(r.headers.get('ratelimit')).toMatch(/r=7;/);
    expect(s.requests[0]!.items).toHaveLength(4);
  });

  it('keeps odd keys in order and as data (integer-like, __proto__)', async () => {
    const s = await start();
    const r = await post(s, '/domains/validate', { domains: ['z.com', '123', '__proto__'] });
    expect(r.text).toBe('{"domains":{"z.com":{"status":"ok"},"123":{"status":"ok"},"__proto__":{"status":"ok"}}}');
  });

  it('refuses batches over the maximum size with 413 or 400', async () => {
    const s = await start({ quota: 100 });
    s.setMaxBatch(2);
    const big = await emails(s, ['a@example.com', 'b@example.com', 'c@example.com']);
    expect(big.status).toBe(413);
    expect(big.headers.get('ratelimit')).toMatch(/r=100;/);
    expect((await emails(s, ['a@example.com', 'b@example.com'])).status).toBe(200);
    s.setMaxBatch(2, '400');
    const big400 = await emails(s, ['a@example.com', 'b@example.com', 'c@example.com']);
    expect(big400.status).toBe(400);
    expect(big400.json()).toEqual({ message: 'Too many emails: at most 2 per request.' });
    s.setMaxBatch(null);
    expect((await emails(s, ['a@example.com', 'b@example.com', 'c@example.com'])).status).toBe(200);
  });
});

describe('faults', () => {
  it('status faults: queued FIFO, with times, with rate-limit headers and custom bodies', async () => {
    const s = await start({ quota: 10 });
    s.inject({ kind: 'status', status: 503 }, 2);
    s.inject({ kind: 'status', status: 429, body: '<html><body>Slow down</body></html>' });
    const a = await emails(s, ['a@example.com']);
    const b = await emails(s, ['a@example.com']);
    expect([a.status, b.status]).toEqual([503, 503]);
    expect(a.json()).toEqual({ message: 'Service Unavailable.' });
    expect(a.headers.get('ratelimit')).toMatch(/r=10;/);
    const c = await emails(s, ['a@example.com']);
    expect(c.status).toBe(429);
    expect(c.text).toBe('<html><body>Slow down</body></html>');
    expect(c.headers.get('content-type')).toMatch(/^text\/html/);
    expect(c.headers.get('retry-after')).not.toBeNull();
    s.inject({ kind: 'status', status: 500, body: '', headers: { 'Retry-After': '7', RateLimit: '' } });
    const d = await emails(s, ['a@example.com']);
    expect(d.status).toBe(500);
    expect(d.text).toBe('');
    expect(d.headers.get('retry-after')).toBe('7');
    expect(d.headers.get('ratelimit')).toBeNull();
    const e = await emails(s, ['a@example.com']);
    expect(e.status).toBe(200);
    expect(e.headers.get('ratelimit')).toMatch(/r=9;/); // faults consumed no quota
  });

  it('faults apply only after auth succeeds', async () => {
    const s = await start();
    s.inject({ kind: 'status', status: 500 });
    expect((await emails(s, ['a@example.com'], { key: 'wrong' })).status).toBe(401);
    expect((await emails(s, ['a@example.com'])).status).toBe(500);
  });

  it('reset destroys the socket without an answer', async () => {
    const s = await start();
    s.inject({ kind: 'reset' });
    await expect(emails(s, ['a@example.com'])).rejects.toThrow();
    expect((await emails(s, ['a@example.com'])).status).toBe(200);
    expect(s.requests.map((q) => q.status)).toEqual([0, 200]);
    expect(s.requests[0]!.items).toEqual(['a@example.com']);
  });

  it('garbage answers 200 with a body that is not JSON', async () => {
    const s = await start();
    s.inject({ kind: 'garbage' });
    const r = await emails(s, ['a@example.com']);
    expect(r.status).toBe(200);
    expect(() => r.json()).toThrow();
  });

  it('truncated answers 200 with JSON cut in the middle', async () => {
    const s = await start();
    s.inject({ kind: 'truncated' });
    const r = await emails(s, ['a@example.com', 'b@example.com']);
    expect(r.status).toBe(200);
    expect(r.text.startsWith('{"emails":{')).toBe(true);
    expect(() => r.json()).toThrow();
  });

  it('drop leaves an item out of the map (default: the last one)', async () => {
    const s = await start();
    s.inject({ kind: 'drop' });
    s.inject({ kind: 'drop', item: 'a@example.com' });
    const r = await emails(s, ['a@example.com', 'b@example.com', 'c@example.com']);
    expect(Object.keys((r.json() as { emails: object }).emails)).toEqual(['a@example.com', 'b@example.com']);
    const r2 = await emails(s, ['a@example.com', 'b@example.com']);
    expect(Object.keys((r2.json() as { emails: object }).emails)).toEqual(['b@example.com']);
  });

  it('status-for gives a new status to one item or all', async () => {
    const s = await start();
    s.inject({ kind: 'status-for', status: 'risky', item: 'b@example.com' });
    s.inject({ kind: 'status-for', status: 'unknown_new' });
    const r = await emails(s, ['a@example.com', 'b@example.com']);
    expect(r.json()).toEqual({ emails: { 'a@example.com': { status: 'ok' }, 'b@example.com': { status: 'risky' } } });
    const r2 = await emails(s, ['a@example.com', 'b@example.com']);
    expect(r2.json()).toEqual({
      emails: { 'a@example.com': { status: 'unknown_new' }, 'b@example.com': { status: 'unknown_new' } },
    });
  });

  it('hang never answers; the client can abort; close() returns promptly', async () => {
    const s = await startSandbox(); // closed by hand below
    s.inject({ kind: 'hang' }, 2);
    const ac = new AbortController();
    const aborted = emails(s, ['a@example.com'], { signal: ac.signal });
    // Each step waits for the request to arrive (a fixed 50 ms was too short on a busy machine).
    await vi.waitFor(() => expect(s.requests).toHaveLength(1));
    ac.abort();
    await expect(aborted).rejects.toThrow();
    const outstanding = emails(s, ['b@example.com']).then(
      () => 'answered',
      () => 'failed',
    );
    await vi.waitFor(() => expect(s.requests).toHaveLength(2));
    const t0 = Date.now();
    await s.close();
    expect(Date.now() - t0).toBeLessThan(500);
    expect(await outstanding).toBe('failed');
    expect(s.requests.map((q) => q.status)).toEqual([0, 0]);
    expect(s.requests[1]!.endedAt).toBeGreaterThan(0);
  });
});

describe('concurrency and lifecycle', () => {
  it('counts maxInFlight with delayMs and parallel requests', async () => {
    const s = await start({ delayMs: 150 });
    const t0 = Date.now();
    const answers = await Promise.all([1, 2, 3, 4].map((i) => emails(s, [`u${i}@example.com`])));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(s.maxInFlight).toBe(4);
    expect(Date.now() - t0).toBeLessThan(600); // served in parallel, not one after the other
    await emails(s, ['x@example.com']);
    expect(s.maxInFlight).toBe(4);
  });

  it('sequential keep-alive requests count one in flight, and close() does not wait for idle sockets', async () => {
    const s = await startSandbox();
    for (let i = 0; i < 3; i++) await emails(s, [`u${i}@example.com`]);
    expect(s.maxInFlight).toBe(1);
    const t0 = Date.now();
    await s.close();
    await s.close(); // idempotent
    expect(Date.now() - t0).toBeLessThan(500);
  });

  it('refuses hosts that are not loopback', async () => {
    await expect(startSandbox({ host: '0.0.0.0' })).rejects.toThrow(/loopback/);
    await expect(startSandbox({ host: '192.168.1.2' })).rejects.toThrow(/loopback/);
    const s = await start({ host: 'localhost' });
    expect(s.port).toBeGreaterThan(0);
  });
});

describe('idv sandbox command', () => {
  function fakeIo(signal: AbortSignal): { io: Io; out: () => string; err: () => string } {
    const io = sharedFakeIo({ signal, cwd: process.cwd() });
    return { io, out: () => io.out.text, err: () => io.err.text };
  }

  it('prints the URL, key, quota and an example, serves until aborted, then closes', async () => {
    const ac = new AbortController();
    const { io, out, err } = fakeIo(ac.signal);
    const done = runSandboxCommand({ port: 0, quota: 50, window: 3600, key: 'sk_cmd_test' }, io);
    for (let i = 0; i < 100 && !err().includes('Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 10));
    const lines = out().split('\n');
    const m = /^idv sandbox listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(lines[0]!);
    expect(m).not.toBeNull();
    const url = m![1]!;
    expect(lines.slice(1)).toEqual([
      'key: sk_cmd_test',
      'quota: 50 validations per 3600 s',
      `Try: IDV_BASE_URL=${url} IDV_API_KEY=sk_cmd_test idv emails ${join(ROOT, 'examples', 'sample.csv')}`,
      '',
    ]);
    expect(err()).toBe('Press Ctrl-C to stop.\n');
    const r = await fetch(url + '/emails/validate', {
      method: 'POST',
      headers: { Authorization: 'Bearer sk_cmd_test', 'Content-Type': 'application/json' },
      body: JSON.stringify({ emails: ['a@example.com'] }),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit')).toMatch(/r=49;/);
    ac.abort('SIGINT');
    await done;
    await expect(fetch(url + '/emails/validate', { method: 'POST' })).rejects.toThrow();
  });

  it('says "quota: unlimited" for --quota 0 and refuses bad options', async () => {
    const ac = new AbortController();
    ac.abort('SIGINT');
    const { io, out } = fakeIo(ac.signal);
    await runSandboxCommand({ port: 0, quota: 0, window: 3600 }, io);
    expect(out()).toMatch(/^key: sk_sandbox_[0-9a-f]{16}$/m);
    expect(out()).toContain('\nquota: unlimited\n');
    // Ranges are checked once, by the flags' parsers, before the command runs.
    for (const [flag, value, says] of [
      ['--port', '70000', 'Give a whole number from 0 to 65535.'],
      ['--quota', '-1', 'Give a whole number.'],
      ['--window', '0', 'Give a whole number of at least 1.'],
    ]) {
      const r = await runCli(['sandbox', flag!, value!]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(`idv: option '${flag} <${flag === '--window' ? 'seconds' : 'n'}>' argument '${value}' is invalid. ${says}`);
    }
  });
});
