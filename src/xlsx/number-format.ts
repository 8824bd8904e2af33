// A cell's number as Excel shows it, from the cell's number format (ECMA-376 §18.8.31): what "Save as CSV"
// writes. General shows up to 15 significant digits without an exponent for everyday magnitudes (no
// `1E+07`, no `0.30000000000000004`); `00000` keeps a zip code's leading zeros; `000-00-0000` and
// `(###) ###-####` place digits around their literals; dates and times take their format's parts, and a
// date format that depends on the reader's locale (the built-in short date, 14) is shown as ISO 8601.
// Colours, locales, fill characters (`*`) and conditions' styles do not change the text.

/** Excel's built-in formats that mean the same everywhere; the locale-dependent dates are in ISO_DATES. */
const BUILTIN: Record<number, string> = {
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00;(#,##0.00)',
  40: '#,##0.00;[Red](#,##0.00)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  48: '##0.0E+0',
  49: '@',
};
const ISO_DATE = 'yyyy-mm-dd';
const ISO_DATE_TIME = 'yyyy-mm-dd hh:mm:ss';
/** Built-in formats whose look is the reader's locale's: 14 (short date), 22 (short date and time), East Asian dates. */
const ISO_DATES: Record<number, string> = { 14: ISO_DATE, 22: 'yyyy-mm-dd hh:mm' };
for (const id of [27, 28, 29, 30, 31, 34, 35, 36, 50, 51, 52, 53, 54, 57, 58]) ISO_DATES[id] = ISO_DATE;
for (const id of [32, 33, 55, 56]) ISO_DATES[id] = 'hh:mm:ss';

/** The format code of a built-in format id, or null when the id is no built-in (a currency of the locale: 5–8). */
export function builtinFormat(id: number): string | null {
  return BUILTIN[id] ?? ISO_DATES[id] ?? null;
}

/** The format ISO 8601 dates are shown in when the cell's own says nothing (a `t="d"` cell with no date format). */
export function isoFormat(serial: number): string {
  return serial < 1 ? 'hh:mm:ss' : Number.isInteger(serial) ? ISO_DATE : ISO_DATE_TIME;
}

export interface NumberFormat {
  /** Whether the format shows a date or a time (the cell is a date). */
  readonly isDate: boolean;
  /** The value as shown (a date's value is its serial in the 1900 date system). */
  format(value: number): string;
}

const compiled = new Map<string, NumberFormat>();

/** The number format of a code, compiled once. */
export function numberFormat(code: string): NumberFormat {
  let f = compiled.get(code);
  if (f === undefined) {
    f = compile(code);
    if (compiled.size < 10_000) compiled.set(code, f);
  }
  return f;
}

// ── General ─────────────────────────────────────────────────────────────────────────────────────────────

/** Significant digits and where the decimal point goes, of |x| rounded to Excel's 15 significant digits. */
interface Decimal {
  digits: string; // no leading or trailing zeros ('' for zero)
  point: number; // the number of digits before the decimal point (may be negative or past the digits)
}

function decimal(x: number): Decimal {
  if (x === 0 || !Number.isFinite(x)) return { digits: '', point: 0 };
  const quick = String(Math.abs(x));
  if (!quick.includes('e')) {
    const d = plainDecimal(quick);
    if (d.digits.length <= 15) return d;
  }
  const [mantissa, exp] = Math.abs(x).toExponential(14).split('e');
  let digits = mantissa.replace('.', '');
  let point = Number(exp) + 1;
  const lead = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(lead).replace(/0+$/, '');
  point -= lead;
  return { digits, point };
}

/** The digits of a number written without an exponent and with at most 15 significant digits. */
function plainDecimal(text: string): Decimal {
  const dot = text.indexOf('.');
  const int = dot < 0 ? text : text.slice(0, dot);
  let digits = (int === '0' ? '' : int) + (dot < 0 ? '' : text.slice(dot + 1));
  let point = int === '0' ? 0 : int.length;
  let lead = 0;
  while (digits.charCodeAt(lead) === 48) lead++;
  digits = digits.slice(lead);
  point -= lead;
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 48) end--;
  return { digits: digits.slice(0, end), point };
}

