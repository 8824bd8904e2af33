// Sources (files, `-`, stdin) → records in input order, one per data row or non-blank line.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { Kind } from '../defaults.js';
import { IdvError, inputError, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { decodeText } from './decode.js';
import { detectLayout, type Layout, type LayoutOverrides } from './detect.js';

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
}

const SAMPLE_BYTES = 64 * 1024;
const SAMPLE_LINES = 200;

export function sourcesFor(files: string[], io: Io): Source[] {
  if (files.length === 0) {
    if (io.stdinIsTTY) {
      throw usageError('No input: give a FILE, or pipe a list in (e.g. cat list.csv | idv emails). See idv emails --help.');
    }
    files = ['-'];
  }
  return files.map((f) =>
    f === '-'
      ? { name: 'standard input', path: '-', open: () => io.stdin }
      : {
          name: f,
          path: f,
          open: () => createReadStream(resolve(io.cwd, f), { highWaterMark: 64 * 1024 }),
        },
  );
}


/** Fail before anything is sent when a named file cannot be read (not after paying for the first ones). */
export async function checkReadable(files: string[], cwd: string): Promise<void> {
  for (const f of files) {
    if (f === '-') continue;
    let st;
    try {
      st = await stat(resolve(cwd, f));
    } catch (err) {
      throw readError(err, f);
    }
    if (st.isDirectory()) throw readError(Object.assign(new Error('directory'), { code: 'EISDIR' }), f);
  }
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

/** Lines of text (no line endings) from decoded blocks, a block's worth at a time. */
async function* linesOf(blocks: AsyncIterable<string>): AsyncGenerator<string[]> {
  let carry = '';
  for await (const block of blocks) {
    const text = carry ? carry + block : block;
    const lines: string[] = [];
    let start = 0;
    let nl: number;
    while ((nl = text.indexOf('\n', start)) !== -1) {
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      lines.push(text.slice(start, end));
      start = nl + 1;
    }
    carry = text.slice(start);
    if (lines.length) yield lines;
  }
  if (carry) yield [carry.endsWith('\r') ? carry.slice(0, -1) : carry];
}

/**
 * Open a source: read a sample, guess its layout, and return the records (sample included) as a stream.
 */
export async function openSource(
  source: Source,
  kind: Kind,
  overrides: LayoutOverrides,
): Promise<OpenedSource> {
  const name = source.name;
  let stream: Readable;
  try {
    stream = source.open();
  } catch (err) {
    throw readError(err, name);
  }
  const blocks = decodeText(stream, name)[Symbol.asyncIterator]();
  const sampleBlocks: string[] = [];
  let sampleSize = 0;
  let sampleLines = 0;
  let done = false;
  try {
    while (sampleSize < SAMPLE_BYTES && sampleLines < SAMPLE_LINES) {
      const next = await blocks.next();
      if (next.done) {
        done = true;
        break;
      }
      sampleBlocks.push(next.value);
      sampleSize += next.value.length;
      sampleLines += countNewlines(next.value);
    }
  } catch (err) {
    stream.destroy();
    throw readError(err, name);
  }
  const sampleText = sampleBlocks.join('');
  const sample: string[] = [];
  for (const l of sampleText.split('\n')) {
    const line = l.endsWith('\r') ? l.slice(0, -1) : l;
    if (line.trim() !== '') sample.push(line);
    if (sample.length >= SAMPLE_LINES) break;
  }
  const layout = detectLayout(kind, sample, overrides, name);

  async function* allBlocks(): AsyncGenerator<string> {
    yield* sampleBlocks;
    if (done) return;
    while (true) {
      const next = await blocks.next();
      if (next.done) return;
      yield next.value;
    }
  }

  const records = layout.delimiter === null ? plainRecords(allBlocks(), layout) : csvRecords(allBlocks(), layout, name);
  return { name, layout, records: guard(records, name, stream) };
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

function countNewlines(s: string): number {
  let n = 0;
  let i = -1;
  while ((i = s.indexOf('\n', i + 1)) !== -1) n++;
  return n;
}

async function* plainRecords(blocks: AsyncIterable<string>, layout: Layout): AsyncGenerator<InputRecord[]> {
  let skipHeader = layout.header !== null;
  for await (const lines of linesOf(blocks)) {
    const out: InputRecord[] = [];
    for (const line of lines) {
      if (line.length === 0 || line.trim() === '') continue;
      if (skipHeader) {
        skipHeader = false;
        continue;
      }
      out.push({ value: line, fields: null });
    }
    if (out.length) yield out;
  }
}

async function* csvRecords(blocks: AsyncIterable<string>, layout: Layout, name: string): AsyncGenerator<InputRecord[]> {
  const { parse } = await import('csv-parse');
  const parser = parse({
    delimiter: layout.delimiter!,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    from_line: layout.skipFirstLine ? 2 : 1,
  });
  let rows: string[][] = [];
  let failure: Error | null = null;
  parser.on('data', (row: string[]) => rows.push(row));
  parser.on('error', (err: Error) => (failure ??= err));
  const ending = new Promise<void>((resolve) => {
    parser.on('end', resolve);
    parser.on('close', resolve);
  });
  let skipHeader = layout.header !== null;
  const col = layout.column;
  const take = (): InputRecord[] => {
    if (failure) {
      const message = failure.message.replace(/\.$/, '');
      throw inputError(`${name} is not well-formed CSV: ${message}.`);
    }
    const out: InputRecord[] = [];
    for (const row of rows) {
      if (row.length === 1 && row[0]!.trim() === '') continue; // a line of blanks
      if (skipHeader) {
        skipHeader = false;
        continue;
      }
      out.push({ value: row[col] ?? '', fields: row });
    }
    rows = [];
    return out;
  };
  try {
    for await (const block of blocks) {
      parser.write(block);
      // csv-parse emits the block's rows synchronously or on the next ticks; collect them.
      await new Promise<void>((r) => setImmediate(r));
      const out = take();
      if (out.length) yield out;
    }
    parser.end();
    await ending;
    const out = take();
    if (out.length) yield out;
  } finally {
    if (!parser.destroyed) parser.destroy();
  }
}
