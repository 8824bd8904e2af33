// idv's number formats beside an independent implementation, numfmt (Borgar Þorsteinsson's, used by GRID):
// Excel's built-in formats 0-49 and common custom ones, over any value, render the same text except where the
// two are known to part, each class named below with the side Excel takes.
import fc from 'fast-check';
import { format as numfmt } from 'numfmt';
import { describe, expect, it } from 'vitest';
import { builtinFormat, generalNumber, numberFormat } from '../../src/xlsx/number-format.js';

const BUILTIN = [...Array(50).keys()].map(builtinFormat).filter((c): c is string => c !== null);
const CUSTOM = [
  '00000', '00000-0000', '000-00-0000', '(###) ###-####', '[<=9999999]###-####;(###) ###-####', '0.0#', '#,##0,', '0.0,,"M"',
  '"$"#,##0.00', '[$£-809]#,##0.00', '[$USD] #,##0.00', '#,##0.00;[Red]\\-#,##0.00', '0;-0;"zero"', '0;-0;;@', '0 "items"',
  '_(* #,##0.00_);_(* \\(#,##0.00\\);_(* "-"??_);_(@_)', '"$"#,##0_);("$"#,##0)', '"$"#,##0.00_);[Red]("$"#,##0.00)',
  '_("$"* #,##0.00_);_("$"* \\(#,##0.00\\);_("$"* "-"??_);_(@_)', '\\+0;\\-0;0', '#,##0.00_ ;-#,##0.00 ', '0.000', '0.0%',
  'yyyy-mm-dd', 'yyyy-mm-dd hh:mm:ss', 'm/d/yyyy', 'dd/mm/yyyy', 'dd.mm.yy', 'dd-mmm-yyyy', 'dddd, mmmm d, yyyy', 'mmm d, yyyy',
  'mmmm yyyy', '[$-409]mmmmm', 'h:mm AM/PM', 'h:mm:ss A/P', 'hh:mm', 'hh:mm:ss AM/PM', '[h]:mm:ss', '[mm]:ss', 'mm:ss.0',
  '#', '@', '[Red]0.00', '0.00;;', '#,##0.00 "kg"', '[>=1000000]0.0,,"M";[>=1000]0.0,"K";0', '[Blue]#,##0;[Red]-#,##0',
  'yyyy"年"m"月"d"日"', 'm/d/yy h:mm', '[$-409]d-mmm-yy;@', 'yyyy-mm-dd"T"hh:mm:ss', '.00', '"$".00', '0/100', '# ??/100', '0 0/0',
  '#,##0 ?/?', '# ?/? "kg"',
];
const OPTIONS = { dateSpanLarge: false, dateErrorNumber: true, locale: 'en' };
const DAY = 86400;

/** The number a fraction's text stands for ('-1 1/2' is -1.5, '1    ' is 1). */
function fractionValue(text: string): number {
  const [, sign, whole, num, den] = /^(-?)\s*(\d*)\s*(?:(\d+)\/(\d+))?\s*(?:kg)?$/.exec(text) ?? [];
  if (sign === undefined) return NaN;
  return (sign ? -1 : 1) * (Number(whole || 0) + (num ? Number(num) / Number(den) : 0));
}

