// A cell's number as Excel shows it, from its number format code.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { builtinFormat, dateParts, generalNumber, numberFormat } from '../../src/xlsx/number-format.js';

const show = (code: string, v: number) => numberFormat(code).format(v);

describe('General', () => {
  it.each([
    [0, '0'],
    [42, '42'],
    [-42, '-42'],
    [10000000, '10000000'], // Google Sheets stores it as 1.0E7
    [123456789012, '123456789012'],
    [0.30000000000000004, '0.3'], // 0.1 + 0.2: Excel shows 15 significant digits
    [1234.5, '1234.5'],
    [0.1, '0.1'],
    [1 / 3, '0.333333333333333'],
    [2 / 3, '0.666666666666667'],
    [123456789012345678, '123456789012346000'],
    [1e20, '100000000000000000000'],
    [1e21, '1E+21'],
    [-1.5e25, '-1.5E+25'],
    [0.000001, '0.000001'],
    [1.5e-10, '1.5E-10'],
    [99.99999999999999, '100'],
  ])('%d shows as %s', (v, want) => {
    expect(generalNumber(v)).toBe(want);
    expect(show('General', v)).toBe(want);
  });

  it('keeps every number at its 15 significant digits, never with float noise or an exponent below 1E+21', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e20, max: 1e20, noNaN: true }), (v) => {
        const text = generalNumber(v);
        if (v === 0 || Math.abs(v) >= 1e-9) expect(text).not.toMatch(/[eE]/);
        expect(Number(text)).toBe(Number(v.toPrecision(15)));
      }),
      { seed: 27, numRuns: 2000 },
    );
  });
});

describe('number formats', () => {
  it.each([
    ['00000', 2134, '02134'], // a zip code
    ['00000', 123456, '123456'],
    ['00000-0000', 21340042, '02134-0042'],
    ['000-00-0000', 123456789, '123-45-6789'],
    ['(###) ###-####', 5551234567, '(555) 123-4567'],
    ['[<=9999999]###-####;(###) ###-####', 5551234, '555-1234'],
    ['[<=9999999]###-####;(###) ###-####', 5551234567, '(555) 123-4567'],
    ['0', 2.5, '3'],
    ['0', -2.5, '-3'],
    ['0.00', 1.005, '1.01'], // rounded from 15 digits, as Excel does, not from the binary value
    ['0.00', 3.5, '3.50'],
    ['0.00', -0.001, '0.00'],
    ['0.0#', 3.5, '3.5'],
    ['0.0#', 3.456, '3.46'],
    ['#,##0', 1234567.4, '1,234,567'],
    ['#,##0.00', 1234.5, '1,234.50'],
    ['#,##0.00', 0, '0.00'],
    ['#,##0', -1234, '-1,234'],
    ['#', 0, ''],
    ['0%', 0.35, '35%'],
    ['0.00%', 0.12345, '12.35%'],
    ['0.00E+00', 12345, '1.23E+04'],
    ['0.00E+00', 0.00012, '1.20E-04'],
    ['##0.0E+0', 12345, '12.3E+3'],
    ['#,##0,', 1234567, '1,235'],
    ['0.0,,"M"', 1234567, '1.2M'],
    ['"$"#,##0.00', 1234.5, '$1,234.50'],
    ['[$€-407]#,##0.00', 1234.5, '€1,234.50'],
    ['#,##0.00 [$€-407]', 1234.5, '1,234.50 €'],
    ['[Red]0.00', 2, '2.00'],
    ['#,##0.00;(#,##0.00)', -1234.5, '(1,234.50)'],
    ['#,##0.00;[Red]\\-#,##0.00', -5, '-5.00'],
    ['0;-0;"zero"', 0, 'zero'],
    ['0;-0;;@', 0, ''],
    ['_(* #,##0.00_);_(* \\(#,##0.00\\);_(* "-"??_);_(@_)', 1234.5, ' 1,234.50 '],
    ['_(* #,##0.00_);_(* \\(#,##0.00\\);_(* "-"??_);_(@_)', 0, ' -   '],
    ['@', 42, '42'],
    ['0 "items"', 3, '3 items'],
    ['# ?/?', 1.5, '1 1/2'],
    ['# ??/??', 0.3333, '  1/3 '],
    ['?/?', 1.5, '3/2'],
    ['# ?/8', 2.625, '2 5/8'],
  ])('%s shows %d as %j', (code, v, want) => {
    expect(show(code, v)).toBe(want);
  });

  it.each([
    // No placeholder before the point: the integer digits are still shown, before it.
    ['.00', 2.5, '2.50'],
    ['.00', 0.5, '.50'],
    ['"$".00', 12.5, '$12.50'],
    ['.0%', 0.25, '25.0%'],
    ['0;"neg"', -5, 'neg'], // a section without placeholders or point shows its text alone
    // Past 15 significant digits, zeros.
    ['0', 9007199254740992, '9007199254740990'],
    ['#,##0', 1234567890123456789, '1,234,567,890,123,460,000'],
    ['0.00', 1234567890123456.7, '1234567890123460.00'],
    // A denominator written as digits is fixed, never reduced.
    ['0/100', 0.5, '50/100'],
    ['# ??/100', 1.25, '1 25/100'],
    ['?/16', 0.3, '5/16'],
    // A `0` before a fraction shows the whole part, zero too; a `0` numerator shows a zero fraction.
    ['0 0/0', 0.5, '0 1/2'],
    ['0 0/0', 2, '2 0/1'],
    // `?` keeps its place with a space: the numerator right-aligned, the denominator left-aligned, a fraction
    // that rounds to nothing (or to a whole) left as spaces.
    ['# ?/?', 0.5, ' 1/2'],
    ['# ?/?', 1, '1    '],
    ['# ?/?', 0, '0    '],
    ['# ??/??', 1.5, '1  1/2 '],
    ['# ?/?', 0.99, '1    '],
    ['# ?/? "kg"', 1, '1     kg'],
    ['#,##0 ?/?', 12345.5, '12,345 1/2'],
    ['# ?/?', -0.5, '- 1/2'],
  ])('%s shows %d as Excel does: %j', (code, v, want) => {
    expect(show(code, v)).toBe(want);
  });

  it('rounds any number to its places, half away from zero, grouped by thousands', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e12, max: 1e12, noNaN: true }), fc.integer({ min: 0, max: 4 }), (v, places) => {
        const text = show(places ? `#,##0.${'0'.repeat(places)}` : '#,##0', v);
        expect(text).toMatch(new RegExp(`^-?\\d{1,3}(,\\d{3})*${places ? `\\.\\d{${places}}` : ''}$`));
        const back = Number(text.replace(/,/g, ''));
        expect(Math.abs(back - v)).toBeLessThanOrEqual(0.5 * 10 ** -places + Math.abs(v) * 1e-14);
      }),
      { seed: 27, numRuns: 3000 },
    );
  });

  it('is not a date when it has no date part', () => {
    for (const code of ['General', '0.00', '00000', '#,##0.00 [$€-407]', '0.00E+00', '@']) expect(numberFormat(code).isDate).toBe(false);
  });
});

