// Sources (files, `-`, stdin) → records in input order: one per data row, per non-blank line, or per recipient
// of a line of several. What is no record (a header, rows above it, footer rows below the data, a repeated
// header, a vCard's other lines) is skipped only when recognised as such and holding no item-like text (the
// record rule, detect.ts), counted, and named by its lines in a note.
import { FileBlocks, openForReading, type ByteSource } from '../system/open-file.js';
import { ReadStream, statSync } from 'node:fs';
import { resolvePath } from '../system/paths.js';
import type { Readable } from 'node:stream';
import type { Kind } from '../core/defaults.js';
import { IdvError, inputError, interruptedError, usageError } from '../core/errors.js';
import type { Io } from '../system/io.js';
import { decodeText, newDecoding, type Decoding, type EncodingInfo, type Stray } from './bytes/decode.js';
import { detectLayout, isBlank, type Layout, type LayoutOverrides, type ParseSample, type Skipped } from './layout/detect.js';
import { checkerFor, itemLike } from './items/check.js';
import { csvRows, findStrays, lineEndsIn, MAX_ROW_SIZE, rowLineEnds, rowTooLong, sampleRows, unquoted, type RowBatch, type RowBound, type SyncParse, type StrayLines } from './layout/csv-rows.js';
import { recipientsOf } from './items/mailbox.js';
import { LDIF, VCARD, VCardReader, type CardFormat } from './layout/vcard.js';
import { LineRuns, num, preview } from './layout/notes.js';
import { cellPlaces, namesSomeColumns, placeCells, sectionHeader, sectionTitle } from './layout/sections.js';
import { contentOf, PAUSE_MS, unpacking, within, type Content, type Unpacking } from './bytes/content.js';
import type { SheetRead } from './layout/workbook.js';
import type { StopSignal } from '../system/stop.js';

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
  /** The path resolved against the working directory (a workbook on disk is read where it is); none for standard input. */
  file?: string;
  open(): ByteSource;
  /** The run's stop: every phase of reading it (decompressing, copying a workbook, its shared strings) hears it. */
  signal?: StopSignal;
}

export interface OpenedSource {
  name: string;
  layout: Layout;
  /** A workbook's sheet that is read: its name, number (from 1) and the workbook's number of sheets. */
  sheet?: { name: string; number: number; of: number };
  /** Standard input or a FIFO (not a file on disk): its records come as they arrive. */
  live: boolean;
  /** Its layout was decided on a pause of the input: its first records have waited for it already. */
  paused: boolean;
  /** Records in input order, in arrays (one per block read), to keep per-record overhead low. */
  records: AsyncIterable<InputRecord[]>;
  /** Close it unread. */
  close(): Promise<void>;
  /** What reading it has found so far: final once its records are read. */
  facts(): SourceFacts;
}

export interface SourceFacts {
  encoding: EncodingInfo;
  /** Lines that held text and are no records (the header apart), by why. */
  skipped: Array<{ why: Skipped['why']; lines: LineRuns }>;
  /** How many such lines. */
  skippedLines: number;
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
      ? { name: 'standard input', path: '-', open: () => endedBySignal(io.stdin, io.signal), signal: io.signal }
      : {
          name: f,
          path: f,
          file: resolvePath(io.cwd, f),
          open: () => openForReading(resolvePath(io.cwd, f), io.signal),
          signal: io.signal,
        },
  );
  return [...sources, ...more];
}


/**
 * Standard input that a signal ends: a live stream may never end on its own (`tail -f … | idv`), and a run
 * waiting for its next line must hear Ctrl-C or SIGTERM (a FIFO named as a file is opened so: open-file.ts).
 */
function endedBySignal(stdin: Readable, signal: StopSignal): Readable {
  const onAbort = () => stdin.destroy(interruptedError(signal.reason));
  stdin.on('error', () => undefined); // its reader hears the error; none is left unheard when there is none
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  stdin.once('close', () => signal.removeEventListener('abort', onAbort));
  return stdin;
}

/**
 * Each named file's size (for the report and the progress line's total), from stat(): a file that is missing
 * or a folder fails here, before anything is sent (not after paying for the files before it).
 */
export async function statInputFiles(files: string[], cwd: string | null): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const file of files) {
    if (file === '-') continue;
    let stats;
    try {
      stats = statSync(resolvePath(cwd, file)); // as the file is opened (open-file.ts): no round trip through the pool
    } catch (err) {
      throw readError(err, file);
    }
    if (stats.isDirectory()) throw readError(Object.assign(new Error('directory'), { code: 'EISDIR' }), file);
    sizes.set(file, stats.size);
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
    case 'EBUSY': // Windows: a program opened it sharing no reading (Excel holds a CSV so)
      return inputError(`Cannot read ${name}: another program has it open and locked (EBUSY); close it there (in Excel, close the file), then run idv again.`);
    default:
      return inputError(`Cannot read ${name}: ${(err as Error)?.message ?? String(err)}.`);
  }
}

