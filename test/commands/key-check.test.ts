// Whether the service takes a key (src/commands/key-check.ts), asked at no cost: one request of an empty list,
// which validates nothing; a 2xx or a 429 is a key that works (with the quota its headers tell), a 401 one refused,
// anything else, or no answer, a service that cannot tell. And the sentence that says the quota.
import { describe, expect, it } from 'vitest';
import { askService, quotaSentence } from '../../src/commands/key-check.js';
import { fakeIo } from '../fake-io.js';
import { sandbox, sentItems, withHome } from '../helpers.js';

const KEY = 'sk_test_0123456789abcdef';

describe('askService', () => {
  it('a key the service takes: one request of an empty list (nothing validated, nothing spent), the quota left from its headers', async () => {
    await withHome(async (home) => {
      const { sb } = await sandbox({ quota: 50, key: KEY }, home);
      try {
        const v = await askService(KEY, sb.url, fakeIo());
        expect(v).toMatchObject({ verdict: 'works', usedUp: false, rate: { remaining: 50, quota: 50 } });
        expect(sb.requests.map((q) => [q.method, q.path, q.items, q.authorization])).toEqual([['POST', '/emails/validate', [], `Bearer ${KEY}`]]);
        expect(sentItems(sb)).toEqual([]);
      } finally {
        await sb.close();
      }
    });
  });

  it('a quota used up (a 429) is a key that works, its quota at 0; a 401 is a key refused, naming the service', async () => {
    await withHome(async (home) => {
      const { sb } = await sandbox({ quota: 50, key: KEY }, home);
      try {
        sb.inject({ kind: 'status', status: 429, body: '', headers: { 'Retry-After': '120' } });
        expect(await askService(KEY, sb.url, fakeIo())).toMatchObject({ verdict: 'works', usedUp: true, rate: { remaining: 0, retryAfter: 120 } });
        expect(await askService('sk_test_wrong_key_0000', sb.url, fakeIo())).toEqual({ verdict: 'refused', why: `${sb.url} answered HTTP 401` });
      } finally {
        await sb.close();
      }
    });
  });

  it('a 5xx or no answer at all: the service cannot tell, and why; a 413 to an empty list too', async () => {
    await withHome(async (home) => {
      const { sb } = await sandbox({ key: KEY }, home);
      try {
        sb.inject({ kind: 'status', status: 503, body: '' });
        expect(await askService(KEY, sb.url, fakeIo())).toEqual({ verdict: 'unknown', why: `the service answered HTTP 503, from ${sb.url}` });
        sb.inject({ kind: 'status', status: 413, body: '' });
        expect(await askService(KEY, sb.url, fakeIo())).toEqual({ verdict: 'unknown', why: `${sb.url} answered that the request was too large` });
      } finally {
        await sb.close();
      }
      expect(await askService(KEY, 'http://127.0.0.1:9', fakeIo())).toEqual({ verdict: 'unknown', why: 'network error (ECONNREFUSED), from http://127.0.0.1:9' });
    });
  });

  it('a stop while it waits for the answer: interrupted, with the signal', async () => {
    await withHome(async (home) => {
      const { sb } = await sandbox({ key: KEY }, home);
      const release = sb.hold();
      try {
        const stop = new AbortController();
        const asking = askService(KEY, sb.url, fakeIo({ signal: stop.signal }));
        await expect.poll(() => sb.requests.length, { timeout: 20_000 }).toBe(1);
        stop.abort('SIGTERM');
        await expect(asking).rejects.toMatchObject({ kind: 'interrupted', signal: 'SIGTERM' });
      } finally {
        release();
        await sb.close();
      }
    });
  });
});

describe('quotaSentence', () => {
  const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
  it('the quota left of the whole, and when it resets (in, and at a clock time)', () => {
    expect(quotaSentence({ remaining: 991, quota: 1000, reset: 3599 }, false, NOW)).toMatch(/^The service accepts the key: quota left 991 of 1,000, resets in 59m 59s \(at \d\d:\d\d \S+\)\.$/);
    expect(quotaSentence({ remaining: 12 }, false, NOW)).toBe('The service accepts the key: quota left 12.');
  });
  it('used up: says so, with the reset from Retry-After when no RateLimit t= came', () => {
    expect(quotaSentence({ remaining: 0, quota: 1000, retryAfter: 120 }, true, NOW)).toMatch(/^The service accepts the key; its quota is used up \(0 of 1,000\), resets in 2m \(at \d\d:\d\d \S+\)\.$/);
    expect(quotaSentence({ remaining: 0 }, true, NOW)).toBe('The service accepts the key; its quota is used up.');
  });
  it('no rate-limit headers at all: the key works, and the service did not say how much is left', () => {
    expect(quotaSentence({}, false, NOW)).toBe('The service accepts the key (it did not say how much quota is left).');
  });
});
