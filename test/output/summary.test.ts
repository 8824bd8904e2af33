// The closing summary and the quota's words: no line wider than the terminal (80 where there is none), the
// reset in local time with its zone, and why --wait did not wait.
import { describe, expect, it } from 'vitest';
import { clockTime, formatSummary, joinFitting, notWaited, type SummaryFacts } from '../../src/output/summary.js';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const facts = (more: Partial<SummaryFacts> = {}): SummaryFacts => ({
  records: 50_000,
  counts: new Map([['ok', 41_234], ['disposable', 8_000], ['invalid', 766]]),
  fromCache: 12_345,
  sentItems: 36_889,
  requests: 369,
  elapsedMs: 83_000,
  remaining: 63_111,
  quota: 100_000,
  resetAt: NOW + 3_599_000,
  now: NOW,
  ...more,
});

describe('formatSummary', () => {
  it('at 80 columns (no terminal): the closing line split between its parts', () => {
    expect(formatSummary(facts(), null)).toBe(
      [
        '50,000 records in 1m 23s',
        '  ok          41,234   82.5%',
        '  disposable   8,000   16.0%',
        '  invalid        766    1.5%',
        '12,345 items from the cache · 36,889 items sent in 369 requests',
        'quota left 63,111 of 100,000, resets in 59m 59s',
        '',
      ].join('\n'),
    );
  });

  it('names only what happened: no cache line without a cache (--sandbox, --no-cache); "nothing sent" when nothing was', () => {
    expect(formatSummary(facts({ cacheUsed: false, remaining: undefined }), null).split('\n').at(-2)).toBe('36,889 items sent in 369 requests');
    expect(formatSummary(facts({ cacheUsed: true, fromCache: 50_000, sentItems: 0, requests: 0, remaining: undefined }), null).split('\n').at(-2)).toBe(
      '50,000 items from the cache · nothing sent',
    );
  });

  it('on a wide terminal, one closing line; bars where they fit', () => {
    const text = formatSummary(facts({ width: 132, bars: true }), null);
    expect(text.split('\n')[1]).toBe('  ok          41,234   82.5%  ████████████████░░░░');
    expect(text.split('\n').at(-2)).toBe('12,345 items from the cache · 36,889 items sent in 369 requests · quota left 63,111 of 100,000, resets in 59m 59s');
  });

  it.each([30, 40, 45, 60, 80, 100])('no line wider than %i columns', (width) => {
    for (const line of formatSummary(facts({ width, bars: true }), null).split('\n')) expect([...line].length).toBeLessThanOrEqual(width);
  });

  it('no bars on a terminal too narrow for them', () => {
    expect(formatSummary(facts({ width: 40, bars: true }), null).split('\n')[1]).toBe('  ok          41,234   82.5%');
  });
});

describe('joinFitting', () => {
  it('puts as many parts on a line as fit, never splitting one', () => {
    expect(joinFitting(['aaaa', 'bb', 'cccccccccc', 'd'], ' · ', 10)).toEqual(['aaaa · bb', 'cccccccccc', 'd']);
    expect(joinFitting(['aaaa', 'bb cc dd ee'], ' · ', 6)).toEqual(['aaaa', 'bb cc', 'dd ee']);
  });
});

describe('clockTime: local time with its zone', () => {
  it.each([
    ['UTC', '12:59 UTC'],
    ['Europe/Paris', '13:59 GMT+1'],
    ['America/New_York', '07:59 EST'],
    ['Asia/Kolkata', '18:29 GMT+5:30'],
  ])('%s: %s', (zone, text) => {
    expect(clockTime(NOW + 3_599_000, NOW, zone)).toBe(text);
  });

  it('with its date more than a day away', () => {
    expect(clockTime(NOW + 30 * 86_400_000, NOW, 'Europe/Paris')).toBe('2026-12-25 13:00 GMT+1');
  });

  it('a zone ICU does not know: the process\'s own, not a crash', () => {
    expect(clockTime(NOW, NOW, 'CET-1CEST')).toMatch(/^\d\d:\d\d \S+$/);
  });
});

describe('notWaited', () => {
  it('says the reset exceeds --max-wait', () => {
    expect(notWaited(59 * 60_000, 60)).toBe('did not wait: reset in 59m exceeds --max-wait 1m');
    expect(notWaited(2 * 3_600_000, 3 * 3600, 2 * 3_600_000)).toBe('did not wait: reset in 2h exceeds --max-wait 3h (1h of it left)');
  });

  it('is null when the wait fits, and says so when the reset is not known', () => {
    expect(notWaited(30_000, 60)).toBeNull();
    expect(notWaited(30_000, undefined)).toBeNull();
    expect(notWaited(undefined, 60)).toBe('did not wait: the service did not say when the quota resets');
  });
});
