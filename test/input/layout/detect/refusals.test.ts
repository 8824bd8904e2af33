// What detection (src/input/layout/detect.ts) refuses and says, in one line naming the flag that fixes the file; the
// table at its edges (ragged rows, widths).
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { openSource } from '../../../../src/input/read.js';
import { parseDelimiterFlag, tableLayout, type LayoutOverrides } from '../../../../src/input/layout/detect.js';
import { readAll } from './harness.js';

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
