import { describe, expect, it } from 'vitest';
import { parseRateHeaders, parseRetryAfter } from '../src/api/ratelimit.js';

const headers = (h: Record<string, string>) => (name: string) => h[name];

describe('parseRateHeaders', () => {
  it('reads the structured-field form', () => {
    expect(
      parseRateHeaders(headers({ ratelimit: '"validations";r=49;t=3599', 'ratelimit-policy': '"validations";q=50;w=3600' })),
    ).toEqual({ remaining: 49, reset: 3599, quota: 50, window: 3600, retryAfter: undefined });
  });
  it('tolerates spacing, order, and other policies', () => {
    expect(parseRateHeaders(headers({ ratelimit: '"burst";r=1;t=1, "validations" ; t=10 ; r=0' }))).toMatchObject({
      remaining: 0,
      reset: 10,
    });
  });
  it('reads the older draft form and Retry-After', () => {
    expect(parseRateHeaders(headers({ ratelimit: 'limit=50, remaining=3, reset=60', 'retry-after': '7' }))).toMatchObject({
      remaining: 3,
      reset: 60,
      retryAfter: 7,
    });
  });
  it('ignores garbage', () => {
    expect(parseRateHeaders(headers({ ratelimit: 'nonsense;;;=', 'retry-after': 'soon' }))).toMatchObject({
      remaining: undefined,
      retryAfter: undefined,
    });
  });
});

describe('parseRetryAfter', () => {
  it('takes seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:01:30 GMT', now)).toBe(90);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });
});
