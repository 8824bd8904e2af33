// Records read → planned records, in input order: each item checked, its key looked up in the plan. The one
// loop both the dry run and the real run go through.
import type { Item } from '../input/items/check.js';
import type { InputRecord } from '../input/records/record.js';
import { INVALID } from '../core/statuses.js';
import type { Lookup, Plan } from './plan.js';

/** A record as planned; it never changes after (what the run learns later, the plan knows: Plan.knownOf). */
export interface PlannedRecord {
  /** The item's text as read, untouched (its cell, or line). */
  readonly given: string;
  /** The item as read (trimmed); for `domains`, the host as written. */
  readonly item: string;
  /** The dedup and cache key ('' for an invalid item). */
  readonly key: string;
  /** What is sent for it, when it is sent. */
  readonly send: string;
  /** Every cell of its CSV row; null for a plain list. */
  readonly fields: string[] | null;
  /** A workbook's row as read, cell by cell, when a workbook output writes them (InputRecord.cells). */
  readonly cells: InputRecord['cells'];
  /** What the plan knew when it was read: NEW (to be sent by whoever reads this), PENDING, or Known. */
  readonly state: Lookup;
}

/** Plan every record of `blocks` (blocks of records, as read), a block at a time. */
export async function* planRecords(
  blocks: AsyncIterable<InputRecord[]>,
  check: (raw: string) => Item | null,
  plan: Plan,
): AsyncGenerator<PlannedRecord[]> {
  const invalid = plan.knownAs(INVALID, 'check');
  const counts = plan.counts;
  for await (const block of blocks) {
    const out: PlannedRecord[] = new Array(block.length);
    for (let i = 0; i < block.length; i++) {
      const rec = block[i]!;
      const it = check(rec.value);
      counts.records++;
      if (it === null) {
        counts.invalid++;
        out[i] = { given: rec.value, item: rec.value.trim(), key: '', send: '', fields: rec.fields, cells: rec.cells, state: invalid };
      } else {
        out[i] = { given: rec.value, item: it.item, key: it.key, send: it.send, fields: rec.fields, cells: rec.cells, state: plan.lookup(it.key) };
      }
    }
    yield out;
  }
}
