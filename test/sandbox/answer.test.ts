// What the sandbox answers (src/sandbox/answer.ts): pure, given the request and the service's state; then
// over HTTP, a batch limit and each fault a test can aim at a request (served by the test sandbox).
import { describe, expect, it } from 'vitest';
import { QuotaWindow } from '../../src/sandbox/quota.js';
import { answerValidate, parseItems, type Fault } from '../../src/sandbox/answer.js';
import { emails, sandboxesClosedAfterEach } from './requests.js';

const sandboxes = sandboxesClosedAfterEach();

describe('answerValidate', () => {
  const state = (quota: QuotaWindow) => ({ key: 'k123', quota });
  const req = (items: string[], authorization = 'Bearer k123') => ({
    method: 'POST',
    path: '/emails/validate',
    authorization,
    body: '',
    ...{ items, itemsError: '' },
  });
  it('validates the first N items in submitted order, the rest quota_exceeded', () => {
    const reply = answerValidate(req(['a@fake.com', 'b+x@gmail.com', 'c@gmail.com']), state(new QuotaWindow(2, 60, () => 0)));
    expect(reply).toMatchObject({ kind: 'send', status: 200, headers: { RateLimit: '"validations";r=0;t=60' } });
    expect(JSON.parse((reply as { body: string }).body)).toEqual({
      emails: { 'a@fake.com': { status: 'fake' }, 'b+x@gmail.com': { status: 'alias' }, 'c@gmail.com': { status: 'quota_exceeded' } },
    });
  });
  it('401 for another key; 429 once nothing is left', () => {
    expect(answerValidate(req(['a@b.co'], 'Bearer nope'), state(new QuotaWindow(1, 60, () => 0)))).toMatchObject({ status: 401 });
    const q = new QuotaWindow(1, 60, () => 0);
    q.take();
    expect(answerValidate(req(['a@b.co']), state(q))).toMatchObject({ status: 429, headers: { 'Retry-After': '60' } });
  });
  it('each fault, as data, turns the answer into its own', () => {
    const items = ['a@gmail.com', 'b@gmail.com'];
    const rows: Array<[Fault, Record<string, unknown>, string | null]> = [
      [{ kind: 'none' }, { kind: 'send', status: 200 }, '{"emails":{"a@gmail.com":{"status":"ok"},"b@gmail.com":{"status":"ok"}}}'],
      [{ kind: 'hang' }, { kind: 'hang' }, null],
      [{ kind: 'reset' }, { kind: 'reset' }, null],
      [{ kind: 'status', status: 503 }, { kind: 'send', status: 503 }, '{"message":"Service Unavailable."}'],
      [{ kind: 'status', status: 418, body: 'teapot' }, { kind: 'send', status: 418, headers: { 'Content-Type': 'text/plain; charset=utf-8' } }, 'teapot'],
      [{ kind: 'garbage' }, { kind: 'send', status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' } }, '<html><body><h1>Service temporarily unavailable</h1></body></html>\n'],
      [{ kind: 'truncated' }, { kind: 'send', status: 200 }, '{"emails":{"a@gmail.com":{"status":"'],
      [{ kind: 'drop' }, { kind: 'send', status: 200 }, '{"emails":{"a@gmail.com":{"status":"ok"}}}'],
      [{ kind: 'status-for', status: 'risky', item: 'b@gmail.com' }, { kind: 'send', status: 200 }, '{"emails":{"a@gmail.com":{"status":"ok"},"b@gmail.com":{"status":"risky"}}}'],
    ];
    for (const [fault, reply, body] of rows) {
      const answer = answerValidate(req(items), { ...state(new QuotaWindow(0, 60, () => 0)), fault });
      expect(answer, fault.kind).toMatchObject(reply);
      if (body !== null) expect((answer as { body: string }).body, fault.kind).toBe(body);
    }
  });
  it('a fault is not applied to a request with another key: 401', () => {
    expect(answerValidate(req(['a@b.co'], 'Bearer nope'), { ...state(new QuotaWindow(0, 60, () => 0)), fault: { kind: 'hang' } })).toMatchObject({ status: 401 });
  });
  it('parseItems: the field of the endpoint, all strings', () => {
    expect(parseItems('{"emails":["a@b.co"]}', 'emails')).toEqual({ items: ['a@b.co'], error: '' });
    expect(parseItems('{"domains":["a@b.co"]}', 'emails').error).toBe('Missing field "emails": expected an array of email addresses.');
    expect(parseItems('{"emails":[1]}', 'emails').error).toBe('Field "emails" must be an array of strings.');
    expect(parseItems('nope', 'emails').error).toBe('The request body must be a JSON object.');
  });
});

describe('a batch limit', () => {
  it('refuses batches over the maximum size with 413 or 400', async () => {
    const s = await sandboxes.test({ quota: 100 });
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
    const s = await sandboxes.test({ quota: 10 });
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
    const s = await sandboxes.test();
    s.inject({ kind: 'status', status: 500 });
    expect((await emails(s, ['a@example.com'], { key: 'wrong' })).status).toBe(401);
    expect((await emails(s, ['a@example.com'])).status).toBe(500);
  });

  it('garbage answers 200 with a body that is not JSON', async () => {
    const s = await sandboxes.test();
    s.inject({ kind: 'garbage' });
    const r = await emails(s, ['a@example.com']);
    expect(r.status).toBe(200);
    expect(() => r.json()).toThrow();
  });

  it('truncated answers 200 with JSON cut in the middle', async () => {
    const s = await sandboxes.test();
    s.inject({ kind: 'truncated' });
    const r = await emails(s, ['a@example.com', 'b@example.com']);
    expect(r.status).toBe(200);
    expect(r.text.startsWith('{"emails":{')).toBe(true);
    expect(() => r.json()).toThrow();
  });

  it('drop leaves an item out of the map (default: the last one)', async () => {
    const s = await sandboxes.test();
    s.inject({ kind: 'drop' });
    s.inject({ kind: 'drop', item: 'a@example.com' });
    const r = await emails(s, ['a@example.com', 'b@example.com', 'c@example.com']);
    expect(Object.keys((r.json() as { emails: object }).emails)).toEqual(['a@example.com', 'b@example.com']);
    const r2 = await emails(s, ['a@example.com', 'b@example.com']);
    expect(Object.keys((r2.json() as { emails: object }).emails)).toEqual(['b@example.com']);
  });

  it('status-for gives a new status to one item or all', async () => {
    const s = await sandboxes.test();
    s.inject({ kind: 'status-for', status: 'risky', item: 'b@example.com' });
    s.inject({ kind: 'status-for', status: 'unknown_new' });
    const r = await emails(s, ['a@example.com', 'b@example.com']);
    expect(r.json()).toEqual({ emails: { 'a@example.com': { status: 'ok' }, 'b@example.com': { status: 'risky' } } });
    const r2 = await emails(s, ['a@example.com', 'b@example.com']);
    expect(r2.json()).toEqual({
      emails: { 'a@example.com': { status: 'unknown_new' }, 'b@example.com': { status: 'unknown_new' } },
    });
  });
});

const emptyState = (quota: QuotaWindow) => ({ key: 'k1234567', quota });
const empty = (path: string, authorization = 'Bearer k1234567') => ({ method: 'POST', path, authorization, body: '', items: [], itemsError: '' });

describe('answerValidate, an empty list', () => {
  it.each(['/emails/validate', '/domains/validate'])('%s: 200, nothing validated, nothing taken, the headers', (path) => {
    const q = new QuotaWindow(5, 60, () => 0);
    const reply = answerValidate(empty(path), emptyState(q));
    expect(reply).toEqual({
      kind: 'send',
      status: 200,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'RateLimit-Policy': '"validations";q=5;w=60', RateLimit: '"validations";r=5;t=60' },
      body: path === '/emails/validate' ? '{"emails":{}}' : '{"domains":{}}',
    });
    expect(q.remaining()).toBe(5);
  });

  it('also with the quota used up: 200 with r=0, not 429', () => {
    const q = new QuotaWindow(1, 60, () => 0);
    q.take();
    expect(answerValidate(empty('/emails/validate'), emptyState(q))).toMatchObject({ status: 200, headers: { RateLimit: '"validations";r=0;t=60' } });
  });

  it('another key: 401', () => {
    expect(answerValidate(empty('/emails/validate', 'Bearer nope'), emptyState(new QuotaWindow(1, 60, () => 0)))).toMatchObject({ status: 401 });
  });
});
