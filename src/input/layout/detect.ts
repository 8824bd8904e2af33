// The shape of an input, guessed from its sample's records as the reader parses them (never physical lines): a
// vCard or LDIF file, a plain list (maybe of recipients), or CSV and its delimiter; the header and the rows above
// it; the item column. A row is skipped only when recognised as no record and holding no item-like text.
import type { Kind } from '../../core/defaults.js';
import type { VCardSkip } from './vcard.js';
import { IdvError, inputError, usageError, type ErrorKind } from '../../core/errors.js';
import { checkerFor, itemLike, itemShaped } from '../items/check.js';
import { quoteNotClosed, type RowBatch } from './csv-rows.js';
import { headerRank, isKnownName, normaliseHeader } from './headers.js';
import { addressIn, recipientsOf } from '../items/mailbox.js';
import { columnNamed, delimiterNamed, lineList, plural, preview } from './notes.js';
import { cellPlaces, isSectioned, NUMERIC, sectionHeader, sectionsOf, sectionTitle, unitedHeader } from './sections.js';

const DELIMITERS = [',', ';', '\t', '|'] as const;

/** Lines (or rows) the reader does not count as records, and why. */
export interface Skipped {
  lines: number[];
  why: 'above the header' | 'below the data' | 'header repeated' | 'section heading' | 'section without items' | VCardSkip;
}

export interface Layout {
  /** null: a plain list, one item a line (or several recipients a line). */
  delimiter: string | null;
  /** The header row, when there is one (a plain list can have one too: a single `email` line), and its line. */
  header: string[] | null;
  headerLine: number | null;
  /** 0-based. */
  column: number;
  /** The column that came next in the choice (for --dry-run), if any other holds items. */
  runnerUp: number | null;
  /** The table's width: the header's, or the usual number of cells in a row. */
  width: number;
  /** Which of the input's non-blank rows (0-based; lines of a plain list) are no records: rows above the header, the header. */
  skip: number[];
  /** An Excel `sep=X` first line to drop before parsing. */
  sepLine: boolean;
  /** A vCard file: only lines that hold an address are records. */
  vcard: boolean;
  /** An LDIF file (an address book's export), read as vCards are. */
  ldif: boolean;
  /** One line each for stderr: what was skipped, which column was taken when the choice was close. */
  notes: string[];
  /** What was skipped above the data, by line (for --dry-run). */
  skipped: Skipped[];
  /**
   * A report of sections (sections.ts), each under a header of its own: the first section's header as written, its
   * item column there, and --column when given (each section's own column of that name). `header`, `column` and
   * `width` are then those of the sections' headers united, which records are laid out under.
   */
  sections: { first: string[]; column: number; flag?: string } | null;
}

export interface LayoutOverrides {
  column?: string;
  delimiter?: string;
  noHeader?: boolean;
  noQuotes?: boolean;
  /** --keep-columns: a plain list's lines are kept as read, as the one cell of their record. */
  keepColumns?: boolean;
  encoding?: string;
  sheet?: string;
  /** A workbook's records carry their cells as read (InputRecord.cells): a workbook output writes them. */
  cellTypes?: boolean;
}

/** A record with nothing but blanks (`,,,` rows that spreadsheets leave below their data) is no record. */
export function isBlank(row: readonly string[]): boolean {
  return row.every((c) => c.trim() === '');
}

export function parseDelimiterFlag(value: string): string {
  const v = value.toLowerCase();
  if (v === '\\t' || v === 'tab') return '\t'; // a tab itself is one character: taken below
  if (v === 'comma') return ',';
  if (v === 'semicolon') return ';';
  if (v === 'pipe') return '|';
  if ([...value].length !== 1 || value === '"' || value === '\n' || value === '\r') {
    throw usageError(`--delimiter takes one character (or "tab"), not "${value}".`);
  }
  return value;
}

/** The sample: its text, and whether it is the whole input (else its last record may be cut). */
interface Sample {
  text: string;
  whole: boolean;
}

/** Rows of the sample under a delimiter, with their lines (csv-rows.ts's sampleRows). */
export type ParseSample = (text: string, delimiter: string, whole: boolean) => RowBatch;

