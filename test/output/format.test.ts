// The table for people, fitted to the terminal: every column when they fit; else the item and status
// always, the others from the left while they fit, the first that does not cut with `…`, a column of `…`
// where columns were left out (csv and json keep them all); wide characters take two columns.
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { displayWidth } from '../../src/system/display-width.js';
import { createFormatter, ELIDED, FORMATS, formatForPath, planTable, refuseExtension, statusColour, type Format, type FormatOptions, type OutRecord, type SheetRows } from '../../src/output/format.js';
import { loadChalk } from '../../src/output/colors.js';
import { run } from '../fake-io.js';
import { withHome } from '../helpers.js';

const HEADER = ['First Name', 'Last Name', 'Email', 'Company', 'Job Title', 'Phone', 'Mobile', 'Street', 'City', 'State', 'Zip', 'Country',
  'Website', 'LinkedIn', 'Twitter', 'Source', 'Owner', 'Created', 'Updated', 'Tags', 'Notes', 'Score'];
const row = (i: number) => [`Ann${i}`, 'Smith', i % 2 ? `ann${i}@mailinator.com` : `ann${i}@example.com`, 'Acme Corporation Ltd', 'Head of Marketing',
  '+1 555 0100', '+1 555 0199', '12 Long Street Name', 'Springfield', 'IL', '62701', 'United States', 'https://acme.example.com',
  'linkedin.com/in/ann', '@ann', 'Webinar', 'Bob', '2024-01-02', '2024-03-04', 'vip;newsletter', 'Met at conference', String(80 + i)];
const records = (n: number): OutRecord[] => Array.from({ length: n }, (_, i) => ({ item: row(i)[2]!, status: i % 2 ? 'disposable' : 'ok', fields: row(i) }));

/** The table of these records, given to the formatter in blocks of `block` (the first 500 set the widths). */
async function table(recs: OutRecord[], more: Record<string, unknown>, block = recs.length): Promise<string> {
  const f = await createFormatter('table', { column: 'email', keepColumns: false, header: null, delimiter: null, ...more });
  let text = f.begin();
  for (let i = 0; i < recs.length; i += block) text += f.records(recs.slice(i, i + block));
  return text + f.end();
}
const keep22 = (lineWidth?: number) => table(records(4), { keepColumns: true, header: HEADER, delimiter: ',', width: 22, itemColumn: 2, lineWidth });

describe('planTable', () => {
  it('every column at its width when they fit, and off a terminal', () => {
    expect(planTable([5, 3, 4], [0, 1], 20)).toEqual({ columns: [0, 1, 2], widths: [5, 3, 4], slack: 4 });
    expect(planTable([50, 30, 40], [0, 1]).columns).toEqual([0, 1, 2]);
  });

  it('the item and status, then columns from the left; the first that does not fit cut, a … for each run left out', () => {
    // item 2, status 5, then 0 and 1: 10 + 10 + 8 + 10 and gaps = 44; two runs left out (4, 6) cost 3 each,
    // which leaves 80 - 6 - 44 - 2 = 28 for column 3
    expect(planTable([10, 10, 8, 40, 9, 10, 12], [2, 5], 80)).toEqual({
      columns: [0, 1, 2, 3, ELIDED, 5, ELIDED],
      widths: [10, 10, 8, 28, 1, 10, 1],
      slack: 0,
    });
  });

  it('even the item and status do not fit: the item is cut', () => {
    expect(planTable([60, 10], [0, 1], 40)).toEqual({ columns: [0, 1], widths: [28, 10], slack: 0 });
    expect(planTable([60, 10, 5], [0, 1], 30).widths).toEqual([15, 10, 1]); // and room for the … of what is left out
  });
});

