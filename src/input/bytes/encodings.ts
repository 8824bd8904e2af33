// Code pages: which one a text that is not UTF-8 is in (detected by jschardet, a port of Python's chardet, among
// the code pages spreadsheet programs write), and the names idv shows and takes (--encoding) for them. Both
// libraries are loaded only when a file is not UTF-8: a run of UTF-8 or ASCII input never parses them.
import { usageError } from '../../core/errors.js';

type Iconv = typeof import('iconv-lite');
type Chardet = (typeof import('jschardet'))['chardet'];

let iconvLib: Iconv | null = null;
let chardetLib: Chardet | null = null;
/** iconv-lite, loaded on first use (the program bundle leaves it a package of its own: start-up counts). */
export async function loadIconv(): Promise<Iconv> {
  return (iconvLib ??= (await import('iconv-lite')).default);
}
async function loadChardet(): Promise<Chardet> {
  return (chardetLib ??= (await import('jschardet')).chardet);
}

interface CodePage {
  /** What idv shows and --encoding takes (WHATWG's label where there is one). */
  label: string;
  /** iconv-lite's name for it. */
  iconv: string;
}

const MAC_ROMAN: CodePage = { label: 'macintosh', iconv: 'macintosh' };
/**
 * The code pages detection chooses among, by jschardet's name, in order of how common they are in exports (a
 * tie goes to the earlier). Excel on Windows writes the system's ANSI code page; Excel for Mac its Mac one.
 */
const WINDOWS: ReadonlyArray<[string, CodePage]> = [
  ['cp1252', { label: 'windows-1252', iconv: 'windows-1252' }],
  ['cp1251', { label: 'windows-1251', iconv: 'windows-1251' }],
  ['cp1250', { label: 'windows-1250', iconv: 'windows-1250' }],
  ['gb18030', { label: 'gb18030', iconv: 'gb18030' }],
  ['cp932', { label: 'shift_jis', iconv: 'shift_jis' }],
  ['cp949', { label: 'euc-kr', iconv: 'cp949' }],
  ['big5hkscs', { label: 'big5', iconv: 'big5hkscs' }],
  ['cp1254', { label: 'windows-1254', iconv: 'windows-1254' }],
  ['cp1253', { label: 'windows-1253', iconv: 'windows-1253' }],
  ['cp1256', { label: 'windows-1256', iconv: 'windows-1256' }],
  ['cp1255', { label: 'windows-1255', iconv: 'windows-1255' }],
  ['cp1257', { label: 'windows-1257', iconv: 'windows-1257' }],
  ['cp874', { label: 'windows-874', iconv: 'windows-874' }],
  ['cp1258', { label: 'windows-1258', iconv: 'windows-1258' }],
  ['koi8-r', { label: 'koi8-r', iconv: 'koi8-r' }],
  ['koi8-u', { label: 'koi8-u', iconv: 'koi8-u' }],
  ['iso8859-2', { label: 'iso-8859-2', iconv: 'iso-8859-2' }],
  ['iso8859-15', { label: 'iso-8859-15', iconv: 'iso-8859-15' }],
  ['euc_jis_2004', { label: 'euc-jp', iconv: 'euc-jp' }],
  ['euc_kr', { label: 'euc-kr', iconv: 'cp949' }],
  // Excel for Mac's CSV once its lone CRs became LF or CRLF (git, FTP, an editor), FileMaker and other Mac apps.
  ['mac-roman', MAC_ROMAN],
];
/** Lines ended by a lone CR: Excel for Mac, which writes the Mac code page of its system (and Shift_JIS in Japan). */
const MAC: ReadonlyArray<[string, CodePage]> = [
  ['mac-roman', MAC_ROMAN],
  ['mac-cyrillic', { label: 'x-mac-cyrillic', iconv: 'maccyrillic' }],
  ['mac-latin2', { label: 'x-mac-ce', iconv: 'maccenteuro' }],
  ['mac-greek', { label: 'x-mac-greek', iconv: 'macgreek' }],
  ['mac-turkish', { label: 'x-mac-turkish', iconv: 'macturkish' }],
  ['mac-iceland', { label: 'x-mac-icelandic', iconv: 'maciceland' }],
  ['cp932', { label: 'shift_jis', iconv: 'shift_jis' }],
  ['gb18030', { label: 'gb18030', iconv: 'gb18030' }],
  ['big5hkscs', { label: 'big5', iconv: 'big5hkscs' }],
  ['cp949', { label: 'euc-kr', iconv: 'cp949' }],
];
/**
 * DOS's code pages, which jschardet does not know: Excel's "CSV (MS-DOS)" and Outlook's "(DOS)" exports write
 * them. Tried when the best reading still looks wrong (ü is 0x81 there, a C1 control in ISO 8859; ç is 0x87, a
 * `‡` stuck to letters in Windows-1250).
 */
