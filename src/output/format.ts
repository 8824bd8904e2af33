// One formatter per format. Each turns blocks of output records into text (a workbook: into rows of cells);
// the sink writes it.
import type { Chalk } from './colors.js';
import { terminalSafe } from '../system/terminal-text.js';
import { STATUS_COLOUR } from '../core/statuses.js';
import type { TypedCell } from '../xlsx/cell.js';
import { usageError } from '../core/errors.js';
import { displayWidth, fitEndToWidth, fitToWidth, padEndTo } from '../system/display-width.js';

export type Format = 'table' | 'csv' | 'json' | 'ndjson' | 'xlsx';
export const FORMATS: readonly Format[] = ['table', 'csv', 'json', 'ndjson', 'xlsx'];

/** A cell of a workbook's row: text, or a cell read from a workbook with its type (xlsx/cell.ts). */
export type SheetCell = string | TypedCell;

/** Rows for a workbook (workbook-sink.ts): the header comes first, once. */
export interface SheetRows {
  readonly header?: readonly string[];
  readonly rows: ReadonlyArray<readonly SheetCell[]>;
}

/** What a formatter hands its sink: text, or a workbook's rows. */
export type Chunk = string | SheetRows;

export interface OutRecord {
  item: string;
  status: string;
  /** The input row, for --keep-columns (null for plain lists). */
  fields: string[] | null;
  /** A workbook's row as read, cell by cell (fields[i] is cells[i].text), when a workbook output writes them. */
  cells?: readonly TypedCell[];
}

export interface FormatOptions {
  /** `email` or `domain`. */
  column: string;
  keepColumns: boolean;
  /** Input header and delimiter (first source), for --keep-columns. */
  header: string[] | null;
  delimiter: string | null;
  /** The table's width (its header's, or its usual number of cells): short rows are padded to it. */
  width?: number;
  /** --suggest: the suggestion for an item, or null; a `suggestion` field is added. */
  suggest?: ((item: string) => string | null) | null;
  /** --safe-csv: cells that a spreadsheet would run as a formula get a leading `'` (CSV only). */
  safeCsv?: boolean;
  /** The UTF-8 byte-order mark first, which Excel needs to open a CSV as UTF-8 (CSV only: outputs.ts decides). */
  bom?: boolean;
  /** With --keep-columns, the 0-based column of the item (the table keeps it whatever the width). */
  itemColumn?: number;
  /** The table's widest line: the terminal's width; undefined off a terminal (no line is cut). */
  lineWidth?: number;
  /** A live input: the table is shown from its first records on, not after 500 of them. */
  live?: boolean;
  chalk?: Chalk | null;
}

export interface Formatter {
  begin(): Chunk;
  /** Text (or a workbook's rows) for these records, in order. */
  records(block: OutRecord[]): Chunk;
  end(): Chunk;
}

interface Layout {
  /** Column names for CSV and table (the input's header as it is, plus status). */
  names: string[];
  /** How many of the columns are the input's (the rest are idv's: status, suggestion). */
  cells: number;
  /** The same columns as unique keys, for JSON (see keyNames). */
  keys: string[];
  values(r: OutRecord): string[];
}

/**
 * Column names and values of a record, as the options lay it out. With --keep-columns every cell of the
 * input row is kept: a short row is padded to the table's width, `status` (and `suggestion`) come next, and
 * cells beyond the table's width follow them, so that `status` always sits under its header.
 */
