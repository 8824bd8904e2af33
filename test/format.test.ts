import { describe, expect, it } from 'vitest';
import { createFormatter } from '../src/output/format.js';

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
