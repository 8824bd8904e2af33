// Sources to records (src/input/read.ts): CSV records, an input error for a quote never closed, a named file
// read whole and let go.
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSource, sourcesFor } from '../../src/input/read.js';
import type { Io } from '../../src/io.js';

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
  it('reports an unterminated quote as an input error', async () => {
    const s = await openSource(src('email,note\na@b.com,"open\nc@d.com,x\n'), 'emails', {});
    await expect(async () => {
      for await (const _ of s.records) void _;
    }).rejects.toMatchObject({ kind: 'input' });
  });
});

describe('reading a named file (src/input/read.ts)', () => {
  const openFds = () => readdirSync('/proc/self/fd').length;
  const fakeIo = { cwd: null, stdinIsTTY: false, stdin: Readable.from([]) } as unknown as Io;

  it('reads every byte of a file larger than a block, in order, and lets the file go at the end or when closed early', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idv-read-'));
    try {
      const lines = Array.from({ length: 20_000 }, (_, i) => `person${i}@example.com`);
      const file = join(dir, 'list.txt');
      writeFileSync(file, lines.join('\n') + '\n'); // ~470 KB: eight blocks
      const before = openFds();
      const [source] = sourcesFor([file], fakeIo);
      const whole = await openSource(source!, 'emails', {});
      const got: string[] = [];
      for await (const block of whole.records) for (const r of block) got.push(r.value);
      expect(got).toEqual(lines);
      expect(openFds()).toBe(before);
      // closed after the first block: the file is let go (not left open until the process ends)
      const early = await openSource(sourcesFor([file], fakeIo)[0]!, 'emails', {});
      for await (const block of early.records) {
        expect(block.length).toBeGreaterThan(0);
        break;
      }
      await early.close();
      await new Promise((r) => setTimeout(r, 50)); // fs.close's callback
      expect(openFds()).toBe(before);
      // a file that is not there: the reason, named
      await expect(openSource(sourcesFor([join(dir, 'gone.txt')], fakeIo)[0]!, 'emails', {})).rejects.toThrow(/Cannot read .*gone\.txt: no such file\./);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
