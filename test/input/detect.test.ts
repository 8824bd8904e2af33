// The layout of an input (src/input/detect.ts): plain list or CSV, delimiter, header, rows above it, the item
// column; read through openSource, as the reader uses it.
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { openSource } from '../../src/input/read.js';
import { parseDelimiterFlag, tableLayout, type LayoutOverrides } from '../../src/input/detect.js';

/** `text` (or its chunks) opened as the file c.csv, and the notes said so far. */
async function opened(text: string | string[], overrides: LayoutOverrides = {}, kind: 'emails' | 'domains' = 'emails') {
  const notes: string[] = [];
  const chunks = (typeof text === 'string' ? [text] : text).map((t) => Buffer.from(t));
  const s = await openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from(chunks) }, kind, overrides, (n) => notes.push(n));
  return { s, notes };
}

/** …read to its end: its layout, every note said, every record's value. */
async function readAll(text: string | string[], overrides: LayoutOverrides = {}, kind: 'emails' | 'domains' = 'emails') {
  const { s, notes } = await opened(text, overrides, kind);
  const values: string[] = [];
  for await (const b of s.records) for (const r of b) values.push(r.value);
  return { layout: s.layout, notes, values };
}

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

describe('the item column', () => {
  const chosen = async (text: string, overrides = {}) => {
    const s = await openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from([Buffer.from(text)]) }, 'emails', overrides, () => undefined);
    return s.layout;
  };
  it('with no header naming a column: the most distinct items win, not the first column', async () => {
    const rows = Array.from({ length: 6 }, (_, i) => `owner${i % 2}@acme.com,Name ${i},c${i}@x.com`).join('\n');
    expect(await chosen(rows + '\n')).toMatchObject({ header: null, column: 2, runnerUp: 0 });
  });
  it('a header naming the column wins over more items elsewhere', async () => {
    const rows = Array.from({ length: 6 }, (_, i) => `c${i}@x.com,${i < 2 ? `p${i}@y.com` : ''}`).join('\n');
    expect(await chosen('Notes,Email\n' + rows + '\n')).toMatchObject({ column: 1, runnerUp: 0 });
  });
  it('a named column empty in the first rows is still the column (LinkedIn hides most addresses)', async () => {
    expect(await chosen('First Name,Email Address,Company\nAnn,,Acme\nBob,,Initech\n')).toMatchObject({ column: 1 });
  });
  it('--column N beyond the table is an input error naming its width', async () => {
    await expect(chosen('Name,Email\nAnn,ann@x.com\n', { column: '5' })).rejects.toMatchObject({
      kind: 'input',
      message: 'c.csv has 2 columns, so it has no column 5; give --column N with N from 1 to 2.',
    });
  });
  it('--column NAME matches the header once normalised too', async () => {
    expect((await chosen('Name,E-Mail-Adresse\nAnn,ann@x.com\n', { column: 'e-mail adresse' })).column).toBe(1);
  });
  it('domains: a column of addresses serves when no column names domains', async () => {
    const s = await openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from([Buffer.from('Name,Email\nAnn,ann@globex.com\n')]) }, 'domains', {});
    expect(s.layout).toMatchObject({ header: ['Name', 'Email'], column: 1 });
  });
});

describe('the item column, at its thresholds', () => {
  const layout = async (text: string) => (await openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from([Buffer.from(text)]) }, 'emails', {}, () => undefined)).layout;
  it('a small sample whose main column has a typo without its @: one fewer is still close, and the better name wins', async () => {
    const text = 'customer_id,user_email,billing_email\n11,felix.braun.gmail.com,felix@gmail.com\n12,gina@libero.it,gina@libero.it\n13,hans@kpn.com,hans@vos.nl\n';
    expect((await layout(text)).column).toBe(1);
  });
  it('no names: between close columns, the one with more distinct items', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => `${i < 9 ? `a${i}@x.com` : ''},b${i}@y.com`).join('\n');
    expect(await layout(rows + '\n')).toMatchObject({ header: null, column: 1, runnerUp: 0 });
  });
  it('a header wider than most rows (a mostly empty last column, its delimiters dropped): the header gives the width', async () => {
    const rows = ['ann@x.com|', 'bob@x.com|"met at the fair\r\nsaid hi"', 'cy@x.com', 'dee@x.com', 'ed@x.com', 'fay@x.com|vip', 'gil@x.com', 'hal@x.com', 'ivy@x.com'];
    const l = await layout('Email|Notes\r\n' + rows.join('\r\n') + '\r\n');
    expect(l).toMatchObject({ delimiter: '|', header: ['Email', 'Notes'], width: 2, column: 0 });
  });
});