interface Sniffed extends Omit<Parsed, 'sepLine'> {
  /** Share of the rows between the first and last full-width row that have the usual width. */
  consistency: number;
  firstFits: boolean;
  /** Rows with a cell that is an item: under the wrong one of two delimiters an item shares its cell (`a@x.com<TAB>Lee, Ann`). */
  itemRows: number;
}

function modeWidth(rows: readonly string[][]): number {
  const freq = new Map<number, number>();
  for (const r of rows) freq.set(r.length, (freq.get(r.length) ?? 0) + 1);
  let mode = 1;
  let best = 0;
  for (const [w, n] of freq) if (n > best || (n === best && w > mode)) [mode, best] = [w, n];
  return mode;
}

function nonBlank(b: RowBatch): RowBatch {
  const kept = b.rows.flatMap((r, i) => (isBlank(r) ? [] : [i]));
  return { rows: kept.map((i) => b.rows[i]!), lines: kept.map((i) => b.lines[i]!), openAt: b.openAt };
}

/** What a row holds, for lining rows up: an item (a footer's `Generated by dana@acme` is no row of the table), or item-like text. */
function rowTests(kind: Kind) {
  const check = checkerFor(kind);
  return {
    kind,
    hasItem: (row: readonly string[]) => row.some((c) => check(c) !== null),
    itemLike: (row: readonly string[]) => row.some((c) => itemLike(kind, c)),
  };
}
type RowTests = ReturnType<typeof rowTests>;

/**
 * How well rows line up under a delimiter. Rows above the first full-width row and below the last one are
 * left out of the count only when they look like a preamble or a footer (narrower, and no item-like text in
 * them): a row that holds one and does not fit counts against the delimiter.
 */
function sniff(b: RowBatch, delimiter: string, tests: RowTests): Sniffed {
  const { rows } = b;
  const width = usualWidth(rows, tests);
  const aside = (r: readonly string[]) => r.length < width && !tests.hasItem(r);
  // Some row has the usual width (usualWidth()), and is no aside: both loops stop at it.
  let first = 0;
  while (aside(rows[first]!)) first++;
  let last = rows.length - 1;
  while (aside(rows[last]!)) last--;
  const body = rows.slice(first, last + 1);
  const fit = body.filter((r) => r.length === width).length;
  // Under a first row of the table's width, narrower rows fit too when none is wider: Excel stops writing empty
  // end cells after its first rows; a column no row fills (or a header's trailing delimiter) leaves every row short.
  const head = body[0]!;
  const named = namesColumns(head) && !tests.itemLike(head);
  const loose = head.length === width && (fit >= 2 || named) && body.every((r) => r.length <= width) ? body.length : fit;
  const itemRows = body.filter((r) => tests.hasItem(r)).length;
  const consistency = body.length ? loose / body.length : 0;
  const sections = sectionsFit(rows, tests);
  // A report of sections is as wide as its first section's header, however many titles and summary rows it has.
  if (sections && sections.fit > consistency) return { delimiter, ...b, width: sections.width, consistency: sections.fit, firstFits: false, itemRows };
  return { delimiter, ...b, width, consistency, firstFits: rows[0]!.length === width, itemRows };
}

/**
 * How well the rows of a report of sections line up, each section under its own header (a Teams report's
 * participants 7 cells wide, its activities 6): the share of rows from the first header on as wide as their
 * section's header (a section's title aside), and the first header's width; null when the rows are no such report.
 */
function sectionsFit(rows: readonly string[][], tests: RowTests): { fit: number; width: number } | null {
  const first = rows.findIndex((r) => sectionHeader(tests.kind, r, true) !== null);
  if (first === -1 || !isSectioned(tests.kind, rows, first)) return null;
  const heads = sectionsOf(tests.kind, rows, first);
  let fit = 0;
  let counted = 0;
  heads.forEach((h, k) => {
    const end = heads[k + 1]?.at ?? rows.length;
    const width = rows[h.at]!.length;
    for (let i = h.at + 1; i < end; i++) {
      if (i === end - 1 && k + 1 < heads.length && sectionTitle(tests.kind, rows[i]!)) continue;
      counted++;
      if (rows[i]!.length === width) fit++;
    }
  });
  return { fit: counted ? fit / counted : 0, width: rows[first]!.length };
}