describe('the table on a terminal', () => {
  it('--keep-columns of a 22-column export at 80 columns: one line a record, item and status shown', async () => {
    expect(await keep22(80)).toBe(
      [
        'FIRST NAME  LAST NAME  EMAIL                COMPANY               …  STATUS',
        'Ann0        Smith      ann0@example.com     Acme Corporation Ltd  …  ok',
        'Ann1        Smith      ann1@mailinator.com  Acme Corporation Ltd  …  disposable',
        'Ann2        Smith      ann2@example.com     Acme Corporation Ltd  …  ok',
        'Ann3        Smith      ann3@mailinator.com  Acme Corporation Ltd  …  disposable',
        '',
      ].join('\n'),
    );
  });

  it.each([30, 40, 50, 60, 79, 80, 100, 120, 200, 400])('no line wider than %i columns; every record on one line with its status', async (width) => {
    const text = await keep22(width);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(width);
    lines.slice(1).forEach((l, i) => expect(l).toMatch(i % 2 ? /disposable$/ : /ok$/));
  });

  it('wide enough for all: the same table as off a terminal', async () => {
    expect(await keep22(400)).toBe(await keep22(undefined));
  });

  it('a long item is cut with … before the status goes', async () => {
    const long = 'a-very-long-local-part-that-goes-on-and-on@a-rather-long-domain-name.example.com';
    expect(await table([{ item: long, status: 'ok', fields: null }], { lineWidth: 40 })).toBe(
      `${'EMAIL'.padEnd(32)}  STATUS\n${long.slice(0, 31)}…  ok\n`, // 32 + 2 + "STATUS"

    );
  });

  it('a longer cell after the first 500 records takes what the line has to spare, and no more', async () => {
    const first = Array.from({ length: 500 }, (_, i): OutRecord => ({ item: `u${i % 10}@example.com`, status: 'ok', fields: null }));
    const later: OutRecord[] = [{ item: 'a-longer-one@example.com', status: 'ok', fields: null }, { item: 'x'.repeat(40) + '@example.com', status: 'fake', fields: null }];
    const lines = (await table([...first, ...later], { lineWidth: 40 }, 500)).trimEnd().split('\n');
    // widths from the first 500: 14 + 2 + 6 (STATUS); 18 to spare on a line of 40
    expect(lines.slice(-2)).toEqual(['a-longer-one@example.com  ok', `${'x'.repeat(31)}…  fake`]);
  });

  it('wide characters count two columns, so the columns line up', async () => {
    const text = await table([{ item: '山田@例え.jp', status: 'ok', fields: null }, { item: 'ab@cd.jp', status: 'fake', fields: null }], { lineWidth: 80 });
    expect(text).toBe('EMAIL         STATUS\n山田@例え.jp  ok\nab@cd.jp      fake\n');
  });
});

describe('idv emails on a terminal', () => {
  it('a 22-column export with --keep-columns fits 80 columns; -f csv keeps every column', async () => {
    await withHome(async (home) => {
      const file = join(home.dir, 'crm.csv');
      await writeFile(file, [HEADER, ...records(4).map((r) => r.fields!)].map((r) => r.join(',')).join('\n') + '\n');
      const r = await run(['emails', file, '--sandbox', '--keep-columns', '-q'], { stdoutIsTTY: true, columns: 80 });
      expect(r.stdout).toBe(await keep22(80));
      const csv = await run(['emails', file, '--sandbox', '--keep-columns', '-q', '-f', 'csv'], { stdoutIsTTY: true, columns: 80 });
      expect(csv.stdout.split('\n')[0]).toBe([...HEADER, 'status'].join(','));
    });
  });
});

/** Everything a formatter makes of these records, given in blocks of `block`. */
async function output(format: Format, recs: OutRecord[], more: Partial<FormatOptions> = {}, block = 1): Promise<string> {
  const f = await createFormatter(format, { column: 'email', keepColumns: false, header: null, delimiter: null, ...more });
  let text = f.begin() as string;
  for (let i = 0; i < recs.length; i += block) text += f.records(recs.slice(i, i + block)) as string;
  return text + (f.end() as string);
}
const rec = (item: string, status: string, fields: string[] | null = null): OutRecord => ({ item, status, fields });
const suggest = (item: string) => (item.endsWith('@gmial.com') ? item.replace('gmial', 'gmail') : null);