/**
 * Lines of text (no line ends: LF, CRLF or a lone CR) from decoded blocks, a block's worth at a time. A line
 * longer than a block is gathered in pieces and joined once: the cost stays linear in its length. `strays`
 * learns the lines of the blocks' stray bytes.
 */
interface Lines {
  lines: string[];
  /** Whether any of them may hold a `,` or `;` (a line of several recipients): most blocks hold neither. */
  separators: boolean;
}

async function* linesOf(blocks: AsyncIterable<string>, bound: RowBound, strays?: StrayLines): AsyncGenerator<Lines> {
  const splitter = new LineSplitter(bound, strays);
  for await (const text of blocks) {
    const lines = splitter.split(text);
    if (lines !== null) yield lines;
  }
  const last = splitter.rest();
  if (last !== null) yield last;
}

/** Splits blocks into lines; a line cut by a block's end is carried over in pieces, at most `bound.max` of them. */
class LineSplitter {
  private pieces: string[] = [];
  /** The characters of the pieces carried over. */
  private carried = 0;
  /** The last block ended with CR: a LF starting the next one belongs to it. */
  private cr = false;
  private block = -1;
  /** Lines ended so far. */
  private done = 0;
  private separators = false;

  constructor(
    private readonly bound: RowBound,
    private readonly strays: StrayLines | undefined,
  ) {}

  /** The lines a block ends (null: none). */
  split(block: string): Lines | null {
    this.block++;
    let text = block;
    let shift = 0;
    if (this.cr && text.startsWith('\n')) {
      text = text.slice(1);
      shift = -1;
    }
    if (this.strays) findStrays(this.strays, this.block, text, shift, this.done + 1);
    this.cr = text.endsWith('\r');
    const lines: string[] = [];
    const start = text.indexOf('\r') === -1 ? this.splitLf(text, lines) : this.splitAny(text, lines);
    this.done += lines.length;
    if (start < text.length) this.carry(text.slice(start));
    // A piece carried over may hold one too: the block it came from is not looked at again.
    const separators = this.separators || text.indexOf(',') !== -1 || text.indexOf(';') !== -1;
    this.separators = this.pieces.length > 0 && separators;
    return lines.length ? { lines, separators } : null;
  }

  /** A piece of the line not ended yet; a line that grows past the bound is refused, its pieces not kept. */
  private carry(piece: string): void {
    this.carried += piece.length;
    if (this.carried > this.bound.max) throw rowTooLong(this.bound, this.done + 1);
    this.pieces.push(piece);
  }

  /** The last line, when the input does not end with a line end. */
  rest(): Lines | null {
    return this.pieces.length ? { lines: [this.pieces.join('')], separators: true } : null;
  }

  /** LF only, as nearly every file: indexOf is several times faster than a pattern. Returns where the rest starts. */
  private splitLf(text: string, lines: string[]): number {
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      this.end(text.slice(start, nl), lines);
      start = nl + 1;
    }
    return start;
  }

  private splitAny(text: string, lines: string[]): number {
    let start = 0;
    const re = /\r\n|\n|\r/g;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      this.end(text.slice(start, m.index), lines);
      start = m.index + m[0].length;
    }
    return start;
  }

  private end(line: string, lines: string[]): void {
    if (this.pieces.length === 0) lines.push(line);
    else {
      if (this.carried + line.length > this.bound.max) throw rowTooLong(this.bound, this.done + lines.length + 1);
      this.pieces.push(line);
      lines.push(this.pieces.join(''));
      this.pieces = [];
      this.carried = 0;
    }
  }
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

/** The sample's rows under a delimiter, parsed as the reader will parse the whole input. */
function parseSample(parse: SyncParse | null, quotes: boolean): ParseSample {
  return (text, delimiter, whole) => sampleRows(text, delimiter, whole, parse ?? unquoted, quotes);
}

/** How a source is read: the layout's overrides (--column, --sheet…), and the bounds of what it may unpack. */
export interface ReadOptions extends LayoutOverrides {
  /** --max-unpacked: what it may unpack or copy before its first record (content.ts). */
  maxUnpacked?: number;
  /** --max-row-size: the most text one row may hold (csv-rows.ts MAX_ROW_SIZE). */
  maxRowSize?: number;
}

/** Who hears what reading a source finds: notes for everyone (stderr), details for --verbose. */
export interface Listeners {
  note?(line: string): void;
  verbose?(line: string): void;
}