/** The decimal rounded half away from zero to `places` decimals: integer digits and `places` fraction digits. */
function fixed(d: Decimal, places: number): { int: string; frac: string } {
  let { digits, point } = d;
  const keep = point + places;
  if (keep < 0 || digits === '') return { int: '', frac: '0'.repeat(places) };
  if (digits.length > keep) {
    const up = digits.charCodeAt(keep) >= 53; // '5'
    digits = digits.slice(0, keep);
    if (up) {
      let i = digits.length - 1;
      while (i >= 0 && digits[i] === '9') i--;
      if (i < 0) {
        digits = '1' + '0'.repeat(digits.length);
        point++;
      } else digits = digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + 1) + '0'.repeat(digits.length - i - 1);
    }
  }
  const all = point <= 0 ? '0'.repeat(-point) + digits : digits;
  const at = Math.max(point, 0);
  const padded = all.padEnd(at + places, '0');
  return { int: padded.slice(0, at).replace(/^0+/, ''), frac: padded.slice(at, at + places) };
}

/** A number as General shows it: up to 15 significant digits, an exponent only past 1E+21 or below 1E-9. */
export function generalNumber(x: number): string {
  const quick = String(x);
  // Up to 15 characters without an exponent: already the 15-digit rounding, the usual case.
  if (quick.length <= 15 && !quick.includes('e')) return quick;
  if (!Number.isFinite(x)) return quick;
  const d = decimal(x);
  if (d.digits === '') return '0';
  const sign = x < 0 ? '-' : '';
  const exp = d.point - 1;
  if (exp > 20 || exp < -9) {
    const m = d.digits.length > 1 ? `${d.digits[0]}.${d.digits.slice(1)}` : d.digits;
    return `${sign}${m}E${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (d.point <= 0) return `${sign}0.${'0'.repeat(-d.point)}${d.digits}`;
  if (d.point >= d.digits.length) return sign + d.digits + '0'.repeat(d.point - d.digits.length);
  return `${sign}${d.digits.slice(0, d.point)}.${d.digits.slice(d.point)}`;
}

// ── Format codes ─────────────────────────────────────────────────────────────────────────────────────

type Token =
  | { k: 'lit'; s: string }
  | { k: 'digit'; c: '0' | '#' | '?' }
  | { k: 'point' }
  | { k: 'comma' }
  | { k: 'percent' }
  | { k: 'exp'; sign: '+' | '-' }
  | { k: 'slash' }
  | { k: 'text' }
  | { k: 'general' }
  | { k: 'date'; s: string } // y… m… d… h… s… (lower-cased), or 'ampm' / 'ap'
  | { k: 'elapsed'; s: string } // [h] [mm] [ss]
  | { k: 'subsec'; n: number }; // .0 .00 .000 after seconds

interface Section {
  tokens: Token[];
  cond: ((v: number) => boolean) | null;
  isDate: boolean;
  isText: boolean;
}

const DATE_LETTERS = /[ymdhse]/i;

/** Split a code into sections at `;` outside quotes, brackets and escapes. */
function splitSections(code: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '"' || c === '[') {
      const end = code.indexOf(c === '"' ? '"' : ']', i + 1);
      const stop = end < 0 ? code.length : end + 1;
      cur += code.slice(i, stop);
      i = stop - 1;
    } else if (c === '\\' || c === '_' || c === '*') {
      cur += code.slice(i, i + 2);
      i++;
    } else if (c === ';') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

const COMPARE: Record<string, (v: number, n: number) => boolean> = {
  '<': (v, n) => v < n,
  '<=': (v, n) => v <= n,
  '>': (v, n) => v > n,
  '>=': (v, n) => v >= n,
  '<>': (v, n) => v !== n,
  '=': (v, n) => v === n,
};

/** What a `[...]` says: an elapsed time part, a currency symbol's text, a condition, or nothing shown. */
function bracket(inner: string, tokens: Token[], section: { cond: Section['cond'] }): void {
  const lower = inner.toLowerCase();
  if (/^(h+|m+|s+)$/.test(lower)) tokens.push({ k: 'elapsed', s: lower });
  else if (inner.startsWith('$')) {
    const symbol = inner.slice(1).split('-')[0];
    if (symbol) tokens.push({ k: 'lit', s: symbol });
  } else {
    const m = /^(<=|>=|<>|<|>|=)\s*(-?[\d.]+(?:E[+-]?\d+)?)$/i.exec(inner);
    if (m) {
      const [compare, n] = [COMPARE[m[1]], Number(m[2])];
      section.cond = (v) => compare(v, n);
    }
  }
}

function tokenize(src: string): Section {
  const section: Section = { tokens: [], cond: null, isDate: false, isText: false };
  for (let i = 0; i < src.length; i = tokenAt(src, i, section) + 1);
  section.isDate = section.tokens.some((t) => t.k === 'date' || t.k === 'elapsed');
  return section;
}

/** Tokens that are one character. */
const ONE_CHARACTER: Record<string, Token> = {
  '0': { k: 'digit', c: '0' },
  '#': { k: 'digit', c: '#' },
  '?': { k: 'digit', c: '?' },
  ',': { k: 'comma' },
  '%': { k: 'percent' },
  '/': { k: 'slash' },
};

/** The token that starts at `i`, added to the section; the index of its last character. */
function tokenAt(src: string, i: number, section: Section): number {
  const { tokens } = section;
  const c = src[i];
  const lit = (s: string) => tokens.push({ k: 'lit', s });
  switch (c) {
    case '"': {
      const end = src.indexOf('"', i + 1);
      const stop = end < 0 ? src.length : end;
      lit(src.slice(i + 1, stop));
      return stop;
    }
    case '\\':
      lit(src[i + 1] ?? '');
      return i + 1;
    case '_':
      lit(' ');
      return i + 1;
    case '*':
      return i + 1;
    case '[': {
      const end = src.indexOf(']', i);
      const stop = end < 0 ? src.length : end;
      bracket(src.slice(i + 1, stop), tokens, section);
      return stop;
    }
    case '.':
      return pointAt(src, i, tokens);
    case '@':
      tokens.push({ k: 'text' });
      section.isText = true;
      return i;
  }
  if (src.slice(i, i + 7).toLowerCase() === 'general') {
    tokens.push({ k: 'general' });
    return i + 6;
  }
  const one = ONE_CHARACTER[c];
  if (one) {
    tokens.push(one);
    return i;
  }
  return letterAt(src, i, tokens);
}

/** A `.`: a decimal point, or the fraction of a second right after seconds (`ss.00`). */
function pointAt(src: string, i: number, tokens: Token[]): number {
  const m = /^\.(0+)/.exec(src.slice(i));
  const prev = lastDatePart(tokens);
  if (m && prev !== null && prev.startsWith('s')) {
    tokens.push({ k: 'subsec', n: m[1].length });
    return i + m[1].length;
  }
  tokens.push({ k: 'point' });
  return i;
}

/** A letter: an exponent, AM/PM, a run of one date letter, or a literal. */
function letterAt(src: string, i: number, tokens: Token[]): number {
  const c = src[i];
  const lc = c.toLowerCase();
  if ((c === 'E' || c === 'e') && (src[i + 1] === '+' || src[i + 1] === '-') && tokens.some((t) => t.k === 'digit')) {
    tokens.push({ k: 'exp', sign: src[i + 1] as '+' | '-' });
    return i + 1;
  }
  if (src.slice(i, i + 5).toLowerCase() === 'am/pm') {
    tokens.push({ k: 'date', s: 'ampm' });
    return i + 4;
  }
  if (src.slice(i, i + 3).toLowerCase() === 'a/p') {
    tokens.push({ k: 'date', s: src[i] === 'a' ? 'ap' : 'AP' });
    return i + 2;
  }
  if (DATE_LETTERS.test(c)) {
    let j = i;
    while (src[j + 1]?.toLowerCase() === lc) j++;
    tokens.push({ k: 'date', s: lc === 'e' ? 'yyyy' : src.slice(i, j + 1).toLowerCase() });
    return j;
  }
  if (lc === 'b' && (src[i + 1] === '1' || src[i + 1] === '2')) return i + 1; // the Buddhist calendar: shown as Gregorian
  if (lc !== 'g') tokens.push({ k: 'lit', s: c }); // g: an era's name, and the Gregorian calendar has none
  return i;
}

function lastDatePart(tokens: Token[]): string | null {
  for (let i = tokens.length - 1; i >= 0; i--) {
    const t = tokens[i];
    if (t.k === 'date' || t.k === 'elapsed') return t.s;
    if (t.k !== 'lit') return null;
  }
  return null;
}

function compile(code: string): NumberFormat {
  // The system's long date and time (`[$-F800]`, `[$-F400]`): the reader's locale, so ISO 8601.
  if (/\[\$-F800\]/i.test(code)) return compile(ISO_DATE);
  if (/\[\$-F400\]/i.test(code)) return compile('hh:mm:ss');
  const sections = splitSections(code).map(tokenize);
  const numeric = sections.filter((s) => !s.isText || s.tokens.some((t) => t.k === 'digit' || t.k === 'general'));
  const isDate = numeric.length > 0 && numeric[0].isDate;
  if (numeric.length === 0 || (numeric.length === 1 && numeric[0].tokens.length === 0)) return { isDate: false, format: generalNumber };
  return { isDate, format: (v) => formatWith(numeric, v) };
}

/** The section a value takes, and whether its sign is already shown by the section's choice. */
function pick(sections: Section[], v: number): { s: Section; abs: boolean } {
  const [a, b, c] = sections;
  if (a.cond || b?.cond) {
    if (a.cond ? a.cond(v) : v >= 0) return { s: a, abs: false };
    if (b && (b.cond ? b.cond(v) : true)) return { s: b, abs: !b.cond && v < 0 };
    return { s: c ?? b ?? a, abs: v < 0 && c !== undefined };
  }
  if (v < 0 && b) return { s: b, abs: true };
  if (v === 0 && c) return { s: c, abs: false };
  return { s: a, abs: false };
}

function formatWith(sections: Section[], v: number): string {
  const { s, abs } = pick(sections, v);
  if (s.isDate) return formatDate(s.tokens, v) ?? generalNumber(v);
  if (s.tokens.some((t) => t.k === 'general')) {
    return s.tokens.map((t) => (t.k === 'general' ? generalNumber(abs ? Math.abs(v) : v) : t.k === 'lit' ? t.s : '')).join('');
  }
  const text = formatNumber(s.tokens, Math.abs(v));
  const negative = v < 0 && !abs && /[1-9]/.test(text);
  return negative ? `-${text}` : text;
}

// ── Numbers ──────────────────────────────────────────────────────────────────────────────────────────

/** How a section shows a number, worked out once per format. */
interface NumberPlan {
  factor: number; // 100 a `%`, 1/1000 a scaling comma
  tokens: Token[]; // without the scaling commas; `%` as a literal
  expAt: number;
  slashAt: number;
  intTokens: Token[];
  fracTokens: Token[] | null; // null: no decimal point
  grouped: boolean;
  places: number;
  /** Only digit placeholders (`0`, or `#` before them) and a grouping comma: `0.00`, `#,##0`, `00000`. */
  simple: { minInt: number } | null;
}

const plans = new WeakMap<Token[], NumberPlan>();

function planOf(all: Token[]): NumberPlan {
  let plan = plans.get(all);
  if (plan) return plan;
  const percent = all.filter((t) => t.k === 'percent').length;
  // Commas right after the last digit placeholder scale by 1,000 each (and show nothing).
  const last = findLast(all, (t) => t.k === 'digit');
  let scale = 0;
  while (all[last + 1 + scale]?.k === 'comma') scale++;
  const tokens = all.filter((_, i) => i <= last || i > last + scale).map((t): Token => (t.k === 'percent' ? { k: 'lit', s: '%' } : t));
  const slash = tokens.findIndex((t) => t.k === 'slash');
  const pointAt = tokens.findIndex((t) => t.k === 'point');
  const intTokens = pointAt < 0 ? tokens : tokens.slice(0, pointAt);
  const fracTokens = pointAt < 0 ? null : tokens.slice(pointAt + 1);
  plan = {
    factor: 100 ** percent / 1000 ** scale,
    tokens,
    expAt: tokens.findIndex((t) => t.k === 'exp'),
    slashAt: slash >= 0 && tokens.slice(0, slash).some((t) => t.k === 'digit') ? slash : -1,
    intTokens,
    fracTokens,
    grouped: isGrouped(intTokens),
    places: fracTokens === null ? 0 : fracTokens.filter((t) => t.k === 'digit').length,
    simple: simplePlan(intTokens, fracTokens),
  };
  plans.set(all, plan);
  return plan;
}

function simplePlan(intTokens: Token[], fracTokens: Token[] | null): NumberPlan['simple'] {
  const digits = intTokens.filter((t) => t.k === 'digit') as { c: string }[];
  const zeros = digits.filter((d) => d.c === '0').length;
  const intOk = intTokens.every((t) => t.k === 'digit' || t.k === 'comma') && digits.slice(digits.length - zeros).every((d) => d.c === '0') && digits.every((d) => d.c !== '?');
  const fracOk = fracTokens === null || fracTokens.every((t) => t.k === 'digit' && t.c === '0');
  return intOk && fracOk && zeros > 0 ? { minInt: zeros } : null;
}

function formatNumber(all: Token[], v: number): string {
  const p = planOf(all);
  const x = v * p.factor;
  if (p.expAt >= 0) return formatScientific(p.tokens, p.expAt, x);
  if (p.slashAt >= 0) return formatFraction(p.tokens, p.slashAt, x);
  const { int, frac } = exactly(x, p.places) ?? fixed(decimal(x), p.places);
  if (p.simple !== null) {
    let digits = int.length < p.simple.minInt ? int.padStart(p.simple.minInt, '0') : int;
    if (p.grouped && digits.length > 3) digits = group(digits);
    return p.fracTokens === null ? digits : `${digits}.${frac}`;
  }
  if (p.fracTokens === null) return fillInteger(p.intTokens, int, p.grouped);
  // No placeholder before the point (`.00`): Excel still shows the integer digits, right before it.
  const intText = p.intTokens.some((t) => t.k === 'digit') ? fillInteger(p.intTokens, int, p.grouped) : literals(p.intTokens) + int;
  return `${intText}.${fillFraction(p.fracTokens, frac)}`;
}

/** A number that needs no rounding to `places` (up to 15 digits, no more decimals): its digits as they are. */
function exactly(x: number, places: number): { int: string; frac: string } | null {
  const text = String(x);
  const dot = text.indexOf('.');
  // Past 15 significant digits Excel shows zeros (9007199254740992 is 9007199254740990): decimal() rounds.
  if (text.length > (dot < 0 ? 15 : 16) || text.includes('e')) return null;
  if (dot >= 0 && text.length - dot - 1 > places) return null;
  const int = dot < 0 ? text : text.slice(0, dot);
  const frac = dot < 0 ? '' : text.slice(dot + 1);
  return { int: int === '0' ? '' : int, frac: frac.length < places ? frac.padEnd(places, '0') : frac };
}

/** Whether a comma between digit placeholders groups thousands. */
function isGrouped(tokens: Token[]): boolean {
  const first = tokens.findIndex((t) => t.k === 'digit');
  const last = findLast(tokens, (t) => t.k === 'digit');
  return tokens.some((t, i) => t.k === 'comma' && i > first && i < last);
}

/** Digits with a comma every three from the right. */
function group(digits: string): string {
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3);
  return out;
}

