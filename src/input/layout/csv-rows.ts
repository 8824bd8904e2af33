// CSV rows from decoded blocks, exactly as csv-parse reads them with parseOptions(), at a fraction of its cost:
// a line without a quote is split at the delimiter (no quote, no escape); from a quote on, csv-parse reads up to
// the line end where the quotes close; a record past GATHER_MAX (a quote never closed) goes to csv-parse's stream.
// Each row comes with the line it starts on (for notes that name skipped lines, and stray bytes).
import { inputError } from '../../core/errors.js';
import { formatSize } from '../../core/size.js';
import { largerSize } from '../bytes/content.js';
import type { Stray } from '../bytes/decode.js';
import type { TypedCell } from '../../xlsx/cell.js';
import { num } from './notes.js';

/**
 * The most text one row (a CSV record, a plain list's line, a workbook's row) may hold, in characters: reading
 * holds rows, not the file, so this bounds what a row cannot bound itself. At least MIN_ROW_SIZE.
 */
export const MAX_ROW_SIZE = 16 * 1024 * 1024;
/** A row is gathered this far (GATHER_MAX and a block) before its length is counted: the bound is never below it. */
export const MIN_ROW_SIZE = 2 * 1024 * 1024;

/** Whose rows are bounded, for the message, and by how much. */
export interface RowBound {
  name: string;
  max: number;
}

/** `mem: line 3 is longer than 2 MiB, …`: the refusal of a row past the bound; `what` names it otherwise (a workbook's row). */
export function rowTooLong(bound: RowBound, line: number | null, what = `line ${num(line ?? 0)}`): Error {
  return inputError(
    `${bound.name}: ${what} is longer than ${formatSize(bound.max)}, the most idv holds of one row; ` +
      `if it is meant to be so long, give a larger --max-row-size (e.g. --max-row-size ${largerSize(bound.max)}).`,
  );
}

/**
 * The options csv-parse reads with, here and in the sample (what they count as a record must agree). Every line
 * end ends a record: left to guess, csv-parse takes the first it meets for the whole file (files joined together).
 */
export function parseOptions(delimiter: string) {
  return { delimiter, record_delimiter: RECORD_ENDS, relax_column_count: true, relax_quotes: true, skip_empty_lines: true };
}
const RECORD_ENDS = ['\r\n', '\n', '\r'];

/** Rows, and the line each starts on (from 1). */
export interface RowBatch {
  rows: string[][];
  lines: number[];
  /** A workbook's rows as read, cell by cell (rows[i][j] is cells[i][j].text), when a workbook output writes them. */
  cells?: Array<readonly TypedCell[]>;
  /** In a sample that is the whole input: the line of a record whose quoted cell never closes. */
  openAt?: number;
}

/** Stray bytes of the decoded blocks (by block number) and, once read, the lines they are on. */
export interface StrayLines {
  strays: ReadonlyMap<number, Stray[]>;
  found(line: number, stray: Stray): void;
}

/** How many line ends (CRLF counted once) `text` holds from `from` to `to`. */
export function lineEndsIn(text: string, from = 0, to = text.length): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) n++;
  }
  return n;
}

/** How many line breaks the cells of a row hold (a quoted cell may span lines). */
export function rowLineEnds(row: readonly string[]): number {
  let n = 0;
  for (const c of row) if (c.includes('\n') || c.includes('\r')) n += lineEndsIn(c);
  return n;
}

/** Past this, a record still open is left to csv-parse's stream (no text is gathered without bound). */
const GATHER_MAX = 1024 * 1024;

export type SyncParse = (input: string, options: object) => string[][];

/** The records of `text` (whole records, line ends included), or null when a quote in it is still open at its end. */
type Records = (text: string) => string[][] | null;

function recordsOf(parse: SyncParse, delimiter: string, name: string): Records {
  const options = parseOptions(delimiter);
  return (text) => {
    try {
      return parse(text, options);
    } catch (err) {
      if ((err as { code?: string }).code === 'CSV_QUOTE_NOT_CLOSED') return null;
      throw inputError(`${name} is not well-formed CSV: ${csvMessage(err)}; check the file.`);
    }
  };
}

/**
 * Rows in input order, a block's worth at a time, each with its line (from `firstLine`: an Excel `sep=` line
 * dropped before counts). `name` is for messages; `strays` learns the lines of the blocks' stray bytes.
 */