describe('JSON and NDJSON', () => {
  it('an array of objects, one a line, the item under its column and the status; an empty run is []', async () => {
    expect(await output('json', [rec('a@x.com', 'ok'), rec('b@x.com', 'fake'), rec('c@x.com', 'ok')])).toBe(
      '[\n  {"email":"a@x.com","status":"ok"},\n  {"email":"b@x.com","status":"fake"},\n  {"email":"c@x.com","status":"ok"}\n]\n',
    );
    expect(await output('json', [rec('a@x.com', 'ok'), rec('b@x.com', 'fake')], {}, 2)).toBe('[\n  {"email":"a@x.com","status":"ok"},\n  {"email":"b@x.com","status":"fake"}\n]\n');
    expect(await output('json', [])).toBe('[]\n');
    expect(await output('ndjson', [rec('a.com', 'ok'), rec('b.com', 'fake')], { column: 'domain' }, 2)).toBe('{"domain":"a.com","status":"ok"}\n{"domain":"b.com","status":"fake"}\n');
    expect(await output('ndjson', [])).toBe('');
  });

  it('--suggest adds a suggestion, empty when there is none', async () => {
    expect(await output('ndjson', [rec('jo@gmial.com', 'fake'), rec('al@x.com', 'ok')], { suggest })).toBe(
      '{"email":"jo@gmial.com","status":"fake","suggestion":"jo@gmail.com"}\n{"email":"al@x.com","status":"ok","suggestion":""}\n',
    );
  });

  it('--keep-columns: the input columns under unique keys (empty names columnN, repeats _2, idv\'s own names taken first), then status; cells past the header columnN', async () => {
    const header = ['status', '', 'Name', 'Name', 'column2'];
    const recs = [rec('a@x.com', 'ok', ['s', 'a@x.com', 'Ann', 'Lee']), rec('b@x.com', 'fake', ['t', 'b@x.com', 'Bo', 'Li', 'z', 'past', 'more'])];
    expect(await output('ndjson', recs, { keepColumns: true, header, delimiter: ',', width: 5 })).toBe(
      [
        '{"status_2":"s","column2":"a@x.com","Name":"Ann","Name_2":"Lee","column2_2":"","status":"ok"}',
        '{"status_2":"t","column2":"b@x.com","Name":"Bo","Name_2":"Li","column2_2":"z","column6":"past","column7":"more","status":"fake"}',
        '',
      ].join('\n'),
    );
  });

  it('--keep-columns without a header: column1…columnN; a cell past the width whose key is taken gets _2; with --suggest, suggestion last', async () => {
    const recs = [rec('a@x.com', 'ok', ['a@x.com', 'Ann']), rec('jo@gmial.com', 'fake', ['jo@gmial.com', 'Jo', 'x', 'y'])];
    expect(await output('ndjson', recs, { keepColumns: true, header: null, delimiter: ';', width: 2, suggest })).toBe(
      [
        '{"column1":"a@x.com","column2":"Ann","status":"ok","suggestion":""}',
        '{"column1":"jo@gmial.com","column2":"Jo","column3":"x","column4":"y","status":"fake","suggestion":"jo@gmail.com"}',
        '',
      ].join('\n'),
    );
    expect(await output('ndjson', [rec('a@x.com', 'ok', ['a@x.com', 'b', 'c'])], { keepColumns: true, header: ['column2'], delimiter: ',', width: 1 })).toBe(
      '{"column2":"a@x.com","column2_2":"b","column3":"c","status":"ok"}\n',
    );
  });

  it('--keep-columns of a plain list: its header (or the column name) and each line as read', async () => {
    expect(await output('ndjson', [rec('a@x.com', 'ok', [' a@x.com ']), rec('b@x.com', 'ok')], { keepColumns: true, header: ['E-Mail'], delimiter: null })).toBe(
      '{"E-Mail":" a@x.com ","status":"ok"}\n{"E-Mail":"b@x.com","status":"ok"}\n',
    );
    expect(await output('ndjson', [rec('a@x.com', 'ok', [' a@x.com '])], { keepColumns: true, header: null, delimiter: null, suggest })).toBe(
      '{"email":" a@x.com ","status":"ok","suggestion":""}\n',
    );
    expect(await output('ndjson', [rec('a@x.com', 'ok', ['x'])], { keepColumns: true, header: ['status'], delimiter: null })).toBe('{"status_2":"x","status":"ok"}\n');
  });
});

