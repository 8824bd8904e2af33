// A workbook as a source (src/input/layout/workbook.ts): the first visible sheet unless --sheet names one, with a note
// naming the other sheets that hold data (an empty first sheet beside them is refused, naming them); its rows
// laid out as a CSV's would be, each with its row number; formulas without a computed value in the item column
// refused, every one of the sheet counted; and the workbook reader's errors said as one line naming the file.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { IdvError } from '../../../src/core/errors.js';
import { openSheet, workbookError, type SheetOptions } from '../../../src/input/layout/workbook.js';
import { LimitError, ReadStopped, WorkbookError } from '../../../src/xlsx/zip-reader.js';
import { createZip } from '../../../src/xlsx/zip-writer.js';
import { homeForEachTest } from '../../helpers.js';

const home = homeForEachTest();
const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PR = 'http://schemas.openxmlformats.org/package/2006/relationships';

/** A cell: text inline, or a formula with no value stored (`=`). */
const cell = (ref: string, v: string) => (v === '=' ? `<c r="${ref}"><f>CONCAT(A1,"@x.com")</f></c>` : `<c r="${ref}" t="inlineStr"><is><t>${v}</t></is></c>`);
const sheetXml = (rows: string[][]) =>
  `<worksheet xmlns="${NS}"><sheetData>${rows.map((r, i) => `<row r="${i + 1}">${r.map((v, c) => (v === '' ? '' : cell(`${String.fromCharCode(65 + c)}${i + 1}`, v))).join('')}</row>`).join('')}</sheetData></worksheet>`;

