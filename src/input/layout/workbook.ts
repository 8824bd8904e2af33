// An Excel workbook as a source: one sheet (--sheet, else the first visible one), its rows as the texts Excel
// shows, laid out as CSV's are (detect.ts tableLayout). The workbook reader is loaded only when a run reads one.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Kind } from '../../core/defaults.js';
import { IdvError, inputError, interruptedError } from '../../core/errors.js';
import { formatSize } from '../../core/size.js';
import { largerSize } from '../bytes/content.js';
import { rowTooLong } from './csv-rows.js';
import { removeLeftovers, tempFileGone, tempFileOpened, tempPathBeside } from '../../system/temp-files.js';
import { tableLayout, type Layout, type LayoutOverrides } from './detect.js';
import type { RowBatch } from './csv-rows.js';
import { LineRuns, num } from './notes.js';
import type { Cell, Row, SheetInfo, Workbook } from '../../xlsx/reader.js';

/** Rows the layout is guessed from (as CSV's sample, more than enough for a header and a column choice)... */
const SAMPLE_ROWS = 1000;
/** ...or fewer when they are wide: the sample's cells, and their text (in characters), stay bounded. */
const SAMPLE_CELLS = 200_000;
const SAMPLE_CHARS = 8 * 1024 * 1024;

export interface SheetRead {
  layout: Layout;
  /** The sheet read: its name, its number (from 1) and how many sheets the workbook has. */
  sheet: { name: string; number: number; of: number };
  /** Every row from the sheet's first, with its row number as its line. */
  rows: AsyncIterable<RowBatch>;
  close(): Promise<void>;
}

export interface SheetOptions {
  name: string;
  kind: Kind;
  overrides: LayoutOverrides;
  note(line: string): void;
  signal?: AbortSignal;
  /** --max-unpacked: a copy of a workbook not on disk, its shared strings. */
  maxUnpacked: number;
  maxRowSize: number;
}

/**
 * Where a workbook not on disk is copied: a name in the temporary folder marked with this process, so that the
 * copy of a run killed outright (kill -9) is removed by the next run that makes one.
 */
async function copyPath(): Promise<string> {
  const copy = join(tmpdir(), 'idv-workbook.xlsx');
  await removeLeftovers(copy);
  return tempPathBeside(copy);
}

/**
 * Open the workbook at `source`: a regular file's path or open descriptor (which it takes over), or its bytes
 * (copied to a private temporary file).
 */
export async function openSheet(source: string | number | AsyncIterable<Buffer>, options: SheetOptions): Promise<SheetRead> {
  const { openWorkbook, UNCOMPUTED } = await import('../../xlsx/reader.js');
  let wb: Workbook;
  try {
    const input = typeof source === 'string' || typeof source === 'number' ? source : Readable.from(source, { objectMode: false });
    const { maxUnpacked, maxRowSize, signal } = options;
    const tempFile = { path: copyPath, opened: tempFileOpened, gone: tempFileGone };
    wb = await openWorkbook(input, { tempFile, halt: signal, maxCopyBytes: maxUnpacked, maxSharedBytes: maxUnpacked, maxRowChars: maxRowSize });
  } catch (err) {
    throw workbookError(err, options.name);
  }
  try {
    return await readSheet(wb, options, UNCOMPUTED);
  } catch (err) {
    await wb.close().catch(() => undefined);
    throw workbookError(err, options.name);
  }
}

async function readSheet(wb: Workbook, options: SheetOptions, uncomputed: Cell): Promise<SheetRead> {
  const sheet = wb.sheet(options.overrides.sheet);
  const others = options.overrides.sheet === undefined ? await otherSheetsWithData(wb, sheet) : [];
  const rows = new SheetRows(wb.rows(sheet), options.overrides.cellTypes === true, uncomputed);
  const sample = await rows.sample();
  const holds = others.length === 1 ? 'holds' : 'hold';
  if (others.length > 0 && sample.rows.every((r) => r.length === 0)) {
    throw inputError(`${options.name}: its first sheet, "${sheet.name}", is empty; ${listOf(others)} ${holds} data: give --sheet NAME to read it.`);
  }
  if (others.length > 0) {
    options.note(`${options.name}: read sheet "${sheet.name}" (the first); ${listOf(others)} ${holds} data too: give --sheet NAME or --sheet N to read another.`);
  }
  let layout: Layout;
  try {
    layout = tableLayout(options.kind, sample, ',', options.overrides, options.name);
  } catch (err) {
    // No column of items, perhaps because the items are formulas without values: those are said instead.
    if (rows.formulas.count > 0) throw await rows.formulasError(null, options, sheet.name);
    throw err;
  }
  if (rows.formulasIn(layout.column)) throw await rows.formulasError(layout, options, sheet.name);
  let closed: Promise<void> | null = null;
  return {
    layout,
    sheet: { name: sheet.name, number: sheet.number, of: wb.sheets.length },
    rows: rows.all(sample, layout, options, sheet.name),
    close: () => (closed ??= wb.close()),
  };
}

