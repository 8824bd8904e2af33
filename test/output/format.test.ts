// The table for people, fitted to the terminal: every column when they fit; else the item and status
// always, the others from the left while they fit, the first that does not cut with `…`, a column of `…`
// where columns were left out (csv and json keep them all); wide characters take two columns.
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cellWidth, createFormatter, ELIDED, planTable, type OutRecord } from '../../src/output/format.js';
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
    for (const l of lines) expect(cellWidth(l)).toBeLessThanOrEqual(width);
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
