// What an input's bytes are, by content (src/input/bytes/content.ts): gzip (and zstd where Node has it) read as it
// is decompressed, from a file or standard input, whatever the name; a damaged or cut-short stream is exit 2
// naming the file, never a short read; an OLE2 file named for what it is (a password-protected workbook, an
// .xls, another old Office file).
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { run } from '../../fake-io.js';
import { fixture, sandbox, sandboxForFile, sentItems, type Home } from '../../helpers.js';
import type { Sandbox } from '../../../src/sandbox/server.js';

let home: Home;
let sb: Sandbox;
let env: Record<string, string>;
sandboxForFile({}, (made) => ({ home, sb, env } = made));

async function validate(args: string[], o: Parameters<typeof run>[1] = {}) {
  sb.requests.length = 0;
  const r = await run(['emails', '-q', '--no-cache', ...args], { env, ...o });
  return { ...r, sent: sentItems(sb) };
}

const CSV = 'name,email\nAnn,ann@example.com\nBob,bob@example.org\n';
const OUT = 'email,status\nann@example.com,ok\nbob@example.org,ok\n';

describe('compressed input', () => {
  it('gzip is read as what it holds, from a file whatever its name, and from standard input', async () => {
    const gz = zlib.gzipSync(CSV);
    for (const name of ['list.csv.gz', 'list.csv', 'export']) {
      const f = join(home.dir, name);
      await writeFile(f, gz);
      const r = await validate([f]);
      expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, OUT, '']);
      expect(r.sent).toEqual(['ann@example.com', 'bob@example.org']);
    }
    const piped = await validate([], { input: gz });
    expect([piped.exitCode, piped.stdout]).toEqual([0, OUT]);
  });

  it('gzip of gzip, and gzip files joined one after another (as `cat a.gz b.gz`), are read whole', async () => {
    expect((await validate([], { input: zlib.gzipSync(zlib.gzipSync(CSV)) })).stdout).toBe(OUT);
    const joined = Buffer.concat([zlib.gzipSync('ann@example.com\n'), zlib.gzipSync('bob@example.org\n')]);
    expect((await validate([], { input: joined })).stdout).toBe(OUT);
  });

  it('a text that is not UTF-8 inside gzip is decoded as it would be outside', async () => {
    const latin = Buffer.from('name;email\nJosé Müller;jose@example.com\n', 'latin1');
    const r = await validate(['--keep-columns', '--encoding', 'windows-1252'], { input: zlib.gzipSync(latin) });
    expect(r.stdout).toBe('name;email;status\nJosé Müller;jose@example.com;ok\n');
  });

  it('a gzip cut short is exit 2 naming the file, before anything is sent', async () => {
    const gz = zlib.gzipSync(CSV);
    const f = join(home.dir, 'cut.csv.gz');
    await writeFile(f, gz.subarray(0, gz.length - 12));
    const r = await validate([f]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(`idv: ${f} is a gzip-compressed file that cannot be read to its end: it ends early (the file is cut short); check the file (gzip -t FILE says the same) or copy it again.\n`);
    expect(r.stdout).toBe('');
    expect(r.sent).toEqual([]);
    const piped = await validate([], { input: gz.subarray(0, 20) });
    expect(piped.exitCode).toBe(2);
    expect(piped.stderr).toMatch(/^idv: standard input is a gzip-compressed file that cannot be read to its end: it ends early/);
  });

  it('a gzip whose data is damaged is exit 2 naming the file', async () => {
    const gz = Buffer.from(zlib.gzipSync(CSV));
    gz.fill(0xff, 12, 20);
    const r = await validate([], { input: gz });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^idv: standard input is a gzip-compressed file that cannot be read to its end: its compressed data is damaged \(.+\); check the file \(gzip -t FILE says the same\) or copy it again\.\n$/);
    expect(r.sent).toEqual([]);
  });

  it('cut short far past its first records: exit 2 at the end of what it holds, -o left as it was (never a short read that passes)', async () => {
    const lines = Array.from({ length: 60_000 }, (_, i) => `user${i}@example.com`).join('\n') + '\n';
    const gz = zlib.gzipSync(lines);
    const f = join(home.dir, 'big.txt.gz');
    await writeFile(f, gz.subarray(0, Math.floor(gz.length * 0.8)));
    const out = join(home.dir, 'kept.csv');
    await writeFile(out, 'before\n');
    // A sandbox of its own, without a quota: tens of thousands of items are sent before the end is reached.
    const own = await sandbox({ quota: 0 }, home);
    const r = await run(['emails', '-q', '--no-cache', f, '-o', out], { env: own.env });
    await own.sb.close();
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/is a gzip-compressed file that cannot be read to its end: it ends early/);
    expect(readFileSync(out, 'utf8')).toBe('before\n');
  });

  it('zstd is read on a Node that has it (22.15 and later); on one without it, exit 2 saying so and what to do', async () => {
    const zstd = (zlib as unknown as { zstdCompressSync?: (b: Buffer) => Buffer }).zstdCompressSync;
    if (typeof zstd === 'function') {
      expect((await validate([], { input: zstd(Buffer.from(CSV)) })).stdout).toBe(OUT);
      return;
    }
    const frame = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x05, 0x29, 0x00, 0x00, 0x61, 0x0a]);
    const r = await validate([], { input: frame });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      'idv: standard input is a zstd-compressed file, which this version of Node cannot decompress (Node 22.15 or later can); decompress it first: zstd -dc FILE | idv emails -\n',
    );
  });
});

