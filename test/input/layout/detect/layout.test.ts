// The layout of an input (src/input/layout/detect.ts): plain list or CSV, delimiter, header, rows above it; read through
// openSource, as the reader uses it.
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { openSource } from '../../../../src/input/read.js';
import { type LayoutOverrides } from '../../../../src/input/layout/detect.js';
import { readAll } from './harness.js';

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
  const chosen = async (text: string, overrides = {}, kind: 'emails' | 'domains' = 'emails') => {
    const notes: string[] = [];
    const s = await openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from([Buffer.from(text)]) }, kind, overrides, (n) => notes.push(n));
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
  it('the note counts in words that agree with one item: "1 distinct address"', async () => {
    const c = await chosen(twoColumns('Email,Work Email', 1, 1));
    expect(c.notes).toEqual(['c.csv: took the column "Email" (1 distinct address in the first rows; "Work Email" has 1); pick another with --column NAME.']);
    const d = await chosen('Website,Homepage\nacme.com,acme.org\n', {}, 'domains');
    expect(d.notes).toEqual(['c.csv: took the column "Website" (1 distinct domain in the first rows; "Homepage" has 1); pick another with --column NAME.']);
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


describe('the record rule, at the top of a file', () => {
  const open = async (text: string, overrides = {}, kind: 'emails' | 'domains' = 'emails') => {
    const notes: string[] = [];
    const s = await openSource({ name: 'f', path: 'f', open: () => Readable.from([Buffer.from(text)]) }, kind, overrides, (n) => notes.push(n));
    const values: string[] = [];
    for await (const b of s.records) for (const r of b) values.push(r.value);
    return { layout: s.layout, notes, values };
  };

  it('a header-less CSV whose first address contains "mail" keeps that row', async () => {
    const r = await open('jo@gmail.com,Jo Lee\nal@hotmail.com,Al Ray\ncy@mail.example.org,Cy Diaz\n');
    expect(r.layout.header).toBeNull();
    expect(r.values).toEqual(['jo@gmail.com', 'al@hotmail.com', 'cy@mail.example.org']);
  });
  it('a header-less TSV whose names hold ", " is read by its tabs: the delimiter whose cells hold the items whole', async () => {
    const r = await open('ann@x.com\tLee, Ann\nbob@y.com\tRay, Bob\ncy@z.com\tDo, Cy\n');
    expect(r.layout.delimiter).toBe('\t');
    expect(r.values).toEqual(['ann@x.com', 'bob@y.com', 'cy@z.com']);
    // and the other way round: a CSV whose cells hold tabs
    expect((await open('ann@x.com,Lee\tAnn\nbob@y.com,Ray\tBob\n')).values).toEqual(['ann@x.com', 'bob@y.com']);
  });
  it('a first data row shorter than the rest is a record, header or not', async () => {
    expect((await open('Name,Email,Phone\nAnn,ann@x.com\nBob,bob@x.com,555\nCy,cy@x.com,556\n')).values).toEqual(['ann@x.com', 'bob@x.com', 'cy@x.com']);
    expect((await open('Ann,ann@x.com\nBob,bob@x.com,555\nCy,cy@x.com,556\n')).values).toEqual(['ann@x.com', 'bob@x.com', 'cy@x.com']);
    // a first row without an address, but a contact all the same (an empty cell, a number): no header
    expect((await open('Ann,,555\nBob,bob@x.com,556\nCy,cy@x.com,557\n')).values).toEqual(['', 'bob@x.com', 'cy@x.com']);
  });
  it('a row above the header that holds an address is a record; the others above it are skipped', async () => {
    const r = await open('Export of 2024-05-01\nContact: admin@acme.com\nName,Email\nAnn,ann@x.com\n');
    expect(r.layout).toMatchObject({ header: ['Name', 'Email'], headerLine: 3, skip: [0, 2] });
    expect(r.values).toEqual(['', 'ann@x.com']); // the row's Email cell is empty: an invalid record, kept
    expect(r.notes).toEqual(['f: skipped line 1 above the header (not a record): "Export of 2024-05-01"']);
  });
  it('a title row padded to the table\'s width (Excel pads its first rows) is above the header, not the header', async () => {
    const r = await open('Contacts,,\n,,\nName,Email,Phone\nAnn,ann@x.com,555\n');
    expect(r.layout).toMatchObject({ header: ['Name', 'Email', 'Phone'], headerLine: 3, column: 1 });
    expect(r.values).toEqual(['ann@x.com']);
  });
  it('with no header, narrower rows above the data are records (no header: nothing is recognised above it)', async () => {
    expect((await open('Table 1\nAnn,ann@x.com\nBob,bob@x.com\n')).values).toEqual(['', 'ann@x.com', 'bob@x.com']);
  });
  it('a plain list: a first line that is exactly a known name of either kind is its header', async () => {
    expect((await open('email\na@gmail.com\n', {}, 'domains')).values).toEqual(['a@gmail.com']);
    expect((await open('Website\nglobex.com\n', {}, 'emails')).layout.header).toEqual(['Website']);
    expect((await open('mail.admin@x.com\na@gmail.com\n')).values).toEqual(['mail.admin@x.com', 'a@gmail.com']);
  });
});

describe('recipients, vCards', () => {
  const layoutOf = async (text: string) => (await openSource({ name: 'f', path: 'f', open: () => Readable.from([Buffer.from(text)]) }, 'emails', {})).layout;
  it.each([
    ['a To: line', 'Jane Doe <jane@gmail.com>, Bob <bob@example.org>, carol@example.com\n'],
    ['addresses after ", "', 'ann@x.com, bob@y.org\ncy@z.net\n'],
    ['Outlook\'s ";" at each line\'s end', 'ann@x.com;\r\nbob@y.org;\r\n'],
    ['display names holding commas', '"Doe, Jane" <jane@x.com>\n"Ray, Bob" <bob@y.org>\n'],
    ['one line of two addresses', 'ann@x.com,bob@y.org\n'],
    ['a header, then recipients', 'Email\nann@x.com; bob@y.org\n'],
  ])('%s: a plain list', async (_what, text) => {
    expect((await layoutOf(text)).delimiter).toBeNull();
  });
  it('recipients on a last line without a line end', async () => {
    expect(await layoutOf('ann@x.com,bob@y.org')).toMatchObject({ delimiter: null });
    expect(await layoutOf('Email\nann@x.com; bob@y.org')).toMatchObject({ delimiter: null, header: ['Email'] });
  });
  it('lines of exactly two bare addresses, each like the other: a CSV of two columns', async () => {
    expect(await layoutOf('ann@x.com,ann@home.org\nbob@y.org,bob@home.org\n')).toMatchObject({ delimiter: ',', column: 0, runnerUp: 1 });
  });
  it('a vCard file', async () => {
    expect(await layoutOf('BEGIN:VCARD\r\nVERSION:3.0\r\nEMAIL:a@x.com\r\nEND:VCARD\r\n')).toMatchObject({ delimiter: null, vcard: true, header: null });
  });
});

describe('detection details', () => {
  const open = (text: string, overrides: LayoutOverrides = {}, kind: 'emails' | 'domains' = 'emails') =>
    openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from([Buffer.from(text)]) }, kind, overrides, () => undefined);

  it('the usual width is the most frequent, the wider on a tie', async () => {
    expect((await open('a@x.com;1\nb@x.com;2;3\nc@x.com;4\nd@x.com;5;6\n', { delimiter: ';' })).layout.width).toBe(3);
    expect((await open('a@x.com;1\nb@x.com;2;3\nc@x.com;4\n', { delimiter: ';' })).layout.width).toBe(2);
  });

  it('a plain list: its header line counted among the lines, blank lines not; the sample cut mid-line is no line', async () => {
    expect((await open('\n\nEmail\na@x.com\n')).layout).toMatchObject({ delimiter: null, header: ['Email'], headerLine: 3, skip: [0] });
    expect((await open('  \nE-mail\r\na@x.com\r\n')).layout).toMatchObject({ header: ['E-mail'], headerLine: 2 });
  });

  it('an Excel sep= line ends at its line end, spaces after it allowed; sep= later in the file is data', async () => {
    expect((await open('sep=| \r\nName|Email\r\nA|a@b.fr\r\n')).layout).toMatchObject({ delimiter: '|', sepLine: true, column: 1 });
    expect((await open('Name,Email\nsep=;,a@b.fr\n')).layout).toMatchObject({ delimiter: ',', sepLine: false });
    expect((await open('sep=;x\nName;Email\n')).layout.sepLine).toBe(false);
  });

  it('a vCard is known by its first line only', async () => {
    expect((await open('BEGIN:VCARD \nEMAIL:a@x.com\nEND:VCARD\n')).layout.vcard).toBe(true);
    expect((await open('x BEGIN:VCARD\na@x.com\n')).layout.vcard).toBe(false);
    expect((await open('BEGIN:VCARDS\na@x.com\n')).layout.vcard).toBe(false);
  });

  it('--no-header with --column NAME: the name is looked for among the rows all the same', async () => {
    expect((await open('Name,Email\nAnn,a@x.com\n', { column: 'email', noHeader: true })).layout).toMatchObject({ header: ['Name', 'Email'], column: 1 });
    expect((await open('Ann,a@x.com\nName,Email\nBob,b@x.com\n', { column: 'Email' })).layout).toMatchObject({ header: ['Name', 'Email'], headerLine: 2, skip: [1], column: 1 });
  });

  it('a first row of names no list knows is a header when a column under a name is at least half items', async () => {
    const items = (n: number, k: number) => Array.from({ length: n }, (_, i) => `Name ${i},${i < k ? `d${i}@y.com` : 'n/a'}`).join('\n');
    const cases: Array<[string, string, { header: string[] | null; column: number; width: number }]> = [
      ['half the cells items', 'Who,Contact\n' + items(10, 5), { header: ['Who', 'Contact'], column: 1, width: 2 }],
      ['fewer than half', 'Who,Contact\n' + items(10, 4), { header: null, column: 1, width: 2 }],
      ['a number among the names', 'Who,2024\n' + items(4, 4), { header: null, column: 1, width: 2 }],
      ['no name over the items', 'Who,\n' + items(4, 4), { header: null, column: 1, width: 2 }],
      ['spaces over the items', 'Who, \n' + items(4, 4), { header: null, column: 1, width: 2 }],
      ['an empty name elsewhere', ',Contact\n' + items(4, 4), { header: ['', 'Contact'], column: 1, width: 2 }],
      ['names and items with spaces around', ' Who , Contact \n' + Array.from({ length: 4 }, (_, i) => `N${i}, d${i}@y.com `).join('\n'), { header: [' Who ', ' Contact '], column: 1, width: 2 }],
      ['rows ending in a delimiter under it', 'Who,Contact\nAnn,a@x.com,\nBob,b@x.com,\nCy,c@x.com,', { header: ['Who', 'Contact'], column: 1, width: 3 }],
      ['a known name, an empty cell before the last', 'Email,,Name\na@x.com,1,Ann\nb@x.com,2,Bob', { header: ['Email', '', 'Name'], column: 0, width: 3 }],
      ['a known name and a number', 'Email,2024\na@x.com,1\nb@x.com,2', { header: null, column: 0, width: 2 }],
    ];
    for (const [what, text, expected] of cases) expect((await open(text + '\n')).layout, what).toMatchObject(expected);
  });

  it('the delimiter: the one under which the first row fits the table, rows of the usual width from 60% of them', async () => {
    const cases: Array<[string, string, { delimiter: string | null; header: string[] | null; column: number; width: number; skip: number[] }]> = [
      ['decimal commas in ; data', 'Name;Amount;Email\nAnn;1,5;a@x.com\nBob;2,5;b@x.com\nCy;3,5;c@x.com', { delimiter: ';', header: ['Name', 'Amount', 'Email'], column: 2, width: 3, skip: [0] }],
      ['pipes, no header', 'a@x.com|1|2\nb@x.com|3|4', { delimiter: '|', header: null, column: 0, width: 3, skip: [] }],
      ['Excel dropping empty end cells under a header', 'Name,Email,Notes,Tags\nAnn,a@x.com,,\nBob,b@x.com\nCy,c@x.com\nDee,d@x.com', { delimiter: ',', header: ['Name', 'Email', 'Notes', 'Tags'], column: 1, width: 4, skip: [0] }],
      ['…and without one, after three full rows', 'Ann,a@x.com,x,y\nBob,b@x.com,z,w\nCy,c@x.com,q,r\nDee,d@x.com\nEd,e@x.com\nFay,f@x.com\nGil,g@x.com', { delimiter: ',', header: null, column: 1, width: 4, skip: [] }],
      ['a title above, a total below', 'My export\nName,Email\nAnn,a@x.com\nBob,b@x.com\nTotal 2', { delimiter: ',', header: ['Name', 'Email'], column: 1, width: 2, skip: [0, 1] }],
      ['three rows of five at the usual width', 'a@x.com,1\nb@x.com,1\nc@x.com,1\nd@x.com,1,2\ne@x.com,1,2', { delimiter: ',', header: null, column: 0, width: 2, skip: [] }],
      ['two bare addresses a line', 'a@x.com,b@x.com\nc@x.com,d@x.com', { delimiter: ',', header: null, column: 0, width: 2, skip: [] }],
      ['addresses after "; "', 'a@x.com; b@x.com\nc@x.com; d@x.com', { delimiter: null, header: null, column: 0, width: 1, skip: [] }],
      ['one line of two', 'a@x.com;b@x.com', { delimiter: null, header: null, column: 0, width: 1, skip: [] }],
    ];
    for (const [what, text, expected] of cases) expect((await open(text + '\n')).layout, what).toMatchObject(expected);
  });

  it('--column N is digits only: anything else is a name', async () => {
    const text = 'Name,Email\nAnn,a@x.com\n';
    expect((await open(text, { column: '10' }).catch((e: Error) => e.message))).toBe('c.csv has 2 columns, so it has no column 10; give --column N with N from 1 to 2.');
    for (const name of ['A1', '1a', '2.0']) {
      expect((await open(text, { column: name }).catch((e: Error) => e.message)), name).toBe(`c.csv has no column named "${name}" (its columns: "Name", "Email").`);
    }
    expect((await open(text, { column: ' 2 ' })).layout.column).toBe(1);
  });

  it('a better name wins among columns with at least 90% of the most distinct items, not below', async () => {
    const columns = (a: number, b: number) =>
      'Billing Email,Email\n' + Array.from({ length: 20 }, (_, i) => `${i < a ? `a${i}@x.com` : ''},${i < b ? `b${i}@y.com` : ''}`).join('\n') + '\n';
    expect((await open(columns(20, 18))).layout.column).toBe(1);
    expect((await open(columns(20, 17))).layout.column).toBe(0);
  });
});

