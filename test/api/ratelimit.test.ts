// The rate-limit headers as a server may send them: the documented forms, and anything else (a number that is
// not a whole one is none: a fractional `r` once made batches of half an item, sent without end).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeRateHeaders, MAX_RESET_SECONDS, parseRateHeaders, parseRetryAfter, type RateInfo } from '../../src/api/ratelimit.js';

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
  it('the policy named "validations" wins wherever it stands among several', () => {
    expect(parseRateHeaders(headers({ ratelimit: '"validations";r=5;t=10, "burst";r=1;t=1' }))).toMatchObject({ remaining: 5, reset: 10 });
    expect(parseRateHeaders(headers({ 'ratelimit-policy': 'burst;q=10;w=1, "validations";q=50;w=3600' }))).toMatchObject({ quota: 50, window: 3600 });
  });
  it('without one, the first member that holds figures: an empty or garbled member before it does not hide it', () => {
    expect(parseRateHeaders(headers({ ratelimit: 'garbage, "default";r=7;t=30, "burst";r=1;t=1' }))).toMatchObject({ remaining: 7, reset: 30 });
  });
  it('the older draft form is read from its own members, not from a named policy beside it', () => {
    expect(parseRateHeaders(headers({ ratelimit: 'limit=50, remaining=3, reset=60, "burst";r=1;t=1' }))).toMatchObject({ remaining: 3, reset: 60 });
  });
  it('spaces around "=" and quoted figures are tolerated', () => {
    expect(parseRateHeaders(headers({ ratelimit: '"validations"; r = 49 ; t = "3599"', 'ratelimit-policy': '"validations";q="50";w=3600' }))).toEqual({
      remaining: 49,
      reset: 3599,
      quota: 50,
      window: 3600,
      retryAfter: undefined,
    });
  });
  it('the older draft’s RateLimit-Remaining and RateLimit-Reset headers, when RateLimit says nothing', () => {
    expect(parseRateHeaders(headers({ 'ratelimit-remaining': ' 3 ', 'ratelimit-reset': ' 60' }))).toMatchObject({ remaining: 3, reset: 60 });
    expect(parseRateHeaders(headers({ ratelimit: '"validations";r=5;t=10', 'ratelimit-remaining': '3', 'ratelimit-reset': '60' }))).toMatchObject({ remaining: 5, reset: 10 });
  });
  it('a reset exactly 32 days away is believed; a second more is not', () => {
    expect(parseRateHeaders(headers({ ratelimit: `"validations";r=0;t=${MAX_RESET_SECONDS}` })).reset).toBe(MAX_RESET_SECONDS);
    expect(parseRateHeaders(headers({ ratelimit: `"validations";r=0;t=${MAX_RESET_SECONDS + 1}` })).reset).toBeUndefined();
    expect(parseRetryAfter(String(MAX_RESET_SECONDS))).toBe(MAX_RESET_SECONDS);
  });
  it('a figure with stray quotes around part of it is none: only a whole quoted value is unquoted', () => {
    expect(parseRateHeaders(headers({ ratelimit: '"validations";r=1"2";t="3"0', 'ratelimit-policy': '"validations";q=5"0";w="36"00' }))).toEqual({
      remaining: undefined,
      reset: undefined,
      quota: undefined,
      window: undefined,
      retryAfter: undefined,
    });
  });
  it('a policy name with stray quotes is not "validations": the first member with figures is read', () => {
    expect(parseRateHeaders(headers({ ratelimit: '"burst";r=1;t=1, x"validations";r=5;t=10, "validations"x;r=6;t=20' }))).toMatchObject({ remaining: 1, reset: 1 });
  });
  it('a member with bare flags and no figures is passed over for the first that has them', () => {
    expect(parseRateHeaders(headers({ ratelimit: '"burst";unlimited, "default";r=7;t=30' }))).toMatchObject({ remaining: 7, reset: 30 });
  });
  it('ignores garbage', () => {
    expect(parseRateHeaders(headers({ ratelimit: 'nonsense;;;=', 'retry-after': 'soon' }))).toMatchObject({
      remaining: undefined,
      retryAfter: undefined,
    });
  });

  const notWhole: Array<[string, string]> = [
    ['a fraction', '0.5'],
    ['a fraction above one', '49.9'],
    ['a negative number', '-1'],
    ['an exponent', '1e3'],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['a hexadecimal number', '0x10'],
    ['empty', ''],
    ['sixteen digits', '1234567890123456'],
  ];
  for (const [name, value] of notWhole) {
    it(`a count or time that is ${name} (${JSON.stringify(value)}) is none: r, t, q and w alike`, () => {
      expect(
        parseRateHeaders(
          headers({
            ratelimit: `"validations";r=${value};t=${value}`,
            'ratelimit-policy': `"validations";q=${value};w=${value}`,
            'ratelimit-remaining': value,
            'ratelimit-reset': value,
          }),
        ),
      ).toEqual({ remaining: undefined, reset: undefined, quota: undefined, window: undefined, retryAfter: undefined });
    });
  }

  it('whatever the headers hold, every number read is a whole number from 0, and a reset at most 32 days away', () => {
    const field = fc.oneof(
      fc.string(),
      fc.constantFrom('0', '1', '0.5', '-1', '1e3', 'NaN', '9999999999999', '2592000', '2764801'),
      fc.integer().map(String),
      fc.double().map(String),
    );
    const header = fc.oneof(
      fc.string(),
      fc.record({ r: field, t: field }).map(({ r, t }) => `"validations";r=${r};t=${t}`),
      fc.record({ q: field, w: field }).map(({ q, w }) => `"validations";q=${q};w=${w}`),
    );
    const sane = (n: number | undefined) => n === undefined || (Number.isSafeInteger(n) && n >= 0);
    fc.assert(
      fc.property(header, header, field, field, (rl, policy, retryAfter, remaining) => {
        const info: RateInfo = parseRateHeaders(
          headers({ ratelimit: rl, 'ratelimit-policy': policy, 'retry-after': retryAfter, 'ratelimit-remaining': remaining }),
        );
        expect([info.remaining, info.reset, info.quota, info.window, info.retryAfter].every(sane)).toBe(true);
        expect(info.reset === undefined || info.reset <= MAX_RESET_SECONDS).toBe(true);
        expect(info.retryAfter === undefined || info.retryAfter <= MAX_RESET_SECONDS).toBe(true);
      }),
      { seed: 20260522, numRuns: 2000 },
    );
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  it('takes seconds or an HTTP date', () => {
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:01:30 GMT', now)).toBe(90);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('Sunday, 22-Nov-26 10:00:30 GMT', now)).toBe(30);
  });
  it('a number that is not a whole one is neither seconds nor a date (Date.parse reads "1.5" and "-1" as days of 2001)', () => {
    for (const v of ['1.5', '-1', '0.5', '1e3', 'NaN']) expect(parseRetryAfter(v, now), v).toBeUndefined();
  });
  it('white space around the value is no part of it', () => {
    expect(parseRetryAfter(' 120 ', now)).toBe(120);
    expect(parseRetryAfter(' Sun, 22 Nov 2026 10:01:30 GMT ', now)).toBe(90);
  });
  it('the obsolete asctime date (no comma after the day) is read; a date without its day’s name is not', () => {
    expect(parseRetryAfter('Sun Nov 22 10:01:30 2026', Date.parse('Sun Nov 22 10:00:00 2026'))).toBe(90);
    expect(parseRetryAfter('22 Nov 2026 10:01:30 GMT', now)).toBeUndefined();
  });
  it('a date past 32 days ahead is not believed', () => {
    expect(parseRetryAfter('Mon, 01 Jan 2029 00:00:00 GMT', now)).toBeUndefined();
  });
});

describe('describeRateHeaders (--verbose)', () => {
  it('each rate-limit header the answer has, by its name, in one line', () => {
    expect(
      describeRateHeaders(headers({ ratelimit: '"validations";r=49;t=3599', 'ratelimit-policy': '"validations";q=50;w=3600', 'retry-after': '7' })),
    ).toBe('RateLimit: "validations";r=49;t=3599; RateLimit-Policy: "validations";q=50;w=3600; Retry-After: 7');
    expect(describeRateHeaders(headers({ 'retry-after': '7' }))).toBe('Retry-After: 7');
    expect(describeRateHeaders(headers({}))).toBe('');
  });
});
