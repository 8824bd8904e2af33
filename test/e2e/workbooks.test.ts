// Excel workbooks in and out, as a user runs idv on them: the fixtures' workbooks (Excel-, Google Sheets-,
// LibreOffice- and Open XML SDK-shaped) read end to end, a sheet chosen by name or number, the note naming the
// other sheets, a workbook from standard input and inside gzip, and workbooks written with -o and --split that
// our reader (and LibreOffice, when installed) reads back with each cell's type.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createXlsxWriter } from '../../src/xlsx/writer.js';
import { openWorkbook, type Row } from '../../src/xlsx/reader.js';
import { sheetRows } from '../sheet-rows.js';
import { createZip } from '../../src/xlsx/zip-writer.js';
import { run } from '../fake-io.js';
import { execa } from 'execa';
import { fixture, IDV, makeHome, sandbox, sentItems, type Home } from '../helpers.js';
import { claimingParts, repeatedPart, sheetXml as packedSheet, textPart, workbookOf, type RawPart } from '../input/packed.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { onlyOn } from '../platforms.js';

const book = (name: string) => fixture(join('workbooks', name));

let home: Home;
let sb: Sandbox;
let env: Record<string, string>;
let tmp: string; // this file's own temporary folder: other test files make temporary files at the same time
const savedTmp = process.env.TMPDIR;
beforeAll(async () => {
  home = await makeHome();
  ({ sb, env } = await sandbox({}, home));
  tmp = join(home.dir, 'tmp');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(tmp);
  process.env.TMPDIR = tmp;
});
afterAll(async () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await sb.close();
  await home.cleanup();
});

/** A run against the sandbox: its output and the items the service received. */
async function validate(args: string[], o: Parameters<typeof run>[1] = {}) {
  sb.requests.length = 0;
  const r = await run(['emails', '-q', '--no-cache', ...args], { env, ...o });
  return { ...r, sent: sentItems(sb) };
}

const texts = (rows: Row[]) => rows.map((r) => r.map((c) => c.text));