const OEM: ReadonlyArray<CodePage> = [
  { label: 'cp850', iconv: 'cp850' },
  { label: 'cp437', iconv: 'cp437' },
];
/** How much more likely than its score says: the code page of most Western systems (lone CRs: of a Mac's) is the usual case. */
const PRIOR: Record<string, number> = { cp1252: 1.25, 'mac-roman': 0.8 };
const MAC_PRIOR: Record<string, number> = { 'mac-roman': 1.5 };

interface Detected extends CodePage {
  /** Another code page, almost as likely, that reads these bytes otherwise (a one-line note says so). */
  alternative: string | null;
}

/**
 * The code page of `bytes` (text that is not UTF-8). Only its lines that hold bytes beyond ASCII are looked at:
 * in an export those are a few names among many lines of addresses and numbers, which would drown them.
 * Between candidates whose scores are close, the one whose reading sticks no symbol to a letter wins (Polish
 * `ł` read as Windows-1252 is `³`), then the more usual one.
 */
export async function detectCodePage(bytes: Uint8Array): Promise<Detected> {
  const [iconv, chardet] = await Promise.all([loadIconv(), loadChardet()]);
  const crOnly = bytes.indexOf(0x0d) !== -1 && bytes.indexOf(0x0a) === -1;
  const pages = new Map(crOnly ? MAC : WINDOWS);
  const order = [...pages.keys()];
  const lines = linesBeyondAscii(bytes);
  const scored = detectAll(chardet, lines, order)
    .filter((m) => pages.has(m.name))
    .map((m) => ({ ...m, score: m.score * ((crOnly ? MAC_PRIOR : PRIOR)[m.name] ?? 1) }))
    .sort((a, b) => b.score - a.score);
  if (scored.length === 0) return { ...pages.get(order[0]!)!, alternative: null };
  const top = scored[0]!.score;
  const read = (name: string) => iconv.decode(Buffer.from(lines), pages.get(name)!.iconv);
  const close = scored
    .filter((m) => m.score >= top * 0.5)
    .map((m) => ({ ...m, text: read(m.name), rank: order.indexOf(m.name) }))
    .map((m) => ({ ...m, penalty: penalty(m.text) }))
    .sort((a, b) => a.penalty - b.penalty || (Math.min(a.score, b.score) >= 0.98 * Math.max(a.score, b.score) ? a.rank - b.rank : b.score - a.score));
  const best = close[0]!;
  if (best.penalty > 0) {
    const cut = cutShort(lines, (bytes, include) => detectAll(chardet, bytes, include), (bytes, p) => iconv.decode(Buffer.from(bytes), p.iconv), pages);
    if (cut) return cut;
    const lower = scored.filter((m) => !close.some((c) => c.name === m.name)).map((m) => pages.get(m.name)!);
    const rescued = rescue(best.penalty, (p) => iconv.decode(Buffer.from(lines), p.iconv), crOnly ? [...lower, ...OEM] : [...lower, MAC_ROMAN, ...OEM]);
    if (rescued) return rescued;
  }
  const other = close.slice(1).find((m) => m.score >= best.score * 0.75 && m.penalty <= best.penalty && m.text !== best.text);
  if (other) return { ...pages.get(best.name)!, alternative: pages.get(other.name)!.label };
  return { ...pages.get(best.name)!, alternative: !crOnly && best.name !== 'mac-roman' && readsAlike(best, read('mac-roman')) ? MAC_ROMAN.label : null };
}

/**
 * When the best-scored reading still looks wrong, a code page jschardet scores low or not at all that reads the
 * text better (`pages`, the likelier first): one it scored low (a short Romanian name), Mac Roman (short Mac text
 * scores low among Windows code pages), or a DOS code page in Latin-1's letters. Two readings alike are named:
 * one is taken, the note offers the other.
 */
