// Unit tests: item checks, layout detection, decoding.
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { checkDomain, checkEmail } from '../src/input/check.js';
import { detectLayout, splitLine } from '../src/input/detect.js';
import { decodeText } from '../src/input/decode.js';
import { openSource } from '../src/input/read.js';

async function collect(chunks: Buffer[]): Promise<string> {
  let out = '';
  for await (const t of decodeText(Readable.from(chunks), 'test')) out += t;
  return out;
}

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
    expect(checkDomain('Sales@Globex.com')).toEqual({ item: 'Globex.com', send: 'Globex.com', key: 'globex.com' });
    expect(checkDomain('https://www.northwind.io/about?x=1')?.item).toBe('www.northwind.io');
  });
  it('takes the host of a website written without its scheme', () => {
    expect(checkDomain('www.Globex.com/about')).toEqual({ item: 'www.Globex.com', send: 'www.Globex.com', key: 'www.globex.com' });
    expect(checkDomain('hooli.xyz?ref=1')?.item).toBe('hooli.xyz');
    expect(checkDomain('hooli.xyz#top')?.item).toBe('hooli.xyz');
    expect(checkDomain('www.hooli.xyz:8080/about')?.item).toBe('www.hooli.xyz');
    expect(checkDomain('hooli.xyz:443')?.item).toBe('hooli.xyz');
  });
  it.each(['localhost', 'not a domain', '', 'n/a', '3.5', 'bad@', 'http://', '/about', 'localhost/x', 'a b.com/x', 'x/y.com'])('%j is invalid', (raw) => {
    expect(checkDomain(raw)).toBeNull();
  });
});

describe('detectLayout', () => {
  it('a plain list is one column with no header', () => {
    expect(detectLayout('emails', ['a@b.com', 'c@d.org'], {}, 'x')).toEqual({
      delimiter: null,
      header: null,
      column: 0,
      skipFirstLine: false,
    });
  });
  it('a plain list may start with an "email" header', () => {
    expect(detectLayout('emails', ['Email', 'a@b.com'], {}, 'x').header).toEqual(['Email']);
  });
  it('picks the header whose values look like items among several matching', () => {
    const lines = ['Name,E-mail 1 - Type,E-mail 1 - Value', 'Jo,* Home,jo@x.com', 'Al,Work,al@y.org'];
    const l = detectLayout('emails', lines, {}, 'x');
    expect(l).toMatchObject({ delimiter: ',', column: 2 });
  });
  it('finds the column by contents with no header and honours sep=', () => {
    expect(detectLayout('emails', ['Jane Doe,jane@n.io,2023', 'Bob,bob@x.com,2024'], {}, 'x')).toMatchObject({
      header: null,
      column: 1,
    });
    expect(detectLayout('emails', ['sep=;', 'Nom;Courriel', 'A;a@b.fr'], {}, 'x')).toMatchObject({
      delimiter: ';',
      skipFirstLine: true,
      column: 1,
      header: ['Nom', 'Courriel'],
    });
  });
  it('honours --column by name and number, --delimiter and --no-header', () => {
    const lines = ['a|b|c', 'x|y@z.com|w@v.com'];
    expect(detectLayout('emails', lines, { column: '3', delimiter: '|' }, 'x').column).toBe(2);
    expect(detectLayout('emails', ['id,mail', '1,a@b.com'], { column: 'MAIL' }, 'x').column).toBe(1);
    expect(detectLayout('emails', ['a@b.com,x', 'c@d.com,y'], { noHeader: true }, 'x').header).toBeNull();
    expect(() => detectLayout('emails', ['id,mail', '1,a@b.com'], { column: 'nope' }, 'f.csv')).toThrow(/no column named "nope"/);
  });
  it('splitLine respects quotes', () => {
    expect(splitLine('"a,b",c,"d ""e"""', ',')).toEqual(['a,b', 'c', 'd "e"']);
  });
});

describe('decodeText', () => {
  it('drops a UTF-8 BOM and keeps characters cut across chunks', async () => {
    const bytes = Buffer.from('\ufeffzoë@x.com\nb@y.com\n', 'utf8');
    const cut = bytes.indexOf(0xc3) + 1; // inside ë
    expect(await collect([bytes.subarray(0, cut), bytes.subarray(cut)])).toBe('zoë@x.com\nb@y.com\n');
  });
  it('reads what is not UTF-8 as Windows-1252', async () => {
    expect(await collect([Buffer.from([0x4c, 0xe9, 0x61, 0x92, 0x0d, 0x0a])])).toBe('Léa\u2019\r\n');
  });
  it('reads UTF-16LE with a BOM', async () => {
    const b = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a@b.com\n', 'utf16le')]);
    expect(await collect([b])).toBe('a@b.com\n');
  });
  it('refuses NUL bytes', async () => {
    await expect(collect([Buffer.from([0x61, 0, 0x62])])).rejects.toThrow(/NUL bytes/);
  });
});

describe('openSource', () => {
  const src = (text: string) => ({ name: 'mem', open: () => Readable.from([Buffer.from(text)]) });
  it('yields CSV records with quoted newlines and skips blank lines', async () => {
    const s = await openSource(src('email,note\r\na@b.com,"x\ny"\r\n\r\n,empty\r\n'), 'emails', {});
    const out = [];
    for await (const batch of s.records) out.push(...batch);
    expect(out).toEqual([
      { value: 'a@b.com', fields: ['a@b.com', 'x\ny'] },
      { value: '', fields: ['', 'empty'] },
    ]);
  });
  it('reports an unterminated quote as an input error', async () => {
    const s = await openSource(src('email,note\na@b.com,"open\nc@d.com,x\n'), 'emails', {});
    await expect(async () => {
      for await (const _ of s.records) void _;
    }).rejects.toMatchObject({ kind: 'input' });
  });
});
