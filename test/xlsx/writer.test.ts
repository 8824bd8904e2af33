// Records written as a workbook and read back: values and types kept, text exactly as given, a sheet full at
// Excel's row limit continued on the next; LibreOffice (when installed) reads what is written.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkbook } from '../../src/xlsx/reader.js';
import { sheetRows } from '../sheet-rows.js';
import { generalNumber } from '../../src/xlsx/number-format.js';
import { openZip } from '../../src/xlsx/zip-reader.js';
import { createXlsxWriter, escapeText, sheetName, type WriteCell } from '../../src/xlsx/writer.js';
import { fixture } from '../helpers.js';

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-xlsx-out-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(header: string[], rows: readonly (readonly WriteCell[])[], options = {}): Promise<string> {
  const path = join(dir, `out-${n++}.xlsx`);
  const w = await createXlsxWriter(path, header, options);
  for (const row of rows) await w.write(row);
  await w.end();
  return path;
}


describe('a written workbook read back', () => {
  it('keeps a header, text, numbers with their formats, dates and booleans', async () => {
    const path = await write(
      ['email', 'zip', 'joined', 'amount', 'vip', 'status'],
      [
        ['ada@example.com', { type: 'number', text: '02134', value: 2134, format: '00000' }, { type: 'date', text: '2023-03-15', value: 45000 }, { type: 'number', text: '1234.5', value: 1234.5 }, { type: 'boolean', text: 'TRUE' }, 'ok'],
        ['zoe@example.com', '00501', { type: 'date', text: '', value: 45000.5, format: 'm/d/yyyy h:mm' }, { type: 'number', text: '', value: 0.1 + 0.2 }, { type: 'boolean', text: 'FALSE' }, 'fake'],
        ['', '', '', '', '', 'invalid'],
      ],
    );
    const rows = await sheetRows(path);
    expect(rows.map((r) => r.map((c) => c.text))).toEqual([
      ['email', 'zip', 'joined', 'amount', 'vip', 'status'],
      ['ada@example.com', '02134', '2023-03-15', '1234.5', 'TRUE', 'ok'],
      ['zoe@example.com', '00501', '3/15/2023 12:00', '0.3', 'FALSE', 'fake'],
      ['', '', '', '', '', 'invalid'],
    ]);
    expect(rows[1].map((c) => c.type)).toEqual(['text', 'number', 'date', 'number', 'boolean', 'text']);
    expect(rows[2][1]).toEqual({ type: 'text', text: '00501' });
    expect(rows[2][3].value).toBe(0.1 + 0.2); // the value as given, shown to 15 digits
  });

  it('writes back every cell of the Excel fixture as it was read', async () => {
    const original = await sheetRows(fixture('workbooks/excel.xlsx'));
    const [header, ...rows] = original;
    const copy = await sheetRows(await write(header.map((c) => c.text), rows));
    expect(copy).toEqual(original);
  });

  it('keeps any text exactly, and numbers, dates and booleans with their type', async () => {
    const text = fc.string({ unit: fc.constantFrom('a', ' ', '\t', '\n', '\r', '&', '<', '>', '"', '_x0041_', '_x', '\u0001', '\u001f', '\ufffe', '\ud83d\ude00', '\ud800', '\udc00', 'é', '山') });
    const cell: fc.Arbitrary<WriteCell> = fc.oneof(
      text,
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => ({ type: 'number' as const, text: '', value })),
      fc.integer({ min: 1, max: 2958465 }).map((value) => ({ type: 'date' as const, text: '', value })),
      fc.boolean().map((b) => ({ type: 'boolean' as const, text: b ? 'TRUE' : 'FALSE' })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }), async (rows) => {
        const back = await sheetRows(await write(['h'], rows));
        for (let r = 0; r < rows.length; r++) {
          const got = back[r + 1] ?? [];
          rows[r].forEach((c, i) => {
            const cell = got[i] ?? { type: 'empty', text: '' };
            if (typeof c === 'string') expect(cell).toEqual(c === '' ? { type: 'empty', text: '' } : { type: 'text', text: c });
            else if (c.type === 'number') expect(cell).toEqual({ type: 'number', text: generalNumber(c.value!), value: Object.is(c.value, -0) ? 0 : c.value });
            else if (c.type === 'date') expect(cell).toMatchObject({ type: 'date', value: c.value, format: 'yyyy-mm-dd' });
            else expect(cell).toEqual({ type: 'boolean', text: c.text });
          });
        }
      }),
      { seed: 27, numRuns: 60 },
    );
  });

  it('continues on a next sheet, under the same header, when a sheet is full', async () => {
    const path = await write(
      ['email'],
      [['a@example.com'], ['b@example.com'], ['c@example.com'], ['d@example.com'], ['e@example.com']],
      { sheetName: 'Results: ok/fake', maxRows: 3 },
    );
    const wb = await openWorkbook(path);
    await wb.close();
    expect(wb.sheets.map((s) => s.name)).toEqual(['Results_ ok_fake', 'Results_ ok_fake (2)', 'Results_ ok_fake (3)']);
    expect((await sheetRows(path, '1')).map((r) => r[0].text)).toEqual(['email', 'a@example.com', 'b@example.com']);
    expect((await sheetRows(path, '2')).map((r) => r[0].text)).toEqual(['email', 'c@example.com', 'd@example.com']);
    expect((await sheetRows(path, '3')).map((r) => r[0].text)).toEqual(['email', 'e@example.com']);
  });

  it('writes a header-only workbook when there are no records', async () => {
    expect((await sheetRows(await write(['email', 'status'], []))).map((r) => r.map((c) => c.text))).toEqual([['email', 'status']]);
  });

  it('leaves the file closed when stopped, for the caller to remove', async () => {
    const path = join(dir, 'stopped.xlsx');
    const w = await createXlsxWriter(path, ['email']);
    await w.write(['a@example.com']);
    await w.abort();
    expect(existsSync(path)).toBe(true);
    await rm(path);
    expect(await readdir(dir)).not.toContain('stopped.xlsx');
  });

  const soffice = spawnSync('soffice', ['--version'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!soffice)('is read by LibreOffice, which shows each cell as idv does', { timeout: 120_000 }, async () => {
    const path = await write(
      ['email', 'zip', 'joined', 'amount', 'note', 'padded'],
      [['ada@example.com', { type: 'number', text: '02134', value: 2134, format: '00000' }, { type: 'date', text: '', value: 45000 }, { type: 'number', text: '', value: 1234.5, format: '#,##0.00' }, 'a "quote", & <tag>', '  two spaces ']],
    );
    const out = join(dir, 'lo');
    const profile = join(dir, 'lo-profile');
    const r = spawnSync(
      'soffice',
      [`-env:UserInstallation=file://${profile}`, '--headless', '--convert-to', 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true', '--outdir', out, path],
      { encoding: 'utf8', timeout: 110_000 },
    );
    expect(r.status).toBe(0);
    const csv = readFileSync(join(out, path.split('/').pop()!.replace(/\.xlsx$/, '.csv')), 'utf8');
    expect(csv).toBe('email,zip,joined,amount,note,padded\nada@example.com,02134,2023-03-15,"1,234.50","a ""quote"", & <tag>",  two spaces \n');
  });
});

