// Durations (src/core/duration.ts): one grammar for every flag that takes one: a number and its unit, or several added
// up; a number alone refused (a guess would cost money or a night's run) except where it has always been seconds;
// bounds said in one line naming the flag; and how a duration is shown.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { durationFlag, formatDuration, parseDuration } from '../../src/core/duration.js';

const refusal = (text: string, rule = {}) => {
  try {
    parseDuration(text, '--max-wait', rule);
  } catch (err) {
    return err as Error & { kind?: string };
  }
  return null;
};

describe('parseDuration', () => {
  it.each([
    ['250ms', 0.25],
    ['45s', 45],
    ['90m', 5400],
    ['2h', 7200],
    ['7d', 604800],
    ['2w', 1209600],
    ['1h30m', 5400],
    ['1h 30m 15s', 5415],
    ['1.5h', 5400],
    [' 2H ', 7200],
    ['30 sec', 30],
    ['2 hours', 7200],
    ['1 day', 86400],
    ['10 minutes', 600],
    ['100 milliseconds', 0.1],
    ['0', 0],
  ])('%s is %d s', (text, seconds) => {
    expect(parseDuration(text, '--max-wait')).toBe(seconds);
  });

  it('0.1s and 100ms are the same (no binary fraction left over)', () => {
    expect(parseDuration('0.1s', '--x')).toBe(parseDuration('100ms', '--x'));
    expect(parseDuration('0.1s', '--x') + parseDuration('0.2s', '--x')).toBeCloseTo(0.3, 10);
  });

  it('a number alone: refused, saying which units to write; seconds where the rule says so', () => {
    expect(refusal('90')).toMatchObject({ kind: 'usage', message: '--max-wait "90" has no unit: write 90s, 90m, 90h or 90d (seconds, minutes, hours or days).' });
    expect(parseDuration('90', '--timeout', { bareSeconds: true })).toBe(90);
    expect(parseDuration('2.5', '--timeout', { bareSeconds: true })).toBe(2.5);
  });

  it.each(['', 'abc', '5x', '1h30', 'h', '1h-30m', '--1h', '1 fortnight'])('"%s": one line saying how to write one', (text) => {
    expect(refusal(text)).toMatchObject({ kind: 'usage', message: `--max-wait takes a duration like 90s, 30m, 2h or 7d, not "${text.trim()}".` });
  });

  it('bounds: too short, too long, not above, not whole; each names the flag and the bound', () => {
    expect(refusal('500ms', { min: 1 })!.message).toBe('--max-wait "500ms" is too short: give at least 1s.');
    expect(refusal('0', { above: 0 })!.message).toBe('--max-wait "0" is too short: give more than 0s.');
    expect(refusal('2d', { max: 86400 })!.message).toBe('--max-wait "2d" is too long: give at most 24h.');
    expect(refusal('1.5s', { whole: true })!.message).toBe('--max-wait "1.5s" is not a whole number of seconds.');
    expect(refusal('10ms', { min: 0.05 })!.message).toBe('--max-wait "10ms" is too short: give at least 50ms.');
    expect(parseDuration('24h', '--max-wait', { max: 86400, min: 1, whole: true })).toBe(86400);
  });

  it('any sum of parts in any units is their sum in seconds (property)', () => {
    const units = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 999 }), fc.constantFrom(...(Object.keys(units) as Array<keyof typeof units>))), { minLength: 1, maxLength: 4 }), fc.constantFrom('', ' '), (parts, gap) => {
        const text = parts.map(([n, u]) => `${n}${u}`).join(gap);
        const sum = parts.reduce((a, [n, u]) => a + n * units[u], 0);
        expect(parseDuration(text, '--x')).toBe(Math.round(sum * 1000) / 1000);
      }),
      { seed: 20261128, numRuns: 300 },
    );
  });

  it('durationFlag parses as commander asks', () => {
    expect(durationFlag('--max-wait')('2h')).toBe(7200);
    expect(() => durationFlag('--max-wait')('2')).toThrow('--max-wait "2" has no unit');
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [59, '59s'],
    [60, '1m'],
    [3725, '1h 2m 5s'],
    [86400, '24h'],
    [90061, '25h 1m 1s'],
    [59.6, '1m'],
    [-5, '0s'],
  ])('%d s is %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});
