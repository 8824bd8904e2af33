// The progress line: the total from the bytes read (exact once read), the percentage, the rate, the time left,
// errors, the quota left and the cache, on one line no wider than the terminal, the least important facts
// left out first; the same facts on one line for the --verbose log.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { displayWidth } from '../../src/system/display-width.js';
import { percentOf, progressLine, progressLog, RateMeter, shortDuration, totalOf, type ProgressFacts } from '../../src/output/progress-line.js';

const facts = (more: Partial<ProgressFacts> = {}): ProgressFacts => ({
  read: 19_130,
  readDone: false,
  bytes: { read: 452_000, total: 1_183_736 },
  done: 15_200,
  sent: 15_200,
  rate: 1_520,
  toSend: 34_960,
  cached: 0,
  errors: 0,
  quotaLeft: undefined,
  ...more,
});

describe('totalOf', () => {
  it.each([
    ['while reading: records read scaled by the share of bytes read, to 3 digits', facts(), { count: 50_100, exact: false }],
    ['read: exact', facts({ readDone: true, read: 50_000 }), { count: 50_000, exact: true }],
    ['a pipe (no size): unknown', facts({ bytes: null }), null],
    ['nothing read yet: unknown', facts({ read: 0, bytes: { read: 0, total: 100 } }), null],
    ['bytes past the size (a file that grew): never below what is read', facts({ read: 900, done: 10, bytes: { read: 2_000, total: 1_000 } }), { count: 900, exact: false }],
    ['small estimates as they are', facts({ read: 30, done: 0, bytes: { read: 100, total: 1_000 } }), { count: 300, exact: false }],
    ['counted ahead (a file read in a moment): exact before it is read', facts({ counted: 50_000 }), { count: 50_000, exact: true }],
    ['counted ahead, and reading stopped by Ctrl-C: still the whole input', facts({ counted: 50_000, readDone: true, read: 6_294 }), { count: 50_000, exact: true }],
  ])('%s', (_name, f, expected) => {
    expect(totalOf(f)).toEqual(expected);
  });
});

describe('percentOf', () => {
  it.each([
    [0, { count: 50_000, exact: true }, 0],
    [15_200, { count: 50_000, exact: true }, 30],
    [49_999, { count: 50_000, exact: true }, 99],
    [50_000, { count: 50_000, exact: true }, 100],
    [50_000, { count: 50_000, exact: false }, 99], // an estimate never says done
    [0, { count: 0, exact: true }, 100],
  ])('%i of %j → %i%%', (done, total, pct) => {
    expect(percentOf(done, total)).toBe(pct);
  });
});

describe('shortDuration', () => {
  it.each([
    [0, '0s'],
    [22.2, '23s'],
    [59, '59s'],
    [60, '1m 0s'],
    [245, '4m 5s'],
    [3600, '1h 0m'],
    [4_980, '1h 23m'],
    [90_000, '25h 0m'],
  ])('%d s → %s', (s, text) => {
    expect(shortDuration(s)).toBe(text);
  });
});

