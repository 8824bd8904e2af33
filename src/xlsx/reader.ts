// An Excel workbook (.xlsx, .xlsm, .xltx) read as rows of cells: each cell's text as Excel shows it (its
// number format applied; a formula's cached value; shared, inline and rich text joined) and its type.
// Streaming: a sheet is parsed as its part inflates, a block of rows at a time; what is held is the shared
// strings table (SharedStrings: its UTF-8 bytes plus 4 bytes a string) and the cell styles' formats.
// A workbook that is not a file on disk (standard input, a pipe, a decompressed stream) is first copied to
// a temporary file, since a zip is read from its end (zip-reader.ts).
import { createReadStream, createWriteStream, promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { generalNumber, inCalendar, isoFormat, numberFormat } from './number-format.js';
import { relationships, SharedStrings, sharedStringsPart, stylesPart, workbookPart, unescapeOoxml, type Styles, type WorkbookPart } from './parts.js';
import { xmlEvents } from './xml.js';
import type { TypedCell } from './cell.js';
import { checkHalt, LimitError, openZip, WorkbookError, type Halt, type ZipArchive } from './zip-reader.js';

export { LimitError, ReadStopped, WorkbookError, type Halt } from './zip-reader.js';

/** A cell as read (cell.ts), or a formula the workbook holds no value of. */
export interface Cell extends TypedCell {
  /** A formula whose value the workbook does not hold (its writer did not compute it): shown empty (UNCOMPUTED). */
  readonly uncomputed?: true;
}

export interface SheetInfo {
  readonly name: string;
  /** 1-based, in the workbook's tab order. */
  readonly number: number;
  readonly hidden: boolean;
}

export interface Workbook {
  /** Every sheet, in tab order (charts and dialog sheets included: choosing one is an error). */
  readonly sheets: readonly SheetInfo[];
  /** `--sheet NAME|N`: a name (exact, else ignoring case), else a number from 1; none: the first visible sheet. */
  sheet(choice?: string): SheetInfo;
  /**
   * The sheet's rows from row 1, a block at a time: row i of the stream is the sheet's row i + 1. A row's
   * cells start at column A; empty cells inside it are EMPTY, and it ends at its last cell with a value.
   * Empty rows between rows with values come as BLANK (no cells); none after the last.
   */
  rows(sheet: SheetInfo): AsyncGenerator<Row[]>;
  /** Whether the sheet has a cell with a value (reads up to the first one). */
  hasData(sheet: SheetInfo): Promise<boolean>;
  /** Let go of the file (and remove the temporary copy, if one was made). */
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * Told about a temporary copy while it exists (so that a process ending at once can remove it); `path`, when
   * given, names the copy (by default a random name in the temporary folder).
   */
  tempFile?: { path?(): Promise<string>; opened(path: string): void; gone(path: string): void };
  /** Once it aborts, the copy and every part's reading end within a chunk, with ReadStopped. */
  halt?: Halt;
  /** Bounds, each passed with a LimitError: the characters of one row (and so of a cell or shared text)... */
  maxRowChars?: number;
  /** ...the bytes the shared strings unpack to (stated by the zip, refused before they are read; and counted)... */
  maxSharedBytes?: number;
  /** ...and the bytes a copy takes (removed). */
  maxCopyBytes?: number;
}

/** Bounds of what is held while a workbook is read (OpenOptions'), with their defaults. */
export interface Bounds {
  rowChars: number;
  sharedBytes: number;
}

/** The parts a sheet's cells point into, loaded once for every sheet. */
type Parts = { strings: SharedStrings; styles: Styles };

/** A row's cells from column A; it ends at its last cell with a value (a blank row has none). */
export type Row = readonly Cell[];

export const EMPTY: Cell = Object.freeze({ type: 'empty', text: '' });
/**
 * A formula stored without its value (`<c><f>…</f></c>`, or an empty `<v/>`, as openpyxl and other generators
 * write them: only a spreadsheet program computes it). Empty, yet a cell with something in it: its row is no
 * blank row, and a reader can tell it from a cell left empty.
 */
export const UNCOMPUTED: Cell = Object.freeze({ type: 'empty', text: '', uncomputed: true });
/** Every blank row is this one (a million blank rows cost nothing). */
export const BLANK: Row = Object.freeze([]);
/** Excel's widest sheet: XFD. */
export const MAX_COLUMNS = 16384;
/** Excel's longest sheet. */
export const MAX_ROWS = 1_048_576;
/** By default, the most characters a row (and so a cell, Excel's holds 32,767) may hold. */
const MAX_ROW_CHARS = 16 * 1024 * 1024;
/**
 * Empty cells filled in between values, beyond this many a value (plus a few wide rows' worth), mean a sheet
 * whose rows each reach far right with nothing between (a few bytes of XML a row, thousands of cells): no
 * table has that shape, and reading it would take minutes and gigabytes.
 */
const GAPS_PER_VALUE = 1000;
const GAPS_FREE = MAX_COLUMNS * 100;

/** The workbook at `source`: a path, a regular file's open descriptor (taken over: closed with the workbook), or a stream of its bytes. */
export async function openWorkbook(source: string | number | Readable, options: OpenOptions = {}): Promise<Workbook> {
  const file = await onDisk(source, options);
  try {
    const zip = await openZip(file.path, options.halt);
    try {
      return await workbook(zip, file.release, { rowChars: options.maxRowChars ?? MAX_ROW_CHARS, sharedBytes: options.maxSharedBytes ?? SharedStrings.MAX_BYTES });
    } catch (err) {
      await zip.close();
      throw err;
    }
  } catch (err) {
    await file.release();
    throw err;
  }
}

/** A regular file is read where it is; anything else (a stream, a FIFO) is copied to a private temporary file. */
async function onDisk(source: string | number | Readable, options: OpenOptions): Promise<{ path: string | number; release: () => Promise<void> }> {
  if (typeof source === 'number') return { path: source, release: async () => undefined };
  if (typeof source === 'string') {
    const stat = await fsp.stat(source);
    if (stat.isFile()) return { path: source, release: async () => undefined };
  }
  // One file, created new and private (a folder would outlive a process that must remove its files at once).
  const random = () => Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(8))).toString('hex');
  const path = (await options.tempFile?.path?.()) ?? join(tmpdir(), `idv-workbook-${random()}.xlsx`);
  options.tempFile?.opened(path);
  const release = async () => {
    await fsp.rm(path, { force: true });
    options.tempFile?.gone(path);
  };
  try {
    const input = typeof source === 'string' ? createReadStream(source) : source;
    await pipeline(input, copied(options), createWriteStream(path, { flags: 'wx', mode: 0o600 }));
    return { path, release };
  } catch (err) {
    await release();
    throw err;
  }
}

