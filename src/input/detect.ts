// The shape of an input, guessed from the records of its first 64 KiB or more (read.ts's sample) as
// csv-parse reads them (quotes, line breaks inside quoted cells, LF/CRLF/CR), never from physical lines:
//   - plain list or CSV, and the delimiter (`,` `;` tab `|`; an Excel `sep=X` first line; --delimiter);
//   - preamble rows above the header (an export's notes, a spreadsheet's table name) to skip;
//   - whether there is a header row;
//   - the item column: by its header and by its contents (distinct items in the sample), or --column.
// Footer rows below the data are found while reading (read.ts), since only the end of a file shows them.
import type { Kind } from '../defaults.js';
import { inputError, usageError } from '../errors.js';
import { checkerFor } from './check.js';

export const DELIMITERS = [',', ';', '\t', '|'] as const;

export interface Layout {
  /** null: a plain list, one item per line. */
  delimiter: string | null;
  /** The header row, when there is one (a plain list can have one too: a single `email` line). */
  header: string[] | null;
  /** 0-based index of the item column. */
  column: number;
  /** The table's width: the header's, or the usual number of cells in a row. */
  width: number;
  /** Records to skip before the data: preamble rows, then the header (an Excel `sep=` line is apart). */
  skipRecords: number;
  /** An Excel `sep=X` first line to drop before parsing. */
  sepLine: boolean;
  /** One line each for stderr: what was skipped, which column was taken when the choice was close. */
  notes: string[];
}

export interface LayoutOverrides {
  column?: string; // NAME or N (1-based)
  delimiter?: string;
  noHeader?: boolean;
  /** --keep-columns: a plain list's lines are kept as read, as the one cell of their record. */
  keepColumns?: boolean;
}

/**
 * The options both sniffing and reading parse with: what they count as a record must agree. Every line end
 * ends a record, whichever the file's first line used: left to guess, csv-parse takes the first one it meets
 * for the whole file, so in a file joined from several sources a CRLF line kept its CR in its last cell and
 * a line ended by a lone CR was glued to the next record (one record lost, exit 0).
 */
export function parseOptions(delimiter: string) {
  return { delimiter, record_delimiter: RECORD_ENDS, relax_column_count: true, relax_quotes: true, skip_empty_lines: true };
}
const RECORD_ENDS = ['\r\n', '\n', '\r'];

/** A record with nothing but blanks (`,,,` rows that spreadsheets leave below their data) is no record. */
export function isBlank(row: readonly string[]): boolean {
  return row.every((c) => c.trim() === '');
}

const EMAIL_HEADERS = new Set([
  'email', 'emails', 'emailaddress', 'emailaddresses', 'mail', 'mailaddress', 'eaddress',
  'courriel', 'adressemail', 'adresseemail', 'adressecourriel', 'correo', 'correoelectronico',
  'epost', 'emailadresse', 'emailadres', 'posta', 'postaelettronica', 'emailid', 'primaryemail',
  'workemail', 'personalemail', 'contactemail', 'useremail', 'subscriberemail', 'emailfield',
]);
const DOMAIN_HEADERS = new Set([
  'domain', 'domains', 'domainname', 'website', 'websites', 'web', 'site', 'url', 'homepage',
  'host', 'hostname', 'companydomain', 'companywebsite', 'websiteurl', 'companydomainname',
]);
/** Words that make a matching header less likely the item itself (Email Type, Email Opt Out, Email Status…). */
const SIDE_WORDS = /type|label|kind|status|optout|optin|opted|consent|marketing|verified|valid|bounce|date|time|count|format|subscri|unsubscri|permission|flag/;