export async function* csvRows(
  blocks: AsyncIterable<string>,
  delimiter: string,
  name: string,
  firstLine = 1,
  strays?: StrayLines,
  quotes = true,
  maxRow = MAX_ROW_SIZE,
): AsyncGenerator<RowBatch> {
  // --no-quotes: a quote is text, every line a row split at the delimiter; csv-parse is not needed.
  const parse = quotes ? ((await import('csv-parse/sync')).parse as unknown as SyncParse) : unquoted;
  const records = recordsOf(parse, delimiter, name);
  let carry = ''; // from the start of a record not read yet
  let line = firstLine; // the line `carry` starts on
  let stream: StreamRows | null = null;
  let block = -1;
  for await (const text of blocks) {
    block++;
    if (stream) {
      findStrays(strays, block, text, 0, line);
      const rows = stream.write(text);
      if (rows.length) yield { rows, lines: rows.map(() => line) };
      continue;
    }
    const all = carry === '' ? text : carry + text;
    findStrays(strays, block, all, carry.length, line);
    const s = scan(all, false, delimiter, records, line, quotes);
    if (s.rows.length) yield { rows: s.rows, lines: s.starts };
    carry = all.slice(s.end);
    line += s.lines;
    if (carry.length > GATHER_MAX) {
      stream = await streamRows(parseOptions(delimiter), { name, max: maxRow }, line);
      const rows = stream.write(carry);
      carry = '';
      if (rows.length) yield { rows, lines: rows.map(() => line) };
    }
  }
  if (stream) {
    const rows = await stream.end();
    if (rows.length) yield { rows, lines: rows.map(() => line) };
    return;
  }
  if (carry === '') return;
  const s = scan(carry, true, delimiter, records, line, quotes);
  if (s.end < carry.length) throw quoteNotClosed(name, line + s.lines);
  if (s.rows.length) yield { rows: s.rows, lines: s.starts };
}

export function quoteNotClosed(name: string, line: number) {
  return inputError(
    `${name} is not well-formed CSV: a quoted cell in the record that starts on line ${line} is never closed; if its quotes are text, not CSV quoting, give --no-quotes, else check the file.`,
  );
}

/** The parser of a text without quotes (or read with --no-quotes): never called, as the scanner finds no quote to hand it. */
export const unquoted: SyncParse = () => {
  throw new Error('a text without quotes needs no CSV parser');
};

/** The lines of block `block`'s stray bytes: `text` holds it from `at` on, and starts on line `line`. */
export function findStrays(strays: StrayLines | undefined, block: number, text: string, at: number, line: number): void {
  const found = strays?.strays.get(block);
  if (!found) return;
  let from = 0;
  for (const s of found) {
    line += lineEndsIn(text, from, at + s.at);
    from = at + s.at;
    strays!.found(line, s);
  }
}

/**
 * The rows of a sample (the start of an input) under a delimiter, with their lines; a record cut by the
 * sample's end is left out, unless the sample is the `whole` input. Rows before a quote that never closes (or
 * another error) are given: the reader reports it, if this delimiter wins.
 */
export function sampleRows(text: string, delimiter: string, whole: boolean, parse: SyncParse, quotes = true): RowBatch {
  const records = recordsOf(parse, delimiter, 'sample');
  let s: Scanned;
  try {
    s = scan(text, whole, delimiter, records, 1, quotes);
  } catch {
    s = scanUpToError(text, delimiter, records);
  }
  return { rows: s.rows, lines: s.starts, ...(whole && s.end < text.length ? { openAt: s.lines + 1 } : {}) };
}

/** scan() up to the first line that csv-parse refuses. */
function scanUpToError(text: string, delimiter: string, records: Records): Scanned {
  const ends = [...text.matchAll(/\r\n|\n|\r/g)].map((m) => m.index! + m[0].length);
  let lo = 0;
  let hi = ends.length;
  while (lo < hi) {
    // The longest prefix of whole lines that scans: binary search, a sample is at most a few MB.
    const mid = Math.ceil((lo + hi) / 2);
    try {
      scan(text.slice(0, ends[mid - 1]), true, delimiter, records);
      lo = mid;
    } catch {
      hi = mid - 1;
    }
  }
  return lo === 0 ? { rows: [], starts: [], end: 0, lines: 0 } : scan(text.slice(0, ends[lo - 1]), true, delimiter, records);
}