/** Decide the layout from the sample. */
export function detectLayout(kind: Kind, sample: Sample, overrides: LayoutOverrides, name: string, parse: ParseSample): Layout {
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
  const first = sepLine ? 2 : 1; // the line the parsed text starts on
  const at = (b: RowBatch): RowBatch => (first === 1 ? b : { rows: b.rows, lines: b.lines.map((l) => l + 1), openAt: b.openAt && b.openAt + 1 });

  // A column not found where the rows were split is often one split by another delimiter: that is the fix to name.
  const orAnother = (tried: string | null, layout: () => Layout): Layout => {
    try {
      return layout();
    } catch (err) {
      throw err instanceof NoSuchColumn ? withDelimiterFix(err, { kind, text, whole: sample.whole, parse, tried, overrides, name, at }) : err;
    }
  };
  if (delimiter !== null) {
    const b = nonBlank(at(parse(text, delimiter, sample.whole)));
    return orAnother(delimiter, () => csvLayout(kind, { delimiter: delimiter!, ...b, width: usualWidth(b.rows, rowTests(kind)), sepLine }, overrides, name));
  }
  const lines = physicalLines(text, sample.whole);
  if (/^begin:vcard\s*$/i.test(lines[0]?.text ?? '')) return plainLayout(lines, overrides, name, 'vcard');
  if (/^(version:[ \t]*1[ \t]*$|dn::?[ \t])/i.test(lines[0]?.text ?? '')) return plainLayout(lines, overrides, name, 'ldif');
  const quoted = lines.length > 0 && lines.filter((l) => /^\s*".*"\s*$/.test(l.text)).length >= lines.length * 0.6;
  if (!quoted && recipientLines(lines)) return orAnother(null, () => plainLayout(lines, overrides, name, null));
  const best = guessDelimiter(text, sample.whole, parse, rowTests(kind), name);
  if (best) return orAnother(best.delimiter, () => csvLayout(kind, { ...best, sepLine }, overrides, name));
  // A one-column CSV whose values are quoted ("jane@x.com"): read as CSV, so that the quotes are no part of them.
  if (quoted) {
    const b = nonBlank(parse(text, ',', sample.whole));
    return orAnother(',', () => csvLayout(kind, { delimiter: ',', ...b, width: 1, sepLine }, overrides, name));
  }
  return orAnother(null, () => plainLayout(lines, overrides, name, null));
}

/** A column that is not where the rows were split: what happened (`what`), and the message when no delimiter is the fix. */
class NoSuchColumn extends IdvError {
  constructor(
    kind: ErrorKind,
    readonly what: string,
    message: string,
  ) {
    super(kind, message);
  }
}

interface Retry {
  kind: Kind;
  text: string;
  whole: boolean;
  parse: ParseSample;
  /** The delimiter the rows were split by (null: a plain list). */
  tried: string | null;
  overrides: LayoutOverrides;
  name: string;
  at: (b: RowBatch) => RowBatch;
}

/**
 * The error again, naming `--delimiter D` as the fix when the rows split by D have the column asked for (the
 * one --column names, or one of items) and it holds items; as it was when no delimiter does that.
 */
function withDelimiterFix(err: NoSuchColumn, r: Retry): IdvError {
  const check = checkerFor(r.kind);
  for (const d of DELIMITERS) {
    if (d === r.tried || !r.text.includes(d)) continue;
    const b = nonBlank(r.at(r.parse(r.text, d, r.whole)));
    let layout: Layout;
    try {
      layout = csvLayout(r.kind, { delimiter: d, ...b, width: usualWidth(b.rows, rowTests(r.kind)), sepLine: false }, { ...r.overrides, delimiter: d }, r.name);
    } catch {
      continue;
    }
    const below = b.rows.slice(layout.skip.length ? Math.max(...layout.skip) + 1 : 0);
    if (layout.width < 2 || !below.some((row) => check(row[layout.column] ?? '') !== null)) continue;
    const instead = r.tried === null ? '' : ` instead of ${delimiterNamed(r.tried)}`;
    const column = columnNamed(layout, layout.column);
    const shown = delimiterNamed(d);
    const message = `${err.what}; split by ${shown}${instead}, its ${column} holds them: give --delimiter ${shown}.`;
    return new IdvError(err.kind, message);
  }
  return err;
}