/** Where the two part, and why; each returns true for a code, value and the two texts in its class. */
const KNOWN: Record<string, (code: string, v: number, ours: string, theirs: string) => boolean> = {
  // General in a default-width cell (11 characters: 1.23457E+14) is what Excel shows; idv keeps the 15 digits
  // "Save as CSV" keeps in a wide column (an ID or a phone number read whole: docs/choices.md).
  'General past 11 characters': (code, v) => /General|^@$/.test(code) && generalNumber(v).length > 11,
  // A time that rounds to the next midnight (0.999999 is 24:00:00): Excel carries the day, numfmt does not.
  'a time rounding up to midnight': (code, v) => /[dmyhs]/i.test(code) && Math.round((v - Math.floor(v)) * DAY) === DAY,
  // Elapsed time of a negative value: Excel shows ####; idv shows the number, numfmt a negative count.
  'negative elapsed time': (code, v) => /\[[hms]+\]/i.test(code) && v < 0,
  // Zero in engineering notation: Excel shows 0.0E+0 (as SheetJS's SSF, tested against Excel, does); numfmt 000.0E+0.
  'zero in engineering notation': (code, v) => /#+0.*E\+/.test(code) && v === 0,
  // Below Excel's smallest number (about 2.2E-308, which it stores as 0): neither is Excel's.
  'numbers Excel cannot hold': (_, v) => v !== 0 && Math.abs(v) < 1e-307,
  // A negative value falling to the last section after two conditions: idv (and SSF) show no sign, numfmt a
  // minus; Excel's own choice was not seen here.
  'a negative value past two conditions': (code, v) => (code.match(/\[[<>=]/g) ?? []).length >= 2 && v < 0,
  // Outside Excel's calendar (before 1900 or past 9999): Excel shows ####; both show the number, in their General.
  'outside the calendar': (code, v) => /[dmyhs]/i.test(code.replace(/"[^"]*"/g, '')) && (v < 0 || v >= 2958466),
  // numfmt's fractions stray from the value: a fraction rounding to a whole is kept ('1 1/1' for 0.99, where SSF's
  // Excel-derived tests carry it: '1    '), whole parts off by one (118609.98 as '118610 55/56'), tiny numbers as
  // '  1/10' or '0/   ', a minus on zero. idv's is held to be at least as near the value. Past 15 digits a
  // fraction has no digits left, and neither is Excel's.
  "numfmt's fraction farther from the value": (code, v, ours, theirs) => {
    if (!/[?#0]\/[?#0-9]/.test(code.replace(/"[^"]*"/g, ''))) return false;
    const [a, b] = [fractionValue(ours.replace(/,/g, '')), fractionValue(theirs.replace(/,/g, ''))];
    const carried = /\b(\d+)\/\1\b/.test(theirs) && a === b;
    return !(Math.abs(b - v) <= Math.abs(a - v)) || carried || (/^-0 /.test(theirs) && ours === theirs.slice(1)) || Math.abs(v) >= 1e15;
  },
};

const known = (code: string, v: number, ours: string, theirs: string) => Object.keys(KNOWN).find((k) => KNOWN[k](code, v, ours, theirs));
const values = fc.oneof(
  fc.integer({ min: -1e9, max: 1e9 }),
  fc.double({ min: -1e12, max: 1e12, noNaN: true }),
  fc.double({ min: -1e20, max: 1e20, noNaN: true }), // past 15 digits
  fc.double({ min: 1, max: 2958465, noNaN: true }), // a date and time
  fc.double({ min: 0, max: 1, noNaN: true }), // a time alone
);

describe('number formats beside numfmt', () => {
  it.each([...BUILTIN, ...CUSTOM])('%s renders any value as numfmt does, but for the known differences', (code) => {
    fc.assert(
      fc.property(values, (v) => {
        const ours = numberFormat(code).format(v);
        const theirs = numfmt(code, v, OPTIONS);
        if (ours !== theirs && known(code, v, ours, theirs) === undefined) expect({ code, v, ours }).toEqual({ code, v, ours: theirs });
      }),
      { seed: 39, numRuns: 300 },
    );
  });

  it('part where Excel and idv mean it: the reader locale for a locale tag and the system date', () => {
    // [$€-407] names the currency; the separators are the reader's (Excel does not take Germany's from it).
    expect([numberFormat('[$€-407]#,##0.00').format(1234.5), numfmt('[$€-407]#,##0.00', 1234.5, OPTIONS)]).toEqual(['€1,234.50', '€1.234,50']);
    // [$-F800] is the system's long date: idv, which has no system locale to follow, shows ISO 8601.
    expect([numberFormat('[$-F800]dddd, mmmm dd, yyyy').format(45000), numfmt('[$-F800]dddd, mmmm dd, yyyy', 45000, OPTIONS)]).toEqual(['2023-03-15', 'Wednesday, March 15, 2023']);
  });
});