describe('progressLine', () => {
  const every = facts({ errors: 3, quotaLeft: 9_200, cached: 4_800 });
  it.each([
    [120, every, 'Validating 15,200 of ~50,100 · 30% · 1,520 sent/s · 23s left · 3 errors · quota 9,200 left · 4,800 from cache'],
    [102, every, 'Validating 15,200 of ~50,100 · 30% · 1,520 sent/s · 23s left · 3 errors · quota 9,200 left'],
    [82, every, 'Validating 15,200 of ~50,100 · 30% · 1,520 sent/s · 23s left · 3 errors'],
    [61, every, '15,200 of ~50,100 · 30% · 1,520 sent/s · 23s left · 3 errors'],
    [45, every, '15,200 of ~50,100 · 30% · 23s left · 3 errors'],
    [34, every, '15,200 of ~50,100 · 30% · 23s left'],
    [23, every, '15,200 of ~50,100 · 30%'],
    [17, every, '15,200 of ~50,100'],
    [12, every, '15,200 of ~…'],
  ])('at %i columns: %s', (width, f, line) => {
    expect(progressLine(f, width)).toBe(line);
    expect(displayWidth(line)).toBeLessThanOrEqual(width);
  });

  it.each([
    ['read: the exact total', facts({ readDone: true, read: 50_000 }), 'Validating 15,200 of 50,000 · 30% · 1,520 sent/s · 23s left'],
    ['counted ahead: the exact total while reading', facts({ counted: 50_000 }), 'Validating 15,200 of 50,000 · 30% · 1,520 sent/s · 23s left'],
    ['a pipe still being read: done and read, no percentage', facts({ bytes: null, toSend: undefined }), 'Validating 15,200 done · 19,130 read · 1,520 sent/s'],
    ['no rate yet: no time left', facts({ rate: undefined }), 'Validating 15,200 of ~50,100 · 30%'],
    ['stalled: no time left', facts({ rate: 0 }), 'Validating 15,200 of ~50,100 · 30% · 0.0 sent/s'],
    ['nearly stalled: no time left of years', facts({ rate: 0.001 }), 'Validating 15,200 of ~50,100 · 30% · 0.0 sent/s'],
    ['a slow run', facts({ rate: 2.46, readDone: true, read: 16_000, toSend: 800 }), 'Validating 15,200 of 16,000 · 95% · 2.5 sent/s · 5m 26s left'],
    ['all done', facts({ readDone: true, read: 15_200, toSend: 0 }), 'Validating 15,200 of 15,200 · 100% · 1,520 sent/s'],
    ['one error', facts({ errors: 1, readDone: true, read: 15_200, toSend: 0 }), 'Validating 15,200 of 15,200 · 100% · 1,520 sent/s · 1 error'],
    [
      'a resumed run: most records from the cache, the time left is that of the few still to send at the rate they are sent',
      facts({ readDone: true, read: 51_300, done: 12_043, cached: 11_000, sent: 1_043, rate: 25, toSend: 1_150 }),
      'Validating 12,043 of 51,300 · 23% · 25 sent/s · 46s left · 11,000 from cache',
    ],
    ['nothing read yet', facts({ read: 0, done: 0, bytes: { read: 0, total: 10 } }), 'Reading…'],
  ])('%s', (_name, f, line) => {
    expect(progressLine(f, 80)).toBe(line);
  });

  it('never wider than the terminal, whatever the counts (property)', () => {
    const count = fc.integer({ min: 0, max: 2_000_000_000 });
    const arb = fc.record({
      read: count,
      readDone: fc.boolean(),
      bytes: fc.option(fc.record({ read: count, total: count }), { nil: null }),
      done: count,
      counted: fc.option(count, { nil: null }),
      sent: count,
      rate: fc.option(fc.double({ min: 0, max: 1e7, noNaN: true }), { nil: undefined }),
      toSend: fc.option(count, { nil: undefined }),
      cached: count,
      errors: count,
      quotaLeft: fc.option(count, { nil: undefined }),
    });
    fc.assert(
      fc.property(arb, fc.integer({ min: 1, max: 300 }), (f, width) => {
        const line = progressLine(f, width);
        expect(displayWidth(line)).toBeLessThanOrEqual(width);
        expect(line).not.toContain('\n');
        expect(line).not.toMatch(/NaN|Infinity/);
      }),
      { seed: 24_3, numRuns: 300 },
    );
  });
});

describe('progressLog', () => {
  it('every fact, one line, the count named', () => {
    expect(progressLog(facts({ errors: 3, quotaLeft: 9_200, cached: 4_800 }))).toBe(
      '15,200 of ~50,100 records · 30% · 1,520 sent/s · 23s left · 3 errors · quota 9,200 left · 4,800 from cache',
    );
    expect(progressLog(facts({ bytes: null, rate: undefined }))).toBe('15,200 records done · 19,130 read');
  });
});

describe('RateMeter', () => {
  it('undefined until a second is covered, then the count per second over the span', () => {
    const m = new RateMeter(10_000, 1_000, 250);
    expect(m.sample(0, 0)).toBeUndefined();
    expect(m.sample(500, 400)).toBeUndefined();
    expect(m.sample(1_000, 1_000)).toBe(1_000);
    expect(m.sample(2_000, 1_500)).toBe(750);
  });

  it('forgets what is older than the span: a stall shows within it', () => {
    const m = new RateMeter(10_000, 1_000, 250);
    for (let t = 0; t <= 10_000; t += 1_000) m.sample(t, t); // 1,000 a second
    expect(m.sample(10_000, 10_000)).toBe(1_000);
    for (let t = 11_000; t <= 21_000; t += 1_000) m.sample(t, 10_000); // then nothing
    expect(m.sample(21_000, 10_000)).toBe(0);
  });

  it('samples closer than the step are not kept, but the rate is still of the latest count', () => {
    const m = new RateMeter(10_000, 1_000, 250);
    m.sample(0, 0);
    for (let t = 1; t < 1_000; t++) m.sample(t, t);
    expect(m.sample(1_000, 2_000)).toBe(2_000);
    expect((m as unknown as { samples: unknown[] }).samples.length).toBeLessThanOrEqual(6);
  });
});
