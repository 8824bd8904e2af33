// Lines of decoded text (LF, CRLF or a lone CR ends them), a block's worth at a time, each at most a row's bound.
// A line longer than a block is gathered in pieces and joined once: the cost stays linear in its length.
import { findStrays, rowTooLong, type RowBound, type StrayLines } from './csv-rows.js';

export interface Lines {
  lines: string[];
  /** Whether any of them may hold a `,` or `;` (a line of several recipients): most blocks hold neither. */
  separators: boolean;
}

export async function* linesOf(blocks: AsyncIterable<string>, bound: RowBound, strays?: StrayLines): AsyncGenerator<Lines> {
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
  private carried = 0;
  /** The last block ended with CR: a LF starting the next one belongs to it. */
  private cr = false;
  private block = -1;
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
    findStrays(this.strays, this.block, text, shift, this.done + 1);
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
