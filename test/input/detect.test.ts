// The layout of an input (src/input/detect.ts): plain list or CSV, delimiter, header, rows above it, the item
// column; read through openSource, as the reader uses it.
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { openSource } from '../../src/input/read.js';

describe('layout detection (openSource)', () => {
  const layoutOf = async (text: string, overrides = {}, kind: 'emails' | 'domains' = 'emails') =>
    (await openSource({ name: 'x', path: 'x', open: () => Readable.from([Buffer.from(text)]) }, kind, overrides)).layout;
  it('a plain list is one column with no header', async () => {
    expect(await layoutOf('a@b.com\nc@d.org\n')).toMatchObject({ delimiter: null, header: null, column: 0, skip: [] });
  });
  it('a plain list has a header only when its first line is exactly a known header name', async () => {
    expect((await layoutOf('Email\na@b.com\n')).header).toEqual(['Email']);
    expect((await layoutOf('E-mail Address\na@b.com\n')).header).toEqual(['E-mail Address']);
    for (const first of ['not-an-email', 'jane.doe@hotmail', 'mail me', 'Emails to check']) {
      expect((await layoutOf(`${first}\na@b.com\n`)).header, first).toBeNull();
    }
    expect((await layoutOf('localhost\nexample.com\n', {}, 'domains')).header).toBeNull();
  });
  it('picks the header whose values look like items among several matching', async () => {
    const l = await layoutOf('Name,E-mail 1 - Type,E-mail 1 - Value\nJo,* Home,jo@x.com\nAl,Work,al@y.org\n');
    expect(l).toMatchObject({ delimiter: ',', column: 2 });
  });
  it('finds the column by contents with no header and honours sep=', async () => {
    expect(await layoutOf('Jane Doe,jane@n.io,2023\nBob,bob@x.com,2024\n')).toMatchObject({ header: null, column: 1 });
    expect(await layoutOf('sep=;\r\nNom;Courriel\r\nA;a@b.fr\r\n')).toMatchObject({ delimiter: ';', sepLine: true, column: 1, header: ['Nom', 'Courriel'] });
  });
  it('honours --column by name and number, --delimiter and --no-header', async () => {
    expect((await layoutOf('a|b|c\nx|y@z.com|w@v.com\n', { column: '3', delimiter: '|' })).column).toBe(2);
    expect((await layoutOf('id,mail\n1,a@b.com\n', { column: 'MAIL' })).column).toBe(1);
    expect((await layoutOf('a@b.com,x\nc@d.com,y\n', { noHeader: true })).header).toBeNull();
    await expect(layoutOf('id,mail\n1,a@b.com\n', { column: 'nope' })).rejects.toThrow(/no column named "nope"/);
  });
  it('a quoted line break never turns a CSV into a plain list', async () => {
    const text = 'Name,Address,Email\r\n"Jo","1 Main St\r\nSpringfield",jo@x.com\r\n"Al","2 Elm St\nShelbyville\nUSA",al@y.org\r\n';
    expect(await layoutOf(text)).toMatchObject({ delimiter: ',', header: ['Name', 'Address', 'Email'], column: 2 });
  });
  it('CR-only line ends (spreadsheets on a Mac)', async () => {
    expect(await layoutOf('Name,Email\rJo,jo@x.com\rAl,al@y.org\r')).toMatchObject({ delimiter: ',', header: ['Name', 'Email'], column: 1 });
  });
  it('a full main column with one typo beats a nearly empty secondary one', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `P${i},${i === 3 ? 'typo-at-example.com' : `p${i}@x.com`},${i < 2 ? `s${i}@y.com` : ''}`);
    expect((await layoutOf('Name,E-mail Address,E-mail 2 Address\n' + rows.join('\n') + '\n')).column).toBe(1);
  });
  it('an address repeated on every row (an owner) loses to the contacts column', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => `${i % 3 === 0 ? '' : `c${i}@x.com`},owner@acme.com`);
    expect((await layoutOf('Email,Owner Email\n' + rows.join('\n') + '\n')).column).toBe(0);
  });
  // The column-choice rules, each at its threshold: among columns whose header names the item, the most
  // distinct items wins unless another has at least 90% as many (then the better name); a note when the
  // runner-up has at least half as many; with no header, the first column of which at least half the filled
  // cells are items; a first row without items is a header when some column below is at least half items.
  const chosen = async (text: string) => {
    const notes: string[] = [];
    const s = await openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from([Buffer.from(text)]) }, 'emails', {}, (n) => notes.push(n));
    return { column: s.layout.column, header: s.layout.header, notes };
  };
  /** A two-column CSV whose columns hold a and b distinct addresses (the rest of each column empty). */
  const twoColumns = (names: string, a: number, b: number) =>
    names + '\n' + Array.from({ length: 10 }, (_, i) => `${i < a ? `a${i}@x.com` : ''},${i < b ? `b${i}@y.com` : ''}`).join('\n') + '\n';
  it('within 90% of the most distinct items, the better name wins (Email over Billing Email)', async () => {
    expect((await chosen(twoColumns('Billing Email,Email', 10, 9))).column).toBe(1);
  });
  it('below 90% of the most distinct items, the most distinct items win, whatever the name; the runner-up with half as many is said', async () => {
    const c = await chosen(twoColumns('Email,Billing Email', 6, 10));
    expect(c.column).toBe(1);
    expect(c.notes).toEqual(['c.csv: took the column "Billing Email" (10 distinct addresses in the first rows; "Email" has 6); pick another with --column NAME.']);
  });
  it('a runner-up with less than half as many distinct items is not said', async () => {
    const c = await chosen(twoColumns('Email,Billing Email', 4, 10));
    expect(c.column).toBe(1);
    expect(c.notes).toEqual([]);
  });
  it('with no header: the first column at least half of whose filled cells are items', async () => {
    // Column 1: 3 of 10 cells are addresses (not enough); column 2: all are.
    const mostlyNames = Array.from({ length: 10 }, (_, i) => `${i < 3 ? `c${i}@x.com` : `Name ${i}`},d${i}@y.com`).join('\n') + '\n';
    expect(await chosen(mostlyNames)).toMatchObject({ header: null, column: 1 });
    // Column 2: 6 of 10 (enough); column 1 none.
    const someNa = Array.from({ length: 10 }, (_, i) => `Name ${i},${i < 6 ? `d${i}@y.com` : 'n/a'}`).join('\n') + '\n';
    expect(await chosen(someNa)).toMatchObject({ header: null, column: 1 });
  });
  it('a first row with no known name and no item is a header when a column below is at least half items', async () => {
    const text = 'Name,Contact\n' + Array.from({ length: 10 }, (_, i) => `Name ${i},${i < 6 ? `d${i}@y.com` : 'n/a'}`).join('\n') + '\n';
    expect(await chosen(text)).toMatchObject({ header: ['Name', 'Contact'], column: 1 });
  });
  it('a preamble above the header is skipped and said', async () => {
    const notes: string[] = [];
    const text = 'Notes:\n"When exporting, some addresses may be missing, see help"\n\nFirst Name,Last Name,Email Address\nJo,Doe,jo@x.com\n';
    const s = await openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from([Buffer.from(text)]) }, 'emails', {}, (n) => notes.push(n));
    expect(s.layout).toMatchObject({ header: ['First Name', 'Last Name', 'Email Address'], headerLine: 4, column: 2, skip: [0, 1, 2] });
    expect(notes).toEqual(['c.csv: skipped lines 1–2 above the header (not records): "Notes:"']);
  });
});