describe('what compressed input may expand to before its first record', { timeout: 90_000 }, () => {
  const blank = (mib: number) => Buffer.alloc(mib * 1024 * 1024, '\n');
  /** A zip's first bytes, naming `name`, then `mib` MiB of zeros (what a copy would write out). */
  const zipStart = (name: string, mib: number) => Buffer.concat([Buffer.from([0x50, 0x4b, 3, 4]), Buffer.alloc(22), Buffer.from([name.length, 0, 0, 0]), Buffer.from(name), Buffer.alloc(mib * 1024 * 1024)]);
  /** Runs with the temporary folder in the home (TMPDIR; TEMP and TMP on Windows), whose files are then listed. */
  async function withTmp<T>(body: () => Promise<T>): Promise<{ result: T; left: string[] }> {
    const tmp = await mkdtemp(join(home.dir, 'tmp-'));
    const names = ['TMPDIR', 'TEMP', 'TMP'] as const;
    const saved = names.map((n) => process.env[n]);
    for (const n of names) process.env[n] = tmp;
    try {
      return { result: await body(), left: await readdir(tmp) };
    } finally {
      names.forEach((n, i) => (saved[i] === undefined ? delete process.env[n] : (process.env[n] = saved[i])));
    }
  }

  it('more than 100 times its compressed size without a record (blank lines) is exit 2 naming --max-unpacked; given it, the file is read', async () => {
    const f = join(home.dir, 'blank.txt.gz');
    await writeFile(f, zlib.gzipSync(Buffer.concat([blank(20), Buffer.from('ann@example.com\n')])));
    const r = await validate([f]);
    expect([r.exitCode, r.stdout, r.sent]).toEqual([2, '', []]);
    expect(r.stderr).toMatch(
      new RegExp(
        `^idv: ${f} expands to more than 100 times its compressed size before its first record \\(\\d+(\\.\\d)? MiB from \\d+(\\.\\d)? KiB so far\\): ` +
          'a decompression bomb, or little but blank lines; if it is a file you trust, give --max-unpacked SIZE to read up to SIZE of it \\(e\\.g\\. --max-unpacked 4GiB\\)\\.\n$',
      ),
    );
    const trusted = await validate([f, '--max-unpacked', '32MiB']);
    expect([trusted.exitCode, trusted.stdout, trusted.stderr, trusted.sent]).toEqual([0, 'email,status\nann@example.com,ok\n', '', ['ann@example.com']]);
  });

  it('--max-unpacked bounds it whatever the ratio; once a record is read, the rest is read whatever its size', async () => {
    const f = join(home.dir, 'late.txt.gz');
    await writeFile(f, zlib.gzipSync(Buffer.concat([blank(10), Buffer.from('ann@example.com\n')])));
    const r = await validate([f, '--max-unpacked', '8MiB']);
    expect([r.exitCode, r.stderr, r.sent]).toEqual([2, `idv: ${f} expands to more than 8 MiB before its first record; if it is a file you trust, give a larger --max-unpacked (e.g. --max-unpacked 32MiB).\n`, []]);
    const early = join(home.dir, 'early.txt.gz');
    await writeFile(early, zlib.gzipSync(Buffer.concat([Buffer.from('ann@example.com\n'), blank(10), Buffer.from('bob@example.org\n')])));
    const read = await validate([early, '--max-unpacked', '8MiB']);
    expect([read.exitCode, read.stdout, read.sent]).toEqual([0, OUT, ['ann@example.com', 'bob@example.org']]);
  });

  it('a zip inside gzip is refused from its first bytes, never copied out', async () => {
    const { result: r, left } = await withTmp(() => validate([], { input: zlib.gzipSync(zipStart('data/list.txt', 20)) }));
    expect([r.exitCode, r.stdout, r.sent, left]).toEqual([2, '', [], []]);
    expect(r.stderr).toBe(
      'idv: standard input is a zip archive inside gzip compression, not a list or CSV file; decompress and unzip it, and give the list or CSV file inside ' +
        '(a workbook: gzip -dc FILE > book.xlsx, and give book.xlsx).\n',
    );
  });

  it('a compressed workbook past the ratio is refused as its copy grows, and the copy is removed', async () => {
    const { result: r, left } = await withTmp(() => validate([], { input: zlib.gzipSync(zipStart('xl/workbook.xml', 24)) }));
    expect([r.exitCode, r.stdout, r.sent, left]).toEqual([2, '', [], []]);
    expect(r.stderr).toMatch(/^idv: standard input expands to more than 100 times its compressed size before its first record /);
  });

  it('standard input starting with PK (a workbook from a pipe) is copied up to --max-unpacked: past it, exit 2 saying so, the copy removed', async () => {
    const { result: r, left } = await withTmp(() => validate(['--max-unpacked', '4MiB'], { input: zipStart('xl/workbook.xml', 8) }));
    expect([r.exitCode, r.stdout, r.sent, left]).toEqual([2, '', [], []]);
    expect(r.stderr).toBe(
      'idv: standard input is a workbook larger than 4 MiB, which idv would copy to a temporary file to read it (a workbook is read from its end); ' +
        'give it as a file on disk, which is read where it is, or a larger --max-unpacked (e.g. --max-unpacked 16MiB).\n',
    );
  });
});

