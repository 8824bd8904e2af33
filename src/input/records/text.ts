// The records of a text source: a plain list's lines (one per line, or per recipient), a vCard file's, or CSV's
// rows under the record rule (rule.ts).
import type { Kind } from '../../core/defaults.js';
import { csvRows, type RowBound, type StrayLines } from '../layout/csv-rows.js';
import type { Layout } from '../layout/detect.js';
import { linesOf } from '../layout/lines.js';
import { LDIF, VCARD, VCardReader, type CardFormat } from '../layout/vcard.js';
import { recipientsOf } from '../items/mailbox.js';
import type { Found } from './found.js';
import type { InputRecord } from './record.js';
import { tableRecords } from './rule.js';

/**
 * A plain list's lines (the header line skipped): one record a line, or one per recipient of a line of several
 * (`a@x.com, Bob <b@y.org>`). With `keep` (--keep-columns) each record keeps its text as read, as its one cell.
 */
export async function* plainRecords(blocks: AsyncIterable<string>, layout: Layout, kind: Kind, keep: boolean, found: Found, bound: RowBound): AsyncGenerator<InputRecord[]> {
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
      for (const p of parts ?? [text]) out.push({ value: p, fields: keep ? [p] : null });
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

/** CSV records as csv-parse reads them (csv-rows.ts), under the record rule (rule.ts). */
export function csvRecords(blocks: AsyncIterable<string>, layout: Layout, kind: Kind, found: Found, quotes: boolean, bound: RowBound): AsyncGenerator<InputRecord[]> {
  const text = layout.sepLine ? withoutSepLine(blocks, found.strays) : blocks;
  return tableRecords(csvRows(text, layout.delimiter!, bound.name, layout.sepLine ? 2 : 1, found.strays, quotes, bound.max), layout, kind, found);
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
