// The in-order window: planned records wait here until their status is known, then leave in input order as
// results. A record's status is known from its planning (cached, invalid) or, once answered, from the plan,
// which owns what a run learns after reading (the window only asks it). What leaves is counted by status.
// Whoever takes the results (the CLI's writer, the library's caller) never asks the plan.
import { Fifo } from '../core/fifo.js';
import type { Known, Plan, Source } from '../plan/plan.js';
import type { PlannedRecord } from '../plan/planned.js';

/** Records held in the window; reading waits while this many are held, until half of them have left. */
export const WINDOW_MAX = 50_000;
/**
 * ...or while their text (items and cells, in characters) is this much: rows of megabytes each (thousands of
 * custom fields) must not fill memory before the service answers. Ordinary rows (a few hundred characters) reach
 * WINDOW_MAX first.
 */
export const WINDOW_CHARS = 16 * 1024 * 1024;

/** The text a record holds, in characters: its item, and its cells. */
function charsOf(r: PlannedRecord): number {
  let n = r.given.length;
  const fields = r.fields;
  if (fields !== null) for (let i = 0; i < fields.length; i++) n += fields[i]!.length;
  return n;
}

/** A record whose status is known, as it leaves the window. */
export interface Result {
  /** The item's text as read, untouched. */
  given: string;
  /** The item as read (trimmed; the address inside a mailbox form; for `domains`, the host as written). */
  item: string;
  /** What is (or would be) sent for it, the canonical form: '' for an invalid item. */
  send: string;
  /** Every cell of its row; null for a plain list or an item given alone. */
  fields: string[] | null;
  /** A workbook's row as read, cell by cell, when a workbook output writes them. */
  cells: PlannedRecord['cells'];
  status: string;
  source: Source;
}

export class InOrder {
  /** Records per status, of those that have left. */
  readonly counts = new Map<string, number>();
  /** Records that have left. */
  passed = 0;
  private readonly window = new Fifo<PlannedRecord>();

  constructor(private readonly plan: Pick<Plan, 'knownOf'>) {}

  /** The text of the records held, in characters (charsOf). */
  chars = 0;

  /** Records held, waiting for their status or for those before them. */
  get length(): number {
    return this.window.length;
  }

  add(block: readonly PlannedRecord[]): void {
    for (const r of block) {
      this.window.push(r);
      this.chars += charsOf(r);
    }
  }

  /** The records at the head of the window whose status is known, as results, in input order. */
  take(): Result[] {
    const out: Result[] = [];
    for (let r = this.window.peek(); r !== undefined; r = this.window.peek()) {
      const known: Known | undefined = r.state.kind === 'known' ? r.state : this.plan.knownOf(r.key);
      if (known === undefined) break;
      this.window.shift();
      this.chars -= charsOf(r);
      const { status } = known;
      this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
      out.push({ given: r.given, item: r.item, send: r.send, fields: r.fields, cells: r.cells, status, source: known.source });
    }
    this.passed += out.length;
    return out;
  }

  /** What is left when the run stops before its end: the records whose status is known, in order; those never answered are passed over. */
  takeKnown(): Result[] {
    const out: Result[] = [];
    while (this.window.length > 0) {
      for (const r of this.take()) out.push(r);
      const unknown = this.window.shift(); // the head is unknown (or nothing is left)
      if (unknown) this.chars -= charsOf(unknown);
    }
    return out;
  }
}