function normaliseHeader(h: string): string {
  return h
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** How well a header names the item column: 3 a known name, 2 a name that holds one, 1 the same with a side word, 0 none. */
export function headerScore(kind: Kind, header: string): number {
  const n = normaliseHeader(header);
  if (n.length === 0) return 0;
  if ((kind === 'emails' ? EMAIL_HEADERS : DOMAIN_HEADERS).has(n)) return 3;
  if (!(kind === 'emails' ? /e?mail|courriel|correo/.test(n) : /domain|website|url|host/.test(n))) return 0;
  return SIDE_WORDS.test(n) ? 1 : 2;
}

export function parseDelimiterFlag(value: string): string {
  const v = value.toLowerCase();
  if (v === '\\t' || v === 'tab' || v === '\t') return '\t';
  if (v === 'comma') return ',';
  if (v === 'semicolon') return ';';
  if (v === 'pipe') return '|';
  if ([...value].length !== 1 || value === '"' || value === '\n' || value === '\r') {
    throw usageError(`--delimiter takes one character (or "tab"), not "${value}".`);
  }
  return value;
}

/** The sample: its text, and whether it is the whole input (else its last record may be cut). */
export interface Sample {
  text: string;
  whole: boolean;
}

/**
 * Records of the sample under a delimiter; a record the sample's end cut is left out. A parse that fails
 * (a quote never closed) gives the records before the failure: the reader will report it, if this delimiter wins.
 */
export type ParseSample = (text: string, delimiter: string, whole: boolean) => string[][];

interface Sniffed {
  delimiter: string;
  rows: string[][];
  width: number;
  /** Share of the rows between the first and last full-width row that have the usual width. */
  consistency: number;
  /** Whether the first row has the usual width. */
  firstFits: boolean;
}

function modeWidth(rows: string[][]): number {
  const freq = new Map<number, number>();
  for (const r of rows) freq.set(r.length, (freq.get(r.length) ?? 0) + 1);
  let mode = 1;
  let best = 0;
  for (const [w, n] of freq) if (n > best || (n === best && w > mode)) [mode, best] = [w, n];
  return mode;
}

/**
 * How well rows line up under a delimiter. Rows above the first full-width row and below the last one are
 * left out of the count only when they look like a preamble or a footer (narrower, and no item in them):
 * a row that holds an item and does not fit counts against the delimiter.
 */
function sniff(rows: string[][], delimiter: string, hasItem: (r: readonly string[]) => boolean): Sniffed {
  const width = modeWidth(rows);
  const aside = (r: readonly string[]) => r.length < width && !hasItem(r);
  let first = 0;
  while (first < rows.length - 1 && aside(rows[first]!)) first++;
  let last = rows.length - 1;
  while (last > first && aside(rows[last]!)) last--;
  const body = rows.slice(first, last + 1);
  const fit = body.filter((r) => r.length === width).length;
  return { delimiter, rows, width, consistency: body.length ? fit / body.length : 0, firstFits: rows[0]?.length === width };
}

/**
 * Decide the layout from the sample. `name` is used in messages.
 */
export function detectLayout(kind: Kind, sample: Sample, overrides: LayoutOverrides, name: string, parse: ParseSample): Layout {
  const notes: string[] = [];
  let text = sample.text;
  let sepLine = false;
  let delimiter: string | null = null;
  const sep = /^sep=(.)[ \t]*(\r\n|\n|\r|$)/i.exec(text);
  if (sep) {
    delimiter = sep[1]!;
    sepLine = true;
    text = text.slice(sep[0].length);
  }
  if (overrides.delimiter !== undefined) delimiter = parseDelimiterFlag(overrides.delimiter);

  let rows: string[][];
  let width: number;
  if (delimiter !== null) {
    rows = parse(text, delimiter, sample.whole).filter((r) => !isBlank(r));
    width = modeWidth(rows);
  } else {
    const looks = checkerFor(kind);
    const best = guessDelimiter(text, sample.whole, parse, (r) => r.some((c) => looks(c) !== null), name);
    if (best) {
      ({ delimiter, rows, width } = best);
    } else {
      // A plain list; or a one-column CSV whose values are quoted ("jane@x.com"): then read as CSV.
      const lines = text.split(/\r\n|\n|\r/).filter((l) => l.trim() !== '');
      if (lines.length > 0 && lines.filter((l) => /^\s*".*"\s*$/.test(l)).length >= lines.length * 0.6) {
        delimiter = ',';
        rows = parse(text, delimiter, sample.whole).filter((r) => !isBlank(r));
        width = 1;
      } else return plainLayout(kind, lines, overrides, name);
    }
  }
  return csvLayout(kind, { delimiter, rows, width, sepLine, notes }, overrides, name);
}

/** The delimiter under which the rows line up best: most rows of the usual width (at least 2 cells). */
function guessDelimiter(text: string, whole: boolean, parse: ParseSample, hasItem: (r: readonly string[]) => boolean, name: string): Sniffed | null {
  let best: Sniffed | null = null;
  let ragged: Sniffed | null = null;
  for (const d of DELIMITERS) {
    const rows = parse(text, d, whole).filter((r) => !isBlank(r));
    if (rows.length === 0) continue;
    const s = sniff(rows, d, hasItem);
    if (s.width < 2) continue;
    if (s.consistency < 0.6) {
      // Most rows split, but not into the same number of cells: a CSV that cannot be aligned with confidence.
      const split = rows.filter((r) => r.length >= 2).length;
      if (split >= 2 && split > rows.length / 2 && (!ragged || s.consistency > ragged.consistency)) ragged = s;
      continue;
    }
    // A header usually fits the table's width (a decimal comma in `;` data must not win over `;`).
    const better =
      !best ||
      (s.firstFits && !best.firstFits) ||
      (s.firstFits === best.firstFits && (s.consistency > best.consistency || (s.consistency === best.consistency && s.width > best.width)));
    if (better) best = s;
  }
  if (!best && ragged) {
    const widths = [...new Set(ragged.rows.slice(0, 50).map((r) => r.length))].slice(0, 5).join(', ');
    const shown = ragged.delimiter === '\t' ? 'tab' : ragged.delimiter;
    throw inputError(
      `${name} looks like CSV split by "${shown}", but its rows have different numbers of cells (${widths}…); give --delimiter "${shown}" to read it so anyway (every cell is kept), or check the file.`,
    );
  }
  return best;
}

function plainLayout(kind: Kind, lines: string[], overrides: LayoutOverrides, name: string): Layout {
  const c = overrides.column?.trim();
  if (c !== undefined && c !== '1' && !(lines.length && lines[0]!.trim().toLowerCase() === c.toLowerCase())) {
    throw usageError(`${name} is a plain list (one item a line), so --column can only be 1 or its header.`);
  }
  // Only an exact known name is a header: "not-an-email", "jane.doe@hotmail" or "localhost" are items.
  const first = lines[0]?.trim() ?? '';
  // The header as written (--keep-columns writes it back).
  const header = !overrides.noHeader && (headerScore(kind, first) === 3 || (c !== undefined && c !== '1')) ? [lines[0]!] : null;
  return { delimiter: null, header, column: 0, width: 1, skipRecords: header ? 1 : 0, sepLine: false, notes: [] };
}

interface Parsed {
  delimiter: string;
  rows: string[][];
  width: number;
  sepLine: boolean;
  notes: string[];
}

function csvLayout(kind: Kind, p: Parsed, overrides: LayoutOverrides, name: string): Layout {
  const { rows, width, notes } = p;
  const looks = checkerFor(kind);
  const hasItem = (r: readonly string[]) => r.some((c) => looks(c) !== null);
  const columnFlag = overrides.column?.trim();
  const columnIsName = columnFlag !== undefined && !/^\d+$/.test(columnFlag);

  // The header row (or the first data row): the first row as wide as the table, unless a narrower row above
  // it holds an item (then there is no preamble). Narrower rows above it without items are a preamble.
  let start = 0;
  if (width >= 2) {
    let wide = rows.findIndex((r) => r.length >= width);
    // A data row right under a narrower row of several cells without items: that row is the header (rows
    // that end in a delimiter under a header that does not), not a preamble line.
    if (wide > 0 && hasItem(rows[wide]!) && rows[wide - 1]!.length >= 2 && !hasItem(rows[wide - 1]!)) wide--;
    if (wide > 0 && !rows.slice(0, wide).some(hasItem)) start = wide;
  }
  if (columnIsName) {
    // --column NAME: the header is the first row that has that name (rows above it are a preamble).
    const at = rows.findIndex((r) => r.some((h) => h.trim().toLowerCase() === columnFlag.toLowerCase()));
    if (at >= 0) start = at;
  }
  const head = rows[start] ?? [];
  const below = rows.slice(start + 1);
  /** A column's items in some rows: how many distinct ones, and the share of its filled cells that are items. */
  const distinct = (col: number, from: readonly string[][]) => {
    const keys = new Set<string>();
    let filled = 0;
    let good = 0;
    for (const r of from) {
      const v = r[col]?.trim() ?? '';
      if (v === '') continue;
      filled++;
      const it = looks(v);
      if (it) {
        good++;
        keys.add(it.key);
      }
    }
    return { distinct: keys.size, share: filled === 0 ? 0 : good / filled };
  };

  let hasHeader: boolean;
  if (overrides.noHeader) hasHeader = false;
  else if (columnIsName) hasHeader = true;
  else if (head.some((c) => headerScore(kind, c) > 0 && looks(c.trim()) === null)) hasHeader = true;
  else if (below.length > 0 && !hasItem(head)) {
    // No known name, but the first row has no item while the rows below have them: a header.
    const w = Math.max(head.length, width);
    hasHeader = Array.from({ length: w }, (_, c) => distinct(c, below)).some((d) => d.share >= 0.5);
  } else hasHeader = false;
  if (start > 0) notes.push(`${name}: skipped ${plural(start, 'line')} above the ${hasHeader ? 'header' : 'data'} (not records): ${preview(rows[0]!)}`);

  const header = hasHeader ? head.map((h) => h) : null;
  const data = hasHeader ? below : rows.slice(start);
  const tableWidth = Math.max(width, header?.length ?? 0);
  const column = chooseColumn(kind, header, data, tableWidth, columnFlag, name, notes, distinct);
  return { delimiter: p.delimiter, header, column, width: tableWidth, skipRecords: start + (hasHeader ? 1 : 0), sepLine: p.sepLine, notes };
}

function chooseColumn(
  kind: Kind,
  header: string[] | null,
  data: readonly string[][],
  width: number,
  flag: string | undefined,
  name: string,
  notes: string[],
  distinct: (col: number, from: readonly string[][]) => { distinct: number; share: number },
): number {
  if (flag !== undefined) {
    if (/^\d+$/.test(flag)) {
      const column = Number(flag) - 1;
      if (column < 0) throw usageError('--column counts from 1.');
      return column;
    }
    const column = (header ?? []).findIndex((h) => h.trim().toLowerCase() === flag.toLowerCase());
    if (column === -1) {
      const names = (header ?? []).map((h) => `"${h}"`).join(', ');
      throw usageError(`${name} has no column named "${flag}"${names ? ` (its columns: ${names})` : ''}.`);
    }
    return column;
  }
  const what = kind === 'emails' ? 'addresses' : 'domains';
  if (header) {
    // Among the columns whose header names the item: the most distinct items wins (a full main column with a
    // typo beats a nearly empty secondary one; an owner's address repeated on every row counts once); within
    // 10% of the most, the better name (Email over Billing Email, Value over Type).
    const matching = header
      .map((h, i) => ({ i, h, name: headerScore(kind, h), ...distinct(i, data) }))
      .filter((c) => c.name > 0);
    if (matching.length > 0) {
      const most = Math.max(...matching.map((c) => c.distinct));
      const ranked = [...matching].sort(
        (a, b) =>
          Number(b.distinct >= most * 0.9) - Number(a.distinct >= most * 0.9) || b.name - a.name || b.distinct - a.distinct || a.i - b.i,
      );
      const [chosen, next] = ranked as [(typeof ranked)[number], (typeof ranked)[number] | undefined];
      if (next && next.distinct > 0 && next.distinct >= chosen.distinct * 0.5) {
        // --column NAME gives the first column of that name: a namesake is picked by its number.
        const namesake = next.h.trim().toLowerCase() === chosen.h.trim().toLowerCase();
        const other = namesake ? `column ${next.i + 1}, also "${next.h}",` : `"${next.h}"`;
        notes.push(
          `${name}: took the column "${chosen.h}" (${chosen.distinct} distinct ${what} in the first rows; ${other} has ${next.distinct}); pick another with --column ${namesake ? next.i + 1 : 'NAME'}.`,
        );
      }
      return chosen.i;
    }
  }
  // No header names it: the first column whose values look like items (at least half of its filled cells).
  for (let c = 0; c < width; c++) if (distinct(c, data).share >= 0.5) return c;
  if (data.length === 0) return 0; // nothing but a header (or nothing): no records anyway
  throw inputError(`No column of ${name} looks like ${kind === 'emails' ? 'email addresses' : 'domains'}; name it with --column NAME or --column N.`);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A short view of a skipped row, for a note. */
function preview(row: readonly string[]): string {
  const text = row.filter((c) => c.trim() !== '').join(' ').replace(/\s+/g, ' ').trim();
  return `"${text.length > 60 ? text.slice(0, 59) + '…' : text}"`;
}
