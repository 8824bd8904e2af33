// A table from item keys to small integers: the plan's dedup index, the cache's recent results and the
// claims of other runs. A million-line list must not sit in memory, so keys are not kept: each is reduced
// to its 96-bit hash (key-hash.ts), stored with its value in one typed array, four 32-bit words a slot
// (one cache line holds four slots; about 32 MB at 1M items, the table at most 5/8 full).
import { KeyHash } from './key-hash.js';

/** At most 5/8 of the slots are used (linear probing stays short: ~1.8 probes a hit, ~4 a miss). */
const LOAD_NUM = 5;
const LOAD_DEN = 8;

/** Stored values are offset so that -1 (pending) and up never look like an empty slot (0). */
const OFFSET = 2;

export class KeyTable {
  /** Slot i: words 4i..4i+2 the hash, 4i+3 the value + OFFSET (0: empty). */
  private table: Int32Array;
  private mask: number;
  size = 0;
  /** The hash of the last string key looked at, so that get-then-set hashes once. */
  private readonly h = new KeyHash();
  private lastKey: string | null = null;

  constructor(capacity = 1 << 14) {
    let n = 1 << 10;
    while (capacity * LOAD_DEN > n * LOAD_NUM) n <<= 1;
    this.table = new Int32Array(n * 4);
    this.mask = n - 1;
  }

  /** The hash of `key` (the index's own, valid until the next call). */
  hashOf(key: string): KeyHash {
    if (key !== this.lastKey) {
      this.h.ofString(key);
      this.lastKey = key;
    }
    return this.h;
  }

  get(key: string): number | undefined {
    return this.getHashed(this.hashOf(key));
  }

  set(key: string, value: number): void {
    this.setHashed(this.hashOf(key), value);
  }

  getHashed(h: KeyHash): number | undefined {
    const v = this.table[this.slot(h.a, h.b, h.c) + 3]!;
    return v === 0 ? undefined : v - OFFSET;
  }

  setHashed(h: KeyHash, value: number): void {
    const { a, b, c } = h;
    let w = this.slot(a, b, c);
    if (this.table[w + 3] === 0) {
      if ((this.size + 1) * LOAD_DEN > (this.mask + 1) * LOAD_NUM) {
        this.resize((this.mask + 1) * 2);
        w = this.slot(a, b, c);
      }
      this.table[w] = a;
      this.table[w + 1] = b;
      this.table[w + 2] = c;
      this.size++;
    }
    this.table[w + 3] = value + OFFSET;
  }

  /** Make room for `n` items in all, at once (growing by doubling re-inserts every item each time). */
  reserve(n: number): void {
    let slots = this.mask + 1;
    while (n * LOAD_DEN > slots * LOAD_NUM) slots *= 2;
    if (slots > this.mask + 1) this.resize(slots);
  }

  /** The slot holding hash (a, b, c), or the empty slot where it would go (as a word offset). */
  private slot(a: number, b: number, c: number): number {
    const { table, mask } = this;
    let i = (a ^ (b << 7)) & mask;
    for (;;) {
      const w = i << 2;
      if (table[w + 3] === 0) return w;
      if (table[w] === a && table[w + 1] === b && table[w + 2] === c) return w;
      i = (i + 1) & mask;
    }
  }

  private resize(n: number): void {
    const old = this.table;
    this.table = new Int32Array(n * 4);
    this.mask = n - 1;
    const table = this.table;
    for (let j = 0; j < old.length; j += 4) {
      if (old[j + 3] === 0) continue;
      // Word by word: a subarray per item would allocate a million small views.
      const a = old[j]!;
      const b = old[j + 1]!;
      const c = old[j + 2]!;
      const w = this.slot(a, b, c);
      table[w] = a;
      table[w + 1] = b;
      table[w + 2] = c;
      table[w + 3] = old[j + 3]!;
    }
  }
}