/** The bytes of a copy as they pass, a chunk at a time: the copy ends at a stop, or past its bound. */
function copied({ halt, maxCopyBytes = Infinity }: OpenOptions) {
  return async function* (chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    let bytes = 0;
    for await (const chunk of chunks) {
      checkHalt(halt);
      bytes += chunk.length;
      if (bytes > maxCopyBytes) throw new LimitError('copy', 'the workbook', bytes, maxCopyBytes);
      yield chunk;
    }
  };
}

async function workbook(zip: ZipArchive, release: () => Promise<void>, bounds: Bounds): Promise<Workbook> {
  refuseOtherFormats(zip);
  const packageRels = await relationships(zip, '');
  const main = [...packageRels.values()].find((r) => r.type === 'officeDocument')?.target ?? 'xl/workbook.xml';
  if (!zip.entry(main)) refuseOtherZips(zip);
  const book = await workbookPart(zip, main);
  const sheets: SheetInfo[] = book.sheets.map((s, i) => ({ name: s.name, number: i + 1, hidden: s.hidden }));
  let parts: Promise<Parts> | null = null;
  const load = () => (parts ??= loadParts(zip, book, bounds));
  const rows = (sheet: SheetInfo) => sheetRows(zip, book, sheet, load, bounds);
  return {
    sheets,
    sheet: (choice) => chooseSheet(sheets, book, choice),
    rows,
    async hasData(sheet) {
      for await (const block of rows(sheet)) if (block.length > 0) return true;
      return false;
    },
    async close() {
      await zip.close();
      await release();
    },
  };
}

