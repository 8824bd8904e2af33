// Inputs built to hold a run: kilobytes that inflate to gigabytes of blank lines, a workbook whose shared
// strings would take minutes to read, a compressed workbook that would fill the disk when copied. Every phase
// of reading hears a signal: the built idv, sent SIGTERM once it is at work, ends with 143 (the deadline is
// only there to stop a run that would not).
import { execa } from 'execa';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IDV, homeForEachTest, interruptedLine, sandbox } from '../helpers.js';
import { untilBusy } from '../process-wait.js';
import { onlyOn } from '../platforms.js';
import { endlessPart, nestedGzip, repeatedDeflate, repeatedPart, gzipAround, sheetXml, workbookOf } from '../input/packed.js';
import { gzipSync } from 'node:zlib';

const home = homeForEachTest();
const INTERRUPTED = expect.stringMatching(interruptedLine('SIGTERM'));

/** Start the built idv on `args` in the home (its TMPDIR there too). */
async function start(args: string[]) {
  const tmp = join(home.dir, 'tmp');
  await mkdir(tmp, { recursive: true }); // a second run shares the first's
  const env = { ...home.env, TMPDIR: tmp, TEMP: tmp, TMP: tmp }; // the temporary folder on every system
  const child = execa('node', [IDV, 'emails', '--sandbox', ...args], { env, extendEnv: false, reject: false, cwd: home.dir, stdin: 'ignore', forceKillAfterDelay: 20_000, stripFinalNewline: false });
  const ended = async () => {
    const r = await child;
    return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr), tmp: await readdir(tmp) };
  };
  return { child, ended };
}

/** Run the built idv on `args`, send SIGTERM once it has worked a while. */
async function stopped(args: string[]) {
  const { child, ended } = await start(args);
  await untilBusy(child.pid!, 400, 2000, { timeoutMs: 30_000 });
  child.kill('SIGTERM'); // and SIGKILL 20 s later if it is still running: only a run that does not hear it takes that long
  return ended();
}

onlyOn('signals').describe('every phase of reading hears a signal', { timeout: 60_000 }, () => {
  it('skipping the blank lines at the start of a compressed list (gigabytes of newlines from kilobytes)', async () => {
    await writeFile(join(home.dir, 'list.gz'), nestedGzip(Buffer.alloc(1 << 20, '\n'), 40_000));
    const r = await stopped(['list.gz', '--max-unpacked', '1TiB']); // past the ratio a list may unpack to before its first record
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([143, '', INTERRUPTED]);
  });

  it("reading a workbook's shared strings (forty million short texts)", async () => {
    const strings = endlessPart(`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`, '<si><t>a</t></si>'.repeat(65_536), 600, 600 * 65_536 * 17);
    const sheet = sheetXml('<row r="1"><c r="A1" t="s"><v>0</v></c></row>');
    await writeFile(join(home.dir, 'book.xlsx'), workbookOf(sheet, strings));
    const r = await stopped(['book.xlsx']);
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([143, '', INTERRUPTED]);
  });

  it("sampling a workbook's rows (a sheet of millions of empty rows before its first value)", async () => {
    const sheet = endlessPart(`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`, '<row/>'.repeat(65_536), 10_000, 2 ** 32 - 2);
    await writeFile(join(home.dir, 'book.xlsx'), workbookOf(sheet));
    const r = await stopped(['book.xlsx']);
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([143, '', INTERRUPTED]);
  });

  it('detecting the layout of rows of 100,000 addresses each (one column to choose among as many)', async () => {
    const row = (r: number) => Array.from({ length: 100_000 }, (_, i) => `u${r}_${i}@ex.com`).join(',') + '\n';
    await writeFile(join(home.dir, 'wide.csv'), row(1) + row(2));
    const r = await stopped(['wide.csv']);
    expect([r.exitCode, r.stdout, r.stderr.split('\n').slice(-2).join('\n')]).toEqual([143, '', INTERRUPTED]); // after the note of a close choice
  });

  it('copying a compressed workbook to a temporary file: the copy is removed', async () => {
    // A zip's first bytes naming a workbook's part, then gigabytes of zeros, inside gzip inside gzip.
    const inner = gzipAround(Buffer.concat([deflateStored(zipHead('xl/workbook.xml')), repeatedDeflate(Buffer.alloc(1 << 20), 1_500, false)]));
    await writeFile(join(home.dir, 'book.xlsx.gz'), gzipSync(inner, { level: 9 }));
    const r = await stopped(['book.xlsx.gz', '--max-unpacked', '1TiB']);
    expect([r.exitCode, r.stdout, r.stderr, r.tmp]).toEqual([143, '', INTERRUPTED, []]);
  });
});

