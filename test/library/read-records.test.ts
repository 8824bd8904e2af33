// readRecords as a program calls it: a path, a file: URL, bytes or a stream read as the CLI reads them (the
// layout guessed or given, the record rule, mailbox forms, encodings, workbooks), each record with its item cell
// and its row, the layout chosen, and what the CLI would have said of the file.
import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IdvError, readRecords, type SourceRecord } from '../../src/index.js';
import { fixture, homeForEachTest, ROOT } from '../helpers.js';

const home = homeForEachTest();
const SAMPLE = join(ROOT, 'examples', 'sample.csv');

async function all(records: AsyncIterable<SourceRecord>): Promise<SourceRecord[]> {
  const out: SourceRecord[] = [];
  for await (const r of records) out.push(r);
  return out;
}

describe('readRecords', () => {
  it('a CSV export by path: its layout (header, item column), and each record with its item cell and its row', async () => {
    const file = await readRecords(SAMPLE);
    expect(file.layout).toEqual({ encoding: 'utf-8', delimiter: ',', header: { line: 1, cells: ['name', 'email', 'plan'] }, column: { number: 2, name: 'email' }, sheet: null });
    const records = await all(file);
    expect(records.map((r) => r.item)).toEqual(['ada@example.com', 'alan.turing+news@example.org', 'grace@mailinator.com', 'qa@fake.com', 'not-an-address', 'ada@EXAMPLE.com']);
    expect(records[0]!.cells).toEqual(['Ada Lovelace', 'ada@example.com', 'pro']);
  });

  it('the same from a file: URL, from bytes, and from a stream, as the path gives them', async () => {
    const expected = await all(await readRecords(SAMPLE));
    const bytes = await readFile(SAMPLE);
    expect(await all(await readRecords(pathToFileURL(SAMPLE)))).toEqual(expected);
    expect(await all(await readRecords(new Uint8Array(bytes)))).toEqual(expected);
    expect(await all(await readRecords(Readable.from([bytes.subarray(0, 40), bytes.subarray(40)])))).toEqual(expected);
    expect(await all(await readRecords((async function* () { yield bytes.toString('utf8'); })()))).toEqual(expected);
  });

  it('a plain list: no delimiter, each line its record and its one cell; a line of several recipients one record each', async () => {
    const file = await readRecords(Buffer.from('ann@example.com\nBob <bob@example.org>, cy@example.net\n'));
    expect(file.layout).toMatchObject({ delimiter: null, header: null });
    expect((await all(file)).map((r) => r.item)).toEqual(['ann@example.com', 'Bob <bob@example.org>', 'cy@example.net']);
  });

  it('the options the CLI has as flags: the column, no header, the delimiter, domains', async () => {
    const text = 'a@x.com;site.org\nb@y.com;other.net\n';
    const byNumber = await readRecords(Buffer.from(text), { kind: 'domains', column: 2, delimiter: ';', header: false });
    expect(byNumber.layout).toMatchObject({ delimiter: ';', header: null, column: { number: 2, name: null } });
    expect((await all(byNumber)).map((r) => r.item)).toEqual(['site.org', 'other.net']);
    const byName = await readRecords(fixture('spreadsheet-semicolon.csv'), { column: 'courriel' });
    expect(byName.layout).toMatchObject({ delimiter: ';', column: { number: 3, name: 'Courriel' } });
    expect((await all(byName))[0]).toEqual({ item: 'camille.lefevre@orange.fr', cells: ['Lefèvre', 'Camille', 'camille.lefevre@orange.fr', 'Besançon'] }); // Windows-1252, detected
  });

  it('notes: the lines the CLI would say it skipped', async () => {
    const file = await readRecords(Buffer.from('Exported 2024-05-01\n\nemail,name\nann@example.com,Ann\n'));
    await all(file);
    expect(file.notes.join('\n')).toMatch(/skipped line 1/);
  });

  it('what idv cannot read with confidence is an IdvError of kind input naming the source; a missing file too', async () => {
    const missing = await readRecords(join(home.dir, 'nope.csv')).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(IdvError);
    expect(missing).toMatchObject({ kind: 'input', exitCode: 2, message: expect.stringContaining('nope.csv') });
    const column = await readRecords(SAMPLE, { column: 'Phone' }).catch((err: unknown) => err);
    expect(column).toMatchObject({ message: expect.stringContaining('has no column named "Phone"') });
    expect((column as IdvError).exitCode).toBe(2);
    await expect(readRecords(42 as unknown as string)).rejects.toMatchObject({ kind: 'usage' });
  });

  it('a workbook, by its content', async () => {
    const file = await readRecords(fixture('workbooks/excel.xlsx'));
    expect(file.layout.sheet).toMatchObject({ number: 1 });
    expect((await all(file)).length).toBeGreaterThan(0);
  });
});