function findLast<T>(list: T[], test: (t: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i])) return i;
  return -1;
}

/** Integer digits into the placeholders, from the right; digits beyond them go to the first one. */
function fillInteger(tokens: Token[], int: string, grouped: boolean): string {
  const slots = tokens.filter((t) => t.k === 'digit').length;
  if (grouped) {
    const zeros = tokens.filter((t) => t.k === 'digit' && t.c === '0').length;
    const digits = group(int.padStart(zeros, '0'));
    const first = tokens.findIndex((t) => t.k === 'digit');
    return tokens.map((t, i) => (t.k === 'lit' ? t.s : i === first ? digits : '')).join('');
  }
  let di = int.length;
  let slot = slots;
  const out: string[] = new Array(tokens.length).fill('');
  for (let i = tokens.length - 1; i >= 0; i--) {
    const t = tokens[i];
    if (t.k === 'lit') out[i] = t.s;
    else if (t.k === 'digit') {
      slot--;
      if (slot === 0 && di > 0) out[i] = int.slice(0, di);
      else if (di > 0) out[i] = int[--di];
      else out[i] = t.c === '0' ? '0' : t.c === '?' ? ' ' : '';
      if (slot === 0) di = 0;
    }
  }
  return out.join('');
}

function fillFraction(tokens: Token[], frac: string): string {
  const digits = tokens.filter((t) => t.k === 'digit') as { k: 'digit'; c: string }[];
  // Trailing zeros are dropped where the placeholder is `#`, shown as spaces where it is `?`.
  const chars = frac.split('');
  for (let i = digits.length - 1; i >= 0 && chars[i] === '0' && digits[i].c !== '0'; i--) chars[i] = digits[i].c === '?' ? ' ' : '';
  let di = 0;
  return tokens.map((t) => (t.k === 'lit' ? t.s : t.k === 'digit' ? (chars[di++] ?? '') : '')).join('');
}