describe('CSV', () => {
  it('the header once, then a line a record; --suggest adds its column', async () => {
    expect(await output('csv', [rec('a@x.com', 'ok'), rec('jo@gmial.com', 'fake')], { suggest })).toBe('email,status,suggestion\na@x.com,ok,\njo@gmial.com,fake,jo@gmail.com\n');
    expect(await output('csv', [])).toBe('email,status\n');
  });

  it('--keep-columns: the input delimiter, short rows padded to the width, cells past it after status; no header line without an input header', async () => {
    const recs = [rec('a@x.com', 'ok', ['a@x.com']), rec('b@x.com', 'fake', ['b@x.com', 'B', 'extra'])];
    expect(await output('csv', recs, { keepColumns: true, header: ['Email', 'Name'], delimiter: ';' })).toBe('Email;Name;status\na@x.com;;ok\nb@x.com;B;fake;extra\n');
    expect(await output('csv', recs, { keepColumns: true, header: ['Email'], delimiter: '|', width: 3 })).toBe('Email|||status\na@x.com|||ok\nb@x.com|B|extra|fake\n');
    expect(await output('csv', recs, { keepColumns: true, header: null, delimiter: ';', width: 2 })).toBe('a@x.com;;ok\nb@x.com;B;fake;extra\n');
    expect(await output('csv', recs, { keepColumns: true, header: null, delimiter: ';' })).toBe('a@x.com;ok\nb@x.com;B;extra;fake\n');
    expect(await output('csv', [rec('a@x.com', 'ok', ['a@x.com'])], { keepColumns: true, header: ['E'], delimiter: null })).toBe('E,status\na@x.com,ok\n');
  });

  it('--safe-csv escapes formulas; without it they are written as read', async () => {
    const recs = [rec('a@x.com', 'ok', ['a@x.com', '=1+2'])];
    expect(await output('csv', recs, { keepColumns: true, header: ['E', 'F'], delimiter: ',', safeCsv: true })).toBe("E,F,status\na@x.com,'=1+2,ok\n");
    expect(await output('csv', recs, { keepColumns: true, header: ['E', 'F'], delimiter: ',' })).toBe('E,F,status\na@x.com,=1+2,ok\n');
  });
});

describe('workbook rows', () => {
  const sheet = async (recs: OutRecord[], more: Partial<FormatOptions> = {}) => {
    const f = await createFormatter('xlsx', { column: 'email', keepColumns: false, header: null, delimiter: null, ...more });
    return { begin: f.begin() as SheetRows, rows: (f.records(recs) as SheetRows).rows, end: f.end() };
  };
  it('a header row, then the cells as csv lays them out (text)', async () => {
    expect(await sheet([rec('a@x.com', 'ok')], { suggest })).toEqual({ begin: { header: ['email', 'status', 'suggestion'], rows: [] }, rows: [['a@x.com', 'ok', '']], end: '' });
  });
  it('--keep-columns without an input header: JSON\'s names; cells read from a workbook keep their type, before and after status', async () => {
    const n = { type: 'number', text: '42', value: 42, format: '0' } as const;
    const d = { type: 'date', text: '2024-01-02', value: 45293, format: 'yyyy-mm-dd' } as const;
    const e = { type: 'empty', text: '' } as const;
    const t = { type: 'text', text: 'a@x.com' } as const;
    const typed: OutRecord = { ...rec('a@x.com', 'ok', ['a@x.com', '42', '', '2024-01-02']), cells: [t, n, e, d] };
    const out = await sheet([typed, rec('b@x.com', 'fake', ['b@x.com', '7'])], { keepColumns: true, header: null, delimiter: ',', width: 3 });
    expect(out.begin).toEqual({ header: ['column1', 'column2', 'column3', 'status'], rows: [] });
    expect(out.rows).toEqual([
      [t, n, '', 'ok', d],
      ['b@x.com', '7', '', 'fake'],
    ]);
    const two: OutRecord = { ...rec('a@x.com', 'ok', ['a@x.com', '42']), cells: [t, n] };
    const plain = await sheet([two], { keepColumns: true, header: null, delimiter: ',' });
    expect(plain.rows).toEqual([[t, n, 'ok']]);
    const named = await sheet([two], { keepColumns: true, header: ['Email', 'N'], delimiter: ',', suggest });
    expect(named).toEqual({ begin: { header: ['Email', 'N', 'status', 'suggestion'], rows: [] }, rows: [[t, n, 'ok', '']], end: '' });
    expect((await sheet([{ ...two, cells: undefined }], { keepColumns: true, header: null, delimiter: ',' })).rows).toEqual([['a@x.com', '42', 'ok']]); // no cells: text
  });
});

