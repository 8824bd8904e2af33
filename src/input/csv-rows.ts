// CSV rows from decoded blocks, exactly as csv-parse reads them with parseOptions(delimiter), at a fraction of
// its cost (csv-parse spends ~4 µs a row; a 1,000,000-line export read twice as slowly as a plain list):
//   - a line without a quote (most lines of most exports) is split at the delimiter: with no quote there is no
//     escape either, so its cells are the text between delimiters, as csv-parse gives them;
//   - from a line with a quote on, csv-parse itself reads the text up to the first line end after which its
//     quotes are closed (the record's end: a quoted cell may hold line breaks), then lines are split again;
//   - a quoted record that grows past GATHER_MAX (a quote that never closes) hands the rest of the input to
//     csv-parse's stream, which reads it as it always did.
// Empty lines are no rows (skip_empty_lines); every line end (LF, CRLF, lone CR) ends a record.
import { inputError } from '../errors.js';
import { parseOptions } from './detect.js';

/** Past this, a record still open is left to csv-parse's stream (no text is gathered without bound). */
const GATHER_MAX = 1024 * 1024;

type SyncParse = (input: string, options: object) => string[][];

/** Rows in input order, a block's worth at a time. `name` is for messages. */
export async function* csvRows(blocks: AsyncIterable<string>, delimiter: string, name: string): AsyncGenerator<string[][]> {
  const parse = (await import('csv-parse/sync')).parse as unknown as SyncParse;
  const options = parseOptions(delimiter);
  const notClosed = (line: number) =>
    inputError(`${name} is not well-formed CSV: a quoted cell in the record that starts on line ${line} is never closed; check the file.`);
  /** The records of `text` (whole records, line ends included), or null when a quote in it is still open at its end. */
  const records = (text: string): string[][] | null => {
    try {
      return parse(text, options);
    } catch (err) {
      if ((err as { code?: string }).code === 'CSV_QUOTE_NOT_CLOSED') return null;
      throw inputError(`${name} is not well-formed CSV: ${csvMessage(err)}; check the file.`);
    }
  };

  let carry = ''; // from the start of a record not read yet
  let line = 1; // the line `carry` starts on
  let stream: StreamRows | null = null;
  for await (const block of blocks) {
    if (stream) {
      const rows = stream.write(block);
      if (rows.length) yield rows;
      continue;
    }
    const text = carry === '' ? block : carry + block;
    const s = scan(text, false, delimiter, records);
    if (s.rows.length) yield s.rows;
    carry = text.slice(s.end);
    line += s.lines;
    if (carry.length > GATHER_MAX) {
      stream = await streamRows(options, name, line);
      const rows = stream.write(carry);
      carry = '';
      if (rows.length) yield rows;
    }
  }
  if (stream) {
    const rows = await stream.end();
    if (rows.length) yield rows;
    return;
  }
  if (carry === '') return;
  const s = scan(carry, true, delimiter, records);
  if (s.end < carry.length) throw notClosed(line + s.lines);
  if (s.rows.length) yield s.rows;
}

interface Scanned {
  rows: string[][];
  /** Where the text not read yet starts (a line cut by the text's end, or a record whose quote is still open). */
  end: number;
  /** How many lines were read. */
  lines: number;
}

/**
 * The whole records at the start of `text`. Unless `final`, a last line without its line end (or a lone CR at
 * the very end, which may be half of a CRLF) waits for more text.
 */