function formatScientific(tokens: Token[], expAt: number, x: number): string {
  const mantissa = tokens.slice(0, expAt);
  const expDigits = tokens.slice(expAt + 1).filter((t) => t.k === 'digit').length;
  const pointAt = mantissa.findIndex((t) => t.k === 'point');
  const intSlots = (pointAt < 0 ? mantissa : mantissa.slice(0, pointAt)).filter((t) => t.k === 'digit').length;
  const places = pointAt < 0 ? 0 : mantissa.slice(pointAt + 1).filter((t) => t.k === 'digit').length;
  // Engineering notation (`##0.0E+0`): the exponent is a multiple of the integer placeholders.
  const step = intSlots > 1 && mantissa.some((t) => t.k === 'digit' && t.c === '#') ? intSlots : 1;
  let exp = x === 0 ? 0 : Math.floor(Math.log10(x));
  exp = Math.floor(exp / step) * step - (step === 1 ? intSlots - 1 : 0);
  let m = x === 0 ? 0 : x / 10 ** exp;
  let parts = fixed(decimal(m), places);
  if (parts.int.length > Math.max(intSlots, step === 1 ? intSlots : step)) {
    exp += step;
    m = x / 10 ** exp;
    parts = fixed(decimal(m), places);
  }
  const intText = fillInteger(pointAt < 0 ? mantissa : mantissa.slice(0, pointAt), parts.int, false);
  const fracText = pointAt < 0 ? '' : '.' + fillFraction(mantissa.slice(pointAt + 1), parts.frac);
  const sign = exp < 0 ? '-' : (tokens[expAt] as { sign: string }).sign === '+' ? '+' : '';
  const rest = tokens.slice(expAt + 1).filter((t) => t.k === 'lit').map((t) => (t as { s: string }).s).join('');
  return `${intText}${fracText}E${sign}${String(Math.abs(exp)).padStart(expDigits, '0')}${rest}`;
}