onlyOn('signals').describe('a run killed outright (kill -9) leaves nothing for good', { timeout: 60_000 }, () => {
  it("its workbook's temporary copy is removed by the next run that copies a workbook", async () => {
    const inner = gzipAround(Buffer.concat([deflateStored(zipHead('xl/workbook.xml')), repeatedDeflate(Buffer.alloc(1 << 20), 1_500, false)]));
    await writeFile(join(home.dir, 'book.xlsx.gz'), gzipSync(inner, { level: 9 }));
    const { child, ended } = await start(['book.xlsx.gz', '--max-unpacked', '1TiB']);
    const tmp = join(home.dir, 'tmp');
    for (const deadline = Date.now() + 30_000; (await readdir(tmp)).length === 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL'); // mid-copy: it copies gigabytes
    const killed = await ended();
    expect([killed.exitCode, killed.tmp]).toEqual([undefined, [expect.stringMatching(/^\.idv-workbook\.xlsx\.[\d-]+\.[0-9a-f]+\.tmp$/)]]);
    await writeFile(join(home.dir, 'small.xlsx.gz'), gzipSync(workbookOf(sheetXml('<row r="1"><c r="A1" t="inlineStr"><is><t>ann@example.com</t></is></c></row>'))));
    const next = await (await start(['small.xlsx.gz'])).ended();
    expect([next.exitCode, next.stdout, next.tmp]).toEqual([0, 'email,status\nann@example.com,ok\n', []]);
  });
});

describe('what an input may unpack before its first record is bounded', () => {
  it('a gzip of a gzip of 3 GB starting as a zip: refused from its first bytes, nothing written to the temporary folder', async () => {
    await writeFile(join(home.dir, 'archive.gz'), gzipSync(gzipAround(Buffer.concat([deflateStored(zipHead('data.bin')), repeatedDeflate(Buffer.alloc(1 << 20), 3_000, false)]))));
    const r = await (await start(['archive.gz'])).ended();
    expect([r.exitCode, r.stdout, r.tmp]).toEqual([2, '', []]);
    expect(r.stderr).toMatch(/^idv: archive\.gz is a zip archive inside gzip compression, not a list or CSV file; /);
  });

  it('a list.gz of a gigabyte of newlines: refused at a hundred times its size, naming --max-unpacked', async () => {
    await writeFile(join(home.dir, 'list.gz'), nestedGzip(Buffer.alloc(1 << 20, '\n'), 1_000));
    const r = await (await start(['list.gz'])).ended();
    expect([r.exitCode, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(/^idv: list\.gz expands to more than 100 times its compressed size before its first record .*--max-unpacked/);
  });
});

/** The built idv run with a heap of 64 MB (V8 ends a process past it with a native stack, SIGABRT). */
function underSmallHeap(args: string[], env: Record<string, string>) {
  return execa('node', [IDV, 'emails', ...args], { env: { ...env, NODE_OPTIONS: '--max-old-space-size=64' }, extendEnv: false, reject: false, cwd: home.dir, stdin: 'ignore', timeout: 100_000 });
}

describe('memory goes by records, not by their bytes', () => {
  it('wide rows under a small heap, the service slow to answer: read as answers make room, never a heap abort', { timeout: 120_000 }, async () => {
    const row = (i: number) => `u${i}@example.com,${Array<string>(500).fill('x'.repeat(4000)).join(',')}\n`;
    await writeFile(join(home.dir, 'wide.csv'), 'email,' + Array.from({ length: 500 }, (_, i) => `c${i}`).join(',') + '\n' + Array.from({ length: 40 }, (_, i) => row(i)).join(''));
    const { sb, env } = await sandbox({ delayMs: 2000 }, home);
    try {
      const r = await underSmallHeap(['-q', 'wide.csv', '-o', 'out.csv'], env);
      expect([r.exitCode, r.signal, String(r.stderr)]).toEqual([0, undefined, '']);
      expect((await readFile(join(home.dir, 'out.csv'), 'utf8')).split('\n').length).toBe(42);
    } finally {
      await sb.close();
    }
  });
});

describe('a workbook of wide rows under a small heap', () => {
  it('the rows its layout is guessed from are bounded by their text too, not only by their number and cells', { timeout: 60_000 }, async () => {
    const row = (r: number) => `<row r="${r}"><c r="A${r}" t="inlineStr"><is><t>u${r}@example.com</t></is></c>${'<c t="s"><v>0</v></c>'.repeat(1000)}</row>`;
    const sheet = sheetXml(Array.from({ length: 20 }, (_, i) => row(i + 1)).join(''));
    await writeFile(join(home.dir, 'wide.xlsx'), workbookOf(sheet, `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>${'x'.repeat(4000)}</t></si></sst>`));
    const r = await underSmallHeap(['wide.xlsx', '--dry-run', '-f', 'json'], home.env);
    expect([r.exitCode, r.signal]).toEqual([0, undefined]);
    expect(JSON.parse(String(r.stdout))).toMatchObject({ records: 20 });
  });
});

describe('one long text under a small heap', () => {
  it('a shared text of 100 million characters in a workbook of 100 KB: refused at 16 MiB as it is read, never gathered whole', { timeout: 60_000 }, async () => {
    const strings = repeatedPart(`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>`, 'x'.repeat(1 << 20), 100, '</t></si></sst>');
    await writeFile(join(home.dir, 'long.xlsx'), workbookOf(sheetXml('<row r="1"><c r="A1" t="s"><v>0</v></c></row>'), strings));
    const r = await underSmallHeap(['long.xlsx', '--dry-run'], home.env);
    expect([r.exitCode, r.signal]).toEqual([2, undefined]);
    expect(String(r.stderr)).toMatch(/^idv: long\.xlsx: a text of its shared strings is longer than 16 MiB, the most idv holds of one row; /);
  });
});

/** A zip's local header naming `name` (the rest of its fields zero). */
function zipHead(name: string): Buffer {
  return Buffer.concat([Buffer.from([0x50, 0x4b, 3, 4]), Buffer.alloc(22), Buffer.from([name.length, 0, 0, 0]), Buffer.from(name)]);
}

/** Bytes as a stored (uncompressed) deflate block that is not the last. */
function deflateStored(bytes: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header[0] = 0; // not final, stored
  header.writeUInt16LE(bytes.length, 1);
  header.writeUInt16LE(~bytes.length & 0xffff, 3);
  return Buffer.concat([header, bytes]);
}
