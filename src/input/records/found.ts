// What reading a source finds as it goes (lines skipped, stray bytes, items in another cell), said in one note
// each at the end, and kept as the source's facts (for the report and --dry-run).
import type { Kind } from '../../core/defaults.js';
import type { EncodingInfo, Stray } from '../bytes/decode.js';
import type { StrayLines } from '../layout/csv-rows.js';
import type { Layout, Skipped } from '../layout/detect.js';
import { columnNamed, delimiterNamed, LineRuns, num, preview } from '../layout/notes.js';

export interface SourceFacts {
  encoding: EncodingInfo;
  /** Lines that held text and are no records (the header apart), by why. */
  skipped: Array<{ why: Skipped['why']; lines: LineRuns }>;
  skippedLines: number;
}

export class Found {
  /** Lines that held text and are no records, by why (a note names the first runs; a million cost no memory). */
  private readonly skipped = new Map<Skipped['why'], LineRuns>();
  private readonly strayLines = new LineRuns();
  /** Stray bytes: how many, and the first few distinct, with what each was read as. */
  private readonly strayBytes = { count: 0, read: new Map<number, string>() };
  /** Lines whose item cell is empty while another column holds an item, and how often each column does. */
  private readonly elsewhere = { lines: new LineRuns(), columns: new Map<number, number>() };
  private readonly several = new LineRuns();
  private readonly shifted = new LineRuns();
  readonly strays: StrayLines;

  constructor(
    readonly name: string,
    private readonly layout: Layout,
    strays: ReadonlyMap<number, Stray[]>,
    private readonly note: (line: string) => void,
    private readonly kind: Kind,
  ) {
    for (const s of layout.skipped) for (const line of s.lines) this.skip(line, s.why);
    this.strays = { strays, found: (line, stray) => this.stray(line, stray) };
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

  /** The facts so far, with the encoding decoding reported. */
  facts(encoding: EncodingInfo): SourceFacts {
    const skipped = [...this.skipped].map(([why, lines]) => ({ why, lines }));
    return { encoding, skipped, skippedLines: skipped.reduce((n, s) => n + s.lines.count, 0) };
  }
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
  const d = delimiterNamed(layout.delimiter!);
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
