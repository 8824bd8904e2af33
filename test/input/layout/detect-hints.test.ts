// The hint of a column not found (src/input/layout/detect.ts): it names the flag that fixes the file. When the rows split
// by another delimiter have the column asked for, that is `--delimiter D`, not `--column`.
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { openSource } from '../../../src/input/read.js';
import type { LayoutOverrides } from '../../../src/input/layout/detect.js';

async function refusal(bytes: Buffer | string, overrides: LayoutOverrides = {}, kind: 'emails' | 'domains' = 'emails') {
  const b = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  try {
    await openSource({ name: 'r.csv', path: 'r.csv', open: () => Readable.from([b]) }, kind, overrides);
    return null;
  } catch (err) {
    const e = err as { kind: string; message: string };
    return { kind: e.kind, message: e.message };
  }
}

/** Tab-separated, with commas inside its cells (names written `Last, First`, dates `3/14/24, 9:58 AM`). */
const TSV = 'Name\tJoined\tEmail\r\nLee, Ann\t3/14/24, 9:58 AM\tann@x.com\r\nRay, Bo\t3/14/24, 10:01 AM\tbo@y.org\r\n';
const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

describe('a column not found where the rows were split names the delimiter that finds it', () => {
  it('--column NAME under the wrong --delimiter: give --delimiter tab', async () => {
    expect(await refusal(utf16(TSV), { delimiter: ',', column: 'Email' })).toEqual({
      kind: 'usage',
      message: 'r.csv has no column named "Email"; split by tab instead of ",", its column 3 ("Email") holds them: give --delimiter tab.',
    });
  });
  it('--column N beyond the table under the wrong --delimiter: give --delimiter tab', async () => {
    expect(await refusal(TSV, { delimiter: ';', column: '3' })).toEqual({
      kind: 'input',
      message: 'r.csv has 1 column, so it has no column 3; split by tab instead of ";", its column 3 ("Email") holds them: give --delimiter tab.',
    });
  });
  it('no column of addresses under the wrong --delimiter: give --delimiter tab', async () => {
    expect(await refusal(TSV, { delimiter: '|' })).toEqual({
      kind: 'input',
      message:
        'r.csv: column 1 ("Name\tJoined\tEmail") holds no email addresses (its first rows hold "Lee, Ann\t3/14/24, 9:58 AM\tann@x.com", "Ray, Bo\t3/14/24, 10:01 AM\tbo@y.org"); split by tab instead of "|", its column 3 ("Email") holds them: give --delimiter tab.',
    });
  });
  it('a comma file read with --delimiter ";": give --delimiter ","', async () => {
    expect((await refusal('Name,Email\nAnn,ann@x.com\n', { delimiter: ';', column: 'Email' }))!.message).toBe(
      'r.csv has no column named "Email"; split by "," instead of ";", its column 2 ("Email") holds them: give --delimiter ",".',
    );
  });
  it('no delimiter finds it: the hint stays --column', async () => {
    expect(await refusal('Name,Phone\nAnn,1\nBob,2\n')).toEqual({ kind: 'input', message: 'No column of r.csv looks like email addresses; name it with --column NAME or --column N.' });
    expect((await refusal('Name,Email\nAnn,ann@x.com\n', { column: 'Mail' }))!.message).toBe('r.csv has no column named "Mail" (its columns: "Name", "Email").');
    // Split by tab it has a column 3, but one without addresses: no fix to name.
    expect((await refusal('a\tb\tc\nx\ty\tz\n', { delimiter: ',', column: '3' }))!.message).toBe('r.csv has 1 column, so it has no column 3; give --column N with N from 1 to 1.');
  });
});