function rescue(worst: number, read: (p: CodePage) => string, pages: CodePage[]): Detected | null {
  const fits = [...new Set(pages)]
    .map((p) => ({ ...p, text: read(p) }))
    .filter((p) => !misread(p.text) && (!OEM.includes(p) || LATIN1.test(p.text)))
    .map((p) => ({ ...p, penalty: penalty(p.text) }))
    .filter((p) => p.penalty < worst)
    .sort((a, b) => a.penalty - b.penalty);
  const [first, second] = fits;
  if (!first) return null;
  const alike = second && second.penalty === first.penalty && second.text !== first.text;
  return { label: first.label, iconv: first.iconv, alternative: alike ? second.label : null };
}

function detectAll(chardet: Chardet, bytes: Uint8Array, include: string[]): Array<{ name: string; score: number }> {
  return chardet
    .detectAll(bytes as Buffer, { includeEncodings: include, preferSuperset: true, ignoreThreshold: true, compatNames: false })
    .map((m) => ({ name: m.encoding ?? '', score: m.confidence }));
}

const MULTI_BYTE = ['gb18030', 'cp932', 'cp949', 'big5hkscs'];
/**
 * A multi-byte code page whose text holds a character cut short (a legacy export cuts fields at a byte count):
 * jschardet drops a page at its first bad sequence, so it is asked again on the lines that page reads whole, and
 * the page is taken when it comes first there. The cut bytes read as SUB (decode.ts).
 */
function cutShort(
  lines: Uint8Array,
  detect: (bytes: Uint8Array, include: string[]) => Array<{ name: string; score: number }>,
  read: (bytes: Uint8Array, p: CodePage) => string,
  pages: Map<string, CodePage>,
): Detected | null {
  const each = splitLines(lines);
  const found = MULTI_BYTE.filter((name) => pages.has(name)).flatMap((name) => {
    const whole = each.filter((l) => !read(l, pages.get(name)!).includes('\ufffd'));
    if (whole.length === 0 || whole.length === each.length || whole.length * 2 < each.length) return [];
    const [top] = detect(Buffer.concat(whole.flatMap((l) => [l, LF])), [...pages.keys()]).filter((m) => pages.has(m.name));
    return top?.name === name ? [top] : [];
  });
  const best = found.sort((a, b) => b.score - a.score)[0];
  return best ? { ...pages.get(best.name)!, alternative: null } : null;
}

/** The lines of `bytes`, each without its LF. */
function splitLines(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let start = 0, i = bytes.indexOf(0x0a); start < bytes.length; start = i + 1, i = bytes.indexOf(0x0a, start)) {
    if (i === -1) i = bytes.length;
    if (i > start) out.push(bytes.subarray(start, i));
  }
  return out;
}

/**
 * Whether Mac Roman's reading of a text looks as right as `best`, and differs: Latin letters beyond ASCII in both
 * (a dash or a Thai name is no Mac text), none wrong in either.
 */
function readsAlike(best: { text: string; penalty: number }, mac: string): boolean {
  latinOnly ??= /^[\x00-\x7f\p{sc=Latin}]*$/u;
  return mac !== best.text && latinOnly.test(best.text) && latinOnly.test(mac) && !misread(mac) && penalty(mac) <= best.penalty;
}
let latinOnly: RegExp | undefined;

/** The lines of `bytes` that hold a byte beyond ASCII, each ended by LF. */
function linesBeyondAscii(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && bytes[i] !== 0x0a && bytes[i] !== 0x0d) continue;
    for (let j = start; j < i; j++) {
      if (bytes[j]! >= 0x80) {
        parts.push(bytes.subarray(start, i), LF);
        break;
      }
    }
    start = i + 1;
  }
  return Buffer.concat(parts);
}
const LF = Uint8Array.of(0x0a);

/** Letters of Icelandic and Faroese alone: Turkish read as Windows-1252 shows them in place of ş and ğ. */
const RARE_LETTERS = /[\u00f0\u00fe\u00d0\u00de]/g; // ð þ Ð Þ, escaped: see scripts/bundle.mjs on ASCII
/**
 * A character beyond ASCII that is no letter, stuck to a letter (not the quotes and marks that open or close
 * words; ¿, ¡ and ‘ only open: `S¿ren`, `Zo‘` are Mac Roman's ø and ë read as Windows-1252; a no-break space
 * is a space). The ordinals ª and º are letters to Unicode but follow a number (`1ª`), never start a word (`ªtefan`
 * is Romanian Ş read as Windows-1254). Made on first use (see check.ts isHostLike): only text that is not UTF-8 needs it.
 */