describe('the format an -o name gives, and the names refused', () => {
  it('by extension, in any case', () => {
    const cases = { 'a.csv': 'csv', 'A.TSV': 'csv', 'b.json': 'json', 'c.ndjson': 'ndjson', 'd.JSONL': 'ndjson', 'e.xlsx': 'xlsx', 'f.txt': undefined, g: undefined, 'h.csv.gz': undefined, 'x.csvx': undefined, 'dir.csv/out': undefined };
    expect(Object.fromEntries(Object.keys(cases).map((p) => [p, formatForPath(p)]))).toEqual(cases);
  });
  it('an extension naming a format idv does not write: a usage error saying what to give instead', () => {
    expect(() => refuseExtension('out.XLS')).toThrow('-o out.XLS: idv does not write an Excel 97-2003 workbook (.xls); give -o FILE.xlsx, .csv, .json or .ndjson (or -f to choose the format).');
    expect(() => refuseExtension('o.csv.gz')).toThrow('-o o.csv.gz: idv does not write a gzip-compressed file (.gz); compress the output instead: idv … | gzip > o.csv.gz.');
    expect(() => refuseExtension('o.zst')).toThrow('-o o.zst: idv does not write a zstd-compressed file (.zst); compress the output instead: idv … | zstd > o.zst.');
    expect(() => refuseExtension('o.zip')).toThrow('-o o.zip: idv does not write a zip archive (.zip); give -o FILE.xlsx, .csv, .json or .ndjson (or -f to choose the format).');
    for (const fine of ['o.csv', 'o', 'o.toString', 'o.constructor', 'o.txt']) expect(() => refuseExtension(fine), fine).not.toThrow();
  });
});

describe('status colours and character widths', () => {
  it('each known status its colour, a new one blue, error red and bold', async () => {
    const chalk = (await loadChalk(true))!;
    const shown = Object.fromEntries(['ok', 'alias', 'disposable', 'fake', 'invalid', 'quota_exceeded', 'error', 'new_one', 'toString'].map((s) => [s, statusColour(chalk, s)('x')]));
    expect(shown).toEqual({
      ok: chalk.green('x'),
      alias: chalk.cyan('x'),
      disposable: chalk.magenta('x'),
      fake: chalk.red('x'),
      invalid: chalk.gray('x'),
      quota_exceeded: chalk.yellow('x'),
      error: chalk.red.bold('x'),
      new_one: chalk.blue('x'),
      toString: chalk.blue('x'),
    });
    expect(new Set(Object.values(shown)).size).toBe(8);
  });
});