function layout(o: FormatOptions): Layout {
  const extra = o.suggest ? ['suggestion'] : [];
  const ours = (r: OutRecord) => (o.suggest ? [r.status, o.suggest(r.item) ?? ''] : [r.status]);
  if (!o.keepColumns) {
    const names = [o.column, 'status', ...extra];
    return { names, keys: names, cells: 1, values: o.suggest ? (r) => [r.item, ...ours(r)] : (r) => [r.item, r.status] };
  }
  if (o.delimiter === null) {
    // A plain list is a table of one column: its header as written (idv's name when it has none), each
    // line as read.
    const names = [o.header?.[0] ?? o.column, 'status', ...extra];
    return { names, keys: keyNames([names[0]!], names.slice(1)), cells: 1, values: (r) => [r.fields?.[0] ?? r.item, ...ours(r)] };
  }
  // The width cells are laid out to; 0 (not known) keeps each row as it is.
  const width = Math.max(o.width ?? 0, o.header?.length ?? 0);
  const header = o.header ? [...o.header, ...Array<string>(width - o.header.length).fill('')] : null;
  const names = header ? [...header, 'status', ...extra] : [];
  const keys = keyNames(header ?? Array.from({ length: width }, () => ''), ['status', ...extra]);
  return {
    names,
    keys,
    cells: width,
    values: (r) => {
      const f = r.fields ?? [r.item];
      const w = width || f.length;
      const row = f.length < w ? [...f, ...Array<string>(w - f.length).fill('')] : f.slice(0, w);
      row.push(...ours(r));
      if (f.length > w) row.push(...f.slice(w));
      return row;
    },
  };
}

/**
 * JSON keys for the input's columns, made unique: an empty name is `columnN` (N its position from 1), a
 * name met again gets `_2`, `_3`…, and idv's own names (`status`, `suggestion`) are taken first, so that an
 * input column called `status` becomes `status_2`. Cells beyond the header are `columnN` too.
 */
function keyNames(header: string[], ours: string[]): string[] {
  const taken = new Set(ours);
  const unique = (wanted: string) => {
    let name = wanted;
    for (let n = 2; taken.has(name); n++) name = `${wanted}_${n}`;
    taken.add(name);
    return name;
  };
  const keys = header.map((h, i) => unique(h === '' ? `column${i + 1}` : h));
  return [...keys, ...ours];
}

/** The key of a cell past the header (a row longer than the table): columnN, made unique. */
function extraKey(keys: readonly string[], position: number): string {
  let name = `column${position + 1}`;
  for (let n = 2; keys.includes(name); n++) name = `column${position + 1}_${n}`;
  return name;
}

export async function createFormatter(format: Format, o: FormatOptions): Promise<Formatter> {
  switch (format) {
    case 'csv':
      return csvFormatter(o, (await import('csv-stringify/sync')).stringify);
    case 'json':
      return jsonFormatter(o, false);
    case 'ndjson':
      return jsonFormatter(o, true);
    case 'table':
      return tableFormatter(o);
    case 'xlsx':
      return xlsxFormatter(o);
  }
}

/**
 * A workbook's rows: the columns as csv lays them out, under a header row (with --keep-columns and no input
 * header, the names JSON gives: column1, column2…, status); each cell read from a workbook keeps its type
 * (number, date, text, boolean) and number format, every other cell is text. Text cells are never formulas.
 */
function xlsxFormatter(o: FormatOptions): Formatter {
  const { names, keys, values, cells } = layout(o);
  const ours = keys.length - cells;
  const header = o.keepColumns && o.delimiter !== null && o.header === null ? keys : names;
  const row = (r: OutRecord): SheetCell[] => {
    const v: SheetCell[] = values(r);
    const typed = r.cells;
    if (typed === undefined) return v;
    // The input's cells sit before status (up to the table's width) and after it (beyond the width).
    const width = cells || typed.length;
    for (let i = 0; i < typed.length; i++) {
      const at = i < width ? i : i + ours;
      if (at < v.length && typed[i]!.type !== 'empty') v[at] = typed[i]!;
    }
    return v;
  };
  return {
    begin: () => ({ header, rows: [] }),
    records: (block) => ({ rows: block.map(row) }),
    end: () => '',
  };
}

type Stringify = (typeof import('csv-stringify/sync'))['stringify'];

/** U+FEFF, which UTF-8 writes as EF BB BF. */
const BOM = '\ufeff';

/**
 * CSV through csv-stringify, a block of records at a time: RFC 4180 quoting (a cell holding the delimiter,
 * a quote, CR or LF is quoted, its quotes doubled), `\n` record ends, the input's delimiter with
 * --keep-columns, and csv-stringify's own formula escaping for --safe-csv.
 */