/** A fraction's pieces: the whole part's tokens (null: an improper fraction), the literals after it, the numerator's and denominator's placeholders, a fixed denominator and what follows it. */
interface FractionPlan {
  whole: Token[] | null;
  between: string;
  numerator: Token[];
  denominator: Token[];
  fixedDenominator: string; // `0/100`: the digits written after the slash ('' for placeholders)
  after: string;
}

function fractionPlan(tokens: Token[], slashAt: number): FractionPlan {
  const before = tokens.slice(0, slashAt);
  let numStart = before.length;
  while (numStart > 0 && before[numStart - 1].k === 'digit') numStart--;
  const wholeEnd = findLast(before.slice(0, numStart), (t) => t.k === 'digit') + 1;
  const rest = tokens.slice(slashAt + 1);
  // A denominator written as digits (`?/8`, `0/100`: the tokenizer reads 1-9 as text and 0 as a placeholder) is fixed.
  const isFixed = rest[0]?.k === 'lit' && /^[1-9]$/.test(rest[0].s);
  let denEnd = 0;
  while (denEnd < rest.length && (isFixed ? isDigitText(rest[denEnd]) : rest[denEnd].k === 'digit')) denEnd++;
  return {
    whole: wholeEnd > 0 ? before.slice(0, wholeEnd) : null,
    between: literals(before.slice(wholeEnd, numStart)),
    numerator: wholeEnd > 0 ? before.slice(numStart) : before,
    denominator: isFixed ? [] : rest.slice(0, denEnd),
    fixedDenominator: isFixed ? rest.slice(0, denEnd).map((t) => (t.k === 'lit' ? t.s : '0')).join('') : '',
    after: literals(rest.slice(denEnd)),
  };
}