interface Line {
  text: string;
  /** Its number, from 1. */
  line: number;
}

/** The sample's non-blank physical lines (a line cut by the sample's end left out). */
function physicalLines(text: string, whole: boolean): Line[] {
  const all = text.split(/\r\n|\n|\r/);
  if (!whole) all.pop();
  return all.map((text, i) => ({ text, line: i + 1 })).filter((l) => l.text.trim() !== '');
}

/**
 * Whether the lines are recipients pasted from a mail client: every line (after a header name) a list of
 * addresses or mailbox forms, and something no CSV of addresses has — recipients separated by `, ` or `; `, a
 * separator at a line's end (Outlook), different counts on different lines, a single line — or one mailbox form
 * a line. Lines of two addresses or more, as many on each, split without a space, stay a CSV.
 */
function recipientLines(lines: readonly Line[]): boolean {
  const body = lines.length > 0 && isKnownName(lines[0]!.text) ? lines.slice(1) : lines;
  const counts = new Set<number>();
  let spaced = false; // `, ` or `; ` between recipients, or a separator ending a line (Outlook)
  let forms = false; // a display name, <…>, mailto:…
  for (const { text } of body) {
    const parts = recipientsOf(text);
    if (parts === null) return false;
    counts.add(parts.length);
    if (/[,;]\s*$|[,;] /.test(text)) spaced = true;
    if (parts.some((p) => addressIn(p) !== p)) forms = true;
  }
  if (spaced || counts.size > 1 || body.length === 1) return true;
  // As many on every line, split without a space: mailbox forms are recipients (a display name may hold a comma);
  // bare addresses, or one the same on every line (an owner's), are the columns of a CSV.
  return forms && !(counts.has(1) ? false : sameColumn(body.map((l) => recipientsOf(l.text)!)));
}

/** The table's width: the usual number of cells in a row, or the width its first rows give when that is more. */
function usualWidth(rows: readonly string[][], tests: RowTests): number {
  return Math.max(modeWidth(rows), tableWidth(rows, tests));
}

/**
 * The width the table's first rows give, when most rows dropped their empty end cells (Excel's CSV after its first
 * rows, a workbook's rows): a header naming its columns above any item-like text, or three of the first rows of
 * one width; no row wider. 0 when neither.
 */
function tableWidth(rows: readonly string[][], tests: RowTests): number {
  const at = rows.findIndex((r) => r.length >= 2);
  if (at === -1 || at >= HEADER_WITHIN) return 0;
  const w = rows[at]!.length;
  if (rows.some((r) => r.length > w)) return 0;
  const header = !rows.slice(0, at + 1).some((r) => tests.itemLike(r)) && namesColumns(rows[at]!);
  const firstRows = at <= 4 && rows.length >= at + 3 && rows.slice(at, at + 3).every((r) => r.length === w);
  return header || firstRows ? w : 0;
}

/** Whether some place holds the same text on every line (recipientLines() asks of two lines or more). */
function sameColumn(lines: readonly string[][]): boolean {
  return lines[0]!.some((v, i) => lines.every((l) => l[i] === v));
}