/**
 * Open a source: what its bytes are (content.ts: decompressed, a workbook, or text); for text, read a sample,
 * guess its layout, and return the records (sample included) as a stream. `on.note` receives one-line notes
 * for stderr (skipped lines, a close column choice, a doubtful encoding, a workbook's other sheets).
 */
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
  let content: Content;
  const unpack = unpacking(overrides.maxUnpacked);
  try {
    content = await contentOf(stream as AsyncIterable<Buffer>, { name, command: `idv ${kind}`, live, signal: source.signal, unpacking: unpack });
  } catch (err) {
    stream.destroy();
    throw readError(err, name);
  }
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
  const decoding = newDecoding();
  let opened = false;
  const onDetected = (e: EncodingInfo) => {
    if (opened) verbose?.(`${name}: its text beyond ASCII is not UTF-8: read as ${describeEncoding(e)} from there on (the ASCII before reads the same).`);
    if (e.alternative) note(`${name}: read as ${e.name} (detected, not for certain: it could be ${e.alternative}); if its text looks wrong, give --encoding ${e.alternative}.`);
  };
  const decodeOptions = { name, command: `idv ${kind}`, encoding: overrides.encoding, onDetected, sniffed: content.sniffed };
  const blocks = decodeText(content.chunks, decodeOptions, decoding)[Symbol.asyncIterator]();
  const sampled = await sampleOf(blocks, stream, name, live ? kind : null);
  const layout = await layoutOf(opening, sampled);
  opened = true;
  for (const line of layout.notes) note(line);
  verbose?.(describeLayout(name, layout, decoding.encoding));
  const found = new Found(name, layout, decoding, note, kind);
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
    facts: () => found.facts(),
  };
}

/** The layout guessed from a text's sample; the stream is let go when idv cannot read it. */
async function layoutOf(opening: Opening, sampled: Sampled): Promise<Layout> {
  const text = sampled.blocks.join('');
  // A sample with no quote is parsed without csv-parse, which is not even loaded (start-up counts).
  const quotes = opening.overrides.noQuotes !== true;
  const parse = parseSample(quotes && /"/.test(text) ? ((await import('csv-parse/sync')).parse as unknown as SyncParse) : null, quotes);
  try {
    return detectLayout(opening.kind, { text, whole: sampled.done }, opening.overrides, opening.name, parse);
  } catch (err) {
    opening.stream.destroy();
    throw err;
  }
}

/** A workbook: its sheet's rows under the record rule, as a table of CSV's are (workbook.ts). */
async function openWorkbookSource(opening: Opening, content: Extract<Content, { kind: 'zip' }>): Promise<OpenedSource> {
  const { name, stream, kind, note } = opening;
  const sheet = await openWorkbookSheet(opening, content);
  for (const line of sheet.layout.notes) note(line);
  const found = new Found(name, sheet.layout, newDecoding(), note, kind);
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
    facts: () => found.facts(),
  };
}

/** The workbook's sheet; a zip that names no workbook part and cannot be opened as one is an archive. */
async function openWorkbookSheet(opening: Opening, content: Extract<Content, { kind: 'zip' }>): Promise<SheetRead> {
  const { source, name, stream, kind, overrides, note, live } = opening;
  const { openSheet } = await import('./layout/workbook.js');
  // A file on disk is read where it is (a zip is read from its end); any other bytes are copied first.
  const path = content.inPlace && !live && source.file !== undefined ? source.file : null;
  if (path !== null) stream.destroy();
  try {
    const maxRowSize = overrides.maxRowSize ?? MAX_ROW_SIZE;
    return await openSheet(path ?? content.chunks, { name, kind, overrides, note, signal: source.signal, maxUnpacked: opening.unpack.max, maxRowSize });
  } catch (err) {
    stream.destroy();
    const refused = err instanceof IdvError && err.message.startsWith(`${name} is `);
    if (!content.workbook && !refused && !(err instanceof IdvError && err.kind === 'interrupted')) {
      throw inputError(`${name} is a zip archive, not a list or CSV file; unzip it and give the list or CSV file inside.`);
    }
    throw readError(err, name);
  }
}

/** The sample's blocks, then the block asked for when a live input paused, then the rest. */
async function* allBlocks(sampled: Sampled, blocks: AsyncIterator<string>): AsyncGenerator<string> {
  yield* sampled.blocks;
  if (sampled.done) return;
  if (sampled.pending) {
    const next = await sampled.pending;
    if (next.done) return;
    yield next.value;
  }
  while (true) {
    const next = await blocks.next();
    if (next.done) return;
    yield next.value;
  }
}

interface Sampled {
  blocks: string[];
  /** They are the whole input. */
  done: boolean;
  /** The next block, asked for when a live input paused: the layout was decided without it. */
  pending: Promise<IteratorResult<string>> | null;
}

/**
 * The first blocks of text, up to the sample's size; `done` when they are the whole input. A live input
 * (`live`: the command's kind) is decided on sooner: PAUSE_MS after a complete line that holds item-like text
 * arrived (a plain list of one line is enough), whatever has come by then.
 */
