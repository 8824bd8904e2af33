// The 96-bit hash of an item's key (src/core/key-hash.ts): the same from a string as from its UTF-8 bytes (the cache log
// is read as bytes), stable across versions (the cache's snapshot on disk is keyed by it), and keys kept apart.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { KeyHash } from '../../src/core/key-hash.js';

const words = (h: KeyHash) => [h.a, h.b, h.c];
const ofString = (s: string) => words(new KeyHash().ofString(s));
const ofUtf8 = (s: string, pad = 0) => {
  const bytes = Buffer.concat([Buffer.alloc(pad, 0x41), Buffer.from(s), Buffer.alloc(pad, 0x42)]);
  return words(new KeyHash().ofUtf8(bytes, pad, bytes.length - pad));
};

describe('KeyHash', () => {
  it('is the same as an earlier idv made it: a snapshot written then is read the same now', () => {
    expect(ofString('ann@example.com')).toEqual([-2013016472, -400573059, -133210452]);
    expect(ofString('bücher.de')).toEqual([-860331715, -284211757, 127966998]);
  });

  it("a key's UTF-8 bytes, anywhere in a buffer, hash as its string: ASCII read in place, anything else decoded (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'Z', '@', '.', '-', 'ü', 'é', '中', '😀'), maxLength: 40 }), fc.nat(8), (key, pad) => {
        expect(ofUtf8(key, pad)).toEqual(ofString(key));
      }),
      { seed: 20261128, numRuns: 500 },
    );
  });

  it('keys that differ by a character, its case, its length or their order hash apart; 200,000 keys, no two alike', () => {
    const close = ['ann@example.com', 'Ann@example.com', 'ann@example.co', 'ann@example.comm', 'nna@example.com', 'ann@exampel.com', ''];
    expect(new Set(close.map((k) => ofString(k).join())).size).toBe(close.length);
    const seen = new Set<string>();
    for (let i = 0; i < 200_000; i++) seen.add(ofString(`user${i}@example.com`).join());
    expect(seen.size).toBe(200_000);
  });

  it('one hasher, used again, gives each key its own hash (nothing carried over)', () => {
    const h = new KeyHash();
    const first = words(h.ofString('a@x.com'));
    words(h.ofString('b@x.com'));
    expect(words(h.ofString('a@x.com'))).toEqual(first);
  });
});
