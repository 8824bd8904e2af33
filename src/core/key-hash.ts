// The 96-bit hash of an item's key, in three 32-bit words: how the plan's dedup index and the cache's
// on-disk snapshot know an item without keeping its text. Two different keys share a hash with a chance
// near n²/2⁹⁷ (1e-17 at a million items). Keys are hashed as UTF-16 code units; an ASCII byte is its
// code unit, so a key read as bytes from the cache log hashes the same as the string without becoming one.

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

export class KeyHash {
  a = 0;
  b = 0;
  c = 0;

  /** Hash a key given as a string. */
  ofString(key: string): this {
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
    return this.finish(a, b, c, key.length);
  }

  /**
   * Hash the UTF-8 text in bytes[start, end) without making a string when it is ASCII, as nearly every key is;
   * anything else is decoded. The loop repeats ofString's: a shared helper would cost the hot path a call a character.
   */
  ofUtf8(bytes: Uint8Array, start: number, end: number): this {
    const length = end - start;
    let a = 0x9747b28c ^ length;
    let b = 0x85ebca6b;
    let c = 0x811c9dc5;
    for (let i = start; i < end; i++) {
      const ch = bytes[i]!;
      if (ch >= 0x80) return this.ofString(utf8.decode(bytes.subarray(start, end)));
      a = Math.imul(a ^ ch, 0xcc9e2d51);
      a = (a << 15) | (a >>> 17);
      b = Math.imul((b + ch) | 0, 0x1b873593);
      b = (b << 13) | (b >>> 19);
      c = Math.imul(c ^ ch, 0x01000193);
    }
    return this.finish(a, b, c, length);
  }

  private finish(a: number, b: number, c: number, length: number): this {
    this.a = fmix(a);
    this.b = fmix(b ^ this.a);
    this.c = fmix(c ^ length);
    return this;
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
