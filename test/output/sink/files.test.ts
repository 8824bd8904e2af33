// Sinks (src/output/sink.ts) for a regular file: replaced whole through a temporary file beside it, keeping the
// mode lstat() finds; a write failure names its real cause and leaves the file as it was.
import { describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmod, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { fileSink } from '../../../src/output/sink.js';
import { removeTempFilesNow } from '../../../src/system/temp-files.js';
import { selfMark } from '../../../src/system/process-mark.js';
import { dir, useTestFolder, entries, writeThrough, failure } from './harness.js';
import { onlyOn } from '../../platforms.js';

useTestFolder();

describe('a regular file is replaced whole', () => {
  onlyOn('owners').it('over a 0664 file the new one is 0664 under a 022 umask (the mode is restored after the umask narrowed it)', async () => {
    const path = join(dir, 'out.csv');
    await writeFile(path, 'old\n');
    await chmod(path, 0o664);
    const umask = process.umask(0o022);
    try {
      await writeThrough(fileSink(path), 'email,status\n');
    } finally {
      process.umask(umask);
    }
    expect(await readFile(path, 'utf8')).toBe('email,status\n');
    expect(((await stat(path)).mode & 0o777).toString(8)).toBe('664');
  });

  onlyOn('owners').it('a new file gets the mode the umask gives', async () => {
    const path = join(dir, 'new.csv');
    const umask = process.umask(0o027);
    try {
      await writeThrough(fileSink(path), 'x\n');
    } finally {
      process.umask(umask);
    }
    expect(((await stat(path)).mode & 0o777).toString(8)).toBe('640');
  });

  it('text larger than a block arrives whole and in order', async () => {
    const path = join(dir, 'big.csv');
    const lines = Array.from({ length: 20_000 }, (_, i) => `user${i}@example.com,ok\n`);
    await writeThrough(fileSink(path), ...lines);
    expect(await readFile(path, 'utf8')).toBe(lines.join(''));
    expect(await entries()).toEqual(['big.csv']);
  });

  it('abort leaves the file as it was and no temporary file', async () => {
    const path = join(dir, 'out.csv');
    await writeFile(path, 'old\n');
    const sink = fileSink(path);
    await sink.ready();
    await sink.write('new\n'.repeat(50_000));
    await sink.abort();
    expect(await readFile(path, 'utf8')).toBe('old\n');
    expect(await entries()).toEqual(['out.csv']);
  });
});

describe('a write failure names its real cause and leaves the file as it was', () => {
  /** FileHandle writes fail with `code` once `after` bytes have been written (a disk that fills up). */
  async function failWritesAfter(after: number, code: string): Promise<void> {
    const probe = await fsp.open(join(dir, '.probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (...a: unknown[]) => Promise<{ bytesWritten: number }> };
    await probe.close();
    await rm(join(dir, '.probe'));
    const real = proto.write;
    let written = 0;
    vi.spyOn(proto, 'write').mockImplementation(async function (this: unknown, ...args: unknown[]) {
      const length = args[2] as number;
      if (written + length > after) throw Object.assign(new Error(`${code}: write`), { code });
      written += length;
      return real.apply(this, args);
    });
  }

  for (const [code, words] of [
    ['ENOSPC', 'no space left on the device (ENOSPC)'],
    ['EDQUOT', 'the disk quota is used up (EDQUOT)'],
  ]) {
    it(`${code} as the file is written: the message says so; the old file stays, no .tmp`, async () => {
      const path = join(dir, 'out.csv');
      await writeFile(path, 'old\n');
      await failWritesAfter(100_000, code);
      const sink = fileSink(path);
      await sink.ready();
      const err = await failure((async () => {
        for (let i = 0; i < 10_000; i++) await sink.write('someone@example.com,ok\n');
        await sink.commit();
      })());
      await sink.abort();
      expect(err.message).toBe(`Cannot write ${path}: ${words}; the previous file is left as it was.`);
      expect(await readFile(path, 'utf8')).toBe('old\n');
      expect(await entries()).toEqual(['out.csv']);
    });
  }

  it('a full disk fails the write that meets it, not only the end: the run can stop before it pays for more', async () => {
    const path = join(dir, 'out.csv');
    await failWritesAfter(100_000, 'ENOSPC');
    const sink = fileSink(path);
    await sink.ready();
    let failedAt: number | null = null;
    for (let i = 0; i < 10_000 && failedAt === null; i++) {
      await sink.write('someone@example.com,ok\n').catch((err: Error) => {
        failedAt = i;
        expect(err.message).toBe(`Cannot write ${path}: no space left on the device (ENOSPC); nothing was written.`);
      });
    }
    await sink.abort();
    // the second block of 64 KiB (or just over: whole lines) is the one the disk refuses
    expect(failedAt).toBe(2 * Math.ceil((64 * 1024) / 'someone@example.com,ok\n'.length) - 1);
    expect(await entries()).toEqual([]);
  });

  it('a failure the disk reports only when the file is flushed (a quota over NFS): the same', async () => {
    const path = join(dir, 'out.csv');
    await writeFile(path, 'old\n');
    const probe = await fsp.open(join(dir, '.probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    await rm(join(dir, '.probe'));
    vi.spyOn(proto, 'sync').mockRejectedValue(Object.assign(new Error('EDQUOT'), { code: 'EDQUOT' }));
    const sink = fileSink(path);
    const err = await failure(writeThrough(sink, 'new\n'));
    await sink.abort();
    expect(err.message).toBe(`Cannot write ${path}: the disk quota is used up (EDQUOT); the previous file is left as it was.`);
    expect(await readFile(path, 'utf8')).toBe('old\n');
    expect(await entries()).toEqual(['out.csv']);
  });
});

describe('a replaced file, once in place', () => {
  it('commit() a second time does nothing, and abort() after it leaves the new file in place', async () => {
    const path = join(dir, 'out.csv');
    const sink = fileSink(path);
    await writeThrough(sink, 'new\n');
    await sink.commit();
    await sink.abort();
    expect(await readFile(path, 'utf8')).toBe('new\n');
    expect(await entries()).toEqual(['out.csv']);
  });

  it('a process ending at once (a second Ctrl-C) while the file is written removes its temporary file', async () => {
    const path = join(dir, 'out.csv');
    await writeFile(path, 'old\n');
    const sink = fileSink(path);
    await sink.ready();
    await sink.write('new\n');
    expect((await entries()).length).toBe(2);
    removeTempFilesNow();
    expect(await entries()).toEqual(['out.csv']);
    expect(await readFile(path, 'utf8')).toBe('old\n');
    await sink.abort();
  });
});

describe('a file sink before and after ready()', () => {
  onlyOn('sh').it('once ready, a temporary file a killed run left beside the same output is removed (a live run\'s stays)', async () => {
    const path = join(dir, 'out.csv');
    const self = selfMark()!;
    const ns = self.namespace.replace(/\D/g, '');
    const gone = execFileSync('sh', ['-c', 'echo $$']).toString().trim(); // a process that has ended
    const dead = `.out.csv.${ns}-${gone}-1.abcd1234.tmp`;
    const live = `.out.csv.${ns}-${self.pid}-${self.started}.abcd1234.tmp`;
    await writeFile(join(dir, dead), 'half a list');
    await writeFile(join(dir, live), '');
    const sink = fileSink(path);
    await sink.ready();
    expect(await entries()).not.toContain(dead);
    expect(await entries()).toContain(live);
    await sink.abort();
  });

  onlyOn('devFiles').it('its temporary file (where a workbook is built) is beside the file once ready, none before, none for a device', async () => {
    const path = join(dir, 'out.xlsx');
    const sink = fileSink(path);
    expect(sink.tempPath).toBeUndefined();
    await sink.abort(); // given up before it was opened: nothing to do, no error
    const ready = fileSink(path);
    await ready.ready();
    expect(ready.tempPath).toMatch(/\/\.out\.xlsx\.(\d+-\d+-\d+|x)\.[0-9a-f]{8}\.tmp$/);
    expect(await entries()).toEqual([ready.tempPath!.slice(dir.length + 1)]);
    await ready.abort();
    const device = fileSink('/dev/null');
    await device.ready();
    expect(device.tempPath).toBeUndefined();
    await device.abort();
  });
});

describe('a new file in a folder that does not exist', () => {
  it('refused by ready() in one line, saying nothing was written', async () => {
    const path = join(dir, 'missing', 'out.csv');
    const err = await failure(fileSink(path).ready());
    expect(err).toMatchObject({ kind: 'failed', message: `Cannot write ${path}: no such folder (ENOENT); nothing was written.` });
    expect(await entries()).toEqual([]);
  });
});

describe('a replaced file: its temporary file', () => {
  onlyOn('owners').it('is private from its creation when the file is (never made wider, then narrowed)', async () => {
    const path = join(dir, 'out.csv');
    await writeFile(path, 'old\n');
    await chmod(path, 0o600);
    const probe = await fsp.open(join(dir, '.probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { chmod: () => Promise<void> };
    await probe.close();
    await rm(join(dir, '.probe'));
    vi.spyOn(proto, 'chmod').mockResolvedValue(undefined); // what open() made is what stays
    const umask = process.umask(0o022);
    try {
      const sink = fileSink(path);
      await sink.ready();
      expect(((await stat(sink.tempPath!)).mode & 0o777).toString(8)).toBe('600');
      await sink.abort();
    } finally {
      process.umask(umask);
    }
  });

  it('prepared, then put in place (as outputs are put in place together): the new file, once; no temporary file', async () => {
    const path = join(dir, 'out.csv');
    await writeFile(path, 'old\n');
    const sink = fileSink(path);
    await sink.ready();
    await sink.write('new\n');
    await sink.prepare();
    expect(await readFile(path, 'utf8')).toBe('old\n');
    expect(await readFile(sink.tempPath!, 'utf8')).toBe('new\n');
    await sink.prepare();
    await sink.commit();
    expect(await readFile(path, 'utf8')).toBe('new\n');
    expect(await entries()).toEqual(['out.csv']);
  });

  it('once renamed or removed, is forgotten: a file later at that name is not removed by an ending process nor by abort()', async () => {
    const done = fileSink(join(dir, 'done.csv'));
    await writeThrough(done, 'a\n');
    const given = fileSink(join(dir, 'given.csv'));
    await given.ready();
    await given.abort();
    for (const sink of [done, given]) await writeFile(sink.tempPath!, 'someone else\'s\n');
    await done.abort();
    removeTempFilesNow();
    for (const sink of [done, given]) expect(await readFile(sink.tempPath!, 'utf8')).toBe('someone else\'s\n');
  });
});

describe('what a file sink says before it has looked at its path', () => {
  onlyOn('devFiles').it('a path not yet looked at counts as a file to replace; a device says otherwise once ready', async () => {
    const device = fileSink('/dev/null');
    expect(device.replaces).toBe(true);
    await device.ready();
    expect(device.replaces).toBe(false);
    await device.abort();
  });
});
