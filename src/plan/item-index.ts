// The dedup index: item key → a small integer (a status index, with flags), for every item a run meets
// and every fresh cache entry. A million-line list must not sit in memory, so keys are not kept: each is
// reduced to a 96-bit hash, stored with its value in one typed array, four 32-bit words a slot (one
// cache line holds four slots; about 32 MB at 1M items, the table at most 5/8 full). Two different items
// share a hash with a chance near n²/2⁹⁷ (1e-17 at 1M items).

/** At most 5/8 of the slots are used (linear probing stays short: ~1.8 probes a hit, ~4 a miss). */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const LOAD_NUM = 5;
const LOAD_DEN = 8;

/** Stored values are offset so that -1 (pending) and up never look like an empty slot (0). */
const OFFSET = 2;

export class ItemIndex {
  /** Slot i: words 4i..4i+2 the hash, 4i+3 the value + OFFSET (0: empty). */
  private table: Int32Array;
  private mask: number;
  size = 0;
  // The hash of the last key looked at, so that get-then-set hashes once.
  private lastKey: string | null = null;
  private a = 0;
  private b = 0;
  private c = 0;

  constructor(capacity = 1 << 14) {
    let n = 1 << 10;
    while (capacity * LOAD_DEN > n * LOAD_NUM) n <<= 1;
    this.table = new Int32Array(n * 4);
    this.mask = n - 1;
  }

  private hash(key: string): void {
    if (key === this.lastKey) return;
    let a = 0x9747b28c ^ key.length;
    let b = 0x85ebca6b;
    let c = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) {
      const ch = key.charCodeAt(i);
      a = Math.imul(a ^ ch, 0xcc9e2d51);
      a = (a << 15) | (a >>> 17);
      b = Math.imul((b + ch) | 0, 0x1b873593);
      b = (b << 13) | (b >>> 19);
      c = Math.imul(c ^ ch, 0x01000193);
    }
    this.a = fmix(a);
    this.b = fmix(b ^ this.a);
    this.c = fmix(c ^ key.length);
    this.lastKey = key;
  }

  /** The slot holding the current hash, or the empty slot where it would go (as a word offset). */
  private slot(): number {
    const { a, b, c, table, mask } = this;
    let i = (a ^ (b << 7)) & mask;
    for (;;) {
      const w = i << 2;
      if (table[w + 3] === 0) return w;
      if (table[w] === a && table[w + 1] === b && table[w + 2] === c) return w;
      i = (i + 1) & mask;
    }
  }

  get(key: string): number | undefined {
    this.hash(key);
    const v = this.table[this.slot() + 3]!;
    return v === 0 ? undefined : v - OFFSET;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: number): void {
    this.hash(key);
    this.put(value);
  }

  /**
   * set(the UTF-8 text in bytes[start, end), value), without making a string when it is ASCII, as nearly all
   * keys are (the cache loads a million this way). An ASCII byte is its UTF-16 code unit, so the hash is the
   * string's; anything else is decoded and hashed as a string. (The mixing loop is hash()'s, written out
   * again on purpose: one reads code units from a string, the other bytes, and a shared per-character
   * helper would cost the million-line hot path a call or an object per character.)
   */
  setUtf8(bytes: Uint8Array, start: number, end: number, value: number): void {
    const length = end - start;
    let a = 0x9747b28c ^ length;
    let b = 0x85ebca6b;
    let c = 0x811c9dc5;
    for (let i = start; i < end; i++) {
      const ch = bytes[i]!;
      if (ch >= 0x80) {
        this.set(utf8.decode(bytes.subarray(start, end)), value);
        return;
      }
      a = Math.imul(a ^ ch, 0xcc9e2d51);
      a = (a << 15) | (a >>> 17);
      b = Math.imul((b + ch) | 0, 0x1b873593);
      b = (b << 13) | (b >>> 19);
      c = Math.imul(c ^ ch, 0x01000193);
    }
    this.a = fmix(a);
    this.b = fmix(b ^ this.a);
    this.c = fmix(c ^ length);
    this.lastKey = null;
    this.put(value);
  }

  /** Make room for `n` items in all, at once (growing by doubling re-inserts every item each time). */
  reserve(n: number): void {
    let slots = this.mask + 1;
    while (n * LOAD_DEN > slots * LOAD_NUM) slots *= 2;
    if (slots > this.mask + 1) this.resize(slots);
  }

  private put(value: number): void {
    let w = this.slot();
    if (this.table[w + 3] === 0) {
      if ((this.size + 1) * LOAD_DEN > (this.mask + 1) * LOAD_NUM) {
        this.resize((this.mask + 1) * 2);
        w = this.slot();
      }
      this.table[w] = this.a;
      this.table[w + 1] = this.b;
      this.table[w + 2] = this.c;
      this.size++;
    }
    this.table[w + 3] = value + OFFSET;
  }

  private resize(n: number): void {
    const old = this.table;
    this.table = new Int32Array(n * 4);
    this.mask = n - 1;
    const { a, b, c } = this;
    for (let j = 0; j < old.length; j += 4) {
      if (old[j + 3] === 0) continue;
      this.a = old[j]!;
      this.b = old[j + 1]!;
      this.c = old[j + 2]!;
      const w = this.slot();
      this.table.set(old.subarray(j, j + 4), w);
    }
    this.a = a;
    this.b = b;
    this.c = c;
  }
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}