function csvFormatter(o: FormatOptions, stringify: Stringify): Formatter {
  const { names, values } = layout(o);
  const options = {
    delimiter: o.keepColumns && o.delimiter ? o.delimiter : ',',
    record_delimiter: '\n',
    // A cell holding CR or LF is quoted whatever the record end (csv-stringify quotes only its own by default).
    quote_record_delimiter: true,
    escape_formulas: o.safeCsv === true,
  };
  const keepWithoutHeader = o.keepColumns && o.delimiter !== null && o.header === null;
  return {
    begin: () => (o.bom ? BOM : '') + (keepWithoutHeader ? '' : stringify([names], options)),
    records: (block) => stringify(block.map(values), options),
    end: () => '',
  };
}

function jsonFormatter(o: FormatOptions, lines: boolean): Formatter {
  const { keys, values, cells } = layout(o);
  const ours = keys.length - cells;
  // values: [input cells…, status, (suggestion), cells past the header…] → the cells, then status (and suggestion) last.
  const toObject = (r: OutRecord): string => {
    const v = values(r);
    const obj: Record<string, string> = {};
    for (let i = 0; i < cells; i++) obj[keys[i]!] = v[i]!;
    for (let i = keys.length; i < v.length; i++) obj[extraKey(keys, i - ours)] = v[i]!;
    for (let i = cells; i < keys.length; i++) obj[keys[i]!] = v[i]!;
    return JSON.stringify(obj);
  };
  if (lines) {
    return {
      begin: () => '',
      records: (block) => block.map((r) => toObject(r) + '\n').join(''),
      end: () => '',
    };
  }
  let first = true;
  return {
    begin: () => '[',
    records: (block) => {
      let out = '';
      for (const r of block) {
        out += (first ? '\n  ' : ',\n  ') + toObject(r);
        first = false;
      }
      return out;
    },
    end: () => (first ? ']\n' : '\n]\n'),
  };
}

const TABLE_SAMPLE = 500;
const MAX_CELL = 60;
/** A column cut to fit the line keeps at least this many columns of text (else it is left out). */
const MIN_CUT = 6;
const GAP = 2;

/**
 * Aligned columns. Widths come from the first records (a table is for people; lists are streamed). On a
 * terminal (`lineWidth`) no line is wider than it: the item and status columns always stay, the others are
 * kept from the left while they fit, the first that does not is cut with `…`, and the rest are left out, a
 * column of `…` where they would be (csv and json have them all).
 */
function tableFormatter(o: FormatOptions): Formatter {
  const { names, values: raw, cells } = layout(o);
  // A table is for a person: cells from the file or the service are shown with control characters escaped.
  const values = (r: OutRecord) => raw(r).map(terminalSafe);
  // The item and status always, and --suggest's column (what it is for): [item, status, suggestion].
  const must = [...(o.keepColumns && o.delimiter !== null ? [o.itemColumn ?? 0, cells] : [0, 1]), ...(o.suggest ? [cells + 1] : [])];
  const statusAt = must[1]!;
  const suggestionAt = o.suggest ? cells + 1 : -1;
  const chalk = o.chalk ?? null;
  let plan: TablePlan | null = null;
  let held: OutRecord[] = [];
  const colour = (status: string, text: string) => (chalk ? statusColour(chalk, status)(text) : text);
  const line = (cells: string[], status?: string, header = false) => {
    const { columns, widths } = plan!;
    // A cell longer than its column (a record after the sample) may use what the line has to spare; a header
    // cut to its column's cells stays within it, over them.
    let spare = header ? 0 : plan!.slack;
    const out = columns.map((c, k) => {
      if (c === ELIDED) return '…';
      const width = widths[k]!;
      const text = fitCell(cells[c] ?? '', width, Math.min(MAX_CELL, width + spare), k === columns.length - 1, c === suggestionAt);
      spare -= Math.max(0, displayWidth(text) - width);
      return c === statusAt && status !== undefined ? colour(status, text) : text;
    });
    return out.join(' '.repeat(GAP)).trimEnd();
  };
  const render = (block: OutRecord[]) => block.map((r) => line(values(r), r.status) + '\n').join('');
  const begin = (): string => {
    const cellWidths = names.map(() => 0);
    for (const r of held) values(r).forEach((v, i) => (cellWidths[i] = Math.max(cellWidths[i] ?? 0, Math.min(MAX_CELL, displayWidth(v)))));
    const natural = names.map((n, i) => Math.max(cellWidths[i]!, Math.min(MAX_CELL, displayWidth(terminalSafe(n)))));
    plan = planTable(natural, must, o.lineWidth, cellWidths);
    const head = line(names.map((n) => terminalSafe(n.toUpperCase())), undefined, true);
    const out = (chalk ? chalk.bold(head) : head) + '\n' + render(held);
    held = [];
    return out;
  };
  return {
    begin: () => '',
    records: (block) => {
      if (plan) return render(block);
      held.push(...block);
      return held.length >= TABLE_SAMPLE || o.live ? begin() : '';
    },
    end: () => (plan ? '' : begin()),
  };
}