describe('dates and times', () => {
  // 45000 is 15 March 2023 (a Wednesday); .5 is noon.
  it.each([
    ['yyyy-mm-dd', 45000, '2023-03-15'],
    ['yyyy\\-mm\\-dd', 45000, '2023-03-15'],
    ['m/d/yyyy', 45000, '3/15/2023'],
    ['dd/mm/yyyy', 45000, '15/03/2023'],
    ['dd.mm.yy', 45000, '15.03.23'],
    ['d-mmm-yy', 45000, '15-Mar-23'],
    ['dddd, mmmm d, yyyy', 45000, 'Wednesday, March 15, 2023'],
    ['[$-409]mmmmm', 45000, 'M'],
    ['yyyy-mm-dd hh:mm:ss', 45000.5, '2023-03-15 12:00:00'],
    ['h:mm AM/PM', 45000.5625, '1:30 PM'],
    ['h:mm:ss A/P', 45000.25, '6:00:00 A'],
    ['hh:mm', 0.999999, '00:00'], // rounds to the next day's midnight
    ['[h]:mm:ss', 1.0625, '25:30:00'],
    ['mm:ss.0', 0.000123, '00:10.6'],
    ['yyyy"年"m"月"d"日"', 45000, '2023年3月15日'],
    ['[$-F800]dddd, mmmm dd, yyyy', 45000, '2023-03-15'], // the system's long date: the reader's locale
    ['[$-F400]h:mm:ss AM/PM', 0.75, '18:00:00'],
    ['m/d/yyyy', 60, '2/29/1900'], // Excel's own 29 February 1900
    ['m/d/yyyy', 61, '3/1/1900'],
    ['m/d/yyyy', 1, '1/1/1900'],
    ['yyyy-mm-dd', 2958465, '9999-12-31'],
  ])('%s shows %d as %j', (code, v, want) => {
    expect(numberFormat(code).isDate).toBe(true);
    expect(show(code, v)).toBe(want);
  });

  it('shows a value outside the calendar as a number', () => {
    expect(show('yyyy-mm-dd', -1)).toBe('-1');
    expect(show('yyyy-mm-dd', 3000000)).toBe('3000000');
  });

  it('shows the locale-dependent built-in dates as ISO 8601, and knows the fixed ones', () => {
    expect(builtinFormat(14)).toBe('yyyy-mm-dd');
    expect(show(builtinFormat(14)!, 45000.75)).toBe('2023-03-15');
    expect(show(builtinFormat(22)!, 45000.75)).toBe('2023-03-15 18:00');
    expect(show(builtinFormat(15)!, 45000)).toBe('15-Mar-23');
    expect(show(builtinFormat(49)!, 7)).toBe('7');
    expect(builtinFormat(5)).toBeNull();
  });

  it('agrees with the calendar for every day from 1 March 1900 to 9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 61, max: 2958465 }), (serial) => {
        const parts = dateParts(serial, 0)!;
        const d = new Date(Date.UTC(1899, 11, 30) + serial * 86400000);
        expect([parts.year, parts.month, parts.day, parts.weekday]).toEqual([d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCDay()]);
      }),
      { seed: 27, numRuns: 2000 },
    );
  });
});