/** A compound file (OLE2) whose first directory sector holds these entries (name, type: 1 storage, 2 stream, 5 root). */
function compoundFile(entries: Array<[string, number]>): Buffer {
  const header = Buffer.alloc(512);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header);
  header.writeUInt16LE(0x3e, 24); // minor version
  header.writeUInt16LE(3, 26); // major version: 512-byte sectors
  header.writeUInt16LE(0xfffe, 28); // little-endian
  header.writeUInt16LE(9, 30); // sector shift
  header.writeUInt32LE(1, 48); // first directory sector
  const fat = Buffer.alloc(512, 0xff);
  const dir = Buffer.alloc(512);
  entries.forEach(([name, type], i) => {
    const n = Buffer.from(name + '\0', 'utf16le');
    n.copy(dir, i * 128);
    dir.writeUInt16LE(n.length, i * 128 + 64);
    dir[i * 128 + 66] = type;
  });
  return Buffer.concat([header, fat, dir, Buffer.alloc(1024, 0x5a)]);
}

describe('old Office files (OLE2), named for what they are', () => {
  it.each([
    [
      'a password-protected workbook',
      compoundFile([['Root Entry', 5], ['EncryptionInfo', 2], ['EncryptedPackage', 2], ['\u0006DataSpaces', 1]]),
      'is a password-protected (encrypted) workbook, which idv cannot read; in Excel, save a copy without the password (File > Info > Protect Workbook > Encrypt with Password, emptied) and give that file.',
    ],
    [
      'an Excel 97-2003 workbook as LibreOffice writes it',
      readFileSync(fixture('workbooks/libreoffice.xls')),
      'is an Excel 97-2003 workbook (.xls), which idv does not read; save it as an Excel Workbook (.xlsx) or as CSV UTF-8, and give that file.',
    ],
    [
      'a Word 97-2003 document',
      compoundFile([['Root Entry', 5], ['WordDocument', 2], ['1Table', 2]]),
      'is a Word 97-2003 document, not a list or CSV file; copy its addresses into a text file, one a line, and give that file.',
    ],
    ['another compound file', compoundFile([['Root Entry', 5], ['Contents', 2]]), 'is an old Office file (an OLE2 compound file), not a list or CSV file; save it as .xlsx or CSV UTF-8 and give that file.'],
  ])('%s', async (_what, bytes, message) => {
    const f = join(home.dir, 'contacts.xlsx');
    await writeFile(f, bytes);
    const r = await validate([f]);
    expect([r.exitCode, r.stderr, r.stdout]).toEqual([2, `idv: ${f} ${message}\n`, '']);
    expect(r.sent).toEqual([]);
    const piped = await validate([], { input: bytes });
    expect(piped.stderr).toBe(`idv: standard input ${message}\n`);
  });
});
