// The record rule over a table's rows (CSV's, a workbook's): what is no record (rows above the header, the header
// again, section headings, a footer below the data) is skipped only when recognised as such and holding no
// item-like text, and named by its lines in a note; every other row is a record.
import type { Kind } from '../../core/defaults.js';
import { inputError } from '../../core/errors.js';
import { checkerFor, itemLike } from '../items/check.js';
import { lineEndsIn, rowLineEnds, type RowBatch } from '../layout/csv-rows.js';
import { isBlank, type Layout } from '../layout/detect.js';
import { num } from '../layout/notes.js';
import { cellPlaces, namesSomeColumns, placeCells, sectionHeader, sectionTitle } from '../layout/sections.js';
import type { Found } from './found.js';
import type { InputRecord } from './record.js';
import type { TypedCell } from '../../xlsx/cell.js';

/** A run of short rows without item-like text held this long is data after all, not a footer. */
const FOOTER_MAX = 1000;
/** What the first line of a report's footer says (totals, copyright, who made it). */
const FOOTER_WORDS = /^\s*(grand\s+)?(sub)?totals?\b|^\s*(sum|count|average)\b|copyright|\u00a9|\(c\)\s*\d{4}|confidential|all rights reserved|^\s*generated\b|^\s*(report|exported|filtered|printed|page)\b/i;

/** The records of a table's rows (CSV's, or a workbook's, with their row numbers as lines). */
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
  /** A workbook's cells: of the row being taken, and of the few rows held past it (a title, short rows). */
  private taking: { row: readonly string[]; cells: readonly TypedCell[] } | null = null;
  private readonly heldCells = new Map<readonly string[], readonly TypedCell[]>();

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

  records({ rows, lines, cells }: RowBatch): InputRecord[] {
    const out: InputRecord[] = [];
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (isBlank(row)) {
        this.blank = true;
        continue;
      }
      if (++this.index <= this.lastSkip && this.skip.has(this.index)) continue;
      if (cells) this.taking = { row, cells: cells[i]! };
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
    if (!placed && sectionTitle(this.kind, row)) {
      this.title = { row, line, blank: this.blank };
      this.keepCells(row);
    }
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

  /** A record of the section read: its cells laid out under the layout's header (moved, a workbook's cells are written as text). */
  private record(row: string[], value: string): InputRecord {
    if (this.places) return { value, fields: placeCells(row, this.places, this.target!.length) };
    const cells = this.taking === null ? undefined : this.cellsOf(row);
    return cells ? { value, fields: row, cells } : { value, fields: row };
  }

  /** A workbook row's cells: the row's being taken, or one's held past its taking (let go as it becomes a record). */
  private cellsOf(row: readonly string[]): readonly TypedCell[] | undefined {
    if (this.taking!.row === row) return this.taking!.cells;
    const cells = this.heldCells.get(row);
    this.heldCells.delete(row);
    return cells;
  }

  /** A workbook row held past its taking keeps its cells until it is a record (or skipped: a heading, a footer). */
  private keepCells(row: readonly string[]): void {
    if (this.taking?.row === row) this.heldCells.set(row, this.taking.cells);
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
    // A report of sections that ends with a section's title alone (Zoom pads it with commas): a heading, no record.
    if (this.title !== null && this.sectioned) {
      this.found.skip(this.title.line, 'section heading');
      this.title = null;
    }
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
      // A cell quoted as RFC 4180 has it comes without its quotes (valid CSV, one cell, whatever its lines hold);
      // one that keeps its opening quote was closed, then more text (`5" screen`): the quote was text.
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
    this.keepCells(row);
    this.blank = false;
  }
}

function sameRow(row: readonly string[], header: readonly string[]): boolean {
  if (row.length !== header.length) return false;
  for (let i = 0; i < row.length; i++) if (row[i]!.trim() !== header[i]!.trim()) return false;
  return true;
}