/** An OpenDocument spreadsheet or a binary workbook is a zip too: say what it is. */
function refuseOtherFormats(zip: ZipArchive): void {
  if (zip.entry('mimetype') && zip.entry('content.xml')) {
    throw new WorkbookError('it is an OpenDocument spreadsheet (.ods), which idv does not read; save it as .xlsx or CSV');
  }
  if (zip.entry('xl/workbook.bin')) throw new WorkbookError('it is a binary workbook (.xlsb), which idv does not read; save it as .xlsx or CSV');
}

/** A zip without a workbook: a Word document, or any other archive. */
function refuseOtherZips(zip: ZipArchive): void {
  if (zip.entry('word/document.xml')) throw new WorkbookError('it is a Word document, not a list or CSV file; copy its addresses into a text file, one a line, and give that file');
  if (!zip.entry('[Content_Types].xml')) throw new WorkbookError('it is a zip archive, not a list or CSV file; unzip it and give the list or CSV file inside');
}

async function loadParts(zip: ZipArchive, book: WorkbookPart, bounds: Bounds): Promise<Parts> {
  const target = (type: string, fallback: string) => [...book.rels.values()].find((r) => r.type === type)?.target ?? fallback;
  const styles = await stylesPart(zip, target('styles', 'xl/styles.xml'));
  const strings = await sharedStringsPart(zip, target('sharedStrings', 'xl/sharedStrings.xml'), bounds);
  return { strings, styles };
}

function chooseSheet(sheets: SheetInfo[], book: WorkbookPart, choice: string | undefined): SheetInfo {
  const isTable = (s: SheetInfo) => book.sheets[s.number - 1].kind === 'worksheet';
  const list = () => sheets.map((s) => `"${s.name}"`).join(', ');
  let chosen: SheetInfo | undefined;
  if (choice === undefined) {
    chosen = sheets.find((s) => !s.hidden && isTable(s)) ?? sheets.find(isTable);
    if (!chosen) throw new WorkbookError('the workbook has no worksheet');
    return chosen;
  }
  chosen = sheets.find((s) => s.name === choice) ?? sheets.find((s) => s.name.toLowerCase() === choice.toLowerCase());
  if (!chosen && /^\d+$/.test(choice.trim())) chosen = sheets[Number(choice.trim()) - 1];
  if (!chosen) throw new WorkbookError(`it has no sheet "${choice}"; its sheets: ${list()}`);
  if (!isTable(chosen)) throw new WorkbookError(`its sheet "${chosen.name}" is a ${book.sheets[chosen.number - 1].kind}, not a table of cells`);
  return chosen;
}

/** The column index (0-based) of a cell reference's letters (`AB12` → 27), or -1 when it has none. */
export function columnOf(ref: string): number {
  let n = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i) | 0x20; // lower case
    if (c < 97 || c > 122) break;
    n = n * 26 + (c - 96);
  }
  return i === 0 ? -1 : n - 1;
}