/** The delimiter under which the rows line up best: most rows of the usual width (at least 2 cells). */
function guessDelimiter(text: string, whole: boolean, parse: ParseSample, tests: RowTests, name: string): Sniffed | null {
  let best: Sniffed | null = null;
  let ragged: Sniffed | null = null;
  for (const delimiter of DELIMITERS) {
    if (!text.includes(delimiter)) continue;
    const b = nonBlank(parse(text, delimiter, whole));
    if (b.rows.length === 0) continue;
    const s = sniff(b, delimiter, tests);
    if (s.width < 2) continue;
    if (s.consistency < 0.6) {
      // Most rows split, but not into the same number of cells: a CSV that cannot be aligned with confidence.
      const split = b.rows.filter((r) => r.length >= 2).length;
      if (split >= 2 && split > b.rows.length / 2 && (!ragged || s.consistency > ragged.consistency)) ragged = s;
      continue;
    }
    // A header usually fits the table's width (a decimal comma in `;` data must not win over `;`); between
    // delimiters that line rows up as well, the one whose cells hold the items whole.
    const better =
      !best ||
      (s.firstFits && !best.firstFits) ||
      (s.firstFits === best.firstFits &&
        (s.consistency > best.consistency ||
          (s.consistency === best.consistency && (s.itemRows > best.itemRows || (s.itemRows === best.itemRows && s.width > best.width)))));
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

function plainLayout(lines: readonly Line[], overrides: LayoutOverrides, name: string, cards: 'vcard' | 'ldif' | null): Layout {
  const c = overrides.column?.trim();
  const firstLine = lines[0]?.text.trim() ?? '';
  if (c !== undefined && c !== '1' && firstLine.toLowerCase() !== c.toLowerCase()) {
    const what = `${name} is a plain list (one item a line), so --column can only be 1 or its header`;
    throw new NoSuchColumn('usage', what, `${what}.`);
  }
  // Only an exact known name (of either kind: `email` atop a list given to idv domains) is a header:
  // "not-an-email", "jane.doe@hotmail" or "localhost" are items.
  const isHeader = cards === null && !overrides.noHeader && lines.length > 0 && (isKnownName(firstLine) || (c !== undefined && c !== '1'));
  const layout = emptyLayout(null);
  layout.vcard = cards === 'vcard';
  layout.ldif = cards === 'ldif';
  if (isHeader) {
    layout.header = [lines[0]!.text]; // as written: --keep-columns writes it back
    layout.headerLine = lines[0]!.line;
    layout.skip = [0];
  }
  return layout;
}

function emptyLayout(delimiter: string | null): Layout {
  return { delimiter, header: null, headerLine: null, column: 0, runnerUp: null, width: 1, skip: [], sepLine: false, vcard: false, ldif: false, notes: [], skipped: [], sections: null };
}

interface Parsed extends RowBatch {
  delimiter: string;
  width: number;
  sepLine: boolean;
}

/**
 * The layout of a table's rows from another reader (a workbook's first rows): header, rows above it, item column,
 * as for CSV; `delimiter` is what --keep-columns writes between cells.
 */
export function tableLayout(kind: Kind, sample: RowBatch, delimiter: string, overrides: LayoutOverrides, name: string): Layout {
  const b = nonBlank(sample);
  return csvLayout(kind, { delimiter, ...b, width: usualWidth(b.rows, rowTests(kind)), sepLine: false }, overrides, name);
}

function csvLayout(kind: Kind, p: Parsed, overrides: LayoutOverrides, name: string): Layout {
  const { rows } = p;
  // The whole input is in the sample: a quote that never closes is said now, before anything is sent.
  if (p.openAt !== undefined) throw quoteNotClosed(name, p.openAt);
  const h = headerRow(kind, p, overrides);
  const header = h === -1 ? null : rows[h]!;
  const sections = header !== null && isSectioned(kind, rows, h) ? sectionsOf(kind, rows, h) : null;
  // A report of sections: the column is chosen in the first (each of the others has its own, read as it comes).
  const next = sections?.[1]?.at;
  const data = rows.slice(h + 1, next === undefined ? undefined : sectionTitle(kind, rows[next - 1]!) ? next - 1 : next);
  const layout = emptyLayout(p.delimiter);
  layout.sepLine = p.sepLine;
  layout.width = Math.max(p.width, header?.length ?? 0);
  if (header) {
    layout.header = header;
    layout.headerLine = p.lines[h]!;
    // Rows above the header that hold no item-like text are a preamble; any that do are records.
    const above = rows.slice(0, h).map((r, i) => ({ r, i })).filter(({ r }) => !r.some((c) => itemLike(kind, c)));
    layout.skip = [...above.map(({ i }) => i), h];
    if (above.length) {
      const lines = above.map(({ i }) => p.lines[i]!);
      layout.skipped.push({ lines, why: 'above the header' });
      layout.notes.push(`${name}: skipped ${lineList(lines)} above the header (not ${lines.length === 1 ? 'a record' : 'records'}): ${preview(above[0]!.r)}`);
    }
  }
  const choice = chooseColumn({ kind, header, data, width: sections ? header!.length : layout.width, overrides, name });
  layout.column = choice.column;
  layout.runnerUp = choice.runnerUp;
  if (choice.note) layout.notes.push(choice.note);
  return sections ? unitedLayout(layout, sections.map((s) => rows[s.at]!), overrides) : layout;
}

/** A report's layout: records laid out under the names of its sections' headers united (sections.ts). */
function unitedLayout(layout: Layout, headers: string[][], overrides: LayoutOverrides): Layout {
  const first = headers[0]!;
  const united = unitedHeader(headers);
  const places = cellPlaces(first, united);
  const at = (c: number | null) => (c === null || places[c] === undefined || places[c] === -1 ? null : places[c]!);
  const flag = overrides.column?.trim();
  return {
    ...layout,
    header: united,
    width: united.length,
    column: at(layout.column) ?? layout.column,
    runnerUp: at(layout.runnerUp),
    sections: { first, column: layout.column, ...(flag !== undefined && !/^\d+$/.test(flag) ? { flag } : {}) },
  };
}

/** The rows a header is looked for in. */
const HEADER_WITHIN = 50;

/**
 * The index of the header row, or -1. A header holds no item-like text:
 *   - --column NAME: the first row that has that name;
 *   - a row naming an item column (of either kind, in any language idv knows) and its other columns, under no
 *     row of the table's width that holds item-like text (narrower ones above it are records, not a preamble);
 *   - else the first row as wide as the table (or the narrower row right above rows that are), when its cells are
 *     all names (none empty where the items are, none a number) and some column below it is mostly items.
 */
function headerRow(kind: Kind, p: Parsed, overrides: LayoutOverrides): number {
  const { rows, width } = p;
  const hasItem = (r: readonly string[]) => r.some((c) => itemLike(kind, c));
  const flag = overrides.column?.trim();
  if (flag !== undefined && !/^\d+$/.test(flag)) {
    const named = rows.findIndex((r) => r.some((c) => sameName(c, flag)));
    if (named !== -1) return named;
  }
  if (overrides.noHeader) return -1;
  const limit = Math.min(rows.length, HEADER_WITHIN);
  for (let i = 0; i < limit; i++) {
    const r = rows[i]!;
    if (hasItem(r)) {
      if (r.length >= width) break; // a row of data: no header below it
      continue; // a note above the table that holds an address: a record, and the header may come below
    }
    const named = r.some((c) => headerRank('emails', c) >= 1 || headerRank('domains', c) >= 1 || isKnownName(c));
    // A report's section header may leave a column unnamed (GoToWebinar's `Attended,,Interest Rating,…,Email`).
    if (named && (width === 1 || namesColumns(r) || sectionHeader(kind, r) !== null)) return i;
  }
  let wide = rows.findIndex((r) => r.length >= width);
  // A data row right under a narrower row of several cells without items: that row is the header (rows that
  // end in a delimiter under a header that does not), not a preamble line.
  if (wide > 0 && hasItem(rows[wide]!) && rows[wide - 1]!.length >= 2 && !hasItem(rows[wide - 1]!)) wide--;
  if (wide < 0 || rows.slice(0, wide + 1).some(hasItem)) return -1;
  const head = rows[wide]!;
  const below = rows.slice(wide + 1);
  if (head.some((c) => c.trim() !== '' && NUMERIC.test(c))) return -1;
  const check = checkerFor(kind);
  const itemColumn = (c: number) => {
    const filled = below.map((r) => r[c]?.trim() ?? '').filter((v) => v !== '');
    return filled.length > 0 && filled.filter((v) => check(v) !== null).length >= filled.length * 0.5;
  };
  // A column under no name is no reason for a header, nor is one with nothing below it.
  return head.some((name, c) => name.trim() !== '' && itemColumn(c)) ? wide : -1;
}

/**
 * A row that names its columns: two names or more, none a number, no empty cell before the last name (a row of
 * data often has one).
 */
function namesColumns(r: readonly string[]): boolean {
  const cells = r.map((c) => c.trim());
  while (cells.length && cells[cells.length - 1] === '') cells.pop();
  return cells.length >= 2 && cells.every((c) => c !== '' && !NUMERIC.test(c));
}

/** Whether a header cell is the name --column gives: the same letters, or the same once normalised. */
function sameName(cell: string, name: string): boolean {
  const a = cell.trim().toLowerCase();
  const b = name.trim().toLowerCase();
  return a === b || (normaliseHeader(a) !== '' && normaliseHeader(a) === normaliseHeader(b));
}

interface Column {
  i: number;
  name: string;
  rank: number;
  /** Distinct cells shaped like an item (mistyped ones too), distinct valid items, filled cells. */
  shaped: number;
  valid: number;
  filled: number;
  /** Cells that are items, repeats counted (a tie of distinct items, all at one domain, goes to the fuller column). */
  hits: number;
  /** The first few distinct values, for a message. */
  seen: string[];
}

function columnStats(kind: Kind, header: readonly string[] | null, data: readonly string[][], width: number): Column[] {
  const check = checkerFor(kind);
  return Array.from({ length: width }, (_, i) => {
    const shaped = new Set<string>();
    const valid = new Set<string>();
    const seen = new Set<string>();
    let filled = 0;
    let hits = 0;
    for (const r of data) {
      const v = r[i]?.trim() ?? '';
      if (v === '') continue;
      filled++;
      if (seen.size < 3) seen.add(v);
      const item = check(v);
      if (item) {
        hits++;
        valid.add(item.key);
        shaped.add(item.key);
      } else if (itemShaped(kind, v)) shaped.add(v);
    }
    const name = header?.[i] ?? '';
    return { i, name, rank: headerRank(kind, name), shaped: shaped.size, valid: valid.size, filled, hits, seen: [...seen] };
  });
}

/** Within reach of the most: at least 90% as many, or one fewer (a typo in a small sample). */
const close = (a: number, most: number) => a >= most * 0.9 || a >= most - 1;

/** The rows a column is chosen from, and what messages need: the file's name, the flags given. */
interface Table {
  kind: Kind;
  header: readonly string[] | null;
  data: readonly string[][];
  width: number;
  overrides: LayoutOverrides;
  name: string;
}

interface ColumnChoice {
  column: number;
  runnerUp: number | null;
  /** When the runner-up came close: which was taken, and how to take the other. */
  note?: string;
}

/**
 * The item column: the one --column names, else the best of the columns holding items (bestColumn()); a table
 * without items has one only where a header names it.
 */
function chooseColumn(table: Table): ColumnChoice {
  const columns = columnStats(table.kind, table.header, table.data, table.width);
  const flag = table.overrides.column?.trim();
  if (flag !== undefined) return { column: givenColumn(flag, columns, table), runnerUp: null };
  const candidates = columns.filter((c) => c.shaped > 0);
  if (candidates.length > 0) {
    // Against columns holding a single item cell (a stream's first row), an empty column named exactly for the
    // item competes too.
    const few = Math.max(...candidates.map((c) => c.hits)) <= 1;
    const named = few ? columns.filter((c) => c.rank === 4 && c.filled === 0) : [];
    return bestColumn([...candidates, ...named].sort((a, b) => a.i - b.i), table);
  }
  // Nothing but empty cells under a name of the item column (LinkedIn hides most addresses): that column.
  const empty = columns.find((c) => c.rank >= 3 && c.filled === 0);
  // With no rows every column is empty: a named one is `empty`, else none is named, and the first serves.
  if (empty || table.data.length === 0) return { column: empty?.i ?? 0, runnerUp: null };
  const named = [...columns].filter((c) => c.rank >= 1 && c.filled > 0).sort((a, b) => b.rank - a.rank)[0];
  if (named) throw noItems(named, table);
  const what = `No column of ${table.name} looks like ${itemsWord(table.kind)}`;
  throw new NoSuchColumn('input', what, `${what}; name it with --column NAME or --column N.`);
}

const itemsWord = (kind: Kind) => (kind === 'emails' ? 'email addresses' : 'domains');

/** --column NAME|N, when the table has that column and it holds items (or nothing). */
function givenColumn(flag: string, columns: Column[], table: Table): number {
  const column = flagColumn(flag, table.header, table.name);
  const chosen = columns[column];
  if (chosen && chosen.shaped === 0 && chosen.filled > 0) throw noItems(chosen, table);
  if (!chosen && table.data.length > 0) {
    const what = `${table.name} has ${plural(table.width, 'column')}, so it has no column ${column + 1}`;
    throw new NoSuchColumn('input', what, `${what}; give --column N with N from 1 to ${table.width}.`);
  }
  return column;
}

/**
 * Columns holding items compete (where a header names the item column, only those); among those within reach of
 * the most distinct items (close()), the better name wins, then as the sort says. A repeated value counts once (an
 * owner's address on every row loses to the contacts'); a typo still counts as an item (`kim@gmail`).
 */
function bestColumn(candidates: Column[], table: Table): ColumnChoice {
  const pool = candidates.some((c) => c.rank >= 2) ? candidates.filter((c) => c.rank >= 2) : candidates;
  const most = Math.max(...pool.map((c) => c.shaped));
  // The columns come in their order and sort() is stable: on a tie, the first.
  const ranked = [...pool].sort(
    (a, b) => Number(close(b.shaped, most)) - Number(close(a.shaped, most)) || b.rank - a.rank || b.shaped - a.shaped || b.valid - a.valid || b.hits - a.hits,
  );
  const chosen = ranked[0]!;
  const others = candidates.filter((c) => c !== chosen);
  const inPool = new Set(pool); // asked in a sort: a lookup in the array made it quadratic in the columns
  const next = others.sort((a, b) => Number(inPool.has(b)) - Number(inPool.has(a)) || b.shaped - a.shaped || b.rank - a.rank)[0];
  const near = next && inPool.has(next) && next.shaped >= chosen.shaped * 0.5;
  return { column: chosen.i, runnerUp: next?.i ?? null, note: near ? closeCallNote(chosen, next, table) : undefined };
}

/** The note of a close choice; --column NAME gives the first column of that name, so a namesake is picked by its number. */
function closeCallNote(chosen: Column, next: Column, table: Table): string {
  const namesake = next.name.trim().toLowerCase() === chosen.name.trim().toLowerCase();
  const other = namesake ? `column ${next.i + 1}, also "${next.name}",` : `"${next.name}"`;
  const which = table.kind === 'emails' ? (chosen.shaped === 1 ? 'address' : 'addresses') : chosen.shaped === 1 ? 'domain' : 'domains';
  return `${table.name}: took the column "${chosen.name}" (${chosen.shaped} distinct ${which} in the first rows; ${other} has ${next.shaped}); pick another with --column ${namesake ? next.i + 1 : 'NAME'}.`;
}

/** --column NAME|N: the column's index. */
function flagColumn(flag: string, header: readonly string[] | null, name: string): number {
  if (/^\d+$/.test(flag)) {
    const column = Number(flag) - 1;
    if (column < 0) throw usageError('--column counts from 1.');
    return column;
  }
  const names = header ?? [];
  let column = names.findIndex((h) => h.trim().toLowerCase() === flag.toLowerCase());
  if (column === -1) column = names.findIndex((h) => sameName(h, flag));
  if (column === -1) {
    const said = names.map((h) => `"${h}"`).join(', ');
    const what = `${name} has no column named "${flag}"`;
    throw new NoSuchColumn('usage', what, `${what}${said ? ` (its columns: ${said})` : ''}.`);
  }
  return column;
}

/** A chosen column that holds text but no item: an input error naming the column and what it holds. */
function noItems(column: Column, table: Table) {
  const label = `column ${column.i + 1}${column.name.trim() ? ` ("${column.name}")` : ''}`;
  const holds = column.seen.map((v) => `"${v.length > 40 ? v.slice(0, 39) + '…' : v}"`).join(', ');
  const given = table.overrides.delimiter;
  const split = given !== undefined ? otherDelimiter(table.data, given) : null;
  const remedy = split
    ? `its rows look split by "${split === '\t' ? 'tab' : split}": give --delimiter "${split === '\t' ? 'tab' : split}".`
    : 'name the column that holds them with --column NAME or --column N.';
  const what = `${table.name}: ${label} holds no ${itemsWord(table.kind)} (its first rows hold ${holds})`;
  return new NoSuchColumn('input', what, `${what}; ${remedy}`);
}

/** The delimiter the rows would split by, when --delimiter gave another. */
function otherDelimiter(data: readonly string[][], given: string): string | null {
  const delimiter = parseDelimiterFlag(given);
  const cells = data.flatMap((r) => r).slice(0, 50);
  // Never empty: noItems() is asked about a column that holds text.
  for (const other of DELIMITERS) {
    if (other !== delimiter && cells.every((c) => c.includes(other))) return other;
  }
  return null;
}
