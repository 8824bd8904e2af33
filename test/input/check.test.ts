// What can be an address or a domain (src/input/check.ts), and the key that makes two spellings one item.
import { describe, expect, it } from 'vitest';
import { checkDomain, checkEmail } from '../../src/input/check.js';

describe('checkEmail', () => {
  it.each([
    ['', null],
    ['   ', null],
    ['no-at-sign', null],
    ['@example.com', null],
    ['jane@', null],
    ['ja ne@example.com', null],
    ['jane@localhost', null],
    ['jane@example.', null],
    ['jane@exa..mple.com', null],
    ['a@b@example.com', null],
    ['a@.com', null], // an empty first label: no host
    ['a@.example.com', null],
    ['x'.repeat(250) + '@ex.com', null],
  ])('%j is invalid', (raw, want) => {
    expect(checkEmail(raw)).toBe(want);
  });
  it('trims and lower-cases only the domain part for the key', () => {
    expect(checkEmail('  Jane.Doe@Example.COM ')).toEqual({
      item: 'Jane.Doe@Example.COM',
      send: 'Jane.Doe@Example.COM',
      key: 'Jane.Doe@example.com',
    });
  });
  it('accepts a quoted local part holding @', () => {
    expect(checkEmail('"a@b"@example.com')?.key).toBe('"a@b"@example.com');
  });
});

describe('checkDomain', () => {
  it('takes the domain part of an address and the host of a URL', () => {
    expect(checkDomain('Sales@Globex.com')).toEqual({ item: 'Globex.com', send: 'globex.com', key: 'globex.com' });
    expect(checkDomain('https://www.northwind.io/about?x=1')?.item).toBe('www.northwind.io');
  });
  it('takes the host of a website written without its scheme', () => {
    expect(checkDomain('www.Globex.com/about')).toEqual({ item: 'www.Globex.com', send: 'www.globex.com', key: 'www.globex.com' });
    expect(checkDomain('hooli.xyz?ref=1')?.item).toBe('hooli.xyz');
    expect(checkDomain('hooli.xyz#top')?.item).toBe('hooli.xyz');
    expect(checkDomain('www.hooli.xyz:8080/about')?.item).toBe('www.hooli.xyz');
    expect(checkDomain('hooli.xyz:443')?.item).toBe('hooli.xyz');
  });
  it.each(['localhost', 'not a domain', '', 'n/a', '3.5', 'bad@', 'http://', '/about', 'localhost/x', 'a b.com/x', 'x/y.com'])('%j is invalid', (raw) => {
    expect(checkDomain(raw)).toBeNull();
  });
});

