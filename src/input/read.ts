// Sources (files, `-`, stdin) → records in input order, one per data row or non-blank line.
import { openForReading } from '../open-file.js';
import { promises as fsp } from 'node:fs';
import { resolvePath } from '../paths.js';
import type { Readable } from 'node:stream';
import type { Kind } from '../defaults.js';
import { IdvError, inputError, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { decodeText } from './decode.js';
import { detectLayout, isBlank, parseOptions, type Layout, type LayoutOverrides, type ParseSample } from './detect.js';
import { checkerFor } from './check.js';
import { csvRows } from './csv-rows.js';

export interface InputRecord {
  /** The item cell (or line), untrimmed. */
  value: string;
  /** All fields of a CSV row; null for a plain list. */
  fields: string[] | null;
}

export interface Source {
  /** For messages: the path, or "standard input". */
  name: string;
  /** As given: a path, or "-" for standard input. */
  path: string;
  open(): Readable;
}

export interface OpenedSource {
  name: string;
  layout: Layout;
  /** Records in input order, in arrays (one per block read), to keep per-record overhead low. */
  records: AsyncIterable<InputRecord[]>;
  /** Close it unread. */
  close(): Promise<void>;
}


/** The files' sources, then `more` (the items given with --item: items.ts); standard input when there is neither. */
export function sourcesFor(files: string[], io: Io, more: Source[] = []): Source[] {
  if (files.length === 0 && more.length === 0) {
    if (io.stdinIsTTY) {
      throw usageError('No input: give a FILE or --item ITEM, or pipe a list in (e.g. cat list.csv | idv emails). See idv emails --help.');
    }
    files = ['-'];
  }
  const sources: Source[] = files.map((f) =>
    f === '-'
      ? { name: 'standard input', path: '-', open: () => io.stdin }
      : {
          name: f,
          path: f,
          open: () => openForReading(resolvePath(io.cwd, f), io.signal),
        },
  );
  return [...sources, ...more];
}


/**
 * Fail before anything is sent when a named file cannot be read (not after paying for the first ones); the
 * size of each file, for the report.
 */
export async function checkReadable(files: string[], cwd: string | null): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const f of files) {
    if (f === '-') continue;
    let st;
    try {
      st = await fsp.stat(resolvePath(cwd, f));
    } catch (err) {
      throw readError(err, f);
    }
    if (st.isDirectory()) throw readError(Object.assign(new Error('directory'), { code: 'EISDIR' }), f);
    sizes.set(f, st.size);
  }
  return sizes;
}

function readError(err: unknown, name: string): IdvError {
  if (err instanceof IdvError) return err;
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return inputError(`Cannot read ${name}: no such file.`);
    case 'EISDIR':
      return inputError(`Cannot read ${name}: it is a directory; give a file.`);
    case 'EACCES':
    case 'EPERM':
      return inputError(`Cannot read ${name}: permission denied.`);
    default:
      return inputError(`Cannot read ${name}: ${(err as Error)?.message ?? String(err)}.`);
  }
}

/**
 * Lines of text (no line ends: LF, CRLF or a lone CR) from decoded blocks, a block's worth at a time. A line
 * longer than a block is gathered in pieces and joined once: the cost stays linear in its length.
 */
async function* linesOf(blocks: AsyncIterable<string>): AsyncGenerator<string[]> {
  let pieces: string[] = [];
  let cr = false; // the last block ended with CR: a LF starting the next one belongs to it
  for await (let block of blocks) {
    if (cr && block.startsWith('\n')) block = block.slice(1);
    cr = block.endsWith('\r');
    const lines: string[] = [];
    let start = 0;
    const end = (line: string) => {
      if (pieces.length === 0) lines.push(line);
      else {
        pieces.push(line);
        lines.push(pieces.join(''));
        pieces = [];
      }
    };
    if (block.indexOf('\r') === -1) {
      // LF only, as nearly every file: indexOf is several times faster than a pattern.
      for (let nl = block.indexOf('\n'); nl !== -1; nl = block.indexOf('\n', start)) {
        end(block.slice(start, nl));
        start = nl + 1;
      }
    } else {
      const re = /\r\n|\n|\r/g;
      for (let m = re.exec(block); m !== null; m = re.exec(block)) {
        end(block.slice(start, m.index));
        start = m.index + m[0].length;
      }
    }
    if (start < block.length) pieces.push(block.slice(start));
    if (lines.length) yield lines;
  }
  if (pieces.length) yield [pieces.join('')];
}

/**
 * Decoded text is sampled to guess the layout (a record cut at its end is left out): at least SAMPLE_CHARS,
 * and on until it holds SAMPLE_LINES line ends, so that rows wider than 64 KiB (an export with thousands of
 * custom fields) still show a header and rows, up to SAMPLE_MAX (memory stays bounded on a file of one line).
 */
const SAMPLE_CHARS = 64 * 1024;
const SAMPLE_LINES = 20;
const SAMPLE_MAX = 4 * 1024 * 1024;

/** How many lines a block ends (LF, or lone CR in a file of CR ends). */
function lineEnds(text: string): number {
  let lf = 0;
  let cr = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lf++;
  for (let i = text.indexOf('\r'); i !== -1; i = text.indexOf('\r', i + 1)) cr++;
  return Math.max(lf, cr);
}

