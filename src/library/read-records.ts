// readRecords: idv's reader (input/read.ts: every format it reads, the layout it guesses, the record rule,
// mailbox forms, encodings) over a path, bytes or a stream, for a program that cleans its own files the way the
// CLI does. What the CLI would say on standard error is kept in `notes`.
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { usageError } from '../core/errors.js';
import { openForReading, type ByteSource } from '../system/open-file.js';
import { openSource } from '../input/read.js';
import type { OpenedSource, Source } from '../input/sources/source.js';
import type { LayoutOverrides } from '../input/layout/detect.js';
import type { Layout, ReadOptions, RecordSource, Records, SourceRecord } from './types.js';

export async function readRecords(source: RecordSource, options: ReadOptions = {}): Promise<Records> {
  const kind = options.kind ?? 'emails';
  if (kind !== 'emails' && kind !== 'domains') throw usageError(`kind is emails or domains, not ${String(kind)}.`);
  const notes: string[] = [];
  const opened = await openSource(sourceOf(source, options.signal), kind, overridesOf(options), { note: (line) => notes.push(line) });
  let iterated = false;
  return {
    get layout() {
      return layoutOf(opened);
    },
    notes,
    close: () => opened.close(),
    [Symbol.asyncIterator]() {
      if (iterated) throw new TypeError('the records of readRecords() can be iterated once');
      iterated = true;
      return recordsOf(opened)[Symbol.asyncIterator]();
    },
  };
}

function overridesOf(o: ReadOptions): LayoutOverrides {
  const text = (v: string | number | undefined) => (v === undefined ? undefined : String(v));
  return {
    column: text(o.column),
    delimiter: o.delimiter,
    noHeader: o.header === false,
    noQuotes: o.quotes === false,
    keepColumns: true, // a plain list's line is its record's one cell
    encoding: o.encoding,
    sheet: text(o.sheet),
  };
}

/** The reader's Source for a path, a file: URL, bytes or a stream. */
function sourceOf(source: RecordSource, signal: AbortSignal | undefined): Source {
  if (typeof source === 'string' || source instanceof URL) {
    const file = source instanceof URL ? fileURLToPath(source) : resolve(source);
    return { name: String(source), path: file, file, signal, open: () => openForReading(file, signal) };
  }
  if (source instanceof Uint8Array) return { name: 'the bytes given', path: '-', signal, open: () => Readable.from([Buffer.from(source.buffer, source.byteOffset, source.byteLength)]) };
  if (source !== null && typeof source === 'object' && Symbol.asyncIterator in source) {
    return { name: 'the stream given', path: '-', signal, open: () => bytesOf(source, signal) };
  }
  throw usageError('readRecords() reads a path, a file: URL, bytes (a Uint8Array) or a stream of them.');
}

/** A stream's chunks as Buffers (a stream of text too); it ends with the signal. */
function bytesOf(chunks: AsyncIterable<Uint8Array | string>, signal: AbortSignal | undefined): ByteSource {
  const stream = Readable.from(
    (async function* () {
      for await (const c of chunks) yield typeof c === 'string' ? Buffer.from(c) : Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    })(),
    { objectMode: false },
  );
  if (signal) {
    const onAbort = () => stream.destroy(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  }
  return stream;
}

async function* recordsOf(opened: OpenedSource): AsyncGenerator<SourceRecord> {
  for await (const block of opened.records) for (const r of block) yield { item: r.value, cells: r.fields ?? [r.value] };
}

function layoutOf(opened: OpenedSource): Layout {
  const { layout: l, sheet } = opened;
  return {
    encoding: opened.facts().encoding.name,
    delimiter: l.delimiter,
    header: l.header && l.headerLine !== null ? { line: l.headerLine, cells: [...l.header] } : null,
    column: { number: l.column + 1, name: l.header?.[l.column] ?? null },
    sheet: sheet ?? null,
  };
}
