// A source opened: what its bytes are (bytes/), its layout guessed from a sample (layout/), and its records in
// input order under the record rule (records/): one per data row, per non-blank line, or per recipient of a line
// of several. The sources themselves are listed in sources/.
import { ReadStream } from 'node:fs';
import { FileBlocks, type ByteSource } from '../system/open-file.js';
import type { Kind } from '../core/defaults.js';
import { IdvError, inputError } from '../core/errors.js';
import { contentOf, unpacking, type Content, type Unpacking } from './bytes/content.js';
import { decodeText, UTF8, type EncodingInfo } from './bytes/decode.js';
import { orLetGo, readError } from './bytes/read-error.js';
import { MAX_ROW_SIZE, type RowBound } from './layout/csv-rows.js';
import type { Layout, LayoutOverrides } from './layout/detect.js';
import { allBlocks, layoutOf, sampleOf } from './layout/sample.js';
import type { SheetRead } from './layout/workbook.js';
import { Found } from './records/found.js';
import type { InputRecord } from './records/record.js';
import { tableRecords } from './records/rule.js';
import { csvRecords, plainRecords } from './records/text.js';
import type { OpenedSource, Source } from './sources/source.js';

/** How a source is read: the layout's overrides (--column, --sheet…), --max-unpacked and --max-row-size. */
export interface ReadOptions extends LayoutOverrides {
  maxUnpacked?: number;
  maxRowSize?: number;
}

/** Who hears what reading a source finds: notes for everyone (stderr), details for --verbose. */
export interface Listeners {
  note?(line: string): void;
  verbose?(line: string): void;
}

/** Open a source: its records (sample included) as a stream; `on.note` hears one-line notes for stderr. */
export async function openSource(source: Source, kind: Kind, overrides: ReadOptions, on: Listeners | ((line: string) => void) = {}): Promise<OpenedSource> {
  const { note = () => undefined, verbose } = typeof on === 'function' ? { note: on } : on;
  const name = source.name;
  let stream: ByteSource;
  try {
    stream = source.open();
  } catch (err) {
    throw readError(err, name);
  }
  // A file on disk is read as fast as it comes; standard input, a pipe or a FIFO may pause (a live stream).
  const live = !(stream instanceof FileBlocks || stream instanceof ReadStream);
  const unpack = unpacking(overrides.maxUnpacked);
  const options = { name, command: `idv ${kind}`, live, signal: source.signal, unpacking: unpack };
  const content = await orLetGo(stream, name, () => contentOf(stream as AsyncIterable<Buffer>, options));
  const opening: Opening = { source, name, stream, kind, overrides, note, verbose, live, unpack };
  if (content.kind === 'zip') return openWorkbookSource(opening, content);
  if (overrides.sheet !== undefined) note(`${name}: --sheet is for a workbook, which this file is not: ignored.`);
  return openText(opening, content);
}

/** A source being opened: its stream (and what it is), how to read it, and who hears what reading finds. */
interface Opening {
  source: Source;
  name: string;
  stream: ByteSource;
  kind: Kind;
  overrides: ReadOptions;
  note: (line: string) => void;
  verbose?: (line: string) => void;
  live: boolean;
  unpack: Unpacking;
}

/** Text (a plain list, recipients, a vCard file or CSV): a sample, the layout guessed from it, then its records. */
async function openText(opening: Opening, content: Extract<Content, { kind: 'text' }>): Promise<OpenedSource> {
  const { name, stream, kind, overrides, note, verbose, live } = opening;
  let opened = false;
  let detected: EncodingInfo | null = null; // a code page found in the text after its first bytes
  const onDetected = (e: EncodingInfo) => {
    detected = e;
    if (opened) verbose?.(`${name}: its text beyond ASCII is not UTF-8: read as ${describeEncoding(e)} from there on (the ASCII before reads the same).`);
    if (e.alternative) note(`${name}: read as ${e.name} (detected, not for certain: it could be ${e.alternative}); if its text looks wrong, give --encoding ${e.alternative}.`);
  };
  const how = { name, command: `idv ${kind}`, encoding: overrides.encoding, onDetected, sniffed: content.sniffed };
  const decoded = await orLetGo(stream, name, () => decodeText(content.chunks, how));
  const encoding = () => detected ?? decoded.encoding;
  const blocks = decoded.blocks;
  const sampled = await sampleOf(blocks, stream, name, live ? kind : null);
  const layout = await layoutOf(opening, sampled);
  opened = true;
  for (const line of layout.notes) note(line);
  verbose?.(describeLayout(name, layout, encoding()));
  const found = new Found(name, layout, decoded.strays, note, kind);
  const bound: RowBound = { name, max: overrides.maxRowSize ?? MAX_ROW_SIZE };
  const read =
    layout.delimiter === null
      ? plainRecords(allBlocks(sampled, blocks), layout, kind, overrides.keepColumns === true, found, bound)
      : csvRecords(allBlocks(sampled, blocks), layout, kind, found, overrides.noQuotes !== true, bound);
  return {
    name,
    layout,
    live,
    paused: sampled.pending !== null,
    records: guard(read, name, stream, opening.unpack),
    close: async () => void stream.destroy(),
    facts: () => found.facts(encoding()),
  };
}