/** The sample's records under a delimiter, parsed as the reader will parse the whole input. */
function parseSample(parse: (input: string, options: object) => string[][]): ParseSample {
  return (text, delimiter, whole) => {
    const rows: string[][] = [];
    try {
      parse(text, { ...parseOptions(delimiter), on_record: (r: string[]) => void rows.push(r) });
    } catch {
      return rows; // a quoted cell cut by the sample's end (or never closed): the rows before it are whole
    }
    if (!whole) rows.pop(); // cut by the sample's end
    return rows;
  };
}

/**
 * Open a source: read a sample, guess its layout, and return the records (sample included) as a stream.
 * `note` receives one-line notes for stderr (skipped preamble and footer rows, a close column choice).
 */
export async function openSource(source: Source, kind: Kind, overrides: LayoutOverrides, note: (line: string) => void = () => undefined): Promise<OpenedSource> {
  const name = source.name;
  let stream: Readable;
  try {
    stream = source.open();
  } catch (err) {
    throw readError(err, name);
  }
  const blocks = decodeText(stream, name)[Symbol.asyncIterator]();
  const sampleBlocks: string[] = [];
  let size = 0;
  let lines = 0;
  let done = false;
  try {
    while (size < SAMPLE_CHARS || (lines < SAMPLE_LINES && size < SAMPLE_MAX)) {
      const next = await blocks.next();
      if (next.done) {
        done = true;
        break;
      }
      sampleBlocks.push(next.value);
      size += next.value.length;
      if (lines < SAMPLE_LINES) lines += lineEnds(next.value);
    }
  } catch (err) {
    stream.destroy();
    throw readError(err, name);
  }
  const text = sampleBlocks.join('');
  // A sample with no delimiter and no quote is a plain list: csv-parse is not even loaded (start-up counts).
  const parse = /[,;\t|"]/.test(text) || overrides.delimiter !== undefined ? parseSample((await import('csv-parse/sync')).parse as never) : () => [];
  let layout: Layout;
  try {
    layout = detectLayout(kind, { text, whole: done }, overrides, name, parse);
  } catch (err) {
    stream.destroy();
    throw err;
  }
  for (const line of layout.notes) note(line);

  async function* allBlocks(): AsyncGenerator<string> {
    yield* sampleBlocks;
    if (done) return;
    while (true) {
      const next = await blocks.next();
      if (next.done) return;
      yield next.value;
    }
  }

  const records = layout.delimiter === null ? plainRecords(allBlocks(), layout, overrides.keepColumns === true) : csvRecords(allBlocks(), layout, kind, name, note);
  return { name, layout, records: guard(records, name, stream), close: async () => void stream.destroy() };
}

async function* guard(records: AsyncIterable<InputRecord[]>, name: string, stream: Readable): AsyncGenerator<InputRecord[]> {
  try {
    yield* records;
  } catch (err) {
    throw readError(err, name);
  } finally {
    stream.destroy();
  }
}

/** A plain list's lines; with `keep` (--keep-columns) each line as read is also its record's one cell. */
async function* plainRecords(blocks: AsyncIterable<string>, layout: Layout, keep: boolean): AsyncGenerator<InputRecord[]> {
  let skip = layout.skipRecords;
  for await (const lines of linesOf(blocks)) {
    const out: InputRecord[] = [];
    for (const line of lines) {
      if (line.trim() === '') continue;
      if (skip > 0) {
        skip--;
        continue;
      }
      out.push({ value: line, fields: keep ? [line] : null });
    }
    if (out.length) yield out;
  }
}

/** A run of short rows without an item held this long is data after all, not a footer. */
const FOOTER_MAX = 1000;

/**
 * CSV records as csv-parse reads them (csv-rows.ts): preamble rows and the header skipped; blank rows (`,,,`)
 * are none; rows narrower than the table with no item anywhere are held back, and end as a footer (not
 * records, and said so) if nothing follows them, or as records if a data row does.
 */
async function* csvRecords(blocks: AsyncIterable<string>, layout: Layout, kind: Kind, name: string, note: (line: string) => void): AsyncGenerator<InputRecord[]> {
  const looks = checkerFor(kind);
  const col = layout.column;
  let skip = layout.skipRecords;
  let held: string[][] = [];
  const take = (rows: string[][]): InputRecord[] => {
    const out: InputRecord[] = [];
    for (const row of rows) {
      if (isBlank(row)) continue;
      if (skip > 0) {
        skip--;
        continue;
      }
      if (row.length < layout.width && !row.some((c) => looks(c) !== null) && held.length < FOOTER_MAX) {
        held.push(row);
        continue;
      }
      for (const h of held) out.push({ value: h[col] ?? '', fields: h });
      held = [];
      out.push({ value: row[col] ?? '', fields: row });
    }
    return out;
  };
  for await (const rows of csvRows(layout.sepLine ? withoutSepLine(blocks) : blocks, layout.delimiter!, name)) {
    const out = take(rows);
    if (out.length) yield out;
  }
  if (held.length) {
    const shown = held[0]!.filter((c) => c.trim() !== '').join(' ').replace(/\s+/g, ' ').trim();
    note(`${name}: skipped ${held.length} line${held.length === 1 ? '' : 's'} below the data (not records): "${shown.length > 60 ? shown.slice(0, 59) + '…' : shown}"`);
  }
}

/** The blocks without an Excel `sep=X` first line. */
async function* withoutSepLine(blocks: AsyncIterable<string>): AsyncGenerator<string> {
  let first = true;
  for await (const block of blocks) {
    yield first ? block.replace(/^sep=.[ \t]*(\r\n|\n|\r)?/i, '') : block;
    first = false;
  }
}
