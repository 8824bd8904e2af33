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
