// How notes name what the reader skipped or read otherwise: lines by number, rows by a short preview.

const MAX_RUNS = 8;

/**
 * Line numbers, given in increasing order, as a note names them: `line 3`, `lines 1–2`, `lines 1, 4, 7–9`; past
 * MAX_RUNS runs, `…and N more`. Only those runs are kept, the rest counted: a million lines cost no memory.
 */
export class LineRuns {
  private readonly runs: Array<[number, number]> = [];
  /** Lines past the kept runs. */
  private more = 0;
  /** Lines given (a line not after the last one given is passed over). */
  count = 0;
  private last = 0;

  add(n: number): void {
    if (n <= this.last) return;
    this.last = n;
    this.count++;
    const run = this.runs[this.runs.length - 1];
    if (this.more === 0 && run && n === run[1] + 1) run[1] = n;
    else if (this.runs.length < MAX_RUNS) this.runs.push([n, n]);
    else this.more++;
  }

  toString(): string {
    const shown = this.runs.map(([a, b]) => (a === b ? num(a) : `${num(a)}–${num(b)}`));
    const list = shown.join(', ') + (this.more ? ` …and ${num(this.more)} more` : '');
    return `${this.count === 1 ? 'line' : 'lines'} ${list}`;
  }
}

/** Lines, in increasing order, as LineRuns names them. */
export function lineList(lines: readonly number[]): string {
  const runs = new LineRuns();
  for (const n of lines) runs.add(n);
  return String(runs);
}

export const num = (n: number) => n.toLocaleString('en-US');

/** `column 3 ("E-mail Address")`, or `column 3` without a header; `, ` before the name with `comma`. */
export function columnNamed(layout: { header: readonly string[] | null }, c: number, comma = false): string {
  const name = layout.header?.[c]?.trim();
  return `column ${c + 1}${name ? (comma ? `, "${name}"` : ` ("${name}")`) : ''}`;
}

/** A delimiter as a message names it: `tab`, or in quotes. */
export const delimiterNamed = (d: string) => (d === '\t' ? 'tab' : `"${d}"`);

export const plural = (n: number, word: string) => `${num(n)} ${word}${n === 1 ? '' : 's'}`;

/** A short view of a row's text, quoted, for a note. */
export function preview(row: readonly string[]): string {
  const text = row.filter((c) => c.trim() !== '').join(' ').replace(/\s+/g, ' ').trim();
  return `"${text.length > 60 ? text.slice(0, 59) + '…' : text}"`;
}