/** In a TablePlan's columns: where columns were left out (shown as a column of `…`). */
export const ELIDED = -1;

interface TablePlan {
  /** The columns shown (ELIDED where some were left out), in their order, and their widths. */
  columns: number[];
  widths: number[];
  /** What the line has beyond them (Infinity off a terminal): a longer cell later may take it, no more. */
  slack: number;
}

/**
 * Which columns a line of `lineWidth` shows, and how wide: every column at its natural width when they fit;
 * else the `must` columns (item, status, suggestion), then the others from the left while they fit, the first
 * that does not cut to what is left (MIN_CUT at least), a column of `…` for each run left out. When even the
 * `must` columns do not fit, the item and the suggestion are cut, the wider first; never the status.
 */
export function planTable(natural: number[], must: number[], lineWidth?: number, cells?: number[]): TablePlan {
  const all = natural.map((_, i) => i);
  if (lineWidth === undefined) return { columns: all, widths: natural, slack: Infinity };
  if (span(natural) <= lineWidth) return { columns: all, widths: natural, slack: lineWidth - span(natural) };
  natural = mustFitCells(natural, must, cells);
  // Each run left out costs a column of `…`: plan again with room for as many as the last plan left.
  let runs = 0;
  for (;;) {
    const plan = choose(natural, must, lineWidth - runs * (GAP + 1));
    const marks = plan.columns.filter((c) => c === ELIDED).length;
    if (marks <= runs) return { ...plan, slack: Math.max(0, lineWidth - span(plan.widths)) };
    runs = marks;
  }
}

/**
 * When the line is short, the `must` columns (item, status, suggestion) are as wide as their cells, not their
 * header (`PRIMARY EMAIL ADDRESS` over addresses of 15 columns is cut to `PRIMARY EMAIL …`, keeping MIN_CUT): no
 * padding in them while another column is cut or left out.
 */
function mustFitCells(natural: number[], must: number[], cells?: number[]): number[] {
  if (!cells) return natural;
  return natural.map((w, i) => (must.includes(i) ? Math.max(cells[i] ?? 0, Math.min(w, MIN_CUT)) : w));
}

/** Columns at widths that span at most `room`, then ELIDED put where runs of columns were left out. */
function choose(natural: number[], must: number[], room: number): Omit<TablePlan, 'slack'> {
  const chosen = new Map<number, number>(must.filter((i) => i < natural.length).map((i) => [i, natural[i]!]));
  for (let i = 0; i < natural.length; i++) {
    if (chosen.has(i)) continue;
    const left = room - span([...chosen.values()]) - GAP;
    if (natural[i]! <= left) chosen.set(i, natural[i]!);
    else {
      if (left >= MIN_CUT) chosen.set(i, left);
      break;
    }
  }
  const columns: number[] = [];
  const widths: number[] = [];
  for (let i = 0; i < natural.length; i++) {
    if (chosen.has(i)) {
      columns.push(i);
      widths.push(chosen.get(i)!);
    } else if (columns.at(-1) !== ELIDED) {
      columns.push(ELIDED);
      widths.push(1);
    }
  }
  shrink(widths, must.filter((c, i) => i !== 1 && columns.includes(c)).map((c) => columns.indexOf(c)), span(widths.filter((_, k) => columns[k] !== ELIDED)) - room);
  return { columns, widths };
}