/**
 * A sheet's rows as texts, each with its row number as its line: the sample the layout is guessed from, then all.
 * Formulas stored without a value (xlsx.ts UNCOMPUTED) are looked for in the sample's cells and, after it, in the
 * item column: an address behind one is an address idv cannot read, so the workbook is refused, naming them all.
 */
class SheetRows {
  private readonly blocks: AsyncIterator<Row[]>;
  private line = 0;
  private done = false;
  /** The sample's cells that are formulas without a value: their rows, and the columns they are in. */
  readonly formulas = new LineRuns();
  private readonly formulaColumns = new Map<number, LineRuns>();

  constructor(
    rows: AsyncIterable<Row[]>,
    private readonly typed: boolean,
    /** xlsx.ts UNCOMPUTED, the one cell every formula without a value is (told by identity: a row costs one compare). */
    private readonly uncomputed: Cell,
  ) {
    this.blocks = rows[Symbol.asyncIterator]();
  }

  async sample(): Promise<RowBatch> {
    const sample: RowBatch = { rows: [], lines: [], ...(this.typed ? { cells: [] } : {}) };
    let cells = 0;
    let chars = 0;
    while (sample.rows.length < SAMPLE_ROWS && cells < SAMPLE_CELLS && chars < SAMPLE_CHARS) {
      const next = await this.blocks.next();
      if (next.done) {
        this.done = true;
        break;
      }
      for (const row of next.value) {
        sample.rows.push(texts(row));
        sample.cells?.push(row);
        sample.lines.push(++this.line);
        cells += row.length;
        for (let c = 0; c < row.length; c++) {
          chars += row[c]!.text.length;
          if (row[c] === this.uncomputed) this.formulaAt(this.line, c);
        }
      }
    }
    return sample;
  }

  private formulaAt(line: number, column: number): void {
    this.formulas.add(line);
    let runs = this.formulaColumns.get(column);
    if (!runs) this.formulaColumns.set(column, (runs = new LineRuns()));
    runs.add(line);
  }

  formulasIn(column: number): boolean {
    return this.formulaColumns.has(column);
  }

  /** The sample, then the rows after it (refused at an item cell that is a formula without a value). */
  async *all(sample: RowBatch, layout: Layout, options: SheetOptions, sheet: string): AsyncGenerator<RowBatch> {
    if (sample.rows.length) yield sample;
    if (this.done) return;
    const col = layout.column;
    for (let next = await this.blocks.next(); !next.done; next = await this.blocks.next()) {
      const block = next.value;
      const batch: RowBatch = { rows: new Array(block.length), lines: new Array(block.length), ...(this.typed ? { cells: block } : {}) };
      for (let i = 0; i < block.length; i++) {
        const row = block[i]!;
        batch.rows[i] = texts(row);
        batch.lines[i] = ++this.line;
        if (row[col] === this.uncomputed) {
          this.formulaAt(this.line, col);
          this.formulasAfter(block, i, col); // the rest of this block too: formulasError reads on from the next
          throw await this.formulasError(layout, options, sheet);
        }
      }
      if (batch.rows.length) yield batch;
    }
  }

  /** The formulas without a value in `column` of the rows of `block` after its `i`th. */
  private formulasAfter(block: Row[], i: number, column: number): void {
    for (let j = i + 1; j < block.length; j++) if (block[j]![column]?.uncomputed) this.formulaAt(this.line + j - i, column);
    this.line += block.length - 1 - i;
  }

