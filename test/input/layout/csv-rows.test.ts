// CSV rows (src/input/layout/csv-rows.ts): exactly csv-parse's, wherever the blocks are cut, each with its line.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { homeForEachTest } from '../../helpers.js';
import { run } from '../../fake-io.js';

const home = homeForEachTest();
const file = home.file;

describe('CSV rows (lines without a quote split directly, the rest by csv-parse)', () => {
  const texts = [
    'Name,Email\nAnn,ann@x.com\nBob,bob@x.com\n',
    'Name,Email\r\nAnn,ann@x.com\r\n\r\nBob,bob@x.com',
    'a,b\rc,d\re,f\r',
    'a,b\nc,d\r\ne,f\rg,h\n\n\n',
    '"First","Notes"\r\n"Ann","Met at the\r\nSalon"\r\n"Bob",""\r\n"Cy","a ""quoted"" word"\r\n',
    'Name,Note,Email\nAnn,"line one\nline two\n\nline four",ann@x.com\nBob,plain,bob@x.com\nCy,"x",cy@x.com\n',
    'Size,Email\n5" screen,a@x.com\n17" screen,b@x.com\nnone,c@x.com\n',
    'Name,Email\nJo "J" Doe,jo@x.com\n"Bob" Smith,bob@x.com\n',
    'a;b;c\n"x;y";"z\r\nw";v\n1;2;3\n;;\n',
    'a,b\n"multi\rline\rcell",x\ny,z\n',
    'a,b\n"unclosed,x\ny,z\n"closed",w\n',
    'only one line, no end',
    '"a","b"\n"c","d"',
    'x\n"q""q",y\n"r\n""s""\nt",u\nlast,line',
    'a,b\r"1","x\ry"\r"2","z"\r5" tall,w\rplain,v\r"3",""""\r',
    'n,e\n"A","a@x.com"\n"B","b@x.com"\nC,c@x.com\n"D","multi\nline ""with"" quotes\n"\nE,5" x\nF,f\n"G","g"\n',
    'n,e\r\n5" x,a\r\n"B","b\r\nc"\r\n"C",d\r\n',
    'n,e\n"a"b"c,x\n"d,e\nf"\ng,h\n',
  ];
  const chunked = (text: string, seed: number) => {
    const out: string[] = [];
    let s = seed;
    for (let i = 0; i < text.length; ) {
      s = (s * 1103515245 + 12345) >>> 0;
      const n = 1 + (s % 7);
      out.push(text.slice(i, i + n));
      i += n;
    }
    return out;
  };
  async function* blocks(parts: string[]) {
    for (const p of parts) yield p;
  }

  it('gives exactly csv-parse\'s rows, wherever the blocks are cut', async () => {
    const { csvRows } = await import('../../../src/input/layout/csv-rows.js');
    const { parseOptions } = await import('../../../src/input/layout/csv-rows.js');
    const { parse } = await import('csv-parse/sync');
    for (const text of texts) {
      const delimiter = text.startsWith('a;') ? ';' : ',';
      let want: string[][] | string;
      try {
        want = parse(text, parseOptions(delimiter)) as string[][];
      } catch {
        want = 'error';
      }
      for (const parts of [[text], ...Array.from({ length: 25 }, (_, seed) => chunked(text, seed))]) {
        let got: string[][] | string = [];
        try {
          for await (const batch of csvRows(blocks(parts), delimiter, 'f.csv')) got.push(...batch.rows);
        } catch {
          got = 'error';
        }
        expect(got, JSON.stringify(parts)).toEqual(want);
      }
    }
  });

  it('gives exactly csv-parse\'s rows on 3,000 random texts of cells, delimiters, quotes and line ends', async () => {
    const { csvRows } = await import('../../../src/input/layout/csv-rows.js');
    const { parseOptions } = await import('../../../src/input/layout/csv-rows.js');
    const { parse } = await import('csv-parse/sync');
    const alphabet = ['a', 'b', ' ', ',', ',', '"', '"', '""', '\n', '\n', '\r\n', '\r', 'é'];
    let s = 7;
    const next = (n: number) => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0), s % n);
    for (let k = 0; k < 3000; k++) {
      const text = Array.from({ length: 1 + next(40) }, () => alphabet[next(alphabet.length)]).join('');
      let want: string[][] | string;
      try {
        want = parse(text, parseOptions(',')) as string[][];
      } catch {
        want = 'error';
      }
      const parts = chunked(text, k);
      let got: string[][] | string = [];
      try {
        for await (const batch of csvRows(blocks(parts), ',', 'f.csv')) got.push(...batch.rows);
      } catch {
        got = 'error';
      }
      expect(got, JSON.stringify(parts)).toEqual(want);
    }
  });

  it('gives each row the line it starts on (where csv-parse ends it, less the line breaks in its cells), on 1,500 random texts', async () => {
    const { csvRows, parseOptions, rowLineEnds } = await import('../../../src/input/layout/csv-rows.js');
    const { parse } = await import('csv-parse/sync');
    // LF only: csv-parse counts a CRLF inside a quoted cell as two lines.
    const alphabet = ['a', '@', ',', ',', '"', '"', '""', '\n', '\n', '\n', 'x,"5" y'];
    let s = 11;
    const next = (n: number) => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0), s % n);
    for (let k = 0; k < 1500; k++) {
      const text = Array.from({ length: 1 + next(40) }, () => alphabet[next(alphabet.length)]).join('');
      let want: number[];
      try {
        want = (parse(text, { ...parseOptions(','), info: true }) as unknown as { record: string[]; info: { lines: number } }[]).map(
          (r) => r.info.lines - rowLineEnds(r.record),
        );
      } catch {
        continue;
      }
      const got: number[] = [];
      for await (const batch of csvRows(blocks(chunked(text, k)), ',', 'f.csv')) got.push(...batch.lines);
      expect(got, JSON.stringify(text)).toEqual(want);
    }
  });

  it('a row after a stray quote that csv-parse reads as text starts on its own line', async () => {
    const { csvRows } = await import('../../../src/input/layout/csv-rows.js');
    const text = 'id,n\n1,"a,b\n2,x,"5" y\n3,z\n';
    const got: number[] = [];
    for await (const batch of csvRows(blocks([text]), ',', 'f.csv')) got.push(...batch.lines);
    expect(got).toEqual([1, 2, 4]);
  });

  it('a quoted cell longer than 1 MiB (read by csv-parse\'s stream from there on) gives csv-parse\'s rows too', async () => {
    const { csvRows } = await import('../../../src/input/layout/csv-rows.js');
    const { parseOptions } = await import('../../../src/input/layout/csv-rows.js');
    const { parse } = await import('csv-parse/sync');
    const text = 'a,b\n1,2\n"big\n' + 'x,"", y\r\n'.repeat(150_000) + '",3\n4,"5"\r6,7\n';
    const parts = Array.from({ length: Math.ceil(text.length / 65536) }, (_, i) => text.slice(i * 65536, (i + 1) * 65536));
    const got: string[][] = [];
    for await (const batch of csvRows(blocks(parts), ',', 'f.csv')) got.push(...batch.rows);
    expect(got).toEqual(parse(text, parseOptions(',')));
    expect(got.length).toBe(5);
  });

  it('a quote that never closes: one line naming the line its record starts on (exit 2), also past the first block', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => `N${i},n${i}@x.com\n`).join('');
    const f = await file('open.csv', 'Name,Email\n' + rows + 'Ann,"ann@x.com\n' + rows);
    const r = await run(['emails', f, '--sandbox', '-q', '-o', join(home.dir, 'out.csv')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(`idv: ${f} is not well-formed CSV: a quoted cell in the record that starts on line 3002 is never closed; if its quotes are text, not CSV quoting, give --no-quotes, else check the file.\n`);
    // Open for more than 1 MiB: the rest is read by csv-parse's stream, and said the same way.
    const more = Array.from({ length: 60000 }, (_, i) => `N${i},n${i}@x.com\n`).join('');
    const g = await file('open-long.csv', 'Name,Email\n' + rows + 'Ann,"ann@x.com\n' + more);
    const long = await run(['emails', g, '--sandbox', '-q', '-o', join(home.dir, 'out.csv')]);
    expect(long.exitCode).toBe(2);
    expect(long.stderr).toBe(`idv: ${g} is not well-formed CSV: a quoted cell opened on line 3002 or later is never closed; if its quotes are text, not CSV quoting, give --no-quotes, else check the file.\n`);
  });
});
