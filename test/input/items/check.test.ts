// What can be an address or a domain (src/input/items/check.ts), and the key that makes two spellings one item.
import { describe, expect, it } from 'vitest';
import { checkDomain, checkEmail, itemLike, itemShaped } from '../../../src/input/items/check.js';

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


describe('quotes, brackets and formulas around an address', () => {
  it("an address in single quotes, in Excel's =\"…\" or Outlook's [mailto:…] is the address inside; an apostrophe inside stays", async () => {
    const { checkEmail } = await import('../../../src/input/items/check.js');
    expect(checkEmail("'ann@x.com'")?.send).toBe('ann@x.com');
    expect(checkEmail('="ann@x.com"')?.send).toBe('ann@x.com');
    expect(checkEmail('Ann Lee [mailto:ann@x.com]')?.send).toBe('ann@x.com');
    expect(checkEmail("o'brien@x.com")?.send).toBe("o'brien@x.com");
  });
});

describe('control characters and address literals', () => {
  it('an item holding a C1 control (a code page decoded as the wrong one: 0x81 read in ISO-8859) is invalid, never sent', async () => {
    const { checkEmail, checkDomain } = await import('../../../src/input/items/check.js');
    expect(checkEmail('j\u0081rgen@b\u0081cher.de')).toBeNull();
    expect(checkEmail('jurgen@b\u0082cher.de')).toBeNull();
    expect(checkDomain('b\u0081cher.de')).toBeNull();
    expect(checkDomain('https://b\u009fcher.de/')).toBeNull();
    expect(checkEmail('jürgen@bücher.de')?.send).toBe('jürgen@bücher.de');
  });
  it('domains: an address literal (an IP in brackets, from an address or a URL) is no domain; emails keep address literals', async () => {
    const { checkEmail, checkDomain } = await import('../../../src/input/items/check.js');
    expect(checkDomain('http://[2001:db8::1]/')).toBeNull();
    expect(checkDomain('jo@[192.0.2.1]')).toBeNull();
    expect(checkEmail('jo@[192.0.2.1]')?.send).toBe('jo@[192.0.2.1]');
  });
});

describe('items as they are copied', () => {
  it('a mailbox form is the address inside: shown, sent and keyed as that', () => {
    for (const raw of ['Jane Doe <Jane@Example.COM>', 'mailto:Jane@Example.COM?subject=x', 'EMAIL;type=INTERNET:Jane@Example.COM', 'Jane@Example.COM (Jane)']) {
      expect(checkEmail(raw), raw).toEqual({ item: 'Jane@Example.COM', send: 'Jane@Example.COM', key: 'Jane@example.com' });
    }
  });
  it('Unicode format characters are never part of an item: the cleaned form is shown, sent and keyed', () => {
    expect(checkEmail('ed@example.com\u200b')).toEqual({ item: 'ed@example.com', send: 'ed@example.com', key: 'ed@example.com' });
    expect(checkEmail('\u202aed@exa\u200dmple.com\u202c')?.key).toBe('ed@example.com');
    expect(checkDomain('exa\u200bmple.com\u200e')).toEqual({ item: 'example.com', send: 'example.com', key: 'example.com' });
  });
  it('a cell holding several addresses is no one item: invalid', () => {
    for (const raw of ['a@x.com, b@y.com', 'a@x.com;b@y.com', 'a@x.com ::: b@y.com', 'Jane <a@x.com>, Bob <b@y.com>']) {
      expect(checkEmail(raw), raw).toBeNull();
    }
  });
  it('domains: the domain of the address inside a mailbox form', () => {
    expect(checkDomain('Jane <jane@Globex.com>')).toEqual({ item: 'Globex.com', send: 'globex.com', key: 'globex.com' });
    expect(checkDomain('mailto:sales@bücher.de')?.send).toBe('xn--bcher-kva.de');
  });
  it('an IDN address (beyond ASCII) is still checked as before', () => {
    expect(checkEmail('jürgen@bücher.de')).toEqual({ item: 'jürgen@bücher.de', send: 'jürgen@bücher.de', key: 'jürgen@bücher.de' });
    expect(checkEmail('jü rgen@bücher.de')).toBeNull();
  });
});

describe('itemLike and itemShaped', () => {
  it.each([
    ['kim.lee@gmail', true],
    ['Generated by dana@acme.com on 4/1', true],
    ['Follow us @acme', false],
    ['a @ b', false],
    ['Grand Totals (4 records)', false],
    ['', false],
  ])('emails: %j is item-like: %s', (text, want) => {
    expect(itemLike('emails', text)).toBe(want);
  });
  it.each([
    ['www.globex.com', true],
    ['Copyright (c) 2000-2024 salesforce.com, inc.', true],
    ['https://globex.com/about', true],
    ['ann@globex.com', true],
    ['Total 1,234.50', false],
    ['e.g. none', false],
    ['v1.2.3', false],
    ['Acme Corp', false],
  ])('domains: %j is item-like: %s', (text, want) => {
    expect(itemLike('domains', text)).toBe(want);
  });
  it('shaped like one item, typos too; text holding more is not', () => {
    expect(['ann@x.com', 'kim@gmail', 'Jane <kim@gmail>', '"kim@gmail"'].map((t) => itemShaped('emails', t))).toEqual([true, true, true, true]);
    expect(['Ann,ann@x.com', 'Yes', 'a@x.com b@y.com', ''].map((t) => itemShaped('emails', t))).toEqual([false, false, false, false]);
    expect(['globex.com', 'acme.co', 'https://x.io/a', 'Acme', 'n/a'].map((t) => itemShaped('domains', t))).toEqual([true, true, true, false, false]);
  });
});
