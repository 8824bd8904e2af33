// The sandbox as `idv sandbox` and `--sandbox` start it (src/sandbox/server.ts): its settings and what it
// answers over HTTP.
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { emails, post, sandboxesClosedAfterEach } from './requests.js';

const sandboxes = sandboxesClosedAfterEach();

describe('the sandbox over HTTP', () => {
  it('validates emails and domains, keyed by the item as submitted', async () => {
    const s = await sandboxes.test();
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
    const s = await sandboxes.test({ quota: 10 });
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
    const s = await sandboxes.test({ quota: 5, key: 'sk_test_right' });
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

  it('answers duplicated items once and charges them once', async () => {
    const s = await sandboxes.test({ quota: 10 });
    const r = await emails(s, ['a@example.com', 'b@example.com', 'a@example.com', 'A@example.com']);
    expect(r.text).toBe(
      '{"emails":{"a@example.com":{"status":"ok"},"b@example.com":{"status":"ok"},"A@example.com":{"status":"ok"}}}',
    );
    expect(r.headers.get('ratelimit')).toMatch(/r=7;/);
    expect(s.requests[0]!.items).toHaveLength(4);
  });

  it('keeps odd keys in order and as data (integer-like, __proto__)', async () => {
    const s = await sandboxes.shipped();
    const r = await post(s, '/domains/validate', { domains: ['z.com', '123', '__proto__'] });
    expect(r.text).toBe('{"domains":{"z.com":{"status":"ok"},"123":{"status":"ok"},"__proto__":{"status":"ok"}}}');
  });
});

describe('startSandbox', () => {
  it('listens on 127.0.0.1 with a made-up key, and answers as the service does', async () => {
    const s = await sandboxes.shipped({ quota: 5 });
    expect(s.url).toBe(`http://127.0.0.1:${s.port}`);
    expect(s.key).toMatch(/^sk_sandbox_[0-9a-f]{16}$/);
    const r = await emails(s, ['a@example.com', 'b@mailinator.com', 'c@example.com']);
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"emails":{"a@example.com":{"status":"ok"},"b@mailinator.com":{"status":"disposable"},"c@example.com":{"status":"ok"}}}');
    expect(r.headers.get('ratelimit-policy')).toBe('"validations";q=5;w=3600');
    expect(r.headers.get('ratelimit')).toMatch(/^"validations";r=2;t=(3600|3599)$/);
    expect((await emails(s, ['a@example.com'], { key: 'sk_other_key' })).status).toBe(401);
    expect((await post(s, '/nope', {})).status).toBe(404);
    await s.close();
    await expect(emails(s, ['a@example.com'])).rejects.toThrow();
  });

  it('refuses options out of range, naming the one', async () => {
    await expect(startSandbox({ port: 70000 })).rejects.toThrow('sandbox: port must be an integer between 0 and 65535, got 70000');
    await expect(startSandbox({ quota: -1 })).rejects.toThrow('sandbox: quota must be an integer between 0 and');
    await expect(startSandbox({ window: 0 })).rejects.toThrow('sandbox: window must be an integer between 1 and');
    await expect(startSandbox({ key: 'has space' })).rejects.toThrow('sandbox: the key must be non-empty, without white space');
    await expect(startSandbox({ latency: -1 })).rejects.toThrow('sandbox: latency must be from 0 to 600000 ms, its least first, got -1--1');
    await expect(startSandbox({ latency: { min: 500, max: 100 } })).rejects.toThrow('sandbox: latency must be from 0 to 600000 ms');
    await expect(startSandbox({ faults: '5xx=10' })).rejects.toThrow('sandbox: faults: "5xx=10": give the rate in percent, like 5xx=10%');
    await expect(startSandbox({ faults: [{ kind: '5xx', rate: 2 }] })).rejects.toThrow('"5xx=200%": a rate is at most 100%');
    await expect(startSandbox({ seed: 2 ** 32 })).rejects.toThrow('sandbox: seed must be an integer between 0 and 4294967295');
  });
});

describe('a sandbox to rehearse with: latency, faults at a rate, a request log', () => {
  it('waits the latency before each answer (a range: each wait drawn from it)', async () => {
    const s = await sandboxes.shipped({ latency: 150 });
    const t0 = performance.now();
    expect((await emails(s, ['a@example.com'])).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(145); // not before its wait (timers may fire a ms early)
    const ranged = await sandboxes.shipped({ latency: { min: 60, max: 120 } });
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      await emails(ranged, ['a@example.com']);
      expect(performance.now() - t).toBeGreaterThanOrEqual(55);
    }
  });

  it('each fault as the service would fail: a 5xx, no answer at all, a reset, a 429 burst with Retry-After', async () => {
    const failing = await sandboxes.shipped({ faults: '503=100%' });
    const r = await emails(failing, ['a@example.com']);
    expect([r.status, r.json()]).toEqual([503, { message: 'Service Unavailable.' }]);
    const hanging = await sandboxes.shipped({ faults: 'timeout=100%' });
    await expect(emails(hanging, ['a@example.com'], { signal: AbortSignal.timeout(300) })).rejects.toThrow(/aborted|timeout/i);
    const resetting = await sandboxes.shipped({ faults: 'reset=100%' });
    await expect(emails(resetting, ['a@example.com'])).rejects.toThrow();
    const limited = await sandboxes.shipped({ faults: '429=100%/20s', quota: 100 });
    const refused = await emails(limited, ['a@example.com']);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('20');
    expect(refused.headers.get('ratelimit')).toBe('"validations";r=0;t=20');
    // A wrong key is a 401 whatever the faults.
    expect((await emails(failing, ['a@example.com'], { key: 'sk_wrong_key_1234' })).status).toBe(401);
  });

  it('a seed replays the same faults, request by request', async () => {
    const sequence = async (seed: number) => {
      const s = await sandboxes.shipped({ faults: '5xx=40%,reset=10%', seed });
      expect(s.seed).toBe(seed);
      const seen: Array<number | string> = [];
      for (let i = 0; i < 30; i++) seen.push(await emails(s, [`u${i}@example.com`]).then((a) => a.status, () => 'reset'));
      return seen;
    };
    const first = await sequence(1234);
    expect(first).toContain(200);
    expect(first.some((x) => x !== 200)).toBe(true);
    expect(await sequence(1234)).toEqual(first);
    expect(await sequence(4321)).not.toEqual(first);
  });

  it('logs each request as it ends: time, endpoint, items, status, latency, the fault; the key masked', async () => {
    const lines: string[] = [];
    const s = await sandboxes.shipped({ faults: '503=100%', log: (l) => lines.push(l), key: 'sk_sandbox_0123456789abcdef' });
    await emails(s, ['a@example.com', 'b@example.com']);
    await emails(s, ['a@example.com'], { key: null });
    await post(s, '/nope', {});
    for (let i = 0; i < 100 && lines.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    expect(lines.map((l) => l.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /, 'T ').replace(/ in \d+ ms/, ' in N ms'))).toEqual([
      'T POST /emails/validate 2 items → 503 in N ms (fault: 503); key ****cdef',
      'T POST /emails/validate 1 item → 401 in N ms; no key',
      'T POST /nope → 404 in N ms; key ****cdef',
    ]);
    expect(lines.join('\n')).not.toContain('0123456789abcdef');
  });
});