describe('the header, at its edges', () => {
  const open = async (text: string, overrides: LayoutOverrides = {}) => {
    const { layout, values, notes } = await readAll(text, overrides);
    return { header: layout.header, headerLine: layout.headerLine, column: layout.column, values, notes };
  };

  it('names no list knows, one holding a number among its words, are a header', async () => {
    for (const names of ['Name,Contact 2', 'Name,2nd Contact', 'Name,Contact (2)']) {
      expect(await open(`${names}\nAnn,a@x.com\nBob,b@x.com\n`), names).toMatchObject({ header: names.split(','), column: 1, values: ['a@x.com', 'b@x.com'] });
    }
  });

  it('a header cell of spaces alone is an empty name, not a number', async () => {
    expect(await open(' ,Contact\nAnn,a@x.com\nBob,b@x.com\n')).toMatchObject({ header: [' ', 'Contact'], column: 1, values: ['a@x.com', 'b@x.com'] });
  });

  it('a column is an item column by its filled cells: empty, blank and missing cells do not count against it', async () => {
    const text = 'Who,Contact\nAnn,a@x.com\nBob,\nCy, \nDee\nEd,\nFay\nGil,g@x.com\nHal,h@x.com\n';
    expect(await open(text)).toMatchObject({ header: ['Who', 'Contact'], column: 1, values: ['a@x.com', '', ' ', '', '', '', 'g@x.com', 'h@x.com'] });
  });

  it('a column is an item column when half its filled cells are items: cells of spaces and missing cells are not filled', async () => {
    expect(await open('Who,Contact\nAnn,a@x.com\nBob, \nCy, \nDee, \nEd,e@x.com\n')).toMatchObject({ header: ['Who', 'Contact'], values: ['a@x.com', ' ', ' ', ' ', 'e@x.com'] });
    expect(await open('Who,Contact\nAnn,a@x.com\nBob\nCy\nDee\nEd,e@x.com\n')).toMatchObject({ header: ['Who', 'Contact'], values: ['a@x.com', '', '', '', 'e@x.com'] });
  });

  it('a title line above a header of names no list knows is skipped, the header found under it', async () => {
    expect(await open('My export\nWho,Contact\nAnn,a@x.com\nBob,b@x.com\nCy,c@x.com\n')).toEqual({
      header: ['Who', 'Contact'],
      headerLine: 2,
      column: 1,
      values: ['a@x.com', 'b@x.com', 'c@x.com'],
      notes: ['c.csv: skipped line 1 above the header (not a record): "My export"'],
    });
  });

  it('a one-cell line right above header-less data is a record, not its header', async () => {
    expect(await open('Contacts\na@x.com,Ann\nb@x.com,Bob\nc@x.com,Cy\n')).toMatchObject({ header: null, column: 0, values: ['Contacts', 'a@x.com', 'b@x.com', 'c@x.com'] });
  });

  it('a row of names under a row of data is data: no header is looked for below data', async () => {
    expect(await open('Ann,a@x.com\nName,Email\nBob,b@x.com\n')).toMatchObject({ header: null, column: 1, values: ['a@x.com', 'Email', 'b@x.com'] });
  });

  it('--column N with spaces around is the number, even where a cell holds that number', async () => {
    expect(await open('id,mail\n2,a@x.com\n3,b@x.com\n', { column: ' 2 ' })).toMatchObject({ header: ['id', 'mail'], headerLine: 1, column: 1, values: ['a@x.com', 'b@x.com'] });
  });
});