describe('more of each format', () => {
  it('the formats, in the order --help lists them', () => {
    expect(FORMATS).toEqual(['table', 'csv', 'json', 'ndjson', 'xlsx']);
  });

  it('every extension refused names what it is', () => {
    const named = { xls: 'an Excel 97-2003 workbook', xlsm: 'a macro-enabled workbook', xlsb: 'a binary workbook', xltx: 'an Excel template', ods: 'an OpenDocument spreadsheet', fods: 'an OpenDocument spreadsheet', numbers: 'a Numbers spreadsheet', parquet: 'Parquet', xml: 'XML', html: 'HTML', htm: 'HTML', pdf: 'PDF', yaml: 'YAML', yml: 'YAML', zip: 'a zip archive' };
    for (const [ext, what] of Object.entries(named)) {
      expect(() => refuseExtension(`o.${ext}`), ext).toThrow(`-o o.${ext}: idv does not write ${what} (.${ext}); give -o FILE.xlsx, .csv, .json or .ndjson (or -f to choose the format).`);
    }
  });

  it('without --keep-columns the item is shown as checked, whatever the row held', async () => {
    const recs = [rec('a@x.com', 'ok', [' a@x.com ', 'Ann'])];
    expect(await output('csv', recs, { header: ['E', 'N'], delimiter: ';' })).toBe('email,status\na@x.com,ok\n');
    expect(await output('ndjson', recs, { header: ['E', 'N'], delimiter: ';' })).toBe('{"email":"a@x.com","status":"ok"}\n');
    expect(await output('table', recs, { header: ['E', 'N'], delimiter: ';' })).toBe('EMAIL    STATUS\na@x.com  ok\n');
  });

  it('--keep-columns of a plain list without a header: CSV still has its header line', async () => {
    expect(await output('csv', [rec('a@x.com', 'ok', [' a@x.com'])], { keepColumns: true, header: null, delimiter: null })).toBe('email,status\n a@x.com,ok\n');
  });

  it('a name met three times: _2, then _3 (in JSON keys and in cells past the header)', async () => {
    expect(await output('ndjson', [rec('a@x.com', 'ok', ['1', '2', '3', '4', '5', '6'])], { keepColumns: true, header: ['N', 'N', 'N', 'column4', 'column4_2'], delimiter: ',' })).toBe(
      '{"N":"1","N_2":"2","N_3":"3","column4":"4","column4_2":"5","column6":"6","status":"ok"}\n',
    );
    expect(await output('ndjson', [rec('a@x.com', 'ok', ['1', '2', '3'])], { keepColumns: true, header: ['column3', 'column3_2'], delimiter: ',' })).toBe(
      '{"column3":"1","column3_2":"2","column3_3":"3","status":"ok"}\n',
    );
  });

  it("a workbook's header: the input's names as they are (JSON's keys only when it has none)", async () => {
    const f = await createFormatter('xlsx', { column: 'email', keepColumns: true, header: ['Email', ''], delimiter: ',' });
    expect(f.begin()).toEqual({ header: ['Email', '', 'status'], rows: [] });
    const list = await createFormatter('xlsx', { column: 'email', keepColumns: true, header: ['status'], delimiter: null });
    expect(list.begin()).toEqual({ header: ['status', 'status'], rows: [] });
    const plain = await createFormatter('xlsx', { column: 'email', keepColumns: false, header: null, delimiter: ',' });
    expect(plain.begin()).toEqual({ header: ['email', 'status'], rows: [] });
  });

  it('the table in colour: the header bold, each status in its colour, nothing else coloured', async () => {
    const chalk = (await loadChalk(true))!;
    const text = await output('table', [rec('a@x.com', 'ok'), rec('bb@x.com', 'fake')], { chalk });
    expect(text).toBe(`${chalk.bold('EMAIL     STATUS')}\na@x.com   ${chalk.green('ok')}\nbb@x.com  ${chalk.red('fake')}\n`);
    const kept = await output('table', [rec('a@x.com', 'ok', ['Ann', 'a@x.com'])], { chalk, keepColumns: true, header: ['Name', 'Email'], delimiter: ',', itemColumn: 1 });
    expect(kept).toBe(`${chalk.bold('NAME  EMAIL    STATUS')}\nAnn   a@x.com  ${chalk.green('ok')}\n`);
  });

  it('the table: widths from all records held (up to 500), or from the first block of a live input; a leading empty cell kept, trailing spaces not', async () => {
    const recs = [rec('a@x.com', 'ok'), rec('much-longer@x.com', 'ok')];
    expect(await output('table', recs)).toBe('EMAIL              STATUS\na@x.com            ok\nmuch-longer@x.com  ok\n');
    expect(await output('table', recs, { live: true })).toBe('EMAIL    STATUS\na@x.com  ok\nmuch-longer@x.com  ok\n');
    expect(await output('table', [rec('a@x.com', 'ok', ['', 'a@x.com'])], { keepColumns: true, header: ['', 'Email'], delimiter: ',', itemColumn: 1 })).toBe(
      '  EMAIL    STATUS\n  a@x.com  ok\n',
    );
  });

  it('a --keep-columns table of a plain list keeps its item and status columns', async () => {
    const long = 'x'.repeat(30) + '@example.com';
    expect(await output('table', [rec(long, 'ok', [long])], { keepColumns: true, header: ['E-Mail'], delimiter: null, lineWidth: 30 })).toBe(
      `E-MAIL${' '.repeat(16)}  STATUS\n${'x'.repeat(21)}…  ok\n`,
    );
  });
});