describe('a workbook is read like CSV, by its content', () => {
  it.each([
    [
      'excel.xlsx',
      'email,status\nada@example.com,ok\nZOE@Example.COM,ok\nyamada@example.jp,ok\ngrace@example.org,ok\n',
      `idv: note: ${book('excel.xlsx')}: read sheet "Contacts" (the first); sheet "Lists" holds data too: give --sheet NAME or --sheet N to read another.\n`,
    ],
    [
      'google-sheets.xlsx',
      'email,status\nada@example.com,ok\nlinus@mailinator.com,disposable\ngrace@example.org,ok\n',
      `idv: note: ${book('google-sheets.xlsx')}: read sheet "Contacts" (the first); sheet "Imported" holds data too: give --sheet NAME or --sheet N to read another.\n`,
    ],
    ['libreoffice.xlsx', 'email,status\nada@example.com,ok\nzoe@example.com,ok\ngrace@example.org,ok\n', ''],
    [
      'libreoffice-resaved.xlsx',
      'email,status\nada@example.com,ok\nZOE@Example.COM,ok\nyamada@example.jp,ok\ngrace@example.org,ok\n',
      `idv: note: ${book('libreoffice-resaved.xlsx')}: read sheet "Contacts" (the first); sheet "Lists" holds data too: give --sheet NAME or --sheet N to read another.\n`,
    ],
    ['openxml-sdk.xlsx', 'email,status\nbuyer@contoso.example,fake\norders@fabrikam.com,ok\n', ''],
  ])('%s: its email column, each address once, every record written', async (name, stdout, stderr) => {
    const r = await validate([book(name)]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(stdout);
    expect(r.stderr).toBe(stderr);
    expect(r.sent.sort()).toEqual([...new Set(stdout.split('\n').slice(1, -1).map((l) => l.split(',')[0]!.trim()))].sort());
  });

  it('--keep-columns keeps every cell as Excel shows it: leading zeros, dates, amounts, line breaks', async () => {
    const r = await validate([book('excel.xlsx'), '--keep-columns']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      'Name,Email,Zip,Customer ID,Signed up,Renewal,Amount,Share,Phone,Doubled,Active,Note,status\n' +
        'Ada Lovelace,ada@example.com,02134,00123,2023-03-15,15-Mar-2024,"1,234.50",12.50%,(555) 123-4567,2469,TRUE,"Line 1\nLine 2",ok\n' +
        'Zoë Müller,ZOE@Example.COM,00501,00042,2023-03-16,16-Mar-2024,0.10,100.00%,(212) 555-0199,0.2,FALSE,"Tab\there, CR\r\nhere",ok\n' +
        '山田 太郎,yamada@example.jp,98101,7,2023-01-01,,"10,000,000.00",,,20000000,,,ok\n' +
        'Grace Hopper,  grace@example.org ,10000000,0.3,,,,,,#N/A,id_x0041_,zoe@example.com,ok\n',
    );
  });

  it('--sheet chooses a sheet by name (any case) or by number; no note then', async () => {
    for (const choice of ['Lists', 'lists', '2']) {
      const r = await validate([book('excel.xlsx'), '--sheet', choice]);
      expect(r.stdout).toBe('email,status\nold@example.com,ok\n');
      expect(r.stderr).toBe('');
      expect(r.sent).toEqual(['old@example.com']);
    }
  });

  it('a sheet it does not have is exit 2, naming the sheets it has, before anything is sent', async () => {
    const r = await validate([book('excel.xlsx'), '--sheet', 'Archive']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(`idv: Cannot read ${book('excel.xlsx')}: it has no sheet "Archive"; its sheets: "Contacts", "Lists".\n`);
    expect(r.sent).toEqual([]);
  });

  it('from standard input, and compressed with gzip, whatever its name', async () => {
    const bytes = readFileSync(book('excel.xlsx'));
    for (const input of [bytes, gzipSync(bytes)]) {
      const r = await validate(['--sheet', '2'], { input });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\nold@example.com,ok\n');
    }
    expect(await readdir(tmp)).toEqual([]); // the copy of standard input is gone
  });

  it('--dry-run names the sheet read beside the header and the column', async () => {
    const r = await run(['emails', book('google-sheets.xlsx'), '--dry-run', '-f', 'table', '--sheet', 'Contacts'], { env });
    expect(r.stdout).toBe(
      'records  3\nunique   3\ninvalid  0\ncached   0\nquota    3\n\n' +
        `${book('google-sheets.xlsx')}\n` +
        '  sheet      "Contacts" (1 of 2)\n' +
        '  header     row 1: "Name" "Email address" "Zip" "Joined" "Visits" "Score" "Big" "Opted in" "Handle"\n' +
        '  column     2 "Email address"\n' +
        '  records    3\n',
    );
  });

  it('a first sheet that is empty while others hold data is exit 2, naming them', async () => {
    const path = join(home.dir, 'empty-first.xlsx');
    await twoSheets(path, '', '<row r="1"><c r="A1" t="inlineStr"><is><t>ann@example.com</t></is></c></row>');
    const r = await validate([path]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(`idv: ${path}: its first sheet, "First", is empty; sheet "Second" holds data: give --sheet NAME to read it.\n`);
    expect(r.sent).toEqual([]);
  });
});

/** A workbook of two sheets, "First" and "Second", with these rows. */
async function twoSheets(path: string, first: string, second: string): Promise<void> {
  const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const zip = await createZip(path);
  await zip.add('[Content_Types].xml', '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>');
  await zip.add('_rels/.rels', `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/officeDocument" Target="xl/workbook.xml"/></Relationships>`);
  await zip.add('xl/workbook.xml', `<workbook xmlns="${NS}" xmlns:r="${R}"><sheets><sheet name="First" sheetId="1" r:id="rId1"/><sheet name="Second" sheetId="2" r:id="rId2"/></sheets></workbook>`);
  await zip.add(
    'xl/_rels/workbook.xml.rels',
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${R}/worksheet" Target="worksheets/sheet2.xml"/></Relationships>`,
  );
  await zip.add('xl/worksheets/sheet1.xml', `<worksheet xmlns="${NS}"><sheetData>${first}</sheetData></worksheet>`);
  await zip.add('xl/worksheets/sheet2.xml', `<worksheet xmlns="${NS}"><sheetData>${second}</sheetData></worksheet>`);
  await zip.finish();
}

describe('a workbook is written', () => {
  it('-o clean.xlsx --keep-columns: every input cell with its value and type, then status; the input sheet\'s name', async () => {
    const out = join(home.dir, 'clean.xlsx');
    const r = await validate([book('excel.xlsx'), '--keep-columns', '-o', out]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    const wb = await openWorkbook(out);
    expect(wb.sheets.map((s) => s.name)).toEqual(['Contacts']);
    await wb.close();
    const input = (await sheetRows(book('excel.xlsx'))).filter((row) => row.length > 0);
    const written = await sheetRows(out);
    expect(texts(written)).toEqual(input.map((row, i) => [...row.map((c) => c.text), ...Array(12 - row.length).fill(''), i === 0 ? 'status' : 'ok']));
    // Types, values and formats as read: a zip code in 00000, a date, an amount, a boolean; text stays text.
    for (let i = 0; i < input.length; i++) {
      for (let j = 0; j < input[i]!.length; j++) expect(written[i]![j]).toEqual(input[i]![j]);
    }
    expect(written[1]![2]).toEqual({ type: 'number', text: '02134', value: 2134, format: '00000' });
    expect(written[1]![3]).toEqual({ type: 'text', text: '00123' });
    expect(written[1]![4]).toEqual({ type: 'date', text: '2023-03-15', value: 45000, format: 'yyyy-mm-dd' });
    expect(written[1]![10]).toEqual({ type: 'boolean', text: 'TRUE' });
  });

  it('from CSV every cell is text, under the input header; without --keep-columns the item and status', async () => {
    const out = join(home.dir, 'from-csv.xlsx');
    const r = await validate([fixture('crm.csv'), '--keep-columns', '-o', out]);
    expect(r.exitCode).toBe(0);
    const csv = await validate([fixture('crm.csv'), '--keep-columns']);
    const written = await sheetRows(out);
    expect(written.every((row) => row.every((c) => c.type === 'text' || c.type === 'empty'))).toBe(true);
    const { parse } = await import('csv-parse/sync');
    const want = (parse(csv.stdout) as string[][]).map((row) => row.slice(0, row.findLastIndex((c) => c !== '') + 1));
    expect(texts(written)).toEqual(want);

    const plain = join(home.dir, 'plain.xlsx');
    await validate([fixture('emails.txt'), '-o', plain]);
    const csvPlain = await validate([fixture('emails.txt')]);
    expect(texts(await sheetRows(plain))).toEqual(csvPlain.stdout.trimEnd().split('\n').map((l) => l.split(',')));
  });

  onlyOn('owners').it('-o FILE.xlsx keeps the mode of the file it replaces, and a failed run leaves it as it was', async () => {
    const out = join(home.dir, 'private.xlsx');
    await validate([fixture('emails.txt'), '-o', out]);
    const { chmod } = await import('node:fs/promises');
    await chmod(out, 0o600);
    const before = readFileSync(out);
    await validate([fixture('emails.txt'), '--keep-columns', '-o', out]);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    expect(readFileSync(out).equals(before)).toBe(false);
    const after = readFileSync(out);
    const failed = await validate([fixture('emails.txt'), join(home.dir, 'missing.csv'), '-o', out]);
    expect(failed.exitCode).toBe(2);
    expect(readFileSync(out).equals(after)).toBe(true);
    expect((await readdir(home.dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('--split DIR -f xlsx: a workbook per status, each sheet named for it', async () => {
    const dir = join(home.dir, 'split');
    const r = await validate([fixture('newsletter.csv'), '--split', dir, '-f', 'xlsx', '-o', join(home.dir, 'all.xlsx')]);
    expect(r.exitCode).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(['alias.xlsx', 'disposable.xlsx', 'error.xlsx', 'fake.xlsx', 'invalid.xlsx', 'ok.xlsx', 'quota_exceeded.xlsx']);
    const all = texts(await sheetRows(join(home.dir, 'all.xlsx')));
    for (const status of ['ok', 'disposable', 'error']) {
      const wb = await openWorkbook(join(dir, `${status}.xlsx`));
      expect(wb.sheets.map((s) => s.name)).toEqual([status]);
      await wb.close();
      expect(texts(await sheetRows(join(dir, `${status}.xlsx`)))).toEqual([all[0], ...all.slice(1).filter((row) => row[1] === status)]);
    }
  });

  it('on a terminal a workbook is refused unless it goes to a file; --split -f xlsx alone writes only its files', async () => {
    const r = await validate([fixture('emails.txt'), '-f', 'xlsx'], { stdoutIsTTY: true });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('idv: idv does not write a workbook to a terminal: give -o FILE.xlsx (or redirect it: > FILE.xlsx).\n');
    expect(r.sent).toEqual([]);
    const dir = join(home.dir, 'split-tty');
    const split = await validate([fixture('emails.txt'), '--split', dir, '-f', 'xlsx'], { stdoutIsTTY: true });
    expect(split.exitCode).toBe(0);
    expect(split.stdout).toBe('');
    expect(existsSync(join(dir, 'ok.xlsx'))).toBe(true);
  });

  it('an -o extension naming a format idv does not write is a usage error, unless -f says the format', async () => {
    for (const [name, what] of [['out.xls', 'an Excel 97-2003 workbook (.xls)'], ['out.ods', 'an OpenDocument spreadsheet (.ods)'], ['out.xlsm', 'a macro-enabled workbook (.xlsm)']]) {
      const r = await validate([fixture('emails.txt'), '-o', join(home.dir, name!)]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toBe(`idv: -o ${join(home.dir, name!)}: idv does not write ${what}; give -o FILE.xlsx, .csv, .json or .ndjson (or -f to choose the format).\n`);
      expect(r.sent).toEqual([]);
    }
    const gz = await validate([fixture('emails.txt'), '-o', 'out.csv.gz']);
    expect(gz.stderr).toBe('idv: -o out.csv.gz: idv does not write a gzip-compressed file (.gz); compress the output instead: idv … | gzip > out.csv.gz.\n');
    const given = await validate([fixture('emails.txt'), '-o', join(home.dir, 'given.xml'), '-f', 'csv']);
    expect(given.exitCode).toBe(0);
  });

  it('to a pipe: the whole workbook on standard output, once complete', async () => {
    const r = await execa('node', [IDV, 'emails', fixture('workbooks/libreoffice.xlsx'), '--sandbox', '-q', '-f', 'xlsx', '--keep-columns'], {
      env: { ...home.env, TMPDIR: tmp },
      extendEnv: false,
      encoding: 'buffer',
      reject: false,
      stdin: 'ignore',
    });
    expect(r.exitCode).toBe(0);
    const out = join(home.dir, 'piped.xlsx');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(out, r.stdout);
    expect(texts(await sheetRows(out))).toEqual([
      ['Name', 'Email', 'Zip', 'Joined', 'Amount', 'Share', 'Doubled', 'status'],
      ['Ada Lovelace', 'ada@example.com', '02134', '2023-03-15', '1234.5', '12.50%', '2469', 'ok'],
      ['Zoë Müller', 'zoe@example.com', '00501', '2024-01-02', '0.1', '100.00%', '0.2', 'ok'],
      ['Grace Hopper', 'grace@example.org', '98101', '2022-12-31', '10000000', '0.00%', '20000000', 'ok'],
    ]);
    expect(await readdir(tmp)).toEqual([]); // the workbook built before it was copied out is gone
  });

  const soffice = spawnSync('soffice', ['--version'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!soffice)('LibreOffice reads -o clean.xlsx as idv wrote it: zip codes, dates, amounts', { timeout: 120_000 }, async () => {
    const out = join(home.dir, 'lo.xlsx');
    await validate([book('libreoffice.xlsx'), '--keep-columns', '-o', out]);
    const dir = await mkdtemp(join(tmpdir(), 'idv-lo-'));
    try {
      const r = spawnSync(
        'soffice',
        [`-env:UserInstallation=file://${join(dir, 'profile')}`, '--headless', '--convert-to', 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true', '--outdir', dir, out],
        { encoding: 'utf8', timeout: 110_000 },
      );
      expect(r.status).toBe(0);
      expect(readFileSync(join(dir, 'lo.csv'), 'utf8')).toBe(
        'Name,Email,Zip,Joined,Amount,Share,Doubled,status\n' +
          'Ada Lovelace,ada@example.com,02134,2023-03-15,1234.5,12.50%,2469,ok\n' +
          'Zoë Müller,zoe@example.com,00501,2024-01-02,0.1,100.00%,0.2,ok\n' +
          'Grace Hopper,grace@example.org,98101,2022-12-31,10000000,0.00%,20000000,ok\n',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a workbook reads as its CSV would', () => {
  // The same table as a sheet and as CSV (its rows ending at their last value, as a sheet's do; its delimiter
  // given): the same records, header, column and notes, whatever the rows hold (headers or none, blank rows,
  // cells empty, invalid items, a footer).
  const cell = fc.oneof(
    fc.constantFrom('', 'Ann Lee', ' Bob ', 'n/a', '02134', '10000000', '2023-03-15', 'Total', 'Grand Totals'),
    fc.tuple(fc.constantFrom('ann', 'bob.x', 'c_d', 'dan'), fc.constantFrom('example.com', 'mailinator.com', 'x', '')).map(([l, d]) => (d ? `${l}@${d}` : l)),
  );
  const table = fc.record({
    header: fc.option(fc.constantFrom(['Name', 'Email', 'Zip'], ['Email'], ['Customer', 'E-mail address', 'Note', 'Zip code']), { nil: null }),
    rows: fc.array(fc.oneof({ weight: 6, arbitrary: fc.array(cell, { minLength: 1, maxLength: 4 }) }, { weight: 1, arbitrary: fc.constant([] as string[]) }), { minLength: 1, maxLength: 12 }),
  });
  it('for any table of addresses, names, numbers and blank rows', { timeout: 60_000 }, async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(table, async ({ header, rows }) => {
        const all = header ? [header, ...rows] : rows;
        const trimmed = all.map((r) => r.slice(0, r.findLastIndex((c) => c !== '') + 1));
        const base = join(home.dir, `parity-${n++}`);
        const w = await createXlsxWriter(`${base}.xlsx`, trimmed[0]!);
        for (const r of trimmed.slice(1)) await w.write(r);
        await w.end();
        await writeFile(`${base}.csv`, trimmed.map((r) => r.join(',')).join('\n') + '\n');
        const book = await validate([`${base}.xlsx`, '--keep-columns', '-f', 'json']);
        // --delimiter: a sheet's cells are known, a CSV's only once its delimiter is.
        const csv = await validate([`${base}.csv`, '--keep-columns', '-f', 'json', '--delimiter', ',']);
        expect(book.exitCode).toBe(csv.exitCode);
        expect(book.stdout).toBe(csv.stdout);
        expect(book.stderr.replaceAll(`${base}.xlsx`, 'FILE')).toBe(csv.stderr.replaceAll(`${base}.csv`, 'FILE'));
        expect(book.sent).toEqual(csv.sent);
      }),
      { seed: 27, numRuns: 60 },
    );
  });
});

describe('formulas', () => {
  /** A one-sheet workbook of these rows (inline text and formulas, as a generator writes them) in the home. */
  async function formulaBook(rows: string[]): Promise<string> {
    const path = join(home.dir, 'formulas.xlsx');
    await writeFile(path, workbookOf(packedSheet(rows.map((cells, i) => `<row r="${i + 1}">${cells}</row>`).join(''))));
    return path;
  }
  const text = (ref: string, t: string) => `<c r="${ref}" t="inlineStr"><is><t>${t}</t></is></c>`;

  it('an item column of formulas without computed values (as openpyxl writes them): exit 2 naming how many and how to store their values, nothing sent', async () => {
    const rows = [text('A1', 'Email') + text('B1', 'User')];
    for (let r = 2; r <= 7; r++) rows.push(`<c r="A${r}"><f>B${r}&amp;"@example.com"</f>${r % 2 ? '<v></v>' : ''}</c>` + text(`B${r}`, `user${r}`));
    const path = await formulaBook(rows);
    const r = await validate([path]);
    expect([r.exitCode, r.stdout, r.sent]).toEqual([2, '', []]);
    expect(r.stderr).toBe(
      `idv: ${path}: 6 cells of column 1 ("Email") of sheet "Sheet1" are formulas without a computed value (rows 2–7): the program that wrote the workbook left their values out, and idv reads values, not formulas; open the workbook in Excel or LibreOffice and save it, which stores the values, then run idv again.\n`,
    );
  });

  it('a few such cells among values, some past the first thousand rows: every one counted, nothing sent', async () => {
    const rows = [text('A1', 'Email')];
    for (let r = 2; r <= 1500; r++) rows.push(r === 3 || r === 1400 || r === 1401 ? `<c r="A${r}"><f>"x"&amp;"@example.com"</f></c>` : text(`A${r}`, `u${r}@example.com`));
    const path = await formulaBook(rows);
    const r = await validate([path]);
    expect([r.exitCode, r.stdout, r.sent]).toEqual([2, '', []]);
    expect(r.stderr).toMatch(/: 3 cells of column 1 \("Email"\) of sheet "Sheet1" are formulas without a computed value \(rows 3, 1,400–1,401\): /);
  });

  it('without a header to name the column, the formulas are still named, never "no records"', async () => {
    const path = await formulaBook([1, 2].map((r) => `<c r="A${r}"><f>"a${r}@example.com"</f></c>`));
    const r = await validate([path]);
    expect([r.exitCode, r.sent]).toEqual([2, []]);
    expect(r.stderr).toMatch(/: 2 cells of column 1 of sheet "Sheet1" are formulas without a computed value \(rows 1–2\): /);
    // Beside a column of names, no column looks like addresses: the formulas are what the sheet holds.
    const named = await formulaBook([1, 2].map((r) => text(`A${r}`, `Ann ${r}`) + `<c r="B${r}"><f>"a${r}@example.com"</f></c>`));
    const beside = await validate([named]);
    expect([beside.exitCode, beside.sent]).toEqual([2, []]);
    expect(beside.stderr).toMatch(/: 2 cells of sheet "Sheet1" are formulas without a computed value \(rows 1–2\): /);
  });

  it('formulas whose values are cached (text, as t="str", and numbers) are read as their values; one without a value in another column is let be', async () => {
    const rows = [text('A1', 'Email') + text('B1', 'Score') + text('C1', 'Later')];
    rows.push(`<c r="A2" t="str"><f>LOWER("ANN@EXAMPLE.COM")</f><v>ann@example.com</v></c><c r="B2"><f>1+1</f><v>2</v></c><c r="C2"><f>NOW()</f></c>`);
    const path = await formulaBook(rows);
    const r = await validate([path, '--keep-columns']);
    expect([r.exitCode, r.stdout, r.stderr, r.sent]).toEqual([0, 'Email,Score,Later,status\nann@example.com,2,,ok\n', '', ['ann@example.com']]);
  });
});

describe('what a workbook may hold is bounded', () => {
  const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const strings = (...texts: string[]) => `<sst xmlns="${NS}">${texts.map((t) => `<si><t>${t}</t></si>`).join('')}</sst>`;
  async function bookOf(sheet: string | RawPart, shared?: string | RawPart): Promise<string> {
    const path = join(home.dir, 'bounded.xlsx');
    await writeFile(path, workbookOf(sheet, shared));
    return path;
  }

  it('a row wider than --max-row-size (16,384 cells of 1,100 characters) is exit 2 at that row, naming the flag; given room, it is read', async () => {
    const row = (r: number, first: string) => `<row r="${r}"><c r="A${r}" t="inlineStr"><is><t>${first}</t></is></c>${'<c t="s"><v>0</v></c>'.repeat(16_383)}</row>`;
    const path = await bookOf(packedSheet(row(1, 'Email') + row(2, 'ann@example.com')), strings('x'.repeat(1100)));
    const r = await validate([path]);
    expect([r.exitCode, r.stdout, r.sent]).toEqual([2, '', []]);
    expect(r.stderr).toBe(`idv: ${path}: row 1 of sheet "Sheet1" is longer than 16 MiB, the most idv holds of one row; if it is meant to be so long, give a larger --max-row-size (e.g. --max-row-size 64MiB).\n`);
    const roomy = await validate([path, '--max-row-size', '64MiB']);
    expect([roomy.exitCode, roomy.stdout, roomy.sent]).toEqual([0, 'email,status\nann@example.com,ok\n', ['ann@example.com']]);
  });

  it('a text longer than the bound, shared or in its cell, is refused as it is read (one text of 24 MiB in a workbook of kilobytes)', async () => {
    const sheet = packedSheet('<row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>ann@example.com</t></is></c></row>');
    const long = repeatedPart(`<sst xmlns="${NS}"><si><t>`, 'x'.repeat(1 << 20), 24, '</t></si></sst>');
    const r = await validate([await bookOf(sheet, long)]);
    expect([r.exitCode, r.sent]).toEqual([2, []]);
    expect(r.stderr).toMatch(/: a text of its shared strings is longer than 16 MiB, the most idv holds of one row; .*--max-row-size 64MiB/);
    const inline = packedSheet(`<row r="1"><c r="A1" t="inlineStr"><is><t>${'y'.repeat(3 << 20)}</t></is></c></row>`);
    const cell = await validate([await bookOf(inline), '--max-row-size', '2MiB']);
    expect([cell.exitCode, cell.sent]).toEqual([2, []]);
    expect(cell.stderr).toMatch(/: a cell of row 1 of sheet "Sheet1" is longer than 2 MiB, the most idv holds of one row; /);
  });

  it('a zip that says it holds more than 100,000 parts is exit 2 naming the file, before its directory is read', async () => {
    const path = join(home.dir, 'parts.xlsx');
    await writeFile(path, claimingParts(workbookOf(packedSheet('<row r="1"><c r="A1" t="inlineStr"><is><t>ann@example.com</t></is></c></row>')), 2_000_000));
    const r = await validate([path]);
    expect([r.exitCode, r.stdout, r.sent]).toEqual([2, '', []]);
    expect(r.stderr).toBe(
      `idv: Cannot read ${path}: the workbook is damaged (its zip says it holds 2000000 parts, more than the 100000 a workbook may have); open it in a spreadsheet program and save it again.\n`,
    );
  });

  it('shared strings whose stated size is past --max-unpacked are refused before they are read', async () => {
    const sheet = packedSheet('<row r="1"><c r="A1" t="s"><v>0</v></c></row>');
    const stated = { ...textPart('', strings('ann@example.com')), size: 3.5 * 1024 ** 3 };
    const r = await validate([await bookOf(sheet, stated)]);
    expect([r.exitCode, r.sent]).toEqual([2, []]);
    expect(r.stderr).toMatch(
      /: its shared strings unpack to 3\.5 GiB, more than the 1 GiB a file may unpack before its first record; if it is a workbook you trust, give a larger --max-unpacked \(e\.g\. --max-unpacked 4GiB\)\.\n$/,
    );
  });
});