describe('what detection refuses, and says', () => {
  const open = (text: string, overrides: LayoutOverrides = {}, kind: 'emails' | 'domains' = 'emails') =>
    openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from([Buffer.from(text)]) }, kind, overrides, () => undefined);
  const refusal = async (text: string, overrides: LayoutOverrides = {}, kind: 'emails' | 'domains' = 'emails') => {
    const e = (await open(text, overrides, kind).then(() => null, (err: unknown) => err)) as { kind: string; message: string } | null;
    return e && { kind: e.kind, message: e.message };
  };

  it('--delimiter: a name or one character (not a quote or a line end)', () => {
    const given = ['tab', 'TAB', '\\t', '\t', 'comma', 'Semicolon', 'PIPE', ':', 'é', '😀'];
    expect(given.map(parseDelimiterFlag)).toEqual(['\t', '\t', '\t', '\t', ',', ';', '|', ':', 'é', '😀']);
    for (const bad of ['', 'ab', '"', '\n', '\r', ';;']) {
      expect(() => parseDelimiterFlag(bad), JSON.stringify(bad)).toThrow(`--delimiter takes one character (or "tab"), not "${bad}".`);
    }
  });

  it('rows split by a delimiter into different numbers of cells: an input error naming the widths and the --delimiter to give', async () => {
    const text = 'a@x.com,b\nc@x.com,d,e,f\ng@x.com,h,i\nj@x.com,k,l,m,n\nx@x.com\n';
    expect(await refusal(text)).toEqual({
      kind: 'input',
      message: 'c.csv looks like CSV split by ",", but its rows have different numbers of cells (2, 4, 3, 5, 1…); give --delimiter "," to read it so anyway (every cell is kept), or check the file.',
    });
    expect((await refusal(text.replaceAll(',', '\t')))!.message).toBe(
      'c.csv looks like CSV split by "tab", but its rows have different numbers of cells (2, 4, 3, 5, 1…); give --delimiter "tab" to read it so anyway (every cell is kept), or check the file.',
    );
    expect((await open(text, { delimiter: ',' })).layout).toMatchObject({ delimiter: ',', column: 0 });
  });

  it('a plain list takes --column 1 or its header only', async () => {
    expect(await refusal('a@x.com\nb@x.com\n', { column: '2' })).toEqual({ kind: 'usage', message: 'c.csv is a plain list (one item a line), so --column can only be 1 or its header.' });
    expect((await open('a@x.com\nb@x.com\n', { column: '1' })).layout).toMatchObject({ header: null, skip: [] });
    expect((await open('Addresses\na@x.com\n', { column: 'addresses' })).layout).toMatchObject({ header: ['Addresses'], headerLine: 1, skip: [0] });
    expect((await open('Email\na@x.com\n', { noHeader: true })).layout).toMatchObject({ header: null, skip: [] });
  });

  it('a chosen column holding no items: an input error naming it and what it holds, and the flag that helps', async () => {
    const long = 'L'.repeat(45);
    expect(await refusal(`Name,Email\nAnn,ann@x.com\nBob,bob@x.com\n${long},c@x.com\nDee,d@x.com\n`, { column: 'Name' })).toEqual({
      kind: 'input',
      message: `c.csv: column 1 ("Name") holds no email addresses (its first rows hold "Ann", "Bob", "${'L'.repeat(39)}…"); name the column that holds them with --column NAME or --column N.`,
    });
    expect((await refusal('x,y\nAnn,b.com\n', { column: '1', noHeader: true }, 'domains'))!.message).toBe(
      'c.csv: column 1 holds no domains (its first rows hold "x", "Ann"); name the column that holds them with --column NAME or --column N.',
    );
    expect((await refusal('Name,Email\nAnn,a@x.com\n', { column: '1', delimiter: ';' }))!.message).toBe(
      'c.csv: column 1 ("Name,Email") holds no email addresses (its first rows hold "Ann,a@x.com"); its rows look split by ",": give --delimiter ",".',
    );
    expect((await refusal('Name\tEmail\nAnn\ta@x.com\n', { column: '1', delimiter: ';' }))!.message).toBe(
      'c.csv: column 1 ("Name\tEmail") holds no email addresses (its first rows hold "Ann\ta@x.com"); its rows look split by "tab": give --delimiter "tab".',
    );
    expect((await refusal('Name,Email\nAnn;x,a@x.com\n', { column: '1', delimiter: '|' }))!.message).toBe(
      'c.csv: column 1 ("Name,Email") holds no email addresses (its first rows hold "Ann;x,a@x.com"); its rows look split by ",": give --delimiter ",".',
    );
  });

  it('no column holds items: the named one is said, else the file; a named column empty in every row is taken', async () => {
    expect((await refusal('Name,Email,Phone\nAnn,unknown,1\nBob,n/a,2\n'))!.message).toBe(
      'c.csv: column 2 ("Email") holds no email addresses (its first rows hold "unknown", "n/a"); name the column that holds them with --column NAME or --column N.',
    );
    expect((await refusal('Name,Email Type,Email\nAnn,home,none\n'))!.message).toBe(
      'c.csv: column 3 ("Email") holds no email addresses (its first rows hold "none"); name the column that holds them with --column NAME or --column N.',
    );
    expect(await refusal('Name,Phone\nAnn,1\nBob,2\n')).toEqual({ kind: 'input', message: 'No column of c.csv looks like email addresses; name it with --column NAME or --column N.' });
    expect((await refusal('Name,Phone\nAnn,1\nBob,2\n', {}, 'domains'))!.message).toBe('No column of c.csv looks like domains; name it with --column NAME or --column N.');
    expect((await open('Name,Phone,Email\nAnn,1,\nBob,2,\n')).layout).toMatchObject({ column: 2, runnerUp: null });
    expect((await open('Name,Phone,Email\n')).layout).toMatchObject({ header: ['Name', 'Phone', 'Email'], column: 2 });
    expect((await refusal('Name,Phone\n'))!.message).toBe('No column of c.csv looks like email addresses; name it with --column NAME or --column N.'); // a row of names alone: data
  });

  it('--column: counted from 1, named from the header (its columns said when none has the name)', async () => {
    expect(await refusal('Name,Email\nAnn,a@x.com\n', { column: '0' })).toEqual({ kind: 'usage', message: '--column counts from 1.' });
    expect(await refusal('Name,Email\nAnn,a@x.com\n', { column: 'Mail' })).toEqual({ kind: 'usage', message: 'c.csv has no column named "Mail" (its columns: "Name", "Email").' });
    expect(await refusal('Ann,a@x.com\nBob,b@x.com\n', { column: 'Mail', noHeader: true })).toEqual({ kind: 'usage', message: 'c.csv has no column named "Mail".' });
    expect((await open('Email,E-Mail\nx@y.com,a@x.com\n', { column: 'e-mail' })).layout.column).toBe(1);
    expect((await open('Name,Email\n', { column: '2' })).layout).toMatchObject({ column: 1, header: ['Name', 'Email'] });
    expect((await open('Name,Email\n', { column: '7' })).layout.column).toBe(6); // no rows: nothing to say it is wrong yet
  });

  it('two close columns of one name: the note names the other by its number', async () => {
    const notes: string[] = [];
    const rows = Array.from({ length: 10 }, (_, i) => `a@x${i}.com,b@y${i % 9}.com`).join('\n');
    const s = await openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from([Buffer.from('Email,Email\n' + rows + '\n')]) }, 'domains', {}, (n) => notes.push(n));
    expect(s.layout).toMatchObject({ column: 0, runnerUp: 1 });
    expect(notes).toEqual(['c.csv: took the column "Email" (10 distinct domains in the first rows; column 2, also "Email", has 9); pick another with --column 2.']);
  });

  it('a one-column CSV of quoted values: read as CSV, the quotes no part of them', async () => {
    const s = await open('"a@x.com"\n"b@x.com"\n"c@x.com"\n');
    expect(s.layout).toMatchObject({ delimiter: ',', width: 1, column: 0, header: null });
    const values: string[] = [];
    for await (const b of s.records) for (const r of b) values.push(r.value);
    expect(values).toEqual(['a@x.com', 'b@x.com', 'c@x.com']);
  });

  it('an Excel sep= line: the lines counted from the one after it', async () => {
    expect((await open('sep=;\nName;Email\nA;a@b.fr\n')).layout).toMatchObject({ delimiter: ';', sepLine: true, header: ['Name', 'Email'], headerLine: 2, skip: [0] });
    expect((await open('sep=|\nnote\nName|Email\nA|a@b.fr\n')).layout).toMatchObject({ headerLine: 3, skipped: [{ lines: [2], why: 'above the header' }] });
  });

  it('lines of mailbox forms two a line: recipients, unless one place holds the same address on every line (a CSV)', async () => {
    expect((await open('Jane <j@x.com>,Al <a@y.org>\nBob <b@x.com>,Cy <c@y.org>\n')).layout.delimiter).toBeNull();
    expect((await open('Jane <j@x.com>,owner@acme.com\nBob <b@x.com>,owner@acme.com\n')).layout).toMatchObject({ delimiter: ',', column: 0 });
    expect((await open('Jane <j@x.com>\nBob <b@x.com>\n')).layout.delimiter).toBeNull();
  });

  it("a workbook's rows: the same header, preamble and column choice as CSV's", () => {
    const rows = [['Report'], [' ', '\t'], ['Name', 'Email'], ['Ann', 'a@x.com'], ['Bob', 'b@x.com']];
    const l = tableLayout('emails', { rows, lines: [1, 2, 3, 4, 5] }, '\t', {}, 'book.xlsx');
    expect(l).toMatchObject({ delimiter: '\t', header: ['Name', 'Email'], headerLine: 3, skip: [0, 1], column: 1, width: 2, sepLine: false, vcard: false });
    expect(l.notes).toEqual(['book.xlsx: skipped line 1 above the header (not a record): "Report"']);
  });

  it("a report's title lines over a workbook's table of fewer rows (its rows end at their last value): the header under them", () => {
    const title = [['Contacts with Email Report'], ['Filtered By:'], ['  Lead Source equals Web'], ['As of 11/25/2026'], ['Acme Corp']];
    const table = [['Owner', 'First', 'Email', 'Phone', 'City'], ['Sam', 'Jane', 'jane@acme.com', '', 'Boston'], ['Sam', 'Bob', 'bob@ray.org']];
    const rows = [...title, ...table, ['Grand Totals (2 records)']];
    const l = tableLayout('emails', { rows, lines: rows.map((_, i) => i + 1) }, ',', {}, 'report.xlsx');
    expect(l).toMatchObject({ headerLine: 6, skip: [0, 1, 2, 3, 4, 5], column: 2, width: 5 });
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

describe('the table, at its edges', () => {
  const open = readAll;
  const refusal = (text: string, overrides: LayoutOverrides = {}) => open(text, overrides).then(() => null, (e: Error) => e.message);

  it('a header-less CSV whose first row holds extra cells is read by the width of the rest', async () => {
    const rest = 'Bob,bob@x.com\nCy,cy@x.com\nDee,dee@x.com\n';
    expect(await open('Ann,ann@x.com,vip\n' + rest)).toMatchObject({ layout: { delimiter: ',', width: 2, column: 1 }, values: ['ann@x.com', 'bob@x.com', 'cy@x.com', 'dee@x.com'] });
    expect(await open('Ann,ann@x.com,vip,2024\n' + rest)).toMatchObject({ layout: { delimiter: ',', width: 2, column: 1 }, values: ['ann@x.com', 'bob@x.com', 'cy@x.com', 'dee@x.com'] });
    // under a title line: the title is a record too (nothing above a header-less table is recognised)
    expect(await open('Contact list\nAnn,ann@x.com,vip\n' + rest)).toMatchObject({ layout: { delimiter: ',', width: 2 }, values: ['', 'ann@x.com', 'bob@x.com', 'cy@x.com', 'dee@x.com'] });
  });

  it("a report's four title lines over three rows of a table: the rows are read by the table's width", async () => {
    const titles = 'Contacts report\nOwner: Sam\nRegion: East\nAs of 11/25/2026\n';
    const r = await open(titles + 'Ann,a@x.com,x,y\nBob,b@x.com,z,w\nCy,c@x.com,q,r\n');
    expect(r.layout).toMatchObject({ delimiter: ',', width: 4, column: 1 });
    expect(r.values).toEqual(['', '', '', '', 'a@x.com', 'b@x.com', 'c@x.com']);
  });

  it('footer lines below the data do not count against the delimiter', async () => {
    const r = await open('a@x.com,1\nb@x.com,2\nc@x.com,3,extra\nTotal 3\nEnd of report\n');
    expect(r.layout).toMatchObject({ delimiter: ',', width: 2, column: 0 });
    expect(r.values).toEqual(['a@x.com', 'b@x.com', 'c@x.com']);
    expect(r.notes).toEqual(['c.csv: skipped lines 4–5 below the data (not records): "Total 3"']);
  });

  it('--delimiter: lines are counted from the first line of the file', async () => {
    const r = await open('Export\nName;Email\nAnn;a@x.com\n', { delimiter: ';' });
    expect(r.layout).toMatchObject({ delimiter: ';', header: ['Name', 'Email'], headerLine: 2, skip: [0, 1] });
    expect(r.notes).toEqual(['c.csv: skipped line 1 above the header (not a record): "Export"']);
  });

  it('under an Excel sep= line, an unclosed quote is said on its line of the file', async () => {
    expect(await refusal('sep=,\nName,Email\n"Ann,a@x.com\nBob,b@x.com\n')).toBe(
      'c.csv is not well-formed CSV: a quoted cell in the record that starts on line 3 is never closed; if its quotes are text, not CSV quoting, give --no-quotes, else check the file.',
    );
  });

  it('an Excel sep= line alone (an empty export) holds no record; a sep= line below the first is data', async () => {
    expect(await open('sep=;')).toMatchObject({ layout: { delimiter: ';', sepLine: true }, values: [] });
    expect(await open('Name,Email\nsep=;\nAnn,a@x.com\n')).toMatchObject({ layout: { delimiter: ',', sepLine: false, header: ['Name', 'Email'] }, values: ['', 'a@x.com'] });
  });

  it('two bare addresses a line, in a file longer than the sample that ends mid-line there: still a CSV', async () => {
    const lines = Array.from({ length: 4000 }, (_, i) => `a${i}@x.com,b${i}@y.org`);
    const text = lines.join('\n') + '\n';
    const next = text.indexOf('\n', 70_000) + 1;
    const cut = text.indexOf(',', next); // the sample's last block ends inside a line, after its first address
    const r = await open([text.slice(0, cut), text.slice(cut)]);
    expect(r.layout).toMatchObject({ delimiter: ',', column: 0, runnerUp: 1 });
    expect(r.values).toEqual(lines.map((l) => l.split(',')[0]));
  });

  it('a header alone, naming no column as the item column itself, is no error: nothing to read', async () => {
    expect(await open('Name,Billing Email\n')).toMatchObject({ layout: { header: ['Name', 'Billing Email'] }, values: [] });
  });
});

describe('the column choice among several, and its note', () => {
  const open = async (text: string, overrides: LayoutOverrides = {}) => {
    const { s, notes } = await opened(text, overrides);
    return { column: s.layout.column, runnerUp: s.layout.runnerUp, notes };
  };
  /** A CSV of ten rows under `header`: column k holds counts[k] distinct addresses (made by `cell`), then empty cells. */
  const table = (header: string, counts: number[], cell = (k: number, i: number) => `c${k}r${i}@x.com`) =>
    header + '\n' + Array.from({ length: 10 }, (_, i) => counts.map((n, k) => (i < n ? cell(k, i) : '')).join(',')).join('\n') + '\n';

  it('an empty column named exactly for the item competes against one holding a single item (a stream\'s first rows)', async () => {
    expect((await open('Name,Email,Secondary Email\nAnn,,ann2@x.com\n')).column).toBe(1);
    expect((await open('Name,Email,Secondary Email\nAnn,,ann2@x.com\nBob,,bob2@x.com\nCy,,cy2@x.com\n')).column).toBe(2);
    // …not against a column of several item cells (domains: every contact at one company, no website given).
    const text = 'Name,Website,Email\nAnn,,ann@acme.com\nBob,,bob@acme.com\nCid,,cid@acme.com\n';
    expect((await opened(text, {}, 'domains')).s.layout.column).toBe(2);
  });
  it('domains: columns tied on distinct domains (every contact at one company) go to the one with more cells that are items', async () => {
    const text = 'First Name,Last Name,Display Name,Nickname,Primary Email\nAnn,Lee,Ann Lee,,ann@example.com\nBob,Ray,bob@example.com,,bob@example.com\nCy,Ho,Cy,,cy@example.com\n';
    expect((await opened(text, {}, 'domains')).s.layout.column).toBe(4);
  });
  it('the runner-up: of the columns named for the item, the one with the most distinct items, before any column named otherwise', async () => {
    expect(await open(table('Email,Work Email,Notes,Personal Email', [10, 6, 9, 8]))).toEqual({
      column: 0,
      runnerUp: 3,
      notes: ['c.csv: took the column "Email" (10 distinct addresses in the first rows; "Personal Email" has 8); pick another with --column NAME.'],
    });
    expect(await open(table('Email,Notes,Work Email', [10, 9, 6]))).toMatchObject({ column: 0, runnerUp: 2 });
  });

  it('between runners-up of as many distinct items: the better name, then the first', async () => {
    expect(await open(table('Email,Home Email,Work Email', [10, 6, 6]))).toMatchObject({ column: 0, runnerUp: 2 });
    expect(await open(table('Email,Work Email,Personal Email', [10, 6, 6]))).toMatchObject({ column: 0, runnerUp: 1 });
  });

  it('a column not named for the item is no close call: taken over, it is not said', async () => {
    expect(await open(table('Notes,Email', [10, 2]))).toEqual({ column: 1, runnerUp: 0, notes: [] });
  });

  it('a runner-up with exactly half as many distinct items is said', async () => {
    expect(await open(table('Email,Billing Email', [5, 10]))).toEqual({
      column: 1,
      runnerUp: 0,
      notes: ['c.csv: took the column "Billing Email" (10 distinct addresses in the first rows; "Email" has 5); pick another with --column NAME.'],
    });
  });

  it('a column named for a secondary address wins over one of more items named for nothing', async () => {
    expect(await open(table('Notes,Billing Email', [10, 6]))).toEqual({ column: 1, runnerUp: 0, notes: [] });
  });

  it('columns alike in name and distinct items: the one with more valid items, else the first', async () => {
    expect(await open(table('A,B,C', [10, 10, 10]))).toMatchObject({ column: 0, runnerUp: 1 });
    // a typo (no dot in the domain) in the first row of A and C: B has more valid items
    const typos = table('A,B,C', [10, 10, 10], (k, i) => (i === 0 && k !== 1 ? `c${k}r0@x` : `c${k}r${i}@x.com`));
    expect(await open(typos)).toMatchObject({ column: 1, runnerUp: 0 });
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

describe('detection, more edges', () => {
  const open = readAll;
  const refusal = (text: string, overrides: LayoutOverrides = {}) => open(text, overrides).then(() => null, (e: Error) => e.message);
  const ragged = (shown: string, widths: string) =>
    `c.csv looks like CSV split by "${shown}", but its rows have different numbers of cells (${widths}…); give --delimiter "${shown}" to read it so anyway (every cell is kept), or check the file.`;

  it('a row wider than the table: the narrower rows no longer fit it, and rows of three widths are refused', async () => {
    expect(await refusal('Name,Email,Phone\nAnn,a@x.com,1\nBob,b@x.com,2\nCy,c@x.com\nDee,d@x.com\nEd,e@x.com,3,4\n')).toBe(ragged(',', '3, 2, 4'));
  });

  it('a header over rows that all lack its last cells (a column no row fills, a trailing delimiter on the header): read under the header', async () => {
    for (const header of ['Name,Email,Phone', 'Name,Email,', 'Name,Email,,', 'Name,Email,Phone,Notes']) {
      const r = await open(`${header}\nAnn,a@x.com\nBob,b@x.com\nCy,c@x.com\n`);
      expect(r.values, header).toEqual(['a@x.com', 'b@x.com', 'c@x.com']);
      expect(r.layout, header).toMatchObject({ delimiter: ',', headerLine: 1, column: 1 });
    }
  });

  it('three rows, two of them split into different numbers of cells: refused', async () => {
    expect(await refusal('a@x.com,b\nc@x.com,d,e\nf@x.com\n')).toBe(ragged(',', '2, 3, 1'));
  });

  it('rows that line up under no delimiter: the refusal names the one they line up best under, the first on a tie', async () => {
    const text = 'a@x.com,b;c\nd@x.com,e,f;g\nh@x.com,i,j,k;l;m\nn@x.com;o\np@x.com,q;r;s;t\nu@x.com,v,w;x;y\n';
    expect(await refusal(text)).toBe(ragged(';', '2, 3, 4'));
    const swapped = text.replace(/[,;]/g, (d) => (d === ',' ? ';' : ','));
    expect(await refusal(swapped)).toBe(ragged(',', '2, 3, 4'));
    // as many cells under either
    expect(await refusal('a@x.com,b;c\nd@x.com,e,f;g;h\ni@x.com,j,k,l;m;n;o\np@x.com\nq@x.com,r;s\nt@x.com,u,v,w,x;y;z;1;2\n')).toBe(ragged(',', '2, 3, 4, 1, 5'));
  });

  it('the refusal names at most five widths, of the first 50 rows', async () => {
    expect(await refusal('a@x.com,b\nc@x.com,d,e\nf@x.com,g,h,i\nj@x.com,k,l,m,n\no@x.com,p,q,r,s,t\nu@x.com,1,2,3,4,5,6\nv@x.com\n')).toBe(ragged(',', '2, 3, 4, 5, 6'));
    const rows = Array.from({ length: 50 }, (_, i) => [`r${i}@x.com`, ...Array.from({ length: 1 + (i % 3) }, (_, k) => `c${k}`)].join(','));
    expect(await refusal([...rows, 'z@x.com,1,2,3,4,5,6,7,8'].join('\n') + '\n')).toBe(ragged(',', '2, 3, 4'));
  });

  it('between delimiters under which the header fits, the one under which more rows line up (";" data, "," in some cells)', async () => {
    expect(await open('Name;Amount, EUR;Email\nAnn;1,5;a@x.com\nBob;2,5;b@x.com\nCy;3,5,7;c@x.com\n')).toMatchObject({
      layout: { delimiter: ';', header: ['Name', 'Amount, EUR', 'Email'], column: 2 },
      values: ['a@x.com', 'b@x.com', 'c@x.com'],
    });
  });

  it('a list of which 60% of the lines are quoted is a one-column CSV: the quotes are no part of the values', async () => {
    expect(await open('"a@x.com"\n"b@x.com"\n"c@x.com"\nd@x.com\ne@x.com\n')).toMatchObject({
      layout: { delimiter: ',', width: 1 },
      values: ['a@x.com', 'b@x.com', 'c@x.com', 'd@x.com', 'e@x.com'],
    });
  });

  it('lines of two, two and one bare addresses: recipients, every address read', async () => {
    expect(await open('a@x.com,b@y.org\nc@z.net,d@w.com\ne@v.org\n')).toMatchObject({ layout: { delimiter: null }, values: ['a@x.com', 'b@y.org', 'c@z.net', 'd@w.com', 'e@v.org'] });
  });

  it('a header wider than most rows, and one row wider than the header: the header gives the width', async () => {
    expect(await open('Name,Email,Phone\nAnn,a@x.com\nBob,b@x.com\nCy,c@x.com\nDee,d@x.com\nEd,e@x.com\nFay,f@x.com,1,2\n')).toMatchObject({
      layout: { delimiter: ',', header: ['Name', 'Email', 'Phone'], width: 3, column: 1 },
      values: ['a@x.com', 'b@x.com', 'c@x.com', 'd@x.com', 'e@x.com', 'f@x.com'],
    });
  });

  it('a refusal names a column by its number alone when its header cell is blank', async () => {
    expect(await refusal(' ,Email\nAnn,a@x.com\n', { column: '1' })).toBe(
      'c.csv: column 1 holds no email addresses (its first rows hold "Ann"); name the column that holds them with --column NAME or --column N.',
    );
  });

  it('recipients: lines of different numbers of bare addresses; a mailbox form beside a bare address; display names holding a comma', async () => {
    expect(await open('a@x.com,b@y.org\nc@z.net\n')).toMatchObject({ layout: { delimiter: null }, values: ['a@x.com', 'b@y.org', 'c@z.net'] });
    expect(await open('Jane <j@x.com>,b@y.org\nBob <b@x.com>,c@y.org\n')).toMatchObject({ layout: { delimiter: null }, values: ['Jane <j@x.com>', 'b@y.org', 'Bob <b@x.com>', 'c@y.org'] });
    expect(await open('"Doe,Jane" <j@x.com>\n"Ray,Bob" <b@y.org>\n')).toMatchObject({ layout: { delimiter: null }, values: ['"Doe,Jane" <j@x.com>', '"Ray,Bob" <b@y.org>'] });
  });

  it('a known header ending in a blank cell, under a note holding an address: the header', async () => {
    expect(await open('Contact: admin@acme.com\nName,Email, \nAnn,ann@x.com,\nBob,bob@x.com,\n')).toMatchObject({
      layout: { header: ['Name', 'Email', ' '], headerLine: 2, skip: [1], column: 1 },
      values: ['', 'ann@x.com', 'bob@x.com'],
    });
  });

  it('a named item column blank or missing in every row is the column (nothing to send, nothing refused)', async () => {
    expect(await open('First Name,Email Address,Company\nAnn, ,Acme\nBob, ,Initech\n')).toMatchObject({ layout: { column: 1 }, values: [' ', ' '] });
    expect(await open('First Name,Email Address\nAnn,\nBob\nCy\n')).toMatchObject({ layout: { column: 1 }, values: ['', '', ''] });
    expect(await open('First Name,Customer Email,Company\nAnn,,Acme\nBob,,Initech\n')).toMatchObject({ layout: { column: 1 }, values: ['', ''] });
  });

  it('no column of items: a column named with a side word is said; a secondary name empty in every row is not', async () => {
    expect(await refusal('Name,Email Type\nAnn,home\nBob,work\n')).toBe(
      'c.csv: column 2 ("Email Type") holds no email addresses (its first rows hold "home", "work"); name the column that holds them with --column NAME or --column N.',
    );
    expect(await refusal('Name,Billing Email,Phone\nAnn,,1\nBob,,2\n')).toBe('No column of c.csv looks like email addresses; name it with --column NAME or --column N.');
  });

  it('mistyped addresses count for their column: the column with more items, mistyped or not, wins', async () => {
    // the first column: 6 addresses without their domain's end, 4 whole; the second: 5 whole
    const rows = Array.from({ length: 10 }, (_, i) => `${i < 6 ? `p${i}@gmail` : `p${i}@gmail.com`},${i < 5 ? `q${i}@y.org` : 'n/a'}`);
    expect(await open(rows.join('\n') + '\n')).toMatchObject({ layout: { header: null, column: 0, runnerUp: 1 } });
  });

  it('two close columns of one name but for spaces around it: the note names the other by its number', async () => {
    const rows = 'a@x1.com,b@y1.com\na@x2.com,b@y2.com\n';
    expect((await open('Email,Email \n' + rows)).notes).toEqual(['c.csv: took the column "Email" (2 distinct addresses in the first rows; column 2, also "Email ", has 2); pick another with --column 2.']);
    expect((await open('Email ,Email\n' + rows)).notes).toEqual(['c.csv: took the column "Email " (2 distinct addresses in the first rows; column 2, also "Email", has 2); pick another with --column 2.']);
  });

  it('--column NAME: the name as written (spaces around it aside) before one that is the same once normalised', async () => {
    expect((await open('E-mail, Email \na@x.com,b@x.com\n', { column: 'email' })).layout.column).toBe(1);
  });

  it('--column NAME with a digit in it is a name: the row that has it is the header, wherever it is', async () => {
    for (const name of ['Email2', '2nd Email']) {
      expect(await open(`Ann,a@x.com\nName,${name}\nBob,b@x.com\n`, { column: name }), name).toMatchObject({ layout: { headerLine: 2, column: 1 }, values: ['a@x.com', 'b@x.com'] });
    }
  });

  it('a plain list: --column " 1 " is 1, and its header may be named with spaces around it', async () => {
    expect(await open('a@x.com\nb@x.com\n', { column: ' 1 ' })).toMatchObject({ layout: { header: null }, values: ['a@x.com', 'b@x.com'] });
    expect(await open('Email \na@x.com\n', { column: 'email' })).toMatchObject({ layout: { header: ['Email '] }, values: ['a@x.com'] });
  });

  it('a value of 40 characters is shown whole in a refusal, a longer one cut', async () => {
    const v40 = 'N'.repeat(40);
    expect(await refusal(`Name,Email\n${v40},a@x.com\n`, { column: '1' })).toBe(
      `c.csv: column 1 ("Name") holds no email addresses (its first rows hold "${v40}"); name the column that holds them with --column NAME or --column N.`,
    );
  });

  it('--delimiter that splits nothing: the other delimiter is said when it is in every cell of the first 50, not in some only', async () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => `P${i},p${i}@x.com`);
    const remedy = async (text: string) => (await refusal(text, { delimiter: ';', column: '1' }))!.replace(/.*; /, '');
    expect(await remedy(['Name,Email', ...rows(55), 'Cy'].join('\n') + '\n')).toBe('its rows look split by ",": give --delimiter ",".');
    expect(await remedy(['Name,Email', ...rows(5), 'Cy'].join('\n') + '\n')).toBe('name the column that holds them with --column NAME or --column N.');
  });
});