describe('planTable at its edges', () => {
  it('columns that span the line exactly fit whole; one column more and the last is cut to what is left (6 at least)', () => {
    expect(planTable([10, 6, 8], [0, 1], 28)).toEqual({ columns: [0, 1, 2], widths: [10, 6, 8], slack: 0 });
    expect(planTable([10, 6, 9], [0, 1], 28)).toEqual({ columns: [0, 1, 2], widths: [10, 6, 8], slack: 0 });
    expect(planTable([10, 6, 9], [0, 1], 26)).toEqual({ columns: [0, 1, 2], widths: [10, 6, 6], slack: 0 }); // cut to 6: still shown
    expect(planTable([10, 6, 9], [0, 1], 25)).toEqual({ columns: [0, 1, ELIDED], widths: [10, 6, 1], slack: 4 }); // 5 is too few: left out
  });
  it('must columns beyond the table are ignored; the item cut to exactly what is over, never below 6', () => {
    expect(planTable([10, 6], [0, 5], 18)).toEqual({ columns: [0, 1], widths: [10, 6], slack: 0 });
    expect(planTable([20, 6], [0, 1], 27)).toEqual({ columns: [0, 1], widths: [19, 6], slack: 0 });
    expect(planTable([20, 6], [0, 1], 28)).toEqual({ columns: [0, 1], widths: [20, 6], slack: 0 });
    expect(planTable([20, 6], [0, 1], 10)).toEqual({ columns: [0, 1], widths: [6, 6], slack: 0 });
  });
});