  /**
   * The refusal of formulas without values: in the item column (or, with no column of items found, in any), every
   * one of the sheet counted (the rest of the sheet is read for them), with how to store their values.
   */
  async formulasError(layout: Layout | null, options: SheetOptions, sheet: string): Promise<IdvError> {
    const col = layout?.column;
    const runs = col === undefined ? this.formulas : this.formulaColumns.get(col)!;
    if (!this.done) {
      for (let next = await this.blocks.next(); !next.done; next = await this.blocks.next()) {
        for (const row of next.value) {
          this.line++;
          if (col === undefined ? row.includes(this.uncomputed) : row[col] === this.uncomputed) runs.add(this.line);
        }
      }
      this.done = true;
    }
    const where = col === undefined ? '' : `column ${col + 1}${layout?.header?.[col] ? ` ("${layout.header[col]}")` : ''} of `;
    const cells = runs.count === 1 ? 'cell' : 'cells';
    const are = runs.count === 1 ? 'is a formula' : 'are formulas';
    return inputError(
      `${options.name}: ${num(runs.count)} ${cells} of ${where}sheet "${sheet}" ${are} without a computed value (${rowList(runs)}): the program that wrote the workbook left ` +
        `their values out, and idv reads values, not formulas; open the workbook in Excel or LibreOffice and save it, which stores the values, then run idv again.`,
    );
  }
}

/** `row 3`, `rows 2–7`: a workbook's lines are its rows. */
const rowList = (runs: LineRuns) => String(runs).replace(/^line(s?)/, 'row$1');

/** A row's texts as Excel shows them. */
const texts = (row: Row): string[] => row.map((c) => c.text);

/** The other sheets that hold a value, in tab order (a chart or a damaged sheet holds none that idv reads). */
async function otherSheetsWithData(wb: Workbook, chosen: SheetInfo): Promise<SheetInfo[]> {
  const out: SheetInfo[] = [];
  for (const s of wb.sheets) {
    if (s.number === chosen.number) continue;
    if (await wb.hasData(s).catch(() => false)) out.push(s);
  }
  return out;
}

function listOf(sheets: readonly SheetInfo[]): string {
  const named = sheets.map((s) => `"${s.name}"${s.hidden ? ' (hidden)' : ''}`);
  return named.length === 1 ? `sheet ${named[0]}` : `sheets ${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
}

/** A bound of the workbook reader passed (xlsx-zip.ts LimitError), said with the flag that raises it. */
function limitError(e: Error & { limit: string; what: string; size: number; max: number }, name: string): IdvError {
  const { limit, what, size, max } = e;
  if (limit === 'row') return rowTooLong({ name, max }, null, what) as IdvError;
  if (limit === 'copy') {
    return inputError(
      `${name} is a workbook larger than ${formatSize(max)}, which idv would copy to a temporary file to read it (a workbook is read from its end); ` +
        `give it as a file on disk, which is read where it is, or a larger --max-unpacked (e.g. --max-unpacked ${largerSize(max)}).`,
    );
  }
  return inputError(
    `${name}: ${what} unpack to ${size > max ? formatSize(size) : `more than ${formatSize(max)}`}, more than the ${formatSize(max)} a file may unpack before its first record; ` +
      `if it is a workbook you trust, give a larger --max-unpacked (e.g. --max-unpacked ${formatSize(2 ** Math.ceil(Math.log2(Math.max(size, max * 2)))).replace(' ', '')}).`,
  );
}

/** A workbook's error, named for its file: what it is instead (a zip archive…), or why it cannot be read. */
export function workbookError(err: unknown, name: string): unknown {
  if (err instanceof IdvError) return err;
  if (err instanceof Error && err.name === 'ReadStopped') return interruptedError((err as Error & { reason: unknown }).reason);
  if (err instanceof Error && 'limit' in err && 'what' in err) return limitError(err as Parameters<typeof limitError>[0], name);
  const e = err as Error & { code?: string };
  if (e?.name === 'WorkbookError') {
    const m = /^it is (.*)$/s.exec(e.message);
    return inputError(m ? `${name} is ${m[1]}.` : `Cannot read ${name}: ${e.message}.`);
  }
  return err;
}