/** A workbook: its sheet's rows under the record rule, as a table of CSV's are (workbook.ts). */
async function openWorkbookSource(opening: Opening, content: Extract<Content, { kind: 'zip' }>): Promise<OpenedSource> {
  const { name, stream, kind, note } = opening;
  const sheet = await openWorkbookSheet(opening, content);
  for (const line of sheet.layout.notes) note(line);
  const found = new Found(name, sheet.layout, new Map(), note, kind);
  async function* records(): AsyncGenerator<InputRecord[]> {
    try {
      yield* tableRecords(sheet.rows, sheet.layout, kind, found);
    } catch (err) {
      const { workbookError } = await import('./layout/workbook.js');
      throw workbookError(err, name);
    } finally {
      await sheet.close();
    }
  }
  return {
    name,
    layout: sheet.layout,
    sheet: sheet.sheet,
    live: false,
    paused: false,
    records: guard(records(), name, stream, opening.unpack),
    close: async () => {
      stream.destroy();
      await sheet.close();
    },
    facts: () => found.facts(UTF8), // a workbook's cells are text already
  };
}

/** The workbook's sheet; a zip that names no workbook part and cannot be opened as one is an archive. */
async function openWorkbookSheet(opening: Opening, content: Extract<Content, { kind: 'zip' }>): Promise<SheetRead> {
  const { source, name, stream, kind, overrides, note, live } = opening;
  const { openSheet } = await import('./layout/workbook.js');
  // A zip is read from its end: a file on disk where it is, through its descriptor; other bytes are copied first.
  const file = content.inPlace && !live ? onDisk(stream, source) : null;
  try {
    const maxRowSize = overrides.maxRowSize ?? MAX_ROW_SIZE;
    return await openSheet(file ?? content.chunks, { name, kind, overrides, note, signal: source.signal, maxUnpacked: opening.unpack.max, maxRowSize });
  } catch (err) {
    stream.destroy();
    const refused = err instanceof IdvError && err.message.startsWith(`${name} is `);
    if (!content.workbook && !refused && !(err instanceof IdvError && err.kind === 'interrupted')) {
      throw inputError(`${name} is a zip archive, not a list or CSV file; unzip it and give the list or CSV file inside.`);
    }
    throw readError(err, name);
  }
}

/** A file on disk as the workbook reader takes it: its descriptor handed over (not opened again), else its path. */
function onDisk(stream: ByteSource, source: Source): number | string | null {
  const fd = stream instanceof FileBlocks ? stream.handOver() : null;
  if (fd !== null || source.file === undefined) return fd;
  stream.destroy();
  return source.file;
}

/** The encoding, as --verbose names it. */
function describeEncoding(e: EncodingInfo): string {
  const how = { bom: 'by its byte-order mark', given: 'as --encoding says', detected: 'detected', 'utf-8': '' }[e.how];
  return how ? `${e.name} (${how})` : e.name;
}

function describeLayout(name: string, l: Layout, e: EncodingInfo): string {
  const parts = [`encoding ${describeEncoding(e)}`];
  if (l.delimiter === null) parts.push(l.vcard ? 'a vCard file' : l.ldif ? 'an LDIF file' : 'a plain list');
  else parts.push(`delimiter "${l.delimiter === '\t' ? 'tab' : l.delimiter}"`);
  parts.push(l.header ? `header on line ${l.headerLine}` : 'no header');
  if (l.delimiter !== null) parts.push(`item column ${l.column + 1}${l.header?.[l.column] ? ` ("${l.header[l.column]}")` : ''}`);
  return `${name}: ${parts.join(', ')}.`;
}

/** The records, their errors named for the source; once one is read, what the source unpacks is bounded no more. */
async function* guard(records: AsyncIterable<InputRecord[]>, name: string, stream: ByteSource, unpack: Unpacking): AsyncGenerator<InputRecord[]> {
  try {
    for await (const block of records) {
      unpack.recordRead = true;
      yield block;
    }
  } catch (err) {
    throw readError(err, name);
  } finally {
    stream.destroy();
  }
}