describe('CSV (csv-stringify)', () => {
  const rows = [
    ['plain', 'a@b.com'],
    ['with,comma', 'with "quotes"', ''],
    ['line\nbreak', 'crlf\r\nhere', ' spaced '],
    ['semi;colon', 'tab\there', 'pipe|'],
    ['Zoë', '"', '""'],
    ['caret^', 'dash-x', 'br]x', 'back\\slash', 'a😀b'],
    ['cr\rhere', 'x'],
  ];
  const keep = (delimiter: string, width: number) =>
    createFormatter('csv', { column: 'email', keepColumns: true, header: null, delimiter, width });
  it.each([',', ';', '\t', '|'])('quotes only what RFC 4180 needs, with delimiter %j', async (d) => {
    const f = await keep(d, 0);
    const text = f.records(rows.map((fields) => ({ item: fields[0]!, status: 'ok', fields })));
    const q = (c: string) => (/["\r\n]/.test(c) || c.includes(d) ? `"${c.replace(/"/g, '""')}"` : c);
    expect(text).toBe(rows.map((r) => [...r, 'ok'].map(q).join(d) + '\n').join(''));
  });
  it('a lone CR is quoted', async () => {
    expect((await keep(',', 0)).records([{ item: 'x', status: 'ok', fields: ['cr\rhere', 'x'] }])).toBe('"cr\rhere",x,ok\n');
  });
  it('--safe-csv prefixes formula-like cells with a quote mark', async () => {
    const f = await createFormatter('csv', { column: 'email', keepColumns: false, header: null, delimiter: null, safeCsv: true });
    expect(f.records(['=1+2', '+x', '-y', '@z', '\tt', '\rr', 'a@b.com'].map((item) => ({ item, status: 'ok', fields: null })))).toBe(
      "'=1+2,ok\n'+x,ok\n'-y,ok\n'@z,ok\n'\tt,ok\n\"'\rr\",ok\na@b.com,ok\n",
    );
  });
});

describe('formatters', () => {
  const recs = [
    { item: 'a@b.com', status: 'ok', fields: null },
    { item: 'x,y', status: 'invalid', fields: null },
  ];
  it('json is one array, ndjson a line each', async () => {
    const base = { column: 'email', keepColumns: false, header: null, delimiter: null };
    const j = await createFormatter('json', base);
    expect(j.begin() + j.records(recs.slice(0, 1)) + j.records(recs.slice(1)) + j.end()).toBe(
      '[\n  {"email":"a@b.com","status":"ok"},\n  {"email":"x,y","status":"invalid"}\n]\n',
    );
    const empty = await createFormatter('json', base);
    expect(empty.begin() + empty.end()).toBe('[]\n');
    const n = await createFormatter('ndjson', base);
    expect(n.records(recs)).toBe('{"email":"a@b.com","status":"ok"}\n{"email":"x,y","status":"invalid"}\n');
  });
  it('--keep-columns pads short rows and adds status last', async () => {
    const f = await createFormatter('csv', { column: 'email', keepColumns: true, header: ['name', 'mail', 'note'], delimiter: ';', width: 3 });
    expect(f.begin() + f.records([{ item: 'a@b.com', status: 'ok', fields: ['Jo', 'a@b.com'] }])).toBe(
      'name;mail;note;status\nJo;a@b.com;;ok\n',
    );
  });
});

describe('a table that gives room to what matters', () => {
  it('--suggest at 40 columns: the suggestion stays (cut at its start, keeping the domain), never a lone …', async () => {
    const recs = [rec('jonathan.smithson@gmial.com', 'ok'), rec('ann@example.com', 'ok')];
    const text = await table(recs, { lineWidth: 40, suggest: (item: string) => (item.endsWith('@gmial.com') ? item.replace('gmial', 'gmail') : null) });
    expect(text).toBe(
      ['EMAIL            STATUS  SUGGESTION', 'jonathan.smith…  ok      …hson@gmail.com', 'ann@example.com  ok', ''].join('\n'),
    );
    for (const l of text.trimEnd().split('\n')) expect(displayWidth(l)).toBeLessThanOrEqual(40);
  });

  it('--keep-columns at 62: a header wider than its addresses is cut, not padded into every row, so another column fits', async () => {
    const header = ['Name', 'Primary Email Address of the Contact', 'Company', 'City', 'Country'];
    const recs = [0, 1, 2].map((i): OutRecord => ({ item: `a${i}@x.com`, status: 'ok', fields: [`Ann ${i}`, `a${i}@x.com`, 'Acme Corporation Ltd', 'Springfield', 'United States of America'] }));
    const text = await table(recs, { keepColumns: true, header, delimiter: ',', width: 5, itemColumn: 1, lineWidth: 62 });
    expect(text.split('\n')[0]).toBe('NAME   PRIMARY…  COMPANY               CITY         …  STATUS');
    expect(text.split('\n')[1]).toBe('Ann 0  a0@x.com  Acme Corporation Ltd  Springfield  …  ok');
  });

  it('the status is never cut: the item and the suggestion give way, the wider first', () => {
    expect(planTable([30, 10, 20], [0, 1, 2], 50)).toEqual({ columns: [0, 1, 2], widths: [18, 10, 18], slack: 0 });
  });
});
