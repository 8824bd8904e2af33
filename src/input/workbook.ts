// An Excel workbook as a source: one sheet (--sheet NAME|N, else the first visible one, with a note naming the
// other sheets that hold data), its rows as the texts Excel shows in their cells, laid out by the same guess as
// CSV (detect.ts tableLayout: header, rows above it, item column). read.ts applies the same record rule to the
// rows as to CSV's. The workbook reader (input/xlsx.ts and its modules) is loaded here only, when a run reads one.
import { Readable } from 'node:stream';
import type { Kind } from '../defaults.js';
import { IdvError, inputError, interruptedError } from '../errors.js';
import type { StopSignal } from '../stop.js';
import { tempFileGone, tempFileOpened } from '../temp-files.js';
import { tableLayout, type Layout, type LayoutOverrides } from './detect.js';
import type { RowBatch } from './csv-rows.js';
import { withCells } from './typed-row.js';
import type { Row, SheetInfo, Workbook } from './xlsx.js';

/** Rows the layout is guessed from (as CSV's sample, more than enough for a header and a column choice)... */
const SAMPLE_ROWS = 1000;
/** ...or fewer when they are wide: the sample's cells stay bounded. */
const SAMPLE_CELLS = 200_000;

export interface SheetRead {
  layout: Layout;
  /** The sheet read: its name, its number (from 1) and how many sheets the workbook has. */
  sheet: { name: string; number: number; of: number };
  /** Every row from the sheet's first, with its row number as its line. */
  rows: AsyncIterable<RowBatch>;
  close(): Promise<void>;
}

export interface SheetOptions {
  /** For messages. */
  name: string;
  kind: Kind;
  overrides: LayoutOverrides;
  note(line: string): void;
  /** The run's stop: the copy of the workbook, its parts and its rows end at the next chunk once it aborts. */
  signal?: StopSignal;
}

/** Open the workbook at `source` (a regular file's path, or its bytes: copied to a private temporary file). */
export async function openSheet(source: string | AsyncIterable<Buffer>, options: SheetOptions): Promise<SheetRead> {
  const { openWorkbook } = await import('./xlsx.js');
  let wb: Workbook;
  try {
    const input = typeof source === 'string' ? source : Readable.from(source, { objectMode: false });
    wb = await openWorkbook(input, { tempFile: { opened: tempFileOpened, gone: tempFileGone }, halt: options.signal });
  } catch (err) {
    throw workbookError(err, options.name);
  }
  try {
    return await readSheet(wb, options);
  } catch (err) {
    await wb.close().catch(() => undefined);
    throw workbookError(err, options.name);
  }
}

async function readSheet(wb: Workbook, options: SheetOptions): Promise<SheetRead> {
  const sheet = wb.sheet(options.overrides.sheet);
  const others = options.overrides.sheet === undefined ? await otherSheetsWithData(wb, sheet) : [];
  const rows = new SheetRows(wb.rows(sheet), options.overrides.cellTypes === true);
  const sample = await rows.sample();
  const holds = others.length === 1 ? 'holds' : 'hold';
  if (others.length > 0 && sample.rows.every((r) => r.length === 0)) {
    throw inputError(`${options.name}: its first sheet, "${sheet.name}", is empty; ${listOf(others)} ${holds} data: give --sheet NAME to read it.`);
  }
  if (others.length > 0) {
    options.note(`${options.name}: read sheet "${sheet.name}" (the first); ${listOf(others)} ${holds} data too: give --sheet NAME or --sheet N to read another.`);
  }
  let closed: Promise<void> | null = null;
  return {
    layout: tableLayout(options.kind, sample, ',', options.overrides, options.name),
    sheet: { name: sheet.name, number: sheet.number, of: wb.sheets.length },
    rows: rows.all(sample),
    close: () => (closed ??= wb.close()),
  };
}

/** A sheet's rows as texts, each with its row number as its line: the sample the layout is guessed from, then all. */
class SheetRows {
  private readonly blocks: AsyncIterator<Row[]>;
  private line = 0;
  private done = false;

  constructor(
    rows: AsyncIterable<Row[]>,
    private readonly typed: boolean,
  ) {
    this.blocks = rows[Symbol.asyncIterator]();
  }

  async sample(): Promise<RowBatch> {
    const sample: RowBatch = { rows: [], lines: [] };
    let cells = 0;
    while (sample.rows.length < SAMPLE_ROWS && cells < SAMPLE_CELLS) {
      const next = await this.blocks.next();
      if (next.done) {
        this.done = true;
        break;
      }
      for (const row of next.value) {
        sample.rows.push(texts(row, this.typed));
        sample.lines.push(++this.line);
        cells += row.length;
      }
    }
    return sample;
  }

  /** The sample, then the rows after it. */
  async *all(sample: RowBatch): AsyncGenerator<RowBatch> {
    if (sample.rows.length) yield sample;
    if (this.done) return;
    for (let next = await this.blocks.next(); !next.done; next = await this.blocks.next()) {
      const block = next.value;
      const batch: RowBatch = { rows: new Array(block.length), lines: new Array(block.length) };
      for (let i = 0; i < block.length; i++) {
        batch.rows[i] = texts(block[i]!, this.typed);
        batch.lines[i] = ++this.line;
      }
      if (batch.rows.length) yield batch;
    }
  }
}

/** A row's texts as Excel shows them; with `typed`, its cells ride along (typed-row.ts). */
function texts(row: Row, typed: boolean): string[] {
  const out = new Array<string>(row.length);
  for (let i = 0; i < row.length; i++) out[i] = row[i]!.text;
  return typed ? withCells(out, row) : out;
}

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

/** A workbook's error, named for its file: what it is instead (a zip archive…), or why it cannot be read. */
export function workbookError(err: unknown, name: string): unknown {
  if (err instanceof IdvError) return err;
  if (err instanceof Error && err.name === 'ReadStopped') return interruptedError((err as Error & { reason: unknown }).reason);
  const e = err as Error & { code?: string };
  if (e?.name === 'WorkbookError') {
    const m = /^it is (.*)$/s.exec(e.message);
    return inputError(m ? `${name} is ${m[1]}.` : `Cannot read ${name}: ${e.message}.`);
  }
  return err;
}