async function sampleOf(blocks: AsyncIterator<string>, stream: ByteSource, name: string, live: Kind | null): Promise<Sampled> {
  const out: string[] = [];
  let size = 0;
  let lines = 0;
  let deadline: number | null = null;
  let partial = ''; // text since the last line end, while no deadline is set
  let pending: Promise<IteratorResult<string>> | null = null;
  try {
    while (size < SAMPLE_CHARS || (lines < SAMPLE_LINES && size < SAMPLE_MAX)) {
      pending ??= blocks.next();
      const next = deadline === null ? await pending : await within(pending, deadline - Date.now());
      if (next === null) return { blocks: out, done: false, pending };
      pending = null;
      if (next.done) return { blocks: out, done: true, pending: null };
      out.push(next.value);
      size += next.value.length;
      if (lines < SAMPLE_LINES) lines += lineEnds(next.value);
      if (live !== null && deadline === null) {
        const t = partial + next.value;
        const end = Math.max(t.lastIndexOf('\n'), t.lastIndexOf('\r'));
        if (end !== -1 && itemLike(live, t.slice(0, end))) deadline = Date.now() + PAUSE_MS;
        partial = end === -1 ? t : t.slice(end + 1);
      }
    }
  } catch (err) {
    stream.destroy();
    throw readError(err, name);
  }
  return { blocks: out, done: false, pending: null };
}

/** The encoding, as --verbose and --dry-run name it. */
export function describeEncoding(e: EncodingInfo): string {
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

/** What reading a source finds as it goes: lines skipped, stray bytes; one note each at the end. */
export class Found {
  /** Lines that held text and are no records, by why (a note names the first runs; a million cost no memory). */
  private readonly skipped = new Map<Skipped['why'], LineRuns>();
  private readonly strayLines = new LineRuns();
  /** Stray bytes: how many, and the first few distinct, with what each was read as. */
  private readonly strayBytes = { count: 0, read: new Map<number, string>() };
  /** Lines whose item cell is empty while another column holds an item, and how often each column does. */
  private readonly elsewhere = { lines: new LineRuns(), columns: new Map<number, number>() };
  /** Lines whose item cell holds several items. */
  private readonly several = new LineRuns();
  /** Lines with more cells than the table whose item was read from the cell it was pushed to. */
  private readonly shifted = new LineRuns();
  readonly strays: StrayLines;

  constructor(
    readonly name: string,
    private readonly layout: Layout,
    private readonly decoding: Decoding,
    private readonly note: (line: string) => void,
    private readonly kind: Kind,
  ) {
    for (const s of layout.skipped) for (const line of s.lines) this.skip(line, s.why);
    this.strays = { strays: decoding.strays, found: (line, stray) => this.stray(line, stray) };
  }

  skip(line: number, why: Skipped['why']): void {
    let runs = this.skipped.get(why);
    if (!runs) this.skipped.set(why, (runs = new LineRuns()));
    runs.add(line);
  }

  /** A record's item cell holds several items. */
  severalIn(line: number): void {
    this.several.add(line);
  }

  /** A record's row has more cells than the table, and its item was pushed that many cells to the right. */
  shiftedIn(line: number): void {
    this.shifted.add(line);
  }

  /** A record's item cell is empty, and column `column` of its row holds an item. */
  itemIn(column: number, line: number): void {
    this.elsewhere.lines.add(line);
    this.elsewhere.columns.set(column, (this.elsewhere.columns.get(column) ?? 0) + 1);
  }

  private stray(line: number, stray: Stray): void {
    this.strayLines.add(line);
    this.strayBytes.count++;
    if (this.strayBytes.read.size < 6 && !this.strayBytes.read.has(stray.byte)) this.strayBytes.read.set(stray.byte, stray.char);
  }

  /** The notes of what only the end shows: footer rows, repeated headers, vCard lines, stray bytes, items elsewhere. */
  end(footer: string[] | null): void {
    const n = this.name;
    for (const [why, lines] of this.skipped) {
      const records = lines.count === 1 ? 'not a record' : 'not records';
      if (why === 'below the data') this.note(`${n}: skipped ${lines} below the data (${records}): ${preview(footer ?? [])}`);
      if (why === 'header repeated') this.note(`${n}: skipped ${lines}, the header again (${records})`);
      const items = this.kind === 'emails' ? 'addresses' : 'domains';
      if (why === 'section heading') this.note(`${n}: skipped ${lines}, the titles and headers of its sections (${records}); each section's ${items} were read from its own column`);
      if (why === 'section without items') this.note(`${n}: skipped ${lines} of sections whose header names no column of ${items} and which hold none (${records})`);
      const properties = this.layout.ldif ? 'LDIF attributes' : 'vCard properties';
      if (why === 'vCard line without an address') this.note(`${n}: skipped ${lines} of ${properties} that hold no ${this.kind === 'emails' ? 'address' : 'domain'} (${records})`);
      if (why === 'vCard property repeating its EMAIL') this.note(`${n}: skipped ${lines} of ${properties} that repeat their ${this.layout.ldif ? "entry's mail" : "card's EMAIL"} address (${records})`);
    }
    if (this.strayBytes.count) this.note(strayNote(n, this.strayLines, this.strayBytes));
    if (this.several.count) this.note(severalNote(n, this.layout, this.several));
    if (this.shifted.count) this.note(shiftedNote(n, this.layout, this.shifted, this.kind));
    if (this.elsewhere.lines.count) this.note(elsewhereNote(n, this.layout, this.elsewhere, this.kind));
  }

  facts(): SourceFacts {
    const skipped = [...this.skipped].map(([why, lines]) => ({ why, lines }));
    return { encoding: this.decoding.encoding, skipped, skippedLines: skipped.reduce((n, s) => n + s.lines.count, 0) };
  }
}

/** `column 3 ("E-mail Address")`, or `column 3` without a header; `, ` before the name with `comma`. */
function columnNamed(layout: Layout, c: number, comma = false): string {
  const name = layout.header?.[c]?.trim();
  return `column ${c + 1}${name ? (comma ? `, "${name}"` : ` ("${name}")`) : ''}`;
}

/** The one note of the records whose item cell holds several items. */
function severalNote(name: string, layout: Layout, lines: LineRuns): string {
  const one = lines.count === 1;
  return (
    `${name}: ${lines} ${one ? 'holds' : 'hold'} several addresses in one cell of ${columnNamed(layout, layout.column)}: ` +
    `each such row is one record, written as invalid; split ${one ? 'that cell' : 'those cells'}, one address a cell, to validate each.`
  );
}

/** The one note of the rows whose item was read from the cell an unquoted delimiter pushed it to. */
function shiftedNote(name: string, layout: Layout, lines: LineRuns, kind: Kind): string {
  const one = lines.count === 1;
  const d = layout.delimiter === '\t' ? 'tab' : `"${layout.delimiter}"`;
  return (
    `${name}: ${lines} ${one ? 'has' : 'have'} more cells than the table, as if a cell held a ${d} without quotes: ` +
    `${one ? 'its' : 'their'} ${kind === 'emails' ? 'address' : 'domain'} was read from the cell it was pushed to, right of ${columnNamed(layout, layout.column)}; check ${one ? 'that row' : 'those rows'}.`
  );
}

/** The one note of the records whose item is in another column than the one read. */
function elsewhereNote(name: string, layout: Layout, { lines, columns }: { lines: LineRuns; columns: Map<number, number> }, kind: Kind): string {
  const [most] = [...columns].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]!;
  const where = columns.size === 1 ? columnNamed(layout, most) : `another column (most often ${columnNamed(layout, most, true)})`;
  const one = lines.count === 1;
  return (
    `${name}: ${lines} ${one ? 'holds' : 'hold'} no ${kind === 'emails' ? 'address' : 'domain'} in ${columnNamed(layout, layout.column)} but one in ${where}: ` +
    `${one ? 'it is' : 'they are'} written as invalid; give --column ${most + 1} to validate that column instead.`
  );
}

