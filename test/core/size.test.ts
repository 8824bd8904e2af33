// Sizes as the flags take them (src/core/size.ts): a number and its unit, powers of 1024 for K/M/G/T and KiB…, of
// 1000 for KB/MB/GB/TB; a number without a unit refused with the spellings to use; sizes named in messages.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatSize, parseSize } from '../../src/core/size.js';

describe('parseSize', () => {
  it('reads a number and its unit, in any case, with or without a space', () => {
    expect(parseSize('64K', '--x')).toBe(65_536);
    expect(parseSize('16MiB', '--x')).toBe(16 * 1024 ** 2);
    expect(parseSize('1.5 g', '--x')).toBe(1.5 * 1024 ** 3);
    expect(parseSize('500MB', '--x')).toBe(500_000_000);
    expect(parseSize('2TB', '--x')).toBe(2e12);
    expect(parseSize('100b', '--x')).toBe(100);
  });

  it('refuses a number without a unit, an unknown unit, and a size below the least allowed, in one line naming the flag', () => {
    expect(() => parseSize('16', '--max-row-size')).toThrow('--max-row-size "16" has no unit: write 16MiB, 16GiB or 16K (powers of 1024; MB and GB are powers of 1000).');
    expect(() => parseSize('16 parsecs', '--max-row-size')).toThrow('--max-row-size takes a size like 64MiB, 1GiB or 500MB, not "16 parsecs".');
    expect(() => parseSize('0B', '--max-row-size')).toThrow('--max-row-size "0B" is too small: give at least 1 B.');
    expect(() => parseSize('1K', '--x', { min: 64 * 1024 })).toThrow('--x "1K" is too small: give at least 64 KiB.');
  });

  it('reads back any size it names (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 4 }), (mantissa, power) => {
        const bytes = mantissa * 1024 ** power;
        if (bytes === 0) return;
        expect(parseSize(formatSize(bytes).replace(' ', ''), '--x')).toBe(bytes);
      }),
      { seed: 20261127, numRuns: 100 },
    );
  });
});

describe('formatSize', () => {
  it('names a size in the largest binary unit, with one decimal where it needs one', () => {
    expect([formatSize(512), formatSize(65_536), formatSize(1.5 * 1024 ** 2), formatSize(1024 ** 3), formatSize(16 * 1024 ** 2)]).toEqual(['512 B', '64 KiB', '1.5 MiB', '1 GiB', '16 MiB']);
  });
});
