// What --dry-run prints (src/commands/validate/dry-run.ts): the counts, then each file's layout.
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { dryRunFacts, fileLayout, formatDryRun, formatLayouts, type FileLayout } from '../../../src/commands/validate/dry-run.js';
import { openSource } from '../../../src/input/read.js';

const layoutOf = async (path: string, text: string | Buffer): Promise<FileLayout> => {
  const s = await openSource({ name: path, path, open: () => Readable.from([Buffer.from(text)]) }, 'emails', {});
  let n = 0;
  for await (const b of s.records) n += b.length;
  return fileLayout(path, s, n);
};

describe('--dry-run', () => {
  it('counts: records, unique, invalid, cached, quota, in that order; unsent with --max-spend', () => {
    expect(dryRunFacts({ records: 9, unique: 7, invalid: 2, cached: 3 }, 2)).toEqual({ records: 9, unique: 7, invalid: 2, cached: 3, quota: 2, unsent: 2 });
  });

  it('each file\'s layout, once read: encoding, delimiter, header, column and runner-up, records, what was skipped', async () => {
    const text = 'Notes: export\n\nName,Email,Work Email\nAnn,ann@x.com,ann@acme.com\nBob,bob@x.com,\n\nTotal: 2\n';
    expect(await layoutOf('c.csv', text)).toEqual({
      path: 'c.csv',
      encoding: 'utf-8',
      delimiter: ',',
      header: { line: 3, cells: ['Name', 'Email', 'Work Email'] },
      column: { number: 2, name: 'Email' },
      runnerUp: { number: 3, name: 'Work Email' },
      records: 2,
      skipped: [
        { lines: 'line 1', why: 'above the header' },
        { lines: 'line 7', why: 'below the data' },
      ],
    });
    expect(await layoutOf('l.txt', 'email\na@b.com\n')).toEqual({
      path: 'l.txt',
      encoding: 'utf-8',
      delimiter: null,
      header: { line: 1, cells: ['email'] },
      column: { number: 1, name: 'email' },
      runnerUp: null,
      records: 1,
      skipped: [],
    });
    const cp = await layoutOf('w.csv', Buffer.from('Name,Email\r\nRen\xe9e M\xfcller \xd8rsted,a@x.com\r\nJos\xe9 N\xfa\xf1ez,b@x.com\r\n', 'latin1'));
    expect(cp).toMatchObject({ encoding: 'windows-1252', encodingUnsure: 'windows-1250' });
  });

  it('json, ndjson and csv: the counts alone, as the contract shows them (the layouts are for a person: standard error)', async () => {
    const files = [await layoutOf('c.csv', 'Name,Email\nAnn,ann@x.com\n')];
    const facts = { records: 1, unique: 1, invalid: 0, cached: 0, quota: 1 };
    expect(formatDryRun({ ...facts, files }, 'json')).toBe('{"records":1,"unique":1,"invalid":0,"cached":0,"quota":1}\n');
    expect(formatDryRun({ ...facts, files }, 'ndjson')).toBe('{"records":1,"unique":1,"invalid":0,"cached":0,"quota":1}\n');
    expect(formatDryRun({ ...facts, files }, 'csv')).toBe('records,unique,invalid,cached,quota\n1,1,0,0,1\n');
    expect(formatLayouts(files)).toBe('\nc.csv\n  encoding   utf-8\n  delimiter  ","\n  header     line 1: "Name" "Email"\n  column     2 "Email"\n  records    1\n');
  });

  it('table: aligned lines, then each file\'s, with what came from the file shown escaped', async () => {
    const files = [await layoutOf('x\x1b]0;t\x07.csv', 'Table 1\nName,E\x1b[31mmail,Email 2\nAnn,ann@x.com,a@y.com\nBob,bob@x.com,\n')];
    expect(formatDryRun({ records: 2, unique: 2, invalid: 0, cached: 0, quota: 2, files }, 'table')).toBe(
      'records  2\nunique   2\ninvalid  0\ncached   0\nquota    2\n' +
        '\nx\\x1b]0;t\\x07.csv\n' +
        '  encoding   utf-8\n' +
        '  delimiter  ","\n' +
        '  header     line 2: "Name" "E\\x1b[31mmail" "Email 2"\n' +
        '  column     2 "E\\x1b[31mmail"; runner-up 3 "Email 2"\n' +
        '  records    2\n' +
        '  skipped    line 1 (above the header)\n',
    );
  });
});
