// The shared strings table held compactly (UTF-8 bytes and an offset each) gives back every text as added;
// OOXML's `_xHHHH_` escapes decode.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SharedStrings, unescapeOoxml } from '../../src/xlsx/parts.js';
import { LimitError } from '../../src/xlsx/zip-reader.js';

describe('SharedStrings', () => {
  it('gives back every text as added, whatever its characters, across its buffers growing', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { maxLength: 3000 }), (texts) => {
        const table = new SharedStrings();
        for (const t of texts) table.add(t);
        expect(table.count).toBe(texts.length);
        texts.forEach((t, i) => expect(table.get(i)).toBe(t));
        expect(table.get(texts.length)).toBeUndefined();
        expect(table.get(-1)).toBeUndefined();
        expect(table.byteLength).toBe(texts.reduce((n, t) => n + Buffer.byteLength(t), 0));
      }),
      { seed: 27, numRuns: 40 },
    );
  });
});

describe('SharedStrings bounded', () => {
  it('counts the bytes of its texts as they come: past its bound, a LimitError naming how much', () => {
    const table = new SharedStrings(100);
    for (let i = 0; i < 10; i++) table.add('x'.repeat(10));
    expect(() => table.add('y')).toThrow(LimitError);
    expect(() => table.add('y')).toThrow(expect.objectContaining({ limit: 'shared', size: 101, max: 100 }));
    expect(table.count).toBe(10);
  });
});

describe('unescapeOoxml', () => {
  it.each([
    ['plain', 'plain'],
    ['CR_x000D_LF', 'CR\rLF'],
    ['_x0001__x001F_', '\u0001\u001f'],
    ['id_x005F_x0041_', 'id_x0041_'],
    ['_x00e9_', 'é'],
    ['_x12_ and _xZZZZ_', '_x12_ and _xZZZZ_'],
  ])('%j reads as %j', (escaped, text) => {
    expect(unescapeOoxml(escaped)).toBe(text);
  });
});