/**
 * Take `over` columns from the `cut` ones (the item, the suggestion: never the status), the widest first, so
 * that neither is cut to nothing while the other keeps its width; none below MIN_CUT.
 */
function shrink(widths: number[], cut: number[], over: number): void {
  for (let left = over; left > 0; left--) {
    const widest = cut.reduce((a, b) => (widths[b]! > widths[a]! ? b : a), cut[0]!);
    if (widest === undefined || widths[widest]! <= MIN_CUT) return;
    widths[widest]!--;
  }
}

/** The columns `widths` take side by side, GAP apart. */
const span = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1);

/**
 * A cell: cut with `…` when wider than `limit`, padded to `width` unless it ends the line. A suggestion is cut at
 * its start (`…@gmail.com`): its corrected domain is what it says.
 */
function fitCell(text: string, width: number, limit: number, last: boolean, keepEnd = false): string {
  const shown = keepEnd ? fitEndToWidth(text, limit) : fitToWidth(text, limit);
  return last ? shown : padEndTo(shown, width);
}

export function statusColour(chalk: Chalk, status: string): (s: string) => string {
  const style = Object.hasOwn(STATUS_COLOUR, status) ? STATUS_COLOUR[status]! : 'blue';
  return style === 'redBold' ? chalk.red.bold : chalk[style];
}

/** The formats an -o file's extension names. */
const BY_EXTENSION: Record<string, Format> = {
  csv: 'csv',
  tsv: 'csv',
  json: 'json',
  ndjson: 'ndjson',
  jsonl: 'ndjson',
  xlsx: 'xlsx',
};

const extensionOf = (path: string) => /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase();

/** Format from an -o file's extension, if it names one. */
export function formatForPath(path: string): Format | undefined {
  const ext = extensionOf(path);
  return ext !== undefined && Object.hasOwn(BY_EXTENSION, ext) ? BY_EXTENSION[ext] : undefined;
}

/** Extensions of formats idv does not write, and what to do instead. */
const NOT_WRITTEN: Record<string, string> = {
  xls: 'an Excel 97-2003 workbook',
  xlsm: 'a macro-enabled workbook',
  xlsb: 'a binary workbook',
  xltx: 'an Excel template',
  ods: 'an OpenDocument spreadsheet',
  fods: 'an OpenDocument spreadsheet',
  numbers: 'a Numbers spreadsheet',
  parquet: 'Parquet',
  xml: 'XML',
  html: 'HTML',
  htm: 'HTML',
  pdf: 'PDF',
  yaml: 'YAML',
  yml: 'YAML',
  gz: 'a gzip-compressed file',
  zst: 'a zstd-compressed file',
  zip: 'a zip archive',
};

/**
 * -o's extension when it names a format idv does not write (a usage error: the file would not be what its
 * name says); `-f` given explicitly settles the format, so only a run without it asks.
 */
export function refuseExtension(path: string): void {
  const ext = extensionOf(path);
  if (ext === undefined || !Object.hasOwn(NOT_WRITTEN, ext)) return;
  const compressed = ext === 'gz' || ext === 'zst';
  const fix = compressed
    ? `compress the output instead: idv … | ${ext === 'gz' ? 'gzip' : 'zstd'} > ${path}`
    : 'give -o FILE.xlsx, .csv, .json or .ndjson (or -f to choose the format)';
  throw usageError(`-o ${path}: idv does not write ${NOT_WRITTEN[ext]} (.${ext}); ${fix}.`);
}