async function* sheetRows(
  zip: ZipArchive,
  book: WorkbookPart,
  sheet: SheetInfo,
  load: () => Promise<Parts>,
  bounds: Bounds,
): AsyncGenerator<Row[]> {
  const part = book.sheets[sheet.number - 1].part;
  const entry = part === null ? undefined : zip.entry(part);
  if (!entry) throw new WorkbookError(`the workbook is damaged (the part of sheet "${sheet.name}" is missing); open it in a spreadsheet program and save it again`);
  const { strings, styles } = await load();
  const reader = new SheetReader(strings, styles, book.date1904, sheet.name, bounds.rowChars);
  const bound = { max: bounds.rowChars, what: () => `a cell of row ${reader.row} of sheet "${sheet.name}"` };
  for await (const _ of xmlEvents(zip.stream(entry), entry.name, reader, bound)) {
    if (reader.out.length > 0) yield reader.take();
  }
}

/** One sheet's XML → rows of cells. */
class SheetReader {
  out: Row[] = [];
  private nextRow = 1; // the sheet row the next row given out is
  /** The row being read. */
  row = 0;
  private cells: Cell[] = [];
  private filled = 0; // cells up to the last one with a value
  private col = 0;
  // The cell being read.
  private ref: string | undefined;
  private type: string | undefined;
  private style = 0;
  private value = '';
  private inline = '';
  private capture: 'v' | 'is' | null = null;
  private phonetic = 0;
  private inCell = false;
  private formula = false;
  /** Whether the cell has a `<v>` element at all (a computed empty text has one, empty). */
  private hasValue = false;
  private values = 0; // cells with a value so far
  private gaps = 0; // empty cells filled in so far
  private rowChars = 0; // the text of the row's cells so far

  constructor(
    private readonly strings: SharedStrings,
    private readonly styles: Styles,
    private readonly date1904: boolean,
    private readonly sheetName: string,
    private readonly maxRowChars: number,
  ) {}

  take(): Row[] {
    const block = this.out;
    this.out = [];
    return block;
  }

  open = (name: string, a: Record<string, string>): void => {
    if (name === 'c') {
      this.inCell = true;
      this.ref = a.r;
      this.type = a.t;
      this.style = a.s === undefined ? 0 : Number(a.s);
      this.value = '';
      this.inline = '';
      this.formula = false;
      this.hasValue = false;
    } else if (name === 'v' && this.inCell) {
      this.capture = 'v';
      this.hasValue = true;
    }
    else if (name === 't' && this.inCell && this.phonetic === 0) this.capture = 'is';
    else if (name === 'rPh') this.phonetic++;
    else if (name === 'row') {
      const r = a.r === undefined ? NaN : Number(a.r);
      this.row = r >= this.nextRow ? r : this.nextRow; // rows out of order are kept, in the order read
      if (this.row > MAX_ROWS) throw new WorkbookError(`sheet "${this.sheetName}" has a row past Excel's last, ${MAX_ROWS}; the workbook is damaged`);
      this.cells = [];
      this.filled = 0;
      this.col = 0;
      this.rowChars = 0;
    } else if (name === 'f' && this.inCell) this.formula = true;
  };

  close = (name: string): void => {
    if (name === 'v' || name === 't') this.capture = null;
    else if (name === 'rPh') this.phonetic--;
    else if (name === 'c') this.endCell();
    else if (name === 'row') this.endRow();
  };

  text = (t: string): void => {
    if (this.capture === 'v') this.value += t;
    else if (this.capture === 'is') this.inline += t;
    else return;
    const chars = this.value.length + this.inline.length;
    if (chars > this.maxRowChars) throw new LimitError('row', `a cell of row ${this.row} of sheet "${this.sheetName}"`, chars, this.maxRowChars);
  };

