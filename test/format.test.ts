import { describe, expect, it } from 'vitest';
import { stringify } from 'csv-stringify/sync';
import { createFormatter, csvLine } from '../src/output/format.js';

describe('csvLine', () => {
  const rows = [
    ['plain', 'a@b.com'],
    ['with,comma', 'with "quotes"', ''],
    ['line\nbreak', 'crlf\r\nhere', ' spaced '],
    ['semi;colon', 'tab\there', 'pipe|'],
    ['Zoë', '"', '""'],
    ['caret^', 'dash-x', 'br]x', 'back\\slash', 'a😀b', 'a\ud83db'],
  ];
  it.each([',', ';', '\t', '|', '^', '-', ']', '\\', '😀'])('matches csv-stringify with delimiter %j', (d) => {
    for (const row of rows) expect(csvLine(row, d)).toBe(stringify([row], { delimiter: d, record_delimiter: '\n' }));
  });
  it('also quotes a lone CR, as RFC 4180 asks (csv-stringify does not)', () => {
    expect(csvLine(['cr\rhere', 'x'], ',')).toBe('"cr\rhere",x\n');
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
    const f = await createFormatter('csv', { column: 'email', keepColumns: true, header: ['name', 'mail', 'note'], delimiter: ';' });
    expect(f.begin() + f.records([{ item: 'a@b.com', status: 'ok', fields: ['Jo', 'a@b.com'] }])).toBe(
      'name;mail;note;status\nJo;a@b.com;;ok\n',
    );
  });
});

import { terminalSafe } from '../src/output/terminal-text.js';
describe('terminalSafe', () => {
  it('escapes C0, C1, DEL and bidi overrides, keeps other text', () => {
    expect(terminalSafe('a\x1b]52;c;aGk=\x07b')).toBe('a\\x1b]52;c;aGk=\\x07b');
    expect(terminalSafe('x\ny\rz\tw\x7f\x9b\u202eé€')).toBe('x\\ny\\rz\\tw\\x7f\\x9b\\u202eé€');
    expect(terminalSafe('jane.doe@example.com')).toBe('jane.doe@example.com');
  });
});