let stuckSymbol: RegExp | undefined;
const stuckSymbols = () => (stuckSymbol ??= /(?<=\p{L})[^\p{L}\p{M}\x00-\x7f\u00a0«»’“”„]|[^\p{L}\p{M}\x00-\x7f\u00a0¿¡«»‘’“”„](?=\p{L})|[ªº](?=\p{L})/gu);
/** Control characters a code page leaves undefined or puts where text has none. */
const CONTROL = /[\u0080-\u009f\ufffd]/g;
/**
 * A capital inside a word where text has none: one beyond ASCII before or after a small letter (`LefÅvre`, `JÅrgen`, `JosŽ`: Mac
 * Roman read as DOS, or DOS as Mac Roman), or any after a small letter beyond ASCII but ß (`ëæòY`: Shift_JIS as Mac Roman).
 */
/** A word of two or more signs beyond ASCII and nothing else (`·¼`: GBK's 芳 read as Windows-1252); not quotes, dashes or `…`. */
let signWord: RegExp | undefined;
const signWords = () => (signWord ??= /(?<![\p{L}\p{Nd}\p{M}])[^\p{L}\p{Nd}\p{M}\s\x00-\x7f\u2010-\u2015\u2018-\u201f\u2026\u00ab\u00bb]{2,}(?![\p{L}\p{Nd}\p{M}])/gu);
/** A letter of another script inside a Latin word (`Groง`: Mac Roman's ß read as Thai). */
let mixedScript: RegExp | undefined;
const mixedScripts = () => (mixedScript ??= /(?<=\p{sc=Latin})(?!\p{sc=Latin})\p{L}|(?<=\p{L})(?<!\p{sc=Latin})\p{sc=Latin}/gu);
let midCapital: RegExp | undefined;
const midCapitals = () => (midCapital ??= /(?<=\p{L})(?=[^\x00-\x7f])\p{Lu}(?=\p{Ll})|(?<=\p{Ll})(?=[^\x00-\x7f])\p{Lu}|(?<=[^\x00-\x7f\u00df])(?<=\p{Ll})\p{Lu}/gu);

/**
 * A reading that is plainly wrong: a control character, or a symbol inside a word (`Fran‡ois`, `N¤ez`; not a
 * dash, quote or middle dot, which text has between letters: `Sales–EMEA`, `Marcel·lí`). A symbol at a
 * word's end (`Acme™ GmbH`) is no sign: text has those.
 */
function misread(text: string): boolean {
  CONTROL.lastIndex = 0;
  midCapitals().lastIndex = 0;
  return CONTROL.test(text) || innerSymbol().test(text) || midCapitals().test(text);
}
let innerSymbolRe: RegExp | undefined;
const innerSymbol = () => (innerSymbolRe ??= /\p{L}[^\p{L}\p{M}\x00-\x7f\u00a0\u00b7\u2010-\u2015\u2018-\u201f\u2026]\p{L}/u);
/** Text in Latin-1's letters and signs alone: what a DOS code page's names read as, not Greek or box drawing. */
const LATIN1 = /^[\x00-\xff]*$/;

function penalty(text: string): number {
  const count = (re: RegExp) => text.match(re)?.length ?? 0;
  return count(RARE_LETTERS) + 2 * (count(stuckSymbols()) + count(midCapitals()) + count(mixedScripts()) + count(signWords())) + 3 * count(CONTROL);
}

/** Every name idv shows, with iconv-lite's name for it (--encoding takes these and any name iconv-lite knows). */
const LABELS = new Map<string, string>([
  ['utf-8', 'utf-8'],
  ['utf-16le', 'utf-16le'],
  ['utf-16be', 'utf-16be'],
  ['utf-32le', 'utf-32le'],
  ['utf-32be', 'utf-32be'],
  ...[...WINDOWS, ...MAC].map(([, p]): [string, string] => [p.label, p.iconv]),
  ...OEM.map((p): [string, string] => [p.label, p.iconv]),
]);

/** --encoding NAME: the name idv will show, and iconv-lite's; a usage error for a name no library knows. */
export async function encodingFlag(name: string): Promise<{ label: string; iconv: string }> {
  const n = name.trim().toLowerCase();
  const label = [n, n.replace(/^(?:windows|cp)-?(\d{3,4})$/, 'windows-$1'), n === 'utf8' ? 'utf-8' : ''].find((l) => LABELS.has(l));
  if (label) return { label, iconv: LABELS.get(label)! };
  if (n !== '' && (await loadIconv()).encodingExists(n)) return { label: n, iconv: n };
  throw usageError(`--encoding: "${name}" is no encoding idv knows; give one like utf-8, windows-1252, windows-1251, shift_jis, gb18030, big5, euc-kr or macintosh.`);
}