/** A workbook whose sheets are `sheets` in tab order (a sheet named with a leading `.` is hidden). */
async function workbook(sheets: Array<[string, string[][]]>): Promise<string> {
  const path = join(home.dir, `book-${Math.random().toString(36).slice(2)}.xlsx`);
  const zip = await createZip(path);
  await zip.add('[Content_Types].xml', '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>');
  await zip.add('_rels/.rels', `<Relationships xmlns="${PR}"><Relationship Id="rId1" Type="${R}/officeDocument" Target="xl/workbook.xml"/></Relationships>`);
  const names = sheets.map(([name], i) => `<sheet name="${name.replace(/^\./, '')}" sheetId="${i + 1}" r:id="rId${i + 1}"${name.startsWith('.') ? ' state="hidden"' : ''}/>`);
  await zip.add('xl/workbook.xml', `<workbook xmlns="${NS}" xmlns:r="${R}"><sheets>${names.join('')}</sheets></workbook>`);
  const rels = sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${R}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`);
  await zip.add('xl/_rels/workbook.xml.rels', `<Relationships xmlns="${PR}">${rels.join('')}</Relationships>`);
  for (const [i, [, rows]] of sheets.entries()) await zip.add(`xl/worksheets/sheet${i + 1}.xml`, sheetXml(rows));
  await zip.finish();
  return path;
}

const CONTACTS = [
  ['Name', 'Email'],
  ['Ada', 'ada@example.com'],
  ['Bob', 'bob@example.org'],
];

/** The sheet `openSheet` reads from `source`: its layout, sheet, every row with its line, and the notes said. */
async function opened(source: string | AsyncIterable<Buffer>, o: Partial<SheetOptions> = {}) {
  const notes: string[] = [];
  const s = await openSheet(source, { name: 'book.xlsx', kind: 'emails', overrides: {}, note: (l) => notes.push(l), maxUnpacked: 1 << 30, maxRowSize: 16 << 20, ...o });
  try {
    const rows: Array<[number, string[]]> = [];
    for await (const batch of s.rows) batch.rows.forEach((r, i) => rows.push([batch.lines[i]!, [...r]]));
    return { layout: s.layout, sheet: s.sheet, rows, notes };
  } finally {
    await s.close();
  }
}
const failure = (p: Promise<unknown>) => p.then(() => null, (e: Error) => e);

describe('the sheet read', () => {
  it('the first sheet, laid out as a CSV would be (header, item column), each row with its row number', async () => {
    const r = await opened(await workbook([['Contacts', CONTACTS]]));
    expect(r.sheet).toEqual({ name: 'Contacts', number: 1, of: 1 });
    expect(r.layout).toMatchObject({ column: 1, header: ['Name', 'Email'] });
    expect(r.rows).toEqual([
      [1, ['Name', 'Email']],
      [2, ['Ada', 'ada@example.com']],
      [3, ['Bob', 'bob@example.org']],
    ]);
    expect(r.notes).toEqual([]);
  });

  it('other sheets holding data are named in a note (a hidden one marked), an empty one is not; --sheet reads another, no note', async () => {
    const path = await workbook([['Contacts', CONTACTS], ['Empty', []], ['.Old', [['Email'], ['old@example.com']]], ['Leads', [['Email'], ['lead@example.com']]]]);
    const first = await opened(path);
    expect(first.notes).toEqual(['book.xlsx: read sheet "Contacts" (the first); sheets "Old" (hidden) and "Leads" hold data too: give --sheet NAME or --sheet N to read another.']);
    const leads = await opened(path, { overrides: { sheet: 'leads' } });
    expect(leads.sheet).toEqual({ name: 'Leads', number: 4, of: 4 });
    expect(leads.rows).toEqual([[1, ['Email']], [2, ['lead@example.com']]]);
    expect(leads.notes).toEqual([]);
    expect((await opened(path, { overrides: { sheet: '3' } })).sheet).toEqual({ name: 'Old', number: 3, of: 4 });
  });

  it('an empty first sheet beside sheets with data: refused (exit 2), naming them and the flag', async () => {
    const err = await failure(opened(await workbook([['Cover', []], ['Data', CONTACTS]])));
    expect(err).toBeInstanceOf(IdvError);
    expect(err).toMatchObject({ kind: 'input', message: 'book.xlsx: its first sheet, "Cover", is empty; sheet "Data" holds data: give --sheet NAME to read it.' });
  });

  it('a sheet that does not exist: one line naming the sheets there are', async () => {
    const err = await failure(opened(await workbook([['Contacts', CONTACTS]]), { overrides: { sheet: 'Leads' } }));
    expect(err).toMatchObject({ kind: 'input', message: 'Cannot read book.xlsx: it has no sheet "Leads"; its sheets: "Contacts".' });
  });

  it('a workbook given as bytes (standard input, a gzip) is read the same, through a copy on disk', async () => {
    const { readFile } = await import('node:fs/promises');
    const bytes = await readFile(await workbook([['Contacts', CONTACTS]]));
    const r = await opened((async function* () {
      yield bytes.subarray(0, 100);
      yield bytes.subarray(100);
    })());
    expect(r.rows.map(([, row]) => row[1])).toEqual(['Email', 'ada@example.com', 'bob@example.org']);
  });
});

describe('formulas without a computed value', () => {
  it('in the item column: refused, every one of the sheet counted and its rows named, also past the rows the layout is guessed from', async () => {
    const rows = [['Name', 'Email'], ...Array.from({ length: 1500 }, (_, i) => [`n${i}`, i === 3 || i >= 1400 ? '=' : `u${i}@example.com`])];
    const err = await failure(opened(await workbook([['Sheet1', rows]])));
    expect(err).toMatchObject({
      kind: 'input',
      message:
        'book.xlsx: 101 cells of column 2 ("Email") of sheet "Sheet1" are formulas without a computed value (rows 5, 1,402–1,501): the program that wrote the workbook left ' +
        'their values out, and idv reads values, not formulas; open the workbook in Excel or LibreOffice and save it, which stores the values, then run idv again.',
    });
  });

  it('only past the rows the layout is guessed from: refused when reading meets the first, all of them counted', async () => {
    const rows = [['Name', 'Email'], ...Array.from({ length: 1500 }, (_, i) => [`n${i}`, i >= 1400 ? '=' : `u${i}@example.com`])];
    const err = await failure(opened(await workbook([['Sheet1', rows]])));
    expect(err).toMatchObject({ kind: 'input', message: expect.stringMatching(/^book\.xlsx: 100 cells of column 2 \("Email"\) of sheet "Sheet1" are formulas without a computed value \(rows 1,402–1,501\): /) });
  });

  it('in another column only: the rows are read (the item column holds values)', async () => {
    const r = await opened(await workbook([['Sheet1', [['Total', 'Email'], ['=', 'ada@example.com']]]]));
    expect(r.rows).toEqual([[1, ['Total', 'Email']], [2, ['', 'ada@example.com']]]);
  });
});

describe("the workbook reader's errors, named for the file", () => {
  it('what it is instead, why it cannot be read, a stop, a bound passed with the flag that raises it; an idv error as it is', () => {
    expect(workbookError(new WorkbookError('it is a zip archive, not a workbook'), 'a.xlsx')).toMatchObject({ kind: 'input', message: 'a.xlsx is a zip archive, not a workbook.' });
    expect(workbookError(new WorkbookError('the workbook is encrypted (password-protected); save an unprotected copy'), 'a.xlsx')).toMatchObject({
      kind: 'input',
      message: 'Cannot read a.xlsx: the workbook is encrypted (password-protected); save an unprotected copy.',
    });
    expect(workbookError(new ReadStopped('SIGTERM'), 'a.xlsx')).toMatchObject({ kind: 'interrupted', signal: 'SIGTERM' });
    expect(workbookError(new LimitError('row', 'row 3 of sheet "S"', 20 * 2 ** 20, 16 * 2 ** 20), 'a.xlsx')).toMatchObject({
      kind: 'input',
      message: 'a.xlsx: row 3 of sheet "S" is longer than 16 MiB, the most idv holds of one row; if it is meant to be so long, give a larger --max-row-size (e.g. --max-row-size 64MiB).',
    });
    expect(workbookError(new LimitError('copy', 'the workbook', 2 * 2 ** 30, 2 ** 30), '-')).toMatchObject({
      kind: 'input',
      message: expect.stringMatching(/^- is a workbook larger than 1 GiB, which idv would copy to a temporary file to read it .*--max-unpacked 4GiB\)\.$/),
    });
    expect(workbookError(new LimitError('shared', 'its shared strings', 3 * 2 ** 30, 2 ** 30), 'a.xlsx')).toMatchObject({
      kind: 'input',
      message: expect.stringMatching(/^a\.xlsx: its shared strings unpack to 3 GiB, more than the 1 GiB a file may unpack before its first record; .*--max-unpacked 4GiB\)\.$/),
    });
    const own = new IdvError('usage', 'x');
    expect(workbookError(own, 'a.xlsx')).toBe(own);
    const other = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    expect(workbookError(other, 'a.xlsx')).toBe(other);
  });

  it('a workbook larger than --max-unpacked given as bytes: refused with the bound, naming the flag', async () => {
    const { readFile } = await import('node:fs/promises');
    const bytes = await readFile(await workbook([['Contacts', CONTACTS]]));
    const err = await failure(opened((async function* () {
      yield bytes;
    })(), { name: '-', maxUnpacked: 512 }));
    expect(err).toMatchObject({ kind: 'input', message: expect.stringMatching(/^- is a workbook larger than 512 B, which idv would copy .*--max-unpacked 2KiB\)\.$/) });
  });
});