interface Scanned {
  rows: string[][];
  /** The line each row starts on, counted from `first` at the start of the text. */
  starts: number[];
  /** Where the text not read yet starts (a line cut by the text's end, or a record whose quote is still open). */
  end: number;
  /** How many lines were read. */
  lines: number;
}

/**
 * The whole records at the start of `text`. Unless `final`, a last line without its line end (or a lone CR at
 * the very end, which may be half of a CRLF) waits for more text.
 */
function scan(text: string, final: boolean, delimiter: string, records: Records, first = 1, quotes = true): Scanned {
  return new Scanner(text, final, delimiter, records, first, quotes).scan();
}

/** One scan() of a text: where it is, and the rows found so far, as fields. */
class Scanner {
  private readonly rows: string[][] = [];
  private readonly starts: number[] = [];
  private lines = 0;
  private pos = 0;
  /** The first quote at or after `pos`. */
  private quote: number;
  /** The first CR at or after `crFrom`, kept: a search per line would rescan to a far one each time. */
  private cr: number;
  private crFrom = 0;

  constructor(
    private readonly text: string,
    private readonly final: boolean,
    private readonly delimiter: string,
    private readonly records: Records,
    private readonly first: number,
    quotes: boolean,
  ) {
    this.quote = quotes ? text.indexOf('"') : -1;
    this.cr = text.indexOf('\r');
  }

  scan(): Scanned {
    const { text } = this;
    while (this.pos < text.length) {
      const end = this.lineEnd(this.pos);
      if (end === null) break;
      if (this.quote === -1 || this.quote >= end[0]) {
        if (end[0] > this.pos) {
          this.rows.push(text.slice(this.pos, end[0]).split(this.delimiter));
          this.starts.push(this.first + this.lines);
        }
        this.pos = end[1];
        this.lines++;
        continue;
      }
      if (!this.quotedRun(end) && !this.quotedRecord(end)) break;
    }
    return { rows: this.rows, starts: this.starts, end: this.pos, lines: this.lines };
  }

  /** The next line end at or after `from`: [its index, the index after it], or null if none is whole yet. */
  private lineEnd(from: number): [number, number] | null {
    const { text } = this;
    const at = text.indexOf('\n', from);
    if (from < this.crFrom || (this.cr !== -1 && this.cr < from)) {
      this.cr = text.indexOf('\r', from);
      this.crFrom = from;
    }
    const cr = this.cr;
    if (cr !== -1 && (at === -1 || cr < at)) {
      if (cr === text.length - 1 && !this.final) return null;
      return [cr, text.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1];
    }
    if (at !== -1) return [at, at + 1];
    return this.final && from < text.length ? [text.length, text.length] : null;
  }

  /**
   * A quote on the line that ends at `end`: csv-parse reads in one call up to the last line end where the quotes
   * are even before a line without one (a file that quotes every cell costs a call a block, not a line). False
   * when the quotes do not pair so.
   */
  private quotedRun(end: [number, number]): boolean {
    const run = this.evenRun(end);
    const read = run.even === -1 ? null : this.records(this.text.slice(this.pos, run.even));
    if (read === null) return false;
    this.pushFrom(read, this.first + this.lines, this.pos, run.even);
    this.pos = run.even;
    this.lines += run.lines;
    this.quote = this.text.indexOf('"', this.pos);
    return true;
  }

  /**
   * Rows csv-parse read from the text between `start` and `stop`, which starts on line `from`: each starts after
   * the one before and the line breaks in its cells, past empty lines (no rows).
   */
  private pushFrom(read: string[][], from: number, start: number, stop: number): void {
    const empty = new Set<number>();
    let line = from;
    let at = start;
    for (const m of this.text.slice(start, stop).matchAll(/\r\n|\n|\r/g)) {
      if (start + m.index === at) empty.add(line);
      at = start + m.index + m[0].length;
      line++;
    }
    line = from;
    for (const row of read) {
      while (empty.has(line)) line++;
      this.rows.push(row);
      this.starts.push(line);
      line += 1 + rowLineEnds(row);
    }
  }

