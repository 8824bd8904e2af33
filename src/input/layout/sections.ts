// Reports made of sections, each under a header of its own (Zoom's "Attendee Details", a Teams attendance
// report's "2. Participants"): each row's item is read from its own section's item column. A section starts at a
// row that names its columns, one the item's, with no item-like text (a title right above it is part of it).
// With --keep-columns records are laid out under one header: the names of the sections' headers, in the order met.
import type { Kind } from '../../core/defaults.js';
import { itemLike } from '../items/check.js';
import { headerRank } from './headers.js';

/** What a header cell never is: a number, a date, an amount. */
export const NUMERIC = /^[\d\s.,:/+()%$\u20ac\u00a3-]+$/; // € £, escaped: see scripts/bundle.mjs on ASCII

/**
 * The item column a row names as a section's header (its index), or null when the row is no such header: two
 * names or more (none a number), one of them the item's (`strong`: a known name, else a name holding the item's
 * word), and no item-like text.
 */
export function sectionHeader(kind: Kind, row: readonly string[], strong = false): number | null {
  let names = 0;
  let best = -1;
  let rank = strong ? 3 : 2;
  for (let i = 0; i < row.length; i++) {
    const cell = row[i]!.trim();
    if (cell === '') continue;
    if (NUMERIC.test(cell) || itemLike(kind, cell)) return null;
    names++;
    const r = headerRank(kind, cell);
    if (r > rank) [best, rank] = [i, r];
  }
  return names >= 2 && best !== -1 ? best : null;
}

/** A row that names columns (two names or more, none a number, no item-like text), whether or not one is the item's. */
export function namesSomeColumns(kind: Kind, row: readonly string[]): boolean {
  const cells = row.map((c) => c.trim()).filter((c) => c !== '');
  return cells.length >= 2 && cells.every((c) => !NUMERIC.test(c) && !itemLike(kind, c));
}

/** A section's title: one cell of text (the first; the others empty, as a report pads its lines), no item-like text. */
export function sectionTitle(kind: Kind, row: readonly string[]): boolean {
  const first = row[0]?.trim() ?? '';
  return first !== '' && row.every((c, i) => i === 0 || c.trim() === '') && !itemLike(kind, first);
}

/**
 * The rows of the sample from `from` on cut into sections: the index of each section header with its item
 * column (null for a heading that names none: only right under a title). The first entry is the row at `from`.
 */
export function sectionsOf(kind: Kind, rows: readonly string[][], from: number): Array<{ at: number; column: number | null }> {
  const out: Array<{ at: number; column: number | null }> = [{ at: from, column: sectionHeader(kind, rows[from]!) }];
  for (let i = from + 1; i < rows.length; i++) {
    const titled = sectionTitle(kind, rows[i - 1]!);
    const column = sectionHeader(kind, rows[i]!, !titled);
    if (column !== null || (titled && namesSomeColumns(kind, rows[i]!))) out.push({ at: i, column });
  }
  return out;
}

/** Whether the sample's rows from its header on are a report of sections: a second heading, under a title or another than the first. */
export function isSectioned(kind: Kind, rows: readonly string[][], header: number): boolean {
  const sections = sectionsOf(kind, rows, header);
  return sections.slice(1).some((s) => s.column !== null && (sectionTitle(kind, rows[s.at - 1]!) || !sameNames(rows[s.at]!, rows[header]!)));
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  const names = (r: readonly string[]) => r.map((c) => c.trim()).filter((c) => c !== '').join('\u0000');
  return names(a) === names(b);
}

/** The header records are laid out under: every name of the sections' headers, in the order met (a name met twice in one header, twice). */
export function unitedHeader(headers: ReadonlyArray<readonly string[]>): string[] {
  const out: string[] = [];
  for (const header of headers) {
    const seen = new Map<string, number>();
    for (const cell of header) {
      const name = cell.trim();
      if (name === '') continue;
      const k = (seen.get(name) ?? 0) + 1;
      seen.set(name, k);
      if (out.filter((n) => n === name).length < k) out.push(name);
    }
  }
  return out;
}

/**
 * Where each cell of a row under `header` goes in a row under `united`: its index there, or -1 for a cell whose
 * name `united` lacks (an unnamed padding cell, a column first met beyond the sample), which follows the others.
 */
export function cellPlaces(header: readonly string[], united: readonly string[]): number[] {
  const seen = new Map<string, number>();
  return header.map((cell) => {
    const name = cell.trim();
    if (name === '') return -1;
    const k = (seen.get(name) ?? 0) + 1;
    seen.set(name, k);
    let at = -1;
    for (let n = 0; n < k; n++) {
      at = united.indexOf(name, at + 1);
      if (at === -1) return -1;
    }
    return at;
  });
}

/** A row's cells laid out under the united header; cells it has no place for (when they hold text) after them. */
export function placeCells(row: readonly string[], places: readonly number[], width: number): string[] {
  const out = Array<string>(width).fill('');
  const rest: string[] = [];
  for (let i = 0; i < row.length; i++) {
    const at = i < places.length ? places[i]! : -1;
    if (at >= 0) out[at] = row[i]!;
    else if (row[i]!.trim() !== '') rest.push(row[i]!);
  }
  return rest.length ? [...out, ...rest] : out;
}