const isDigitText = (t: Token) => (t.k === 'lit' && /^[0-9]$/.test(t.s)) || (t.k === 'digit' && t.c === '0');
const literals = (tokens: Token[]) => tokens.map((t) => (t.k === 'lit' ? t.s : '')).join('');
/** The width a placeholder holds when it shows nothing: `?` and `0` keep their place, `#` none. */
const width = (tokens: Token[]) => tokens.filter((t) => t.k === 'digit' && t.c !== '#').length;

/** `# ??/??` as Excel shows it: the numerator right-aligned and the denominator left-aligned in their `?`s; a fraction that rounds to nothing (or to a whole) leaves spaces in its place. */
function formatFraction(tokens: Token[], slashAt: number, x: number): string {
  const p = fractionPlan(tokens, slashAt);
  let whole = p.whole ? Math.floor(x) : 0;
  const denominator = Number(p.fixedDenominator);
  let [num, den] = denominator > 0 ? [Math.round((x - whole) * denominator), denominator] : bestFraction(x - whole, 10 ** Math.max(p.denominator.length, 1) - 1);
  if (p.whole && num === den) [whole, num] = [whole + 1, 0];
  if (p.whole && num === 0 && !p.numerator.some((t) => t.k === 'digit' && t.c === '0')) {
    const blank = p.numerator.some((t) => t.k === 'digit' && t.c === '?') ? p.between.length + width(p.numerator) + 1 + (p.fixedDenominator.length || width(p.denominator)) : 0;
    return fillInteger(p.whole, String(whole), isGrouped(p.whole)) + ' '.repeat(blank) + p.after;
  }
  const wholeText = p.whole ? fillInteger(p.whole, whole === 0 ? '' : String(whole), isGrouped(p.whole)) : '';
  const numText = fillInteger(p.numerator, num === 0 && p.whole ? '' : String(num), false);
  const denText = p.fixedDenominator || String(den).padEnd(width(p.denominator), ' ');
  return `${wholeText}${p.between}${numText}/${denText}${p.after}`;
}

