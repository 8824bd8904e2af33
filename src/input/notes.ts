// How notes name what the reader skipped or read otherwise: lines by number, rows by a short preview.

/** `line 3`, `lines 1–2`, `lines 1, 4, 7–9`; past `max` runs, `…and N more`. Lines in increasing order. */
export function lineList(lines: readonly number[], max = 8): string {
  const runs: Array<[number, number]> = [];
  for (const n of lines) {
    const last = runs[runs.length - 1];
    if (last && n === last[1] + 1) last[1] = n;
    else if (!last || n > last[1]) runs.push([n, n]);
  }
  const shown = runs.slice(0, max).map(([a, b]) => (a === b ? num(a) : `${num(a)}–${num(b)}`));
  const more = runs.slice(max).reduce((n, [a, b]) => n + b - a + 1, 0);
  const list = shown.join(', ') + (more ? ` …and ${num(more)} more` : '');
  return `${lines.length === 1 ? 'line' : 'lines'} ${list}`;
}

export const num = (n: number) => n.toLocaleString('en-US');

export const plural = (n: number, word: string) => `${num(n)} ${word}${n === 1 ? '' : 's'}`;

/** A short view of a row's text, quoted, for a note. */
export function preview(row: readonly string[]): string {
  const text = row.filter((c) => c.trim() !== '').join(' ').replace(/\s+/g, ' ').trim();
  return `"${text.length > 60 ? text.slice(0, 59) + '…' : text}"`;
}
