// One formatter per format. Each turns blocks of output records into text; the sink writes it.
import type { Chalk } from './colors.js';
import { terminalSafe } from './terminal-text.js';
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
  chalk?: Chalk | null;
}

export interface Formatter {
  begin(): string;
  /** Text for these records (in order). */
  records(block: OutRecord[]): string;
  end(): string;
}

/** Column names and values of a record, as the chosen options lay it out. */
function layout(o: FormatOptions): { names: string[]; values: (r: OutRecord) => string[] } {
  if (o.keepColumns && o.delimiter !== null) {
    const width = o.header?.length ?? 0;
    const names = o.header ? [...o.header, 'status'] : null;
    return {
      names: names ?? [],
      values: (r) => {
        const f = r.fields ?? [r.item];
        const row = f.length < width ? [...f, ...Array<string>(width - f.length).fill('')] : [...f];
        row.push(r.status);
        return row;
      },
    };
  }
  return { names: [o.column, 'status'], values: (r) => [r.item, r.status] };
}

export async function createFormatter(format: Format, o: FormatOptions): Promise<Formatter> {
  switch (format) {
    case 'csv':
      return csvFormatter(o);
    case 'json':
      return jsonFormatter(o, false);
    case 'ndjson':
      return jsonFormatter(o, true);
    case 'table':
      return tableFormatter(o);
  }
}

/**
 * RFC 4180: a field is quoted when it holds the delimiter, a quote, CR or LF, and its quotes are doubled.
 * (csv-stringify does the same, but cost 10× the time and ~800 bytes of garbage a row in `npm run bench`.)
 */
export function csvLine(fields: readonly string[], delimiter: string): string {
  const special = specialFor(delimiter);
  let out = '';
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (i > 0) out += delimiter;
    out += special.test(f) ? '"' + f.replace(QUOTE, '""') + '"' : f;
  }
  return out + '\n';
}
const QUOTE = /"/g;
/** One scan a field for what makes it need quotes (four includes() were four). */
let special = { delimiter: ',', re: /[",\r\n]/ };
function specialFor(delimiter: string): RegExp {
  if (delimiter !== special.delimiter) {
    special = { delimiter, re: new RegExp(`["\\r\\n${delimiter.replace(/[\\\]^-]/g, '\\$&')}]`, 'u') };
  }
  return special.re;
}

function csvFormatter(o: FormatOptions): Formatter {
  const { names, values } = layout(o);
  const delimiter = o.keepColumns && o.delimiter ? o.delimiter : ',';
  const keepWithoutHeader = o.keepColumns && o.delimiter !== null && o.header === null;
  return {
    begin: () => (keepWithoutHeader ? '' : csvLine(names, delimiter)),
    records: (block) => {
      let out = '';
      for (const r of block) out += csvLine(values(r), delimiter);
      return out;
    },
    end: () => '',
  };
}

function jsonFormatter(o: FormatOptions, lines: boolean): Formatter {
  const keep = o.keepColumns && o.delimiter !== null;
  const toObject = (r: OutRecord): Record<string, string> => {
    if (!keep) return { [o.column]: r.item, status: r.status };
    const obj: Record<string, string> = {};
    const f = r.fields ?? [];
    const names = o.header ?? f.map((_, i) => `column${i + 1}`);
    names.forEach((n, i) => {
      obj[n] = f[i] ?? '';
    });
    obj.status = r.status;
    return obj;
  };
  if (lines) {
    return {
      begin: () => '',
      records: (block) => block.map((r) => JSON.stringify(toObject(r)) + '\n').join(''),
      end: () => '',
    };
  }
  let first = true;
  return {
    begin: () => '[',
    records: (block) => {
      let out = '';
      for (const r of block) {
        out += (first ? '\n  ' : ',\n  ') + JSON.stringify(toObject(r));
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
    const head = line(names.map((n) => terminalSafe(n).toUpperCase()));
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