async function sheetXml(path: string): Promise<string> {
  const zip = await openZip(path);
  try {
    let xml = '';
    for await (const chunk of zip.stream(zip.entry('xl/worksheets/sheet1.xml')!)) xml += chunk;
    return xml;
  } finally {
    await zip.close();
  }
}

describe('text as SpreadsheetML holds it', () => {
  it('marks text with spaces at either end for Excel to keep them (xml:space="preserve"), and only that text', async () => {
    const xml = await sheetXml(await write(['h'], [['  two spaces '], ['tab\t'], ['in side']]));
    expect(xml).toContain('<c r="A2" t="inlineStr"><is><t xml:space="preserve">  two spaces </t></is></c>');
    expect(xml).toContain('<c r="A3" t="inlineStr"><is><t xml:space="preserve">tab\t</t></is></c>');
    expect(xml).toContain('<c r="A4" t="inlineStr"><is><t>in side</t></is></c>');
  });

  it.each([
    ['plain', 'plain'],
    ['a & b <c>', 'a &amp; b &lt;c&gt;'],
    ['line\r\nend', 'line_x000D_\nend'],
    ['bell\u0007', 'bell_x0007_'],
    ['id_x0041_', 'id_x005F_x0041_'],
    ['lone \ud800 surrogate', 'lone _xD800_ surrogate'],
    ['\ud83d\ude00 pair', '\ud83d\ude00 pair'],
  ])('%j is written %j', (text, want) => {
    expect(escapeText(text)).toBe(want);
  });

  it('gives sheets names Excel takes', () => {
    expect(sheetName('ok')).toBe('ok');
    expect(sheetName('a/b:c?d*e[f]g\\h')).toBe('a_b_c_d_e_f_g_h');
    expect(sheetName("'quoted'")).toBe('quoted');
    expect(sheetName('x'.repeat(40))).toBe('x'.repeat(31));
    expect(sheetName('')).toBe('Sheet1');
  });
});