  /** From `end` on: the last line end where the quotes are even, and the lines up to it. */
  private evenRun(end: [number, number]): { even: number; lines: number } {
    let quotes = 0;
    let reach = this.pos;
    let even = -1;
    let lines = 0;
    let walked = 0;
    const counter = new QuoteCounter(this.text, reach);
    for (let e: [number, number] | null = end; e !== null; e = this.lineEnd(reach)) {
      if (reach > this.pos && quotes % 2 === 0 && (this.quote === -1 || this.quote >= e[0])) break; // back to lines without quotes
      const n = counter.upTo(e[1]);
      quotes += n;
      if (n > 0) this.quote = counter.next;
      reach = e[1];
      walked++;
      if (quotes % 2 === 0) {
        even = reach;
        lines = walked;
      }
    }
    return { even, lines };
  }

  /**
   * Quotes that do not pair (a stray quote inside a cell, which csv-parse takes as it is; a quoted cell still
   * open): csv-parse is asked at this line's end, then only where the quotes so far are even. False when the
   * text ends before the record does.
   */
  private quotedRecord(end: [number, number]): boolean {
    const { text, pos } = this;
    const counter = new QuoteCounter(text, pos);
    let quotes = counter.upTo(end[1]);
    let at = end;
    let read = this.records(text.slice(pos, at[1]));
    let spanned = 1;
    while (read === null) {
      const next = this.lineEnd(at[1]);
      if (next === null) return false;
      quotes += counter.upTo(next[1]);
      at = next;
      spanned++;
      if (quotes % 2 === 0 || next[1] === text.length) read = this.records(text.slice(pos, at[1]));
      if (read === null && next[1] === text.length && this.final) return false;
    }
    this.pushFrom(read, this.first + this.lines, pos, at[1]);
    this.pos = at[1];
    this.lines += spanned;
    this.quote = text.indexOf('"', this.pos);
    return true;
  }
}

/**
 * Counts the quotes of a text from a place on, a stretch at a time (`upTo` with growing ends). It keeps the next
 * quote's place: a stretch without one costs nothing, where an indexOf from each line would run to the text's
 * end (a quote never closed, then a megabyte of lines without one).
 */
class QuoteCounter {
  /** The first quote not counted yet (-1: none). */
  next: number;

  constructor(
    private readonly text: string,
    from: number,
  ) {
    this.next = text.indexOf('"', from);
  }

  /** Quotes before `to` not counted yet. */
  upTo(to: number): number {
    let n = 0;
    while (this.next !== -1 && this.next < to) {
      n++;
      this.next = this.text.indexOf('"', this.next + 1);
    }
    return n;
  }
}

interface StreamRows {
  write(text: string): string[][];
  end(): Promise<string[][]>;
}

/**
 * csv-parse's stream, for what is left of an input (from line `line` on) once a record outgrew GATHER_MAX: a
 * record past the bound is refused as it grows (csv-parse's max_record_size), never gathered whole.
 */
async function streamRows(options: object, bound: RowBound, line: number): Promise<StreamRows> {
  const { name } = bound;
  const { parse } = await import('csv-parse');
  let rows: string[][] = [];
  let failure: unknown = null;
  const parser = parse({ ...options, max_record_size: bound.max, on_record: (r: string[]) => void rows.push(r) });
  parser.on('error', (err: Error) => (failure ??= err));
  parser.resume(); // on_record keeps every record: nothing comes out of the stream
  const ending = new Promise<void>((resolve) => {
    parser.on('end', resolve);
    parser.on('close', resolve);
    parser.on('error', () => resolve());
  });
  const take = () => {
    const failed = failure as { code?: string; lines?: number } | null;
    if (failed?.code === 'CSV_MAX_RECORD_SIZE') throw rowTooLong(bound, line + (failed.lines ?? 1) - 1);
    if (failed?.code === 'CSV_QUOTE_NOT_CLOSED') {
      throw inputError(
        `${name} is not well-formed CSV: a quoted cell opened on line ${line} or later is never closed; if its quotes are text, not CSV quoting, give --no-quotes, else check the file.`,
      );
    }
    if (failure) throw inputError(`${name} is not well-formed CSV: ${csvMessage(failure)}; check the file.`);
    const out = rows;
    rows = [];
    return out;
  };
  return {
    write(text) {
      parser.write(text); // parsed at once: on_record has every record whole by now
      return take();
    },
    async end() {
      parser.end();
      await ending;
      return take();
    },
  };
}

/** csv-parse's message without its code name and final period. */
function csvMessage(err: unknown): string {
  return String((err as Error)?.message ?? err).replace(/^[A-Z_]+: /, '').replace(/\.$/, '');
}
