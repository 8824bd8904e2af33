// One formatter per format. Each turns blocks of output records into text; the sink writes it.
import type { Chalk } from './colors.js';
import { terminalSafe } from '../terminal-text.js';
import { STATUS_COLOUR } from '../statuses.js';

export type Format = 'table' | 'csv' | 'json' | 'ndjson';
export const FORMATS: readonly Format[] = ['table', 'csv', 'json', 'ndjson'];

export interface OutRecord {
  item: string;
  status: string;
  /** The input row, for --keep-columns (null for plain lists). */
  fields: string[] | null;
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
  chalk?: Chalk | null;
}

export interface Formatter {
  begin(): string;
  /** Text for these records (in order). */
  records(block: OutRecord[]): string;
  end(): string;
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
  }
}

type Stringify = (typeof import('csv-stringify/sync'))['stringify'];

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
    begin: () => (keepWithoutHeader ? '' : stringify([names], options)),
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

/** Aligned columns. Widths come from the first records (a table is for people; lists are streamed). */
function tableFormatter(o: FormatOptions): Formatter {
  const { names, values: raw } = layout(o);
  // A table is for a person: cells from the file or the service are shown with control characters escaped.
  const values = (r: OutRecord) => raw(r).map(terminalSafe);
  const chalk = o.chalk ?? null;
  let widths: number[] | null = null;
  let held: OutRecord[] = [];
  const pad = (s: string, w: number) => (s.length >= w ? s : s + ' '.repeat(w - s.length));
  const clip = (s: string) => (s.length > MAX_CELL ? s.slice(0, MAX_CELL - 1) + '…' : s);
  const colour = (status: string, text: string) => (chalk ? statusColour(chalk, status)(text) : text);
  const line = (cells: string[], status?: string) =>
    cells
      .map((c, i) => {
        const last = i === cells.length - 1;
        const text = last ? clip(c) : pad(clip(c), widths![i] ?? 0);
        return last && status !== undefined ? colour(status, text) : text;
      })
      .join('  ')
      .trimEnd() + '\n';
  const render = (block: OutRecord[]) => block.map((r) => line(values(r), r.status)).join('');
  const fix = (): string => {
    widths = names.map((n) => Math.min(MAX_CELL, terminalSafe(n).length));
    for (const r of held) values(r).forEach((v, i) => (widths![i] = Math.max(widths![i] ?? 0, Math.min(MAX_CELL, v.length))));
    const head = line(names.map((n) => terminalSafe(n.toUpperCase())));
    const out = (chalk ? chalk.bold(head.trimEnd()) + '\n' : head) + render(held);
    held = [];
    return out;
  };
  return {
    begin: () => '',
    records: (block) => {
      if (widths) return render(block);
      held.push(...block);
      return held.length >= TABLE_SAMPLE ? fix() : '';
    },
    end: () => (widths ? '' : fix()),
  };
}

export function statusColour(chalk: Chalk, status: string): (s: string) => string {
  const style = Object.hasOwn(STATUS_COLOUR, status) ? STATUS_COLOUR[status]! : 'blue';
  return style === 'redBold' ? chalk.red.bold : chalk[style];
}

/** Format from an -o file's extension, if it names one. */
export function formatForPath(path: string): Format | undefined {
  const m = /\.([a-z]+)$/i.exec(path);
  switch (m?.[1]?.toLowerCase()) {
    case 'csv':
    case 'tsv':
      return 'csv';
    case 'json':
      return 'json';
    case 'ndjson':
    case 'jsonl':
      return 'ndjson';
    default:
      return undefined;
  }
}