/** The closest fraction with a denominator up to `maxDen` (continued fractions). */
function bestFraction(x: number, maxDen: number): [number, number] {
  let [h0, h1, k0, k1] = [0, 1, 1, 0];
  let f = x;
  for (let i = 0; i < 64; i++) {
    const a = Math.floor(f);
    const k2 = a * k1 + k0;
    if (k2 > maxDen) break;
    [h0, h1, k0, k1] = [h1, a * h1 + h0, k1, k2];
    if (Math.abs(f - a) < 1e-12) break;
    f = 1 / (f - a);
  }
  return k1 === 0 ? [Math.round(x), 1] : [h1, k1];
}

// ── Dates and times ──────────────────────────────────────────────────────────────────────────────────

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
/** The day after Excel's last date, 9999-12-31. */
const MAX_SERIAL = 2958466;

/** Whether a serial is a day of Excel's calendar (0 is its 0 January 1900). */
export function inCalendar(serial: number): boolean {
  return serial >= 0 && serial < MAX_SERIAL;
}

interface Parts {
  year: number;
  month: number;
  day: number;
  /** 0 for Sunday. */
  weekday: number;
  hour: number;
  minute: number;
  second: number;
  /** The fraction of a second, in units of 10^-subDigits. */
  sub: number;
  totalSeconds: number;
}

/** The calendar parts of a serial in the 1900 date system (with its 29 February 1900), rounded to `subDigits`. */
export function dateParts(serial: number, subDigits: number): Parts | null {
  if (!inCalendar(serial)) return null;
  const unit = 10 ** subDigits;
  const ticks = Math.round(serial * 86400 * unit);
  const day = Math.floor(ticks / (86400 * unit));
  const inDay = ticks - day * 86400 * unit;
  const secs = Math.floor(inDay / unit);
  const [year, month, dayOfMonth] = civilDate(day);
  return {
    year,
    month,
    day: dayOfMonth,
    weekday: (day + 6) % 7,
    hour: Math.floor(secs / 3600),
    minute: Math.floor(secs / 60) % 60,
    second: secs % 60,
    sub: inDay % unit,
    totalSeconds: Math.floor(ticks / unit),
  };
}

/** Year, month and day of a serial's day, Excel's 29 February 1900 and 0 January 1900 included. */
function civilDate(day: number): [number, number, number] {
  if (day === 60) return [1900, 2, 29];
  if (day === 0) return [1900, 1, 0];
  // The civil date of a day count (H. Hinnant's civil_from_days): 25569 is 1 January 1970's serial, and a
  // serial before 1 March 1900 counts Excel's 29 February 1900.
  const z = day - (day < 60 ? 25568 : 25569) + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const dayOfMonth = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, dayOfMonth];
}

/** Which `m` tokens mean minutes: right after an hour, or right before a second (literals between allowed). */
function minuteTokens(tokens: Token[]): Set<number> {
  const parts = tokens.map((t, i) => ({ t, i })).filter(({ t }) => t.k === 'date' || t.k === 'elapsed');
  const minutes = new Set<number>();
  for (let j = 0; j < parts.length; j++) {
    const { t, i } = parts[j];
    if (t.k !== 'date' || !t.s.startsWith('m') || t.s.length > 2) continue;
    const prev = parts[j - 1]?.t as { s: string } | undefined;
    const next = parts[j + 1]?.t as { s: string } | undefined;
    if (prev?.s.startsWith('h') || next?.s.startsWith('s')) minutes.add(i);
  }
  return minutes;
}

