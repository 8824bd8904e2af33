// The sandbox's quota (src/sandbox/quota.ts): the window's arithmetic given a clock (no waiting), and the
// rate-limit headers, quota_exceeded items and 429s it makes the sandbox answer.
import { describe, expect, it } from 'vitest';
import { QuotaWindow } from '../../src/sandbox/quota.js';
import { emails, sandboxesClosedAfterEach } from './requests.js';

const sandboxes = sandboxesClosedAfterEach();

describe('QuotaWindow', () => {
  it('takes validations until none is left, then a new window starts full', () => {
    let t = 1_000_000;
    const q = new QuotaWindow(3, 60, () => t);
    expect([q.take(), q.take(), q.take(), q.take()]).toEqual([true, true, true, false]);
    expect(q.headers()).toEqual({ 'RateLimit-Policy': '"validations";q=3;w=60', RateLimit: '"validations";r=0;t=60' });
    t += 59_500;
    expect(q.secondsToReset()).toBe(1);
    t += 500;
    expect(q.remaining()).toBe(3);
    t += 125_000; // two windows later: windows are back to back from the start
    expect(q.secondsToReset()).toBe(55);
  });
  it('quota 0 is unlimited and sends no headers', () => {
    const q = new QuotaWindow(0, 60, () => 0);
    expect(Array.from({ length: 5 }, () => q.take())).toEqual([true, true, true, true, true]);
    expect(q.headers()).toEqual({});
  });
});

describe('the quota over HTTP', () => {
  it('sends the rate-limit headers with the remaining quota and the reset time', async () => {
    let t = 1_000_000;
    const s = await sandboxes.test({ quota: 50, window: 3600, now: () => t });
    t += 1500;
    const r = await emails(s, ['a@example.com', 'b@example.com']);
    expect(r.headers.get('ratelimit-policy')).toBe('"validations";q=50;w=3600');
    expect(r.headers.get('ratelimit')).toBe('"validations";r=48;t=3599'); // ceil(3598.5)
  });

  it('omits the rate-limit headers when the quota is unlimited', async () => {
    const s = await sandboxes.test({ quota: 0 });
    const r = await emails(s, Array.from({ length: 1500 }, (_, i) => `u${i}@example.com`));
    expect(r.status).toBe(200);
    expect(Object.keys((r.json() as { emails: object }).emails)).toHaveLength(1500);
    expect(r.headers.get('ratelimit')).toBeNull();
    expect(r.headers.get('ratelimit-policy')).toBeNull();
    expect(() => s.setRemaining(3)).toThrow();
  });

  it('validates the first N items and marks the later ones quota_exceeded', async () => {
    const s = await sandboxes.shipped({ quota: 3 });
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
    const s = await sandboxes.test({ quota: 2, window: 60, now: () => t });
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
    const s = await sandboxes.test({ quota: 2, window: 10, now: () => t });
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
    const s = await sandboxes.test({ quota: 10, window: 100, now: () => t });
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
});