  private endCell(): void {
    this.inCell = false;
    const at = this.ref === undefined ? -1 : columnOf(this.ref);
    const col = at >= this.col ? at : this.col; // cells out of order are kept, in the order read
    if (col >= MAX_COLUMNS) throw new WorkbookError(`sheet "${this.sheetName}" row ${this.row} has a cell past column XFD; the workbook is damaged`);
    const cell = this.cell();
    if (cell !== EMPTY) this.values++;
    this.rowChars += cell.text.length;
    if (this.rowChars > this.maxRowChars) throw new LimitError('row', `row ${this.row} of sheet "${this.sheetName}"`, this.rowChars, this.maxRowChars);
    this.gaps += Math.max(0, col - this.cells.length);
    if (this.gaps > this.values * GAPS_PER_VALUE + GAPS_FREE) {
      throw new WorkbookError(`sheet "${this.sheetName}" spreads its values over ${col + 1} columns with nothing between them (row ${this.row}): it is no table idv can read; save the table alone as CSV`);
    }
    while (this.cells.length < col) this.cells.push(EMPTY);
    this.cells[col] = cell;
    this.col = col + 1;
    if (cell !== EMPTY) this.filled = this.cells.length;
  }

  private endRow(): void {
    if (this.filled === 0) return; // blank: given out only if a row with values follows
    while (this.nextRow < this.row) {
      this.out.push(BLANK);
      this.nextRow++;
    }
    this.cells.length = this.filled;
    this.out.push(this.cells);
    this.nextRow = this.row + 1;
  }

  private cell(): Cell {
    const v = this.value;
    // A computed empty text is t="str" with an empty <v>; a formula with no <v> at all, or any other without a value, was never computed.
    const computedEmpty = this.hasValue && (this.type === 'str' || this.type === 'inlineStr');
    if (this.formula && v === '' && this.inline === '' && !computedEmpty) return UNCOMPUTED;
    switch (this.type) {
      case 's': {
        if (v === '') return EMPTY;
        const text = this.strings.get(Number(v));
        if (text === undefined) throw new WorkbookError(`the workbook is damaged (sheet "${this.sheetName}" row ${this.row} points to shared string ${v}, which it does not have)`);
        return text === '' ? EMPTY : { type: 'text', text };
      }
      case 'inlineStr': {
        const text = unescapeOoxml(this.inline || v);
        return text === '' ? EMPTY : { type: 'text', text };
      }
      case 'str':
      case 'e':
        return v === '' ? EMPTY : { type: 'text', text: unescapeOoxml(v) };
      case 'b':
        return v === '' ? EMPTY : { type: 'boolean', text: v === '1' || v.toLowerCase() === 'true' ? 'TRUE' : 'FALSE' };
      case 'd':
        return v === '' ? EMPTY : this.isoDate(v);
      default:
        return v === '' ? EMPTY : this.number(v);
    }
  }

  private number(v: string): Cell {
    const x = Number(v);
    if (!Number.isFinite(x) || (x === 0 && v.trim() === '')) return { type: 'text', text: v };
    const style = this.styles.format(this.style);
    if (style === null) return { type: 'number', text: generalNumber(x), value: x };
    if (style.format.isDate) {
      const serial = this.date1904 ? x + 1462 : x;
      // A date format on a number outside Excel's calendar shows the number (Excel shows ####).
      if (!inCalendar(serial)) return { type: 'number', text: generalNumber(x), value: x };
      return { type: 'date', text: style.format.format(serial), value: serial, format: style.code };
    }
    return { type: 'number', text: style.format.format(x), value: x, format: style.code };
  }

  /** A `t="d"` cell: an ISO 8601 date and time, shown in the cell's date format, or as ISO 8601. */
  private isoDate(v: string): Cell {
    const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?)?/.exec(v.trim());
    if (!m) return { type: 'text', text: v };
    const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0)) + Number(m[6] ?? 0) * 1000;
    const days = (ms - Date.UTC(1899, 11, 30)) / 86400000;
    // A time alone is a fraction of day 0; before 1 March 1900, Excel's 29 February 1900 shifts the days by one.
    const serial = days < 1 ? days : days < 61 ? days - 1 : days;
    const style = this.styles.format(this.style);
    const code = style?.format.isDate ? style.code : isoFormat(serial);
    return { type: 'date', text: numberFormat(code).format(serial), value: serial, format: code };
  }
}
