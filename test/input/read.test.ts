// Sources to records (src/input/read.ts): CSV records, an input error for a quote never closed, a named file
// read whole and let go, a workbook on disk read through the descriptor it was opened with.
import { describe, expect, it, vi } from 'vitest';
import { Readable } from 'node:stream';
import { copyFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSource } from '../../src/input/read.js';
import type { InputRecord } from '../../src/input/records/record.js';
import { createXlsxWriter, type WriteCell } from '../../src/xlsx/writer.js';
import { sourcesFor } from '../../src/input/sources/list.js';
import type { Io } from '../../src/system/io.js';
import type { Source } from '../../src/input/sources/source.js';
import { fixture } from '../helpers.js';
import { onlyOn } from '../platforms.js';
import { openOn } from '../open-descriptors.js';

describe('openSource', () => {
  const src = (text: string) => ({ name: 'mem', path: 'mem', open: () => Readable.from([Buffer.from(text)]) });
  it('yields CSV records with quoted newlines and skips blank lines', async () => {
    const s = await openSource(src('email,note\r\na@b.com,"x\ny"\r\n\r\n,empty\r\n'), 'emails', {});
    const out = [];
    for await (const batch of s.records) out.push(...batch);
    expect(out).toEqual([
      { value: 'a@b.com', fields: ['a@b.com', 'x\ny'] },
      { value: '', fields: ['', 'empty'] },
    ]);
  });
  it('reports an unterminated quote as an input error: at once when the whole input is in the sample', async () => {
    await expect(openSource(src('email,note\na@b.com,"open\nc@d.com,x\n'), 'emails', {})).rejects.toMatchObject({
      kind: 'input',
      message: 'mem is not well-formed CSV: a quoted cell in the record that starts on line 2 is never closed; if its quotes are text, not CSV quoting, give --no-quotes, else check the file.',
    });
  });
  it('…and while reading when it comes after the sample', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `n${i}@x.com,note ${i}`).join('\n');
    const s = await openSource(src(`email,note\n${rows}\nc@d.com,"open\ne@f.com,x\n`), 'emails', {});
    let read = 0;
    await expect(async () => {
      for await (const b of s.records) read += b.length;
    }).rejects.toMatchObject({ kind: 'input', message: 'mem is not well-formed CSV: a quoted cell in the record that starts on line 5002 is never closed; if its quotes are text, not CSV quoting, give --no-quotes, else check the file.' });
    expect(read).toBe(5000);
  });
});

describe('a row is bounded (--max-row-size): memory goes by records, never by the bytes of one', () => {
  const src = (text: string) => ({ name: 'mem', path: 'mem', open: () => Readable.from(chunks(text)) });
  /** The text in blocks of 64 KiB, as a file is read. */
  function* chunks(text: string) {
    for (let at = 0; at < text.length; at += 65_536) yield Buffer.from(text.slice(at, at + 65_536));
  }
  const MiB = 1024 * 1024;
  async function records(text: string, maxRowSize?: number) {
    const s = await openSource(src(text), 'emails', maxRowSize === undefined ? {} : { maxRowSize });
    const out: string[] = [];
    for await (const batch of s.records) for (const r of batch) out.push(r.value.slice(0, 20));
    return out;
  }
  const tooLong = (line: number, size: string, larger: string) => ({
    kind: 'input',
    message: `mem: line ${line} is longer than ${size}, the most idv holds of one row; if it is meant to be so long, give a larger --max-row-size (e.g. --max-row-size ${larger}).`,
  });

  it('a CSV row longer than the bound is exit 2 naming its line and the flag, whether or not it has quotes; shorter ones are read', async () => {
    const wide = (quote: string) => `email,note\na@example.com,short\nb@example.com,${quote}${'x'.repeat(3 * MiB)}${quote}\nc@example.com,short\n`;
    await expect(records(wide(''), 2 * MiB)).rejects.toMatchObject(tooLong(3, '2 MiB', '8MiB'));
    await expect(records(wide('"'), 2 * MiB)).rejects.toMatchObject(tooLong(3, '2 MiB', '8MiB'));
    expect(await records(wide(''), 4 * MiB)).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
  });

  it('a line of a plain list too, by default past 16 MiB', async () => {
    await expect(records(`a@example.com\nb@example.com ${'x'.repeat(3 * MiB)}\n`, 2 * MiB)).rejects.toMatchObject(tooLong(2, '2 MiB', '8MiB'));
    await expect(records(`a@example.com\n${'y'.repeat(17 * MiB)}\nc@example.com\n`)).rejects.toMatchObject(tooLong(2, '16 MiB', '64MiB'));
  });
});