/** The one note of a UTF-8 file's stray bytes: their lines, the bytes, and what they were read as. */
function strayNote(name: string, lines: LineRuns, { count, read }: { count: number; read: Map<number, string> }): string {
  const bytes = [...read.keys()].slice(0, 5);
  const hex = bytes.map((b) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`).join(', ');
  const chars = bytes.map((b) => `"${read.get(b)}"`).join(', ');
  const one = count === 1;
  return (
    `${name}: ${lines} ${lines.count === 1 ? 'holds' : 'hold'} ${one ? 'a byte' : `${num(count)} bytes`} that ${one ? 'is' : 'are'} not UTF-8 (${hex}${read.size > 5 ? ', …' : ''}), ` +
    `read as the Windows-1252 ${one ? 'character' : 'characters'} ${chars}; the rest of the file is UTF-8. Check ${lines.count === 1 ? 'that line' : 'those lines'}, or give --encoding NAME if the file is in another encoding.`
  );
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

/**
 * A plain list's lines (the header line skipped): one record a line, or one per recipient of a line of several
 * (`a@x.com, Bob <b@y.org>`). With `keep` (--keep-columns) each record keeps its text as read, as its one cell.
 */
async function* plainRecords(blocks: AsyncIterable<string>, layout: Layout, kind: Kind, keep: boolean, found: Found, bound: RowBound): AsyncGenerator<InputRecord[]> {
  if (layout.vcard || layout.ldif) return yield* vcardRecords(blocks, kind, keep, found, layout.ldif ? LDIF : VCARD, bound);
  const skip = new Set(layout.skip);
  const lastSkip = layout.skip.length ? Math.max(...layout.skip) : -1;
  let index = -1;
  for await (const { lines, separators } of linesOf(blocks, bound, found.strays)) {
    const out: InputRecord[] = [];
    for (const text of lines) {
      if (text.trim() === '') continue;
      if (++index <= lastSkip && skip.has(index)) continue;
      const parts = separators && (text.includes(',') || text.includes(';')) ? recipientsOf(text) : null;
      if (parts) for (const p of parts) out.push({ value: p, fields: keep ? [p] : null });
      else out.push({ value: text, fields: keep ? [text] : null });
    }
    if (out.length) yield out;
  }
  found.end(null);
}

/** A vCard file's records (vcard.ts): its EMAIL properties, and other lines that hold an address of their own. */
async function* vcardRecords(blocks: AsyncIterable<string>, kind: Kind, keep: boolean, found: Found, format: CardFormat, bound: RowBound): AsyncGenerator<InputRecord[]> {
  const reader = new VCardReader(kind, keep, (line, why) => found.skip(line, why), format);
  let line = 0;
  for await (const { lines } of linesOf(blocks, bound, found.strays)) {
    const out: InputRecord[] = [];
    for (const text of lines) reader.line(text, ++line, out);
    if (out.length) yield out;
  }
  const rest: InputRecord[] = [];
  reader.end(rest);
  if (rest.length) yield rest;
  found.end(null);
}

/** A run of short rows without item-like text held this long is data after all, not a footer. */
const FOOTER_MAX = 1000;
/** What the first line of a report's footer says (totals, copyright, who made it). */
const FOOTER_WORDS = /^\s*(grand\s+)?(sub)?totals?\b|^\s*(sum|count|average)\b|copyright|\u00a9|\(c\)\s*\d{4}|confidential|all rights reserved|^\s*generated\b|^\s*(report|exported|filtered|printed|page)\b/i;

/**
 * CSV records as csv-parse reads them (csv-rows.ts): rows above the header and the header skipped; blank rows
 * (`,,,`) are none; the header again (files joined together) is skipped. Rows narrower than the table (or of a
 * table one column wide) without item-like text are held back: records if a row follows them, a footer (skipped, said) if the file ends with
 * them after a blank line or with a footer's words (`Grand Totals`, `Copyright`), else records after all.
 */
function csvRecords(blocks: AsyncIterable<string>, layout: Layout, kind: Kind, found: Found, quotes: boolean, bound: RowBound): AsyncGenerator<InputRecord[]> {
  const text = layout.sepLine ? withoutSepLine(blocks, found.strays) : blocks;
  return tableRecords(csvRows(text, layout.delimiter!, bound.name, layout.sepLine ? 2 : 1, found.strays, quotes, bound.max), layout, kind, found);
}

/**
 * The records of a table's rows (CSV's, or any other reader's: a workbook's rows, with their row numbers as
 * lines), under the record rule as csvRecords says.
 */
export async function* tableRecords(batches: AsyncIterable<RowBatch>, layout: Layout, kind: Kind, found: Found): AsyncGenerator<InputRecord[]> {
  const rule = new RecordRule(layout, kind, found);
  for await (const batch of batches) {
    const out = rule.records(batch);
    if (out.length) yield out;
  }
  const { rest, footer } = rule.end();
  if (rest.length) yield rest;
  found.end(footer);
}

/** The record rule over a table's rows, a batch at a time: what it skips, and the short rows it holds back. */
class RecordRule {
  /** The item column of the section read (sections.ts), null under a heading that names none; its header and width. */
  private col: number | null;
  private header: readonly string[] | null;
  private width: number;
  /** Where each cell of the section's rows goes under the layout's header (null: where it is). */
  private places: number[] | null = null;
  private readonly target: readonly string[] | null;
  /** A row that may title the next section: it is one when a heading follows it. */
  private title: { row: string[]; line: number; blank: boolean } | null = null;
  private sectioned: boolean;
  private readonly flag: string | undefined;
  private readonly skip: Set<number>;
  private readonly lastSkip: number;
  /** Rows seen (blank ones aside), from 0. */
  private index = -1;
  /** Short rows without item-like text, held until a row follows them (records) or the input ends (a footer?). */
  private held: string[][] = [];
  private heldLines: number[] = [];
  /** The rows held came after a blank row or line. */
  private apart = false;
  /** A blank row since the last row. */
  private blank = false;
  /** The last record's row (or the header), and its line. */
  private last: readonly string[];
  private lastLine: number;
  private readonly check: ReturnType<typeof checkerFor>;
  private readonly delimiter: string | null;

  constructor(
    layout: Layout,
    private readonly kind: Kind,
    private readonly found: Found,
  ) {
    this.col = layout.sections?.column ?? layout.column;
    this.header = layout.sections?.first ?? layout.header;
    this.width = layout.sections?.first.length ?? layout.width;
    this.target = layout.header;
    if (layout.sections) this.places = cellPlaces(layout.sections.first, layout.header!);
    this.sectioned = layout.sections !== null;
    this.flag = layout.sections?.flag;
    this.delimiter = layout.delimiter;
    this.skip = new Set(layout.skip);
    this.lastSkip = layout.skip.length ? Math.max(...layout.skip) : -1;
    this.last = layout.header ?? [];
    this.lastLine = layout.headerLine ?? 0;
    this.check = checkerFor(kind);
  }

  records({ rows, lines }: RowBatch): InputRecord[] {
    const out: InputRecord[] = [];
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (isBlank(row)) {
        this.blank = true;
        continue;
      }
      if (++this.index <= this.lastSkip && this.skip.has(this.index)) continue;
      if (i + 1 === rows.length || lines[i + 1]! > lines[i]! + 1) this.noRowsInside(row, lines[i]!);
      this.take(row, lines[i]!, out);
    }
    return out;
  }

  /** A row: the heading of the next section (with the title held above it), a title to hold, or a row of the section. */
  private take(row: string[], line: number, out: InputRecord[]): void {
    // A heading holds no item-like text: a row with an item in its item cell (nearly every row) is asked no more.
    const placed = this.col !== null && this.title === null && this.inPlace(row[this.col] ?? '');
    const column = placed ? undefined : this.heading(row);
    if (column !== undefined) {
      if (this.title) this.found.skip(this.title.line, 'section heading');
      this.title = null;
      this.found.skip(line, 'section heading');
      this.switchTo(row, line, column, out);
      return;
    }
    this.release(out);
    if (!placed && sectionTitle(this.kind, row)) this.title = { row, line, blank: this.blank };
    else this.one(row, line, out);
  }

  /** Whether an item cell holds item-like text (for addresses its `@` is enough to tell: a row costs no pattern). */
  private inPlace(cell: string): boolean {
    return this.kind === 'emails' ? cell.indexOf('@') > 0 : itemLike(this.kind, cell);
  }

  /** A title held that no heading followed: a row like any other. */
  private release(out: InputRecord[]): void {
    if (this.title === null) return;
    const { row, line, blank } = this.title;
    const after = this.blank;
    this.title = null;
    this.blank = blank;
    this.one(row, line, out);
    this.blank ||= after;
  }

  /**
   * The item column a row heads a section with (null: a heading naming none), or undefined when it heads none: a
   * header other than the section's in a table with a header (or any under a title), or under a title in a report
   * of sections a row naming columns. Below data without a header, a row of names is data.
   */
  private heading(row: readonly string[]): number | null | undefined {
    const titled = this.title !== null;
    if (!titled && (this.header === null || sameRow(row, this.header))) return undefined; // data, or the header again
    const column = sectionHeader(this.kind, row, !titled);
    if (column !== null) {
      const named = this.flag === undefined ? -1 : row.findIndex((c) => c.trim().toLowerCase() === this.flag!.toLowerCase());
      return named === -1 ? column : named;
    }
    return titled && this.sectioned && namesSomeColumns(this.kind, row) ? null : undefined;
  }

  /** The next section: rows held in this one are its records; the next rows are read under `header`. */
  private switchTo(header: string[], line: number, column: number | null, out: InputRecord[]): void {
    for (const h of this.held) out.push(this.record(h, this.valueOf(h)));
    this.held = [];
    this.heldLines = [];
    this.sectioned = true;
    this.header = header;
    this.col = column;
    this.width = header.length;
    this.places = this.target ? cellPlaces(header, this.target) : null;
    this.last = header;
    this.lastLine = line;
    this.blank = false;
  }

  /** A record of the section read: its cells laid out under the layout's header. */
  private record(row: string[], value: string): InputRecord {
    return { value, fields: this.places ? placeCells(row, this.places, this.target!.length) : row };
  }

  /** Where a cell of the section's rows is under the layout's header (a note names the column there). */
  private placeOf(c: number): number {
    const at = this.places?.[c];
    return at === undefined || at === -1 ? c : at;
  }

  /** The item cell of a row of the section; under a heading that names no item column, its first item-like cell. */
  private valueOf(row: readonly string[]): string {
    if (this.col !== null) return row[this.col] ?? '';
    return row.find((c) => itemLike(this.kind, c)) ?? '';
  }

  /** A row of the section read: the header again, a row held (a footer?), no record (a section without items), or a record. */
  private one(row: string[], line: number, out: InputRecord[]): void {
    const { col, header } = this;
    // Asked only of the few rows the cheaper tests leave (most rows are neither short nor the header again).
    const holdsText = () => row.some((c) => itemLike(this.kind, c));
    if (col === null && !holdsText()) {
      this.found.skip(line, 'section without items');
      return;
    }
    if (header !== null && col !== null && row[col] === header[col] && sameRow(row, header) && !holdsText()) {
      this.found.skip(line, 'header repeated');
      return;
    }
    if ((row.length < this.width || this.width === 1) && this.held.length < FOOTER_MAX && !holdsText()) {
      this.hold(row, line);
      return;
    }
    for (const h of this.held) out.push(this.record(h, this.valueOf(h)));
    this.held = [];
    this.heldLines = [];
    const value = col === null ? this.valueOf(row) : this.itemOf(row, line);
    if (value.trim() === '') this.itemElsewhere(row, line);
    else if (value.indexOf('@') !== value.lastIndexOf('@') && this.holdsSeveral(value)) this.found.severalIn(line);
    out.push(this.record(row, value));
    this.last = row;
    this.lastLine = line;
    this.blank = false;
  }

  /** The rows still held: a footer (skipped) after a blank line or with a footer's words, else records. */
  end(): { rest: InputRecord[]; footer: string[] | null } {
    const last: InputRecord[] = [];
    this.release(last);
    const { held } = this;
    const footer = held.length > 0 && (this.apart || FOOTER_WORDS.test(held[0]!.filter((c) => c.trim() !== '').join(' ')));
    if (!footer) return { rest: [...held.map((h) => this.record(h, this.valueOf(h))), ...last], footer: null };
    for (const line of this.heldLines) this.found.skip(line, 'below the data');
    return { rest: last, footer: held[0]! };
  }

  /**
   * The row's item cell; in a row wider than the table, whose item cell holds the rest of a phrase an unquoted
   * delimiter cut (`Lee, Bob` gives ` Bob`: it starts with white space, no `@`), the cell its item was pushed to.
   * Any other wider row keeps its item cell (`n/a`, empty: the address right of it may be another column's),
   * and a pushed-looking address is only said (the note of an item in another column).
   */
  private itemOf(row: readonly string[], line: number): string {
    const col = this.col!;
    const value = row[col] ?? '';
    const extra = row.length - this.width;
    if (extra <= 0 || this.delimiter === null || this.check(value) !== null || value.includes('@')) return value;
    const pushed = row[col + extra];
    if (pushed === undefined || this.check(pushed) === null) return value;
    if (value.trim() === '' || value.trimStart() === value) {
      this.found.itemIn(this.placeOf(col + extra), line);
      return value;
    }
    this.found.shiftedIn(line);
    return pushed;
  }

  /**
   * A quoted cell that runs on over lines which read as rows of the table's own (as many cells, one an item): a
   * quote that was part of the text has swallowed those rows, which no record would hold.
   */
  private noRowsInside(row: readonly string[], line: number): void {
    const { delimiter } = this;
    if (delimiter === null) return;
    let at = line;
    for (const cell of row) {
      if (cell.indexOf('\n') === -1 && cell.indexOf('\r') === -1) continue;
      // A cell quoted as RFC 4180 has it comes without its quotes, whatever its lines hold (a note quoting a
      // signature, a pasted row): valid CSV, read as one cell. One that keeps its opening quote is one csv-parse
      // could not read as quoted (closed, then more text: `5" screen`): the quote was text.
      if (!cell.startsWith('"')) {
        at += lineEndsIn(cell);
        continue;
      }
      const inner = cell.split(/\r\n|\n|\r/);
      for (let k = 1; k < inner.length; k++) {
        const cells = inner[k]!.split(delimiter);
        const item = cells.length >= Math.max(2, this.width - 1) ? cells.find((c) => this.check(c) !== null) : undefined;
        if (item === undefined) continue;
        throw inputError(
          `${this.found.name}: the quoted cell that opens on line ${num(at)} runs on to line ${num(at + inner.length - 1)}, over lines that read as ` +
            `rows of their own (line ${num(at + k)} holds ${item.trim()}): a quote there is part of the text, not CSV quoting; give --no-quotes to read every line as a row, or write that quote as "".`,
        );
      }
      at += inner.length - 1;
    }
  }

  /** A record without an item whose row holds one in another column (a contact's second address): said at the end. */
  private itemElsewhere(row: readonly string[], line: number): void {
    for (let c = 0; c < row.length; c++) {
      if (c !== this.col && this.check(row[c]!) !== null) return this.found.itemIn(this.placeOf(c), line);
    }
  }

  /** Whether an item cell is no item but holds several (`a@x.com ::: b@y.org`, `a@x.com; b@y.org`). */
  private holdsSeveral(value: string): boolean {
    if (this.check(value) !== null) return false;
    let items = 0;
    for (const part of value.split(/:::|[,;\s]+/)) if (part !== '' && this.check(part) !== null) items++;
    return items >= 2;
  }

  private hold(row: string[], line: number): void {
    if (this.held.length === 0) this.apart = this.blank || (this.lastLine > 0 && line > this.lastLine + 1 + rowLineEnds(this.last));
    this.held.push(row);
    this.heldLines.push(line);
    this.blank = false;
  }
}

function sameRow(row: readonly string[], header: readonly string[]): boolean {
  if (row.length !== header.length) return false;
  for (let i = 0; i < row.length; i++) if (row[i]!.trim() !== header[i]!.trim()) return false;
  return true;
}

/** The blocks without an Excel `sep=X` first line (stray bytes of the first block keep their places). */
async function* withoutSepLine(blocks: AsyncIterable<string>, strays: StrayLines): AsyncGenerator<string> {
  let first = true;
  for await (const block of blocks) {
    if (first) {
      const rest = block.replace(/^sep=.[ \t]*(\r\n|\n|\r)?/i, '');
      const cut = block.length - rest.length;
      for (const s of strays.strays.get(0) ?? []) s.at -= cut;
      yield rest;
    } else yield block;
    first = false;
  }
}