/** A date format, worked out once: literal text, and the fields to fill in. */
interface DateField {
  /** yy, yyyy, m…mmmmm (month), M, MM (minute), d…dddd, h, hh, s, ss, ampm, ap, AP, sub, [h], [m], [s] */
  field: string;
  /** sub: digits shown; elapsed: width */
  width: number;
}
interface DatePlan {
  subDigits: number;
  twelve: boolean;
  parts: (string | DateField)[];
}
const datePlans = new WeakMap<Token[], DatePlan>();

function datePlanOf(tokens: Token[]): DatePlan {
  let plan = datePlans.get(tokens);
  if (plan) return plan;
  const minutes = minuteTokens(tokens);
  const parts: (string | DateField)[] = tokens.map((t, i): string | DateField => {
    if (t.k === 'lit') return t.s;
    if (t.k === 'subsec') return { field: 'sub', width: t.n };
    if (t.k === 'elapsed') return { field: `[${t.s[0]}]`, width: t.s.length };
    if (t.k === 'date') return { field: minutes.has(i) ? t.s.toUpperCase() : t.s[0] === 'y' ? (t.s.length <= 2 ? 'yy' : 'yyyy') : t.s, width: 0 };
    return t.k === 'point' ? '.' : t.k === 'digit' ? (t.c === '0' ? '0' : '') : t.k === 'comma' ? ',' : t.k === 'percent' ? '%' : t.k === 'slash' ? '/' : '';
  });
  plan = {
    subDigits: Math.min(3, Math.max(0, ...tokens.map((t) => (t.k === 'subsec' ? t.n : 0)))),
    twelve: tokens.some((t) => t.k === 'date' && (t.s === 'ampm' || t.s === 'ap' || t.s === 'AP')),
    parts,
  };
  datePlans.set(tokens, plan);
  return plan;
}

function formatDate(tokens: Token[], serial: number): string | null {
  const plan = datePlanOf(tokens);
  const parts = dateParts(serial, plan.subDigits);
  if (parts === null) return null;
  const hour = plan.twelve ? (parts.hour % 12 === 0 ? 12 : parts.hour % 12) : parts.hour;
  let out = '';
  for (const part of plan.parts) out += typeof part === 'string' ? part : dateField(part, parts, hour, plan.subDigits);
  return out;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** Each field's text from the parts; `hour` as shown (on a 12-hour clock with AM/PM), `p.hour` the 24-hour one. */
const FIELDS: Record<string, (p: Parts, hour: number, width: number, subDigits: number) => string> = {
  yy: (p) => pad2(p.year % 100),
  yyyy: (p) => String(p.year),
  m: (p) => String(p.month),
  mm: (p) => pad2(p.month),
  mmm: (p) => MONTHS[p.month - 1].slice(0, 3),
  mmmmm: (p) => MONTHS[p.month - 1][0],
  M: (p) => String(p.minute),
  MM: (p) => pad2(p.minute),
  d: (p) => String(p.day),
  dd: (p) => pad2(p.day),
  ddd: (p) => DAYS[p.weekday].slice(0, 3),
  h: (_, hour) => String(hour),
  hh: (_, hour) => pad2(hour),
  s: (p) => String(p.second),
  ss: (p) => pad2(p.second),
  ampm: (p) => (p.hour >= 12 ? 'PM' : 'AM'),
  ap: (p) => (p.hour >= 12 ? 'p' : 'a'),
  AP: (p) => (p.hour >= 12 ? 'P' : 'A'),
  sub: (p, _, width, subDigits) => '.' + String(p.sub).padStart(subDigits, '0').slice(0, width),
  '[h]': (p, _, width) => String(Math.floor(p.totalSeconds / 3600)).padStart(width, '0'),
  '[m]': (p, _, width) => String(Math.floor(p.totalSeconds / 60)).padStart(width, '0'),
  '[s]': (p, _, width) => String(p.totalSeconds).padStart(width, '0'),
};

function dateField(part: DateField, parts: Parts, hour: number, subDigits: number): string {
  const field = part.field;
  if (Object.hasOwn(FIELDS, field)) return FIELDS[field](parts, hour, part.width, subDigits);
  // mmmm and longer: the month's name; dddd and longer: the day's; hhh, sss: as hh, ss
  if (field.startsWith('mmmm')) return MONTHS[parts.month - 1];
  if (field.startsWith('dddd')) return DAYS[parts.weekday];
  if (field.startsWith('hh')) return pad2(hour);
  if (field.startsWith('ss')) return pad2(parts.second);
  return field.startsWith('MM') ? pad2(parts.minute) : '';
}
