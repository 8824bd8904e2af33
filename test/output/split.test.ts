// --split DIR (src/output/split.ts), in runs: the split files hold every record of their status whatever
// --only/--exclude say; a planted link in the folder is refused, never followed nor replaced; a full disk
// leaves -o and every split file as they were (the outputs of a run are put in place together).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { promises as fsp } from 'node:fs';
import { chmod, lstat, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeHome, sandbox, sentItems, writeList, type Home } from '../helpers.js';
import { run } from '../fake-io.js';
import { splitOutputs } from '../../src/output/split.js';
import { openWorkbook } from '../../src/xlsx/reader.js';
import { writeChunk } from '../../src/output/sink.js';
import { commitTogether } from '../../src/output/commit.js';
import type { FormatOptions } from '../../src/output/format.js';
import { onlyOn } from '../platforms.js';

let home: Home;
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await home.cleanup();
});

const LIST = ['ada@example.com', 'bob@mailinator.com', 'cy+news@gmail.com', 'dee@fake.com', 'not-an-address'];
const HEADER = 'email,status\n';
const SPLIT_FILES = ['alias.csv', 'disposable.csv', 'error.csv', 'fake.csv', 'invalid.csv', 'ok.csv', 'quota_exceeded.csv'];

describe('--only / --exclude filter the main output, never the split files', () => {
  for (const filter of [['--only', 'ok'], ['--exclude', 'disposable,fake,alias,invalid']]) {
    it(`${filter.join(' ')}: -o has the ok record alone; every split file has every record of its status`, async () => {
      const dir = join(home.dir, 'split');
      const out = join(home.dir, 'out.csv');
      const r = await run(['emails', await writeList(home, LIST), '--sandbox', '-q', ...filter, '--split', dir, '-o', out]);
      expect(r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
      expect(await readFile(out, 'utf8')).toBe(HEADER + 'ada@example.com,ok\n');
      const files = Object.fromEntries(await Promise.all(SPLIT_FILES.map(async (f) => [f, await readFile(join(dir, f), 'utf8')])));
      expect(files).toEqual({
        'alias.csv': HEADER + 'cy+news@gmail.com,alias\n',
        'disposable.csv': HEADER + 'bob@mailinator.com,disposable\n',
        'error.csv': HEADER,
        'fake.csv': HEADER + 'dee@fake.com,fake\n',
        'invalid.csv': HEADER + 'not-an-address,invalid\n',
        'ok.csv': HEADER + 'ada@example.com,ok\n',
        'quota_exceeded.csv': HEADER,
      });
    });
  }
});

onlyOn('symlinks').describe('a symbolic link planted in the --split folder', () => {
  it('is refused before anything is sent: exit 2, one line; the link and its target stay as they were; no other file is made', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const dir = join(home.dir, 'split');
      await fsp.mkdir(dir);
      const target = join(home.dir, 'theirs.csv');
      await writeFile(target, 'their data\n');
      await chmod(target, 0o666);
      await symlink(target, join(dir, 'ok.csv'));
      const r = await run(['emails', await writeList(home, LIST), '--split', dir, '-o', join(home.dir, 'out.csv')], { env });
      expect(r).toEqual({
        exitCode: 2,
        stdout: '',
        stderr: `idv: Cannot write ${join(dir, 'ok.csv')}: it is a symbolic link (to ${target}); idv neither writes through a link nor replaces one: give the path it leads to, or remove the link.\n`,
      });
      expect(sentItems(sb)).toEqual([]);
      expect(await readdir(dir)).toEqual(['ok.csv']);
      expect(await readlink(join(dir, 'ok.csv'))).toBe(target);
      expect(await readFile(target, 'utf8')).toBe('their data\n');
      expect(((await lstat(target)).mode & 0o777).toString(8)).toBe('666');
      expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp') || n === 'out.csv')).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

describe('the outputs of a run are put in place together or not at all', () => {
  /** Every FileHandle write fails with ENOSPC once `after` bytes have been written in all (a disk filling up). */
  async function diskFullAfter(after: number): Promise<void> {
    const probe = await fsp.open(join(home.dir, '.probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (...a: unknown[]) => Promise<{ bytesWritten: number }> };
    await probe.close();
    await fsp.rm(join(home.dir, '.probe'));
    const real = proto.write;
    let written = 0;
    vi.spyOn(proto, 'write').mockImplementation(async function (this: unknown, ...args: unknown[]) {
      const length = args[2] as number;
      if (written + length > after) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      written += length;
      return real.apply(this, args);
    });
  }

  async function earlierRun(dir: string, out: string): Promise<Map<string, string>> {
    await fsp.mkdir(dir);
    await writeFile(out, 'earlier -o\n');
    await writeFile(join(dir, 'ok.csv'), 'earlier ok\n');
    await writeFile(join(dir, 'fake.csv'), 'earlier fake\n');
    return new Map([
      [out, 'earlier -o\n'],
      [join(dir, 'ok.csv'), 'earlier ok\n'],
      [join(dir, 'fake.csv'), 'earlier fake\n'],
    ]);
  }

  const items = Array.from({ length: 3000 }, (_, i) => `user${i}@example.com`);
  /** What the run writes in all: -o and ok.csv hold every record, the six other split files a header. */
  const total = 2 * (HEADER.length + items.reduce((n, item) => n + `${item},ok\n`.length, 0)) + 6 * HEADER.length;

  // Where the disk fills: as -o streams, in the split files, and only as the last blocks are flushed at the
  // end (the case that replaced -o and half the split folder).
  for (const share of [0.1, 0.6, 0.99]) {
    it(`a disk full after ${share * 100}% of the bytes, with -o and --split: exit 1 naming ENOSPC; every earlier file as it was, no file of this run`, async () => {
      const dir = join(home.dir, 'split');
      const out = join(home.dir, 'out.csv');
      const before = await earlierRun(dir, out);
      const list = await writeList(home, items);
      await diskFullAfter(Math.floor(share * total));
      const r = await run(['emails', list, '--sandbox', '-q', '-o', out, '--split', dir]);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      // Found as the last blocks are flushed, the message says the other outputs were not put in place either.
      expect(r.stderr).toMatch(
        /^idv: Cannot write \S+: no space left on the device \(ENOSPC\); (the previous file is left as it was|nothing was written)(; no other output of this run was put in place either)?; a --sandbox run keeps no results \(and costs nothing\)\.\n$/,
      );
      for (const [path, text] of before) expect([path, await readFile(path, 'utf8')]).toEqual([path, text]);
      expect((await readdir(dir)).sort()).toEqual(['fake.csv', 'ok.csv']);
      expect((await readdir(home.dir)).sort()).toEqual(['list.txt', 'out.csv', 'split']);
    });
  }
});

describe('splitOutputs: one file per status', () => {
  const options: FormatOptions = { column: 'email', keepColumns: false, header: null, delimiter: null };
  const records = (status: string, ...items: string[]) => items.map((item) => ({ item, status, fields: null }));

  for (const [format, ext] of [['csv', '.csv'], ['json', '.json'], ['ndjson', '.ndjson']] as const) {
    it(`in ${format}: each file named status${ext}, every status the command gives one, each holding its records`, async () => {
      const dir = join(home.dir, 'split');
      const split = await splitOutputs(dir, format, options, ['ok', 'fake']);
      const ok = await split.get('ok');
      await ok.sink.write(ok.formatter.records(records('ok', 'ada@example.com')));
      for (const o of split.made()) await o.sink.write(o.formatter.end());
      await commitTogether(split.made().map((o) => o.sink));
      expect((await readdir(dir)).sort()).toEqual([`fake${ext}`, `ok${ext}`]);
      const text = await readFile(join(dir, `ok${ext}`), 'utf8');
      const read = format === 'csv' ? text : format === 'json' ? JSON.parse(text) : text.trim().split('\n').map((l) => JSON.parse(l));
      expect(read).toEqual(format === 'csv' ? HEADER + 'ada@example.com,ok\n' : [{ email: 'ada@example.com', status: 'ok' }]);
    });
  }

  it('in xlsx: each file named status.xlsx, a workbook whose one sheet is named for its status and holds its records', async () => {
    const dir = join(home.dir, 'split');
    const split = await splitOutputs(dir, 'xlsx', options, ['ok', 'fake']);
    const ok = await split.get('ok');
    await writeChunk(ok.sink, ok.formatter.records(records('ok', 'ada@example.com')));
    for (const o of split.made()) await writeChunk(o.sink, o.formatter.end());
    await commitTogether(split.made().map((o) => o.sink));
    expect((await readdir(dir)).sort()).toEqual(['fake.xlsx', 'ok.xlsx']);
    const wb = await openWorkbook(join(dir, 'ok.xlsx'));
    try {
      expect(wb.sheets.map((sh) => sh.name)).toEqual(['ok']);
      const rows: string[][] = [];
      for await (const block of wb.rows(wb.sheet())) rows.push(...block.map((r) => r.map((c) => c.text)));
      expect(rows).toEqual([
        ['email', 'status'],
        ['ada@example.com', 'ok'],
      ]);
    } finally {
      await wb.close();
    }
  });

  it('a --split folder that cannot be made (a file stands in its path): one line naming it and the cause, nothing made', async () => {
    await writeFile(join(home.dir, 'list.csv'), 'a\n');
    const dir = join(home.dir, 'list.csv', 'split');
    await expect(splitOutputs(dir, 'csv', options, ['ok'])).rejects.toMatchObject({
      kind: 'failed',
      message: `Cannot make the --split folder ${dir}: a part of the path is not a folder (ENOTDIR).`,
    });
  });

  it('records of one status arriving in several answers go to the one file; a status the service adds gets its file when first met', async () => {
    const dir = join(home.dir, 'split');
    const split = await splitOutputs(dir, 'csv', options, ['ok']);
    const first = await split.get('ok');
    await first.sink.write(first.formatter.records(records('ok', 'ada@example.com')));
    const again = await split.get('ok');
    expect(again).toBe(first);
    await again.sink.write(again.formatter.records(records('ok', 'bob@example.com')));
    const added = await split.get('risky');
    await added.sink.write(added.formatter.records(records('risky', 'cy@example.com')));
    expect(split.made()).toHaveLength(2);
    await commitTogether(split.made().map((o) => o.sink));
    expect((await readdir(dir)).sort()).toEqual(['ok.csv', 'risky.csv']);
    expect(await readFile(join(dir, 'ok.csv'), 'utf8')).toBe(HEADER + 'ada@example.com,ok\nbob@example.com,ok\n');
    expect(await readFile(join(dir, 'risky.csv'), 'utf8')).toBe(HEADER + 'cy@example.com,risky\n');
  });
});