function scan(text: string, final: boolean, delimiter: string, records: (text: string) => string[][] | null): Scanned {
  const rows: string[][] = [];
  let lines = 0;
  let pos = 0;
  let quote = text.indexOf('"');
  // The first CR at or after `crFrom`, kept: a search per line would rescan to a far one each time.
  let crFrom = 0;
  let cr = text.indexOf('\r');
  /** The next line end at or after `from`: [its index, the index after it], or null if none is whole yet. */
  const lineEnd = (from: number): [number, number] | null => {
    const at = text.indexOf('\n', from);
    if (from < crFrom || (cr !== -1 && cr < from)) {
      cr = text.indexOf('\r', from);
      crFrom = from;
    }
    if (cr !== -1) {
      const r = cr;
      if (at === -1 || r < at) {
        if (r === text.length - 1 && !final) return null;
        return [r, text.charCodeAt(r + 1) === 10 ? r + 2 : r + 1];
      }
    }
    if (at !== -1) return [at, at + 1];
    return final && from < text.length ? [text.length, text.length] : null;
  };
  while (pos < text.length) {
    const end = lineEnd(pos);
    if (end === null) break;
    if (quote === -1 || quote >= end[0]) {
      if (end[0] > pos) rows.push(text.slice(pos, end[0]).split(delimiter));
      pos = end[1];
      lines++;
      continue;
    }
    // A quote on this line: csv-parse reads from here. First in one call, up to the last line end where the
    // quotes counted so far are even (a record's end, in a file that quotes as RFC 4180 does) before a line
    // without a quote: a file that quotes every cell is read a block at a time, not a call a line.
    let quotes = 0;
    let reach = pos;
    let even = -1;
    let linesToEven = 0;
    let walked = 0;
    for (let e: [number, number] | null = end; e !== null; e = lineEnd(reach)) {
      if (reach > pos && quotes % 2 === 0 && (quote === -1 || quote >= e[0])) break; // back to lines without quotes
      const n = countQuotes(text, reach, e[1]);
      quotes += n;
      if (n > 0) quote = text.indexOf('"', e[1]);
      reach = e[1];
      walked++;
      if (quotes % 2 === 0) {
        even = reach;
        linesToEven = walked;
      }
    }
    let read = even === -1 ? null : records(text.slice(pos, even));
    if (read !== null) {
      for (const r of read) rows.push(r);
      pos = even;
      lines += linesToEven;
      quote = text.indexOf('"', pos);
      continue;
    }
    // Quotes that do not pair (a stray quote inside a cell, which csv-parse takes as it is; a quoted cell still
    // open): csv-parse is asked at this line's end, then only where the quotes so far are even.
    quotes = countQuotes(text, pos, end[1]);
    let at = end;
    read = records(text.slice(pos, at[1]));
    let spanned = 1;
    while (read === null) {
      const next = lineEnd(at[1]);
      if (next === null) return { rows, end: pos, lines };
      quotes += countQuotes(text, at[1], next[1]);
      at = next;
      spanned++;
      if (quotes % 2 === 0 || next[1] === text.length) read = records(text.slice(pos, at[1]));
      if (read === null && next[1] === text.length && final) return { rows, end: pos, lines };
    }
    for (const r of read) rows.push(r);
    pos = at[1];
    lines += spanned;
    quote = text.indexOf('"', pos);
  }
  return { rows, end: pos, lines };
}

function countQuotes(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('"', from); i !== -1 && i < to; i = text.indexOf('"', i + 1)) n++;
  return n;
}

interface StreamRows {
  write(text: string): string[][];
  end(): Promise<string[][]>;
}

/** csv-parse's stream, for what is left of an input (from line `line` on) once a record outgrew GATHER_MAX. */
async function streamRows(options: object, name: string, line: number): Promise<StreamRows> {
  const { parse } = await import('csv-parse');
  let rows: string[][] = [];
  let failure: unknown = null;
  const parser = parse({ ...options, on_record: (r: string[]) => void rows.push(r) });
  parser.on('error', (err: Error) => (failure ??= err));
  parser.resume(); // on_record keeps every record: nothing comes out of the stream
  const ending = new Promise<void>((resolve) => {
    parser.on('end', resolve);
    parser.on('close', resolve);
    parser.on('error', () => resolve());
  });
  const take = () => {
    if ((failure as { code?: string } | null)?.code === 'CSV_QUOTE_NOT_CLOSED') {
      throw inputError(`${name} is not well-formed CSV: a quoted cell opened on line ${line} or later is never closed; check the file.`);
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
