import { describe, expect, it } from 'vitest';
import { KeyTable } from '../../src/core/key-table.js';

describe('KeyTable', () => {
  it('maps keys to values, including -1, across growth', () => {
    const idx = new KeyTable(4);
    const n = 50_000;
    for (let i = 0; i < n; i++) idx.set(`user${i}@example.com`, i % 7 === 0 ? -1 : i % 1000);
    expect(idx.size).toBe(n);
    for (let i = 0; i < n; i++) expect(idx.get(`user${i}@example.com`)).toBe(i % 7 === 0 ? -1 : i % 1000);
    expect(idx.get('user50000@example.com')).toBeUndefined();
    expect(idx.has('user1@example.com')).toBe(true);
  });
  it('overwrites a value without growing', () => {
    const idx = new KeyTable();
    idx.set('a@b.com', -1);
    idx.set('a@b.com', 3);
    expect(idx.get('a@b.com')).toBe(3);
    expect(idx.size).toBe(1);
  });
  it('tells apart keys that differ in one character or in order', () => {
    const idx = new KeyTable();
    const keys = ['ab@x.com', 'ba@x.com', 'ab@x.co', 'Ab@x.com', 'ab@x.comm', 'é@x.com', 'e@x.com'];
    keys.forEach((k, i) => idx.set(k, i));
    keys.forEach((k, i) => expect(idx.get(k)).toBe(i));
  });
  it('setUtf8(bytes, start, end) is set(that text) — without a string for ASCII, decoded otherwise', () => {
    const idx = new KeyTable();
    const bytes = Buffer.from('1\tok\tab@x.com\n2\tfake\tCd@Y.org\n3\tok\tjosé@bücher.de\n', 'utf8');
    const range = (s: string): [number, number] => {
      const start = bytes.indexOf(s);
      return [start, start + Buffer.byteLength(s)];
    };
    idx.setUtf8(bytes, ...range('ab@x.com'), 1);
    idx.setUtf8(bytes, ...range('Cd@Y.org'), 2);
    idx.setUtf8(bytes, ...range('josé@bücher.de'), 5);
    expect(idx.get('ab@x.com')).toBe(1);
    expect(idx.get('Cd@Y.org')).toBe(2);
    expect(idx.get('josé@bücher.de')).toBe(5);
    expect(idx.get('b@x.com')).toBeUndefined();
    // A string key hashed just before must not be taken for the bytes' key (the last-key shortcut).
    idx.get('zz@x.com');
    idx.setUtf8(Buffer.from('zz@x.comzz@x.co'), 8, 15, 3);
    expect(idx.get('zz@x.co')).toBe(3);
    expect(idx.get('zz@x.com')).toBeUndefined();
    idx.set('zz@x.com', 4);
    expect(idx.get('zz@x.com')).toBe(4);
    expect(idx.size).toBe(5);
  });
  it('reserve(n) makes room once and keeps what is there', () => {
    const idx = new KeyTable(4);
    idx.set('a@b.com', 7);
    idx.reserve(100_000);
    for (let i = 0; i < 100_000; i++) idx.set(`u${i}@x.com`, i & 1023);
    expect(idx.get('a@b.com')).toBe(7);
    for (let i = 0; i < 100_000; i += 997) expect(idx.get(`u${i}@x.com`)).toBe(i & 1023);
    expect(idx.size).toBe(100_001);
  });
});