describe('reading a named file (src/input/read.ts)', () => {
  const fakeIo = { cwd: null, term: { isTerminal: () => false }, stdin: Readable.from([]) } as unknown as Io;

  onlyOn('proc').it('reads every byte of a file larger than a block, in order, and lets the file go at the end or when closed early', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idv-read-'));
    try {
      const lines = Array.from({ length: 20_000 }, (_, i) => `person${i}@example.com`);
      const file = join(dir, 'list.txt');
      writeFileSync(file, lines.join('\n') + '\n'); // ~470 KB: eight blocks
      const [source] = sourcesFor([file], fakeIo);
      const whole = await openSource(source!, 'emails', {});
      const got: string[] = [];
      for await (const block of whole.records) for (const r of block) got.push(r.value);
      expect(got).toEqual(lines);
      expect(openOn(file)).toBe(0);
      // closed after the first block: the file is let go (not left open until the process ends)
      const early = await openSource(sourcesFor([file], fakeIo)[0]!, 'emails', {});
      for await (const block of early.records) {
        expect(block.length).toBeGreaterThan(0);
        expect(openOn(file)).toBe(1);
        break;
      }
      await early.close();
      await vi.waitFor(() => expect(openOn(file)).toBe(0), { timeout: 20_000 }); // fs.close's callback
      // a file that is not there: the reason, named
      await expect(openSource(sourcesFor([join(dir, 'gone.txt')], fakeIo)[0]!, 'emails', {})).rejects.toThrow(/Cannot read .*gone\.txt: no such file\./);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads a workbook on disk through the descriptor it opened, not its path again: renamed once opened, it reads the same', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idv-read-'));
    try {
      const file = join(dir, 'book.xlsx');
      copyFileSync(fixture('workbooks/excel.xlsx'), file);
      const read = async (source: Source) => {
        const opened = await openSource(source, 'emails', {});
        const got: string[] = [];
        for await (const block of opened.records) for (const r of block) got.push(r.value);
        return got;
      };
      const [named] = sourcesFor([file], fakeIo);
      const asNamed = await read(named!);
      expect(asNamed.length).toBeGreaterThan(0);
      // Opened, then renamed away at once: a second open of the path would find nothing there.
      const renamed = { ...named!, open: () => Object.assign(named!.open(), renameSync(file, `${file}.moved`)) };
      expect(await read(renamed)).toEqual(asNamed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a workbook's records carry their cells, as read, in the record's own field", () => {
  const n = (v: number) => ({ type: 'number', text: String(v).padStart(5, '0'), value: v, format: '00000' }) as const;
  const t = (text: string) => ({ type: 'text', text }) as const;
  /** The records of a workbook of these rows under [Name, Email, Zip], read as a workbook output asks (`cellTypes`) or not. */
  const records = async (rows: WriteCell[][], cellTypes: boolean) => {
    const dir = mkdtempSync(join(tmpdir(), 'idv-cells-'));
    try {
      const path = join(dir, 'book.xlsx');
      const w = await createXlsxWriter(path, ['Name', 'Email', 'Zip']);
      for (const row of rows) await w.write(row);
      await w.end();
      const s = await openSource(sourcesFor([path], { stdinIsTTY: false } as Io)[0]!, 'emails', { cellTypes });
      const out: InputRecord[] = [];
      for await (const b of s.records) out.push(...b);
      return out;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('each record its own row: a number with its format, text as text, a title or a short row held past the next as well', async () => {
    // 'a note' is held as a title might be, 'Kim, 7' as a short row (a footer?) is: each a record once Bob's row follows.
    const rows: WriteCell[][] = [['Ada', 'ada@x.com', n(2134)], ['a note'], ['Bob', 'bob@x.com', n(501)], ['Kim', n(7)], ['Cy', 'cy@x.com', n(1)]];
    const out = await records(rows, true);
    expect(out.map((r) => r.fields)).toEqual([['Ada', 'ada@x.com', '02134'], ['a note'], ['Bob', 'bob@x.com', '00501'], ['Kim', '00007'], ['Cy', 'cy@x.com', '00001']]);
    expect(out.map((r) => r.cells)).toEqual([[t('Ada'), t('ada@x.com'), n(2134)], [t('a note')], [t('Bob'), t('bob@x.com'), n(501)], [t('Kim'), n(7)], [t('Cy'), t('cy@x.com'), n(1)]]);
  });

  it('none unless asked (no workbook output), and none for a CSV', async () => {
    expect((await records([['Ada', 'ada@x.com', n(2134)]], false)).map((r) => r.cells)).toEqual([undefined]);
    const csv = await openSource({ name: 'c', path: 'c', open: () => Readable.from([Buffer.from('Name,Email\nAda,ada@x.com\n')]) }, 'emails', { cellTypes: true });
    for await (const b of csv.records) expect(b.map((r) => 'cells' in r)).toEqual([false]);
  });
});
