// The cache log's lines (src/cache/log.ts): `<unix seconds>\t<status>\t<key>\n` read as bytes a range at a time,
// every line of another shape counted as damaged and never read as some key's answer, a torn last line left for
// the next read.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readLines, TORN_LINE_END } from '../../src/cache/log.js';
import { folderPerTest } from './helpers.js';

const dir = folderPerTest('idv-log-');

/** The log `text` read over [from, to): every good line as [key, ts, status], and the range's counts. */
async function read(text: string | Buffer, from = 0, to = Buffer.byteLength(text)) {
  const path = join(dir(), 'x.log');
  await writeFile(path, text);
  const good: Array<[string, number, string]> = [];
  const firsts: Array<[number, number]> = [];
  const range = await readLines(path, from, to, (buf, start, end, ts, status) => good.push([buf.toString('utf8', start, end), ts, status]), (bytes, lines) => firsts.push([bytes, lines]));
  return { good, range, firsts };
}

describe('readLines', () => {
  it('hands each good line over in order, its key as UTF-8, its time and status; comments and blank lines are no lines', async () => {
    const text = '# idv cache v1 https://api.x /emails/validate\n1700000000\tok\tann@x.com\n\n \t \n1700000001\tdisposable\tbücher@x.de\n';
    const r = await read(text);
    expect(r.good).toEqual([
      ['ann@x.com', 1700000000, 'ok'],
      ['bücher@x.de', 1700000001, 'disposable'],
    ]);
    expect(r.range).toEqual({ lines: 2, damaged: 0, end: Buffer.byteLength(text), torn: false });
    expect(r.firsts).toEqual([[r.range.end, 2]]);
  });

  it('a line turned CRLF by an editor is read as it was', async () => {
    expect((await read('1\tok\ta@x.com\r\n2\tfake\tb@x.com\r\n')).good).toEqual([
      ['a@x.com', 1, 'ok'],
      ['b@x.com', 2, 'fake'],
    ]);
  });

  it.each([
    ['a time that is not digits', '17e9\tok\ta@x.com'],
    ['a time of 14 digits', '12345678901234\tok\ta@x.com'],
    ['no time', '\tok\ta@x.com'],
    ['no tab after the status', '1\tok a@x.com'],
    ['no key', '1\tok\t'],
    ['a status that is no plain word', '1\to k!\ta@x.com'],
    ['a status of 41 characters', `1\t${'s'.repeat(41)}\ta@x.com`],
    ['a key holding a space', '1\tok\tann @x.com'],
    ['a key holding a tab (a torn line ended by TORN_LINE_END, then another line)', `1\tok\tann@exam${TORN_LINE_END.slice(0, -1)}`],
    ['garbage', 'garbage \u0000\u00ff line'],
  ])('%s: a damaged line, no answer for any key; the lines around it read', async (_, line) => {
    const r = await read(`1\tok\tfirst@x.com\n${line}\n2\tok\tlast@x.com\n`);
    expect(r.good.map(([k]) => k)).toEqual(['first@x.com', 'last@x.com']);
    expect(r.range).toMatchObject({ lines: 3, damaged: 1, torn: false });
  });

  it('a torn last line (no line break after it) is damaged, and the range ends before it: the next read starts there', async () => {
    const text = '1\tok\ta@x.com\n2\tok\tb@exam';
    const r = await read(text);
    expect(r.good.map(([k]) => k)).toEqual(['a@x.com']);
    expect(r.range).toEqual({ lines: 1, damaged: 1, end: '1\tok\ta@x.com\n'.length, torn: true });
    // Finished by the writer: read from where the range ended, the line is whole.
    const more = await read(text + 'ple.com\n', r.range.end);
    expect(more.good).toEqual([['b@example.com', 2, 'ok']]);
    expect(more.range).toEqual({ lines: 1, damaged: 0, end: text.length + 'ple.com\n'.length, torn: false });
  });

  it('reads only [from, to): a middle range gives its own lines, and an empty range nothing', async () => {
    const lines = ['1\tok\ta@x.com\n', '2\tok\tb@x.com\n', '3\tok\tc@x.com\n'];
    const from = lines[0]!.length;
    const r = await read(lines.join(''), from, from + lines[1]!.length);
    expect(r.good).toEqual([['b@x.com', 2, 'ok']]);
    expect(r.range.end).toBe(from + lines[1]!.length);
    expect(await read(lines.join(''), 5, 5)).toEqual({ good: [], range: { lines: 0, damaged: 0, end: 5, torn: false }, firsts: [] });
  });

  it('a log of many blocks: every line once, in order, the first block told once (its bytes and lines)', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => `${1_700_000_000 + i}\t${i % 3 ? 'ok' : 'fake'}\tuser${i}@example.com\n`);
    const r = await read(lines.join(''));
    expect(r.good).toHaveLength(30_000);
    expect(r.good[29_999]).toEqual(['user29999@example.com', 1_700_029_999, 'ok']);
    expect(r.firsts).toHaveLength(1);
    const [bytes, count] = r.firsts[0]!;
    expect(bytes).toBe(lines.slice(0, count).join('').length); // whole lines only
    expect(bytes).toBeLessThanOrEqual(256 * 1024);
  });

  it('any mix of good and damaged lines: the good ones exactly, in order, and each other one counted damaged (property)', async () => {
    const key = fc.stringMatching(/^[a-z0-9.@ü+-]{1,20}$/);
    const good = fc.tuple(fc.nat(2_000_000_000), fc.constantFrom('ok', 'fake', 'disposable', 'alias', 'new_status-2'), key).map(([ts, status, k]) => ({ ok: true as const, ts, status, k, text: `${ts}\t${status}\t${k}` }));
    const bad = fc.constantFrom('x\tok\ta@x.com', '1\tok', '1\t\ta@x.com', '1\tok\ta b', '1\tok ok\ta@x.com', '99999999999999\tok\ta@x.com').map((text) => ({ ok: false as const, text }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(good, bad), { maxLength: 60 }), fc.boolean(), async (entries, crlf) => {
        const r = await read(entries.map((e) => e.text + (crlf ? '\r\n' : '\n')).join(''));
        expect(r.good).toEqual(entries.flatMap((e) => (e.ok ? [[e.k, e.ts, e.status]] : [])));
        expect(r.range).toMatchObject({ lines: entries.length, damaged: entries.filter((e) => !e.ok).length, torn: false });
      }),
      { seed: 20261128, numRuns: 200 },
    );
  });
});
