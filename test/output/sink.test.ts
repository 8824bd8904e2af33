// Sinks (src/output/sink.ts): what a path the user named becomes. A regular file is replaced whole, keeping
// the mode and owner lstat() finds; a character device, a FIFO or a descriptor path is written in place and
// stays what it was; a symbolic link is refused and left alone; a write failure names its real cause.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import fs, { promises as fsp, closeSync, constants as C, createReadStream, openSync, writeSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { spawn } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import { fileSink, isStdout, outputSink, stdoutSink, writeChunk, type Sink } from '../../src/output/sink.js';
import { removeTempFilesNow } from '../../src/temp-files.js';
import { selfMark } from '../../src/process-mark.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-sink-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  syncBuiltinESMExports(); // node:fs's named exports (the sinks' write) are the real ones again
  await rm(dir, { recursive: true, force: true });
});

const isRoot = process.getuid?.() === 0;
const entries = async () => (await readdir(dir)).sort();

async function writeThrough(sink: Sink, ...texts: string[]): Promise<void> {
  await sink.ready();
  for (const t of texts) await sink.write(t);
  await sink.commit();
}

/** The error a promise rejects with. */
async function failure(p: Promise<unknown>): Promise<Error & { kind?: string }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { kind?: string };
  }
  throw new Error('it did not fail');
}

describe('a regular file is replaced whole', () => {
  it('over a 0664 file the new one is 0664 under a 022 umask (the mode is restored after the umask narrowed it)', async () => {
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

  it('a new file gets the mode the umask gives', async () => {
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

describe('a symbolic link is refused, never replaced nor written through', () => {
  it('-o a link to a file: refused at ready(); the link, its target and the folder are as they were', async () => {
    const target = join(dir, 'victim.txt');
    await writeFile(target, 'theirs\n');
    await chmod(target, 0o600);
    const link = join(dir, 'out.csv');
    await symlink(target, link);
    const sink = fileSink(link);
    const err = await failure(sink.ready());
    await sink.abort();
    expect(err).toMatchObject({ kind: 'failed' });
    expect(err.message).toBe(
      `Cannot write ${link}: it is a symbolic link (to ${target}); idv neither writes through a link nor replaces one: give the path it leads to, or remove the link.`,
    );
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(target);
    expect(await readFile(target, 'utf8')).toBe('theirs\n');
    expect(await entries()).toEqual(['out.csv', 'victim.txt']);
  });

  it('a link to /proc/self/fd/1 and a dangling link: refused the same way, left in place', async () => {
    for (const to of ['/proc/self/fd/1', join(dir, 'nowhere')]) {
      const link = join(dir, `link-${to.length}`);
      await symlink(to, link);
      const err = await failure(fileSink(link).ready());
      expect(err.message).toMatch(/: it is a symbolic link \(to .*\); idv neither writes through a link nor replaces one/);
      expect(await readlink(link)).toBe(to);
    }
  });
});

describe('devices, FIFOs and standard output are written in place', () => {
  /** A character device node in the test folder (root), or the system's own (then only written, never replaced). */
  function device(name: 'null' | 'full'): string {
    if (!isRoot) return `/dev/${name}`;
    const path = join(dir, name);
    execFileSync('mknod', ['-m', '666', path, 'c', '1', name === 'null' ? '3' : '7']);
    return path;
  }

  it('a character device (a null device): written, and still the same device after; no temporary file', async () => {
    const path = device('null');
    const before = await lstat(path);
    const sink = fileSink(path);
    await writeThrough(sink, 'email,status\n', 'a@example.com,ok\n');
    const after = await lstat(path);
    expect(after.isCharacterDevice()).toBe(true);
    expect([after.rdev, after.ino, after.mode, after.uid]).toEqual([before.rdev, before.ino, before.mode, before.uid]);
    expect(sink.replaces).toBe(false);
    if (isRoot) expect(await entries()).toEqual(['null']);
  });

  it('a full device: the real cause, ENOSPC, in one line; the device stays', async () => {
    const path = device('full');
    const sink = fileSink(path);
    const err = await failure(writeThrough(sink, 'email,status\n'));
    await sink.abort();
    expect(err.message).toBe(`Cannot write ${path}: no space left on the device (ENOSPC).`);
    expect((await lstat(path)).isCharacterDevice()).toBe(true);
  });

  // The FIFO tests give their sinks a signal, as a run does: with one, a FIFO whose reader's open() is still on
  // its way is tried again (without one, ENXIO at once), and a loaded machine made that race fail them.
  it('a FIFO: its reader gets every byte, and it is still a FIFO', async () => {
    const path = join(dir, 'pipe');
    execFileSync('mkfifo', [path]);
    const chunks: Buffer[] = [];
    const reader = new Promise<string>((resolve, reject) => {
      const s = createReadStream(path);
      s.on('data', (c) => chunks.push(c as Buffer));
      s.on('end', () => resolve(Buffer.concat(chunks).toString()));
      s.on('error', reject);
    });
    const text = Array.from({ length: 30_000 }, (_, i) => `user${i}@example.com,ok\n`);
    await writeThrough(fileSink(path, new AbortController().signal), ...text);
    expect(await reader).toBe(text.join(''));
    expect((await lstat(path)).isFIFO()).toBe(true);
    expect(await entries()).toEqual(['pipe']);
  });

  it('a FIFO nobody reads: ready() waits, and a signal ends the wait at once (interrupted, not an error)', async () => {
    const path = join(dir, 'pipe');
    execFileSync('mkfifo', [path]);
    const stop = new AbortController();
    const sink = fileSink(path, stop.signal);
    const ready = sink.ready();
    let settled = false;
    ready.then(() => (settled = true), () => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);
    const t0 = Date.now();
    stop.abort('SIGTERM');
    const err = await failure(ready);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(err).toMatchObject({ kind: 'interrupted', signal: 'SIGTERM' });
    expect((await lstat(path)).isFIFO()).toBe(true);
  });

  it('-o -, /dev/stdout, /dev/fd/1 and /proc/self/fd/1 are standard output itself', async () => {
    for (const given of ['-', '/dev/stdout', '/dev/fd/1', '/proc/self/fd/1']) {
      const out = new PassThrough();
      let text = '';
      out.on('data', (c) => (text += c));
      const sink = outputSink(given, { stdout: out, signal: new AbortController().signal, cwd: dir });
      await writeThrough(sink, 'email,status\n');
      expect([given, text, sink.name]).toEqual([given, 'email,status\n', 'standard output']);
    }
    expect(await entries()).toEqual([]);
  });
});

describe('which output is standard output', () => {
  it('none, "-", and the paths that name descriptor 1; not other descriptors, nor paths that merely end like them', () => {
    const rows: Array<[string | undefined, boolean]> = [
      [undefined, true],
      ['-', true],
      ['/dev/stdout', true],
      ['/dev/fd/1', true],
      ['/proc/self/fd/1', true],
      ['/dev/stderr', false],
      ['/dev/fd/10', false],
      ['/proc/self/fd/12', false],
      ['out.csv', false],
      ['dev/stdout', false], // relative: a file in ./dev
      ['/dev/stdout.csv', false],
    ];
    expect(rows.map(([given]) => [given, isStdout(given, '/home/u')])).toEqual(rows);
  });
});

/** A standard output that keeps each block it is handed, as it is handed. */
function recordingStdout() {
  const blocks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      blocks.push(chunk.toString('latin1'));
      cb();
    },
  });
  return { stream, blocks };
}

describe('standard output is written in blocks', () => {
  it('small writes are gathered into one block, handed over when the output is put in place', async () => {
    const { stream, blocks } = recordingStdout();
    const sink = outputSink(undefined, { stdout: stream, signal: new AbortController().signal, cwd: null });
    await sink.write('email,status\n');
    await sink.write('a@example.com,ok\n');
    expect(blocks).toEqual([]);
    await sink.commit();
    expect(blocks).toEqual(['email,status\na@example.com,ok\n']);
  });

  it('a block goes as soon as it holds 64 KiB, not a byte before', async () => {
    const { stream, blocks } = recordingStdout();
    const sink = stdoutSink(stream);
    await sink.write('x'.repeat(64 * 1024 - 1));
    expect(blocks).toEqual([]);
    await sink.write('y');
    expect(blocks.map((b) => b.length)).toEqual([64 * 1024]);
    await sink.write('z');
    await sink.prepare();
    expect(blocks.map((b) => b.length)).toEqual([64 * 1024, 1]);
  });

  it('text held 250 ms goes out with the next write, however little (a reader gone, `| head`, is found early)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const { stream, blocks } = recordingStdout();
      const sink = stdoutSink(stream);
      await sink.write('email,status\n');
      vi.advanceTimersByTime(249);
      await sink.write('a@example.com,ok\n');
      expect(blocks).toEqual([]);
      vi.advanceTimersByTime(1);
      await sink.write('b@example.com,ok\n');
      expect(blocks).toEqual(['email,status\na@example.com,ok\nb@example.com,ok\n']);
      await sink.write('c@example.com,ok\n');
      expect(blocks).toHaveLength(1);
      // Held since its own first write, not since the sink was made: a header written late (a run stopped
      // before any record) is not sent at once, and an aborted output leaves nothing behind.
      const late = recordingStdout();
      const lateSink = stdoutSink(late.stream);
      vi.advanceTimersByTime(5000);
      await lateSink.write('email,status\n');
      expect(late.blocks).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('live (a stream read as it comes): each write goes at once', async () => {
    const { stream, blocks } = recordingStdout();
    const sink = stdoutSink(stream, undefined, true);
    await sink.write('email,status\n');
    await sink.write('a@example.com,ok\n');
    expect(blocks).toEqual(['email,status\n', 'a@example.com,ok\n']);
  });

  it('bytes (a workbook) go after the text before them, as they are', async () => {
    const { stream, blocks } = recordingStdout();
    const sink = stdoutSink(stream);
    await sink.write('abc');
    await sink.write(new Uint8Array([0x50, 0x4b, 0x03, 0x04]));
    await sink.write('def');
    await sink.prepare();
    expect(blocks).toEqual(['abc', 'PK\x03\x04', 'def']);
  });

  it('a reader that went away (EPIPE) is no error: the sink says it is closed, and nothing more is handed over', async () => {
    let handed = 0;
    const stream = new Writable({
      write(_chunk, _enc, cb) {
        handed++;
        cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const sink = stdoutSink(stream, undefined, true);
    expect(sink.closed).toBe(false);
    await sink.write('a\n');
    await new Promise((r) => setImmediate(r));
    expect(sink.closed).toBe(true);
    await sink.write('b\n');
    await sink.write(new Uint8Array([1, 2]));
    await sink.commit();
    expect(handed).toBe(1);
  });

  it('a standard output that fails for another reason (a full disk) is an error in one line, at the write and at the end', async () => {
    const stream = new Writable({
      write(_chunk, _enc, cb) {
        cb(Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' }));
      },
    });
    const sink = stdoutSink(stream, undefined, true);
    await sink.write('a\n').catch(() => undefined);
    await new Promise((r) => setImmediate(r));
    expect(sink.closed).toBe(false);
    const message = 'Cannot write to standard output: no space left on the device (ENOSPC).';
    await expect(sink.write('b\n')).rejects.toMatchObject({ kind: 'failed', message });
    await expect(sink.commit()).rejects.toMatchObject({ kind: 'failed', message });
  });

  it('a reader that stops reading holds no stopped run: the signal ends the wait for it to drain', async () => {
    const stream = new Writable({ highWaterMark: 1, write: () => undefined }); // never reads
    const ac = new AbortController();
    const sink = stdoutSink(stream, ac.signal, true);
    let done = false;
    const p = sink.write('a\n').then(() => (done = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(done).toBe(false);
    ac.abort();
    await p;
    expect(done).toBe(true);
    await sink.write('b\n'); // the run is stopping: no wait at all
  });

  it('a reader that closes while idv waits for it to drain ends the wait', async () => {
    const stream = new Writable({ highWaterMark: 1, write: () => undefined });
    const ac = new AbortController();
    const sink = stdoutSink(stream, ac.signal, true);
    const errorListeners = stream.listenerCount('error');
    const p = sink.write('a\n');
    await new Promise((r) => setTimeout(r, 10));
    stream.destroy();
    await p;
    // the wait's listeners are gone with it: a long run waits thousands of times
    expect([stream.listenerCount('drain'), stream.listenerCount('close'), stream.listenerCount('error')]).toEqual([0, 0, errorListeners]);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });
});

describe('what cannot be written is refused by ready(), in one line', () => {
  it('a folder', async () => {
    const err = await failure(fileSink(dir).ready());
    expect(err).toMatchObject({ kind: 'failed', message: `Cannot write ${dir}: it is a folder (EISDIR); give a file name.` });
  });

  it('a socket', async () => {
    const path = join(dir, 'sock');
    const server = createServer();
    await new Promise<void>((r) => server.listen(path, r));
    try {
      const err = await failure(fileSink(path).ready());
      expect(err).toMatchObject({ kind: 'failed', message: `Cannot write ${path}: it is a socket; give a file, a character device or a FIFO.` });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('a path through a file (a file where a folder should be): the cause, and nothing made', async () => {
    await writeFile(join(dir, 'list.csv'), 'a\n');
    const path = join(dir, 'list.csv', 'out.csv');
    const err = await failure(fileSink(path).ready());
    expect(err).toMatchObject({ kind: 'failed', message: `Cannot write ${path}: a part of the path is not a folder (ENOTDIR).` });
    expect(await entries()).toEqual(['list.csv']);
  });

  it('a link named like a descriptor path (…/dev/stdout) is a link all the same: refused, its target untouched', async () => {
    await fsp.mkdir(join(dir, 'dev'));
    await writeFile(join(dir, 'target.csv'), 'kept\n');
    await symlink(join(dir, 'target.csv'), join(dir, 'dev', 'stdout'));
    const err = await failure(fileSink(join(dir, 'dev', 'stdout')).ready());
    expect(err.message).toMatch(/: it is a symbolic link \(to .*target\.csv\); idv neither writes through a link nor replaces one/);
    expect(await readFile(join(dir, 'target.csv'), 'utf8')).toBe('kept\n');
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

describe('devices and FIFOs: nothing lost, nothing left open', () => {
  /** Descriptors of this process open on `path`. */
  async function openOn(path: string): Promise<number> {
    const fds = await readdir('/proc/self/fd');
    const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
    return targets.filter((t) => t === path).length;
  }

  it('a device written and put in place, or given up, keeps no descriptor open', async () => {
    const path = isRoot ? join(dir, 'null') : '/dev/null';
    if (isRoot) execFileSync('mknod', ['-m', '666', path, 'c', '1', '3']);
    const before = await openOn(path);
    const done = fileSink(path);
    await writeThrough(done, 'a\n');
    expect(await openOn(path)).toBe(before);
    const given = fileSink(path);
    await given.ready();
    await given.write('a\n');
    expect(await openOn(path)).toBe(before + 1);
    await given.abort();
    expect(await openOn(path)).toBe(before);
  });

  it('a FIFO with a slow reader gets the last records too (the end waits for them to be handed over)', async () => {
    const path = join(dir, 'pipe');
    execFileSync('mkfifo', [path]);
    const chunks: Buffer[] = [];
    const reader = new Promise<string>((resolve, reject) => {
      const s = createReadStream(path, { highWaterMark: 4096 });
      s.on('data', (c) => {
        chunks.push(c as Buffer);
        s.pause();
        setTimeout(() => s.resume(), 1);
      });
      s.on('end', () => resolve(Buffer.concat(chunks).toString()));
      s.on('error', reject);
    });
    // Two full blocks, then a last one small enough to be taken without waiting: it must still arrive.
    const text = Array.from({ length: 4_099 }, (_, i) => `user${String(i).padStart(12, '0')}@example.com,ok\n`);
    expect(text.join('').length).toBe(2 * 64 * 1024 + 96);
    await writeThrough(fileSink(path, new AbortController().signal), ...text);
    expect(await reader).toBe(text.join(''));
  });
});

describe('a file sink before and after ready()', () => {
  it('once ready, a temporary file a killed run left beside the same output is removed (a live run\'s stays)', async () => {
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

  it('its temporary file (where a workbook is built) is beside the file once ready, none before, none for a device', async () => {
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

describe('a device that fails', () => {
  it('a full device: gathered writes fail when the output is put in place; live ones at once', async () => {
    const gathered = fileSink('/dev/full');
    await gathered.ready();
    await gathered.write('a\n');
    await expect(gathered.commit()).rejects.toMatchObject({ kind: 'failed', message: 'Cannot write /dev/full: no space left on the device (ENOSPC).' });
    await gathered.abort();
    const live = fileSink('/dev/full', undefined, true);
    await live.ready();
    await expect(live.write('a\n')).rejects.toMatchObject({ kind: 'failed', message: 'Cannot write /dev/full: no space left on the device (ENOSPC).' });
    await live.abort();
  });

  it.runIf(isRoot)('a device with no driver behind it: one line naming the cause, no signal needed', async () => {
    const path = join(dir, 'nodriver');
    execFileSync('mknod', ['-m', '666', path, 'c', '240', '0']);
    const err = await failure(fileSink(path).ready());
    expect(err).toMatchObject({ kind: 'failed', message: `Cannot write ${path}: no such device or address (ENXIO).` });
    expect((await lstat(path)).isCharacterDevice()).toBe(true);
  });
});

describe('what a sink says of itself', () => {
  it('only standard output is closed by its reader, and only a replaced file counts as replaced', async () => {
    const file = fileSink(join(dir, 'out.csv'));
    await writeThrough(file, 'a\n');
    const device = fileSink('/dev/null');
    await writeThrough(device, 'a\n');
    const stdout = stdoutSink(new PassThrough());
    expect([file.closed, file.replaces, device.closed, device.replaces, stdout.closed, stdout.replaces]).toEqual([false, true, false, false, false, false]);
  });

  it('a workbook\'s rows handed to a text sink: an error naming the sink, nothing written', async () => {
    const { stream, blocks } = recordingStdout();
    const sink = stdoutSink(stream, undefined, true);
    expect(() => writeChunk(sink, { rows: [] } as never)).toThrow('standard output takes no workbook rows');
    expect(blocks).toEqual([]);
  });
});

describe('descriptor paths are written in place, through to what they name', () => {
  for (const form of ['/dev/fd/', '/proc/self/fd/']) {
    it(`${form}N for a descriptor the caller opened (N of two digits or more)`, async () => {
      const target = join(dir, 'target.csv');
      const fds = Array.from({ length: 12 }, () => openSync(target, 'w')); // the last one numbered 10 or more
      const fd = fds.at(-1)!;
      try {
        expect(fd).toBeGreaterThanOrEqual(10);
        const sink = fileSink(`${form}${fd}`);
        await writeThrough(sink, 'email,status\n');
        expect(sink.replaces).toBe(false);
        expect(await readFile(target, 'utf8')).toBe('email,status\n');
        expect(await entries()).toEqual(['target.csv']);
      } finally {
        for (const f of fds) closeSync(f);
      }
    });
  }
});

describe('a new file in a folder that does not exist', () => {
  it('refused by ready() in one line, saying nothing was written', async () => {
    const path = join(dir, 'missing', 'out.csv');
    const err = await failure(fileSink(path).ready());
    expect(err).toMatchObject({ kind: 'failed', message: `Cannot write ${path}: no such folder (ENOENT); nothing was written.` });
    expect(await entries()).toEqual([]);
  });
});

describe('a path that changes as it is opened', () => {
  it('a device when looked at, a regular file when opened: refused in one line, the file untouched', async () => {
    const path = join(dir, 'out.csv');
    await writeFile(path, 'kept\n');
    const realLstat = fsp.lstat.bind(fsp);
    vi.spyOn(fsp, 'lstat').mockImplementation(((p: string) => realLstat(p === path ? '/dev/null' : p)) as typeof fsp.lstat);
    const err = await failure(fileSink(path).ready());
    expect(err).toMatchObject({ kind: 'failed', message: `Cannot write ${path}: it changed as it was opened.` });
    expect(await readFile(path, 'utf8')).toBe('kept\n');
  });

  it('a FIFO given up while its reader waits: the reader is let go (its end comes: the write end is closed)', async () => {
    const path = join(dir, 'pipe');
    execFileSync('mkfifo', [path]);
    let ended = false;
    const reader = createReadStream(path);
    reader.on('data', () => undefined);
    const end = new Promise<void>((r) => reader.on('close', () => r(void (ended = true))));
    const sink = fileSink(path, new AbortController().signal);
    await sink.ready();
    await sink.write('a\n');
    await sink.abort();
    await Promise.race([end, new Promise((r) => setTimeout(r, 2000))]);
    expect(ended).toBe(true);
  });
});

describe('every byte arrives through short writes and a device not yet ready', () => {
  /** node:fs write(), as the sinks import it, replaced by `impl` (given the real one) until the test ends. */
  function replaceFsWrite(impl: (real: typeof fs.write, ...args: unknown[]) => void): void {
    const real = fs.write;
    vi.spyOn(fs, 'write').mockImplementation(((...args: unknown[]) => impl(real, ...args)) as typeof fs.write);
    syncBuiltinESMExports();
  }

  /** A descriptor path (written in place, through plain writes to the descriptor) to a file the test reads back. */
  async function throughDescriptor(run: (path: string) => Promise<void>): Promise<string> {
    const target = join(dir, 'target.csv');
    const fd = openSync(target, 'w');
    try {
      await run(`/dev/fd/${fd}`);
    } finally {
      closeSync(fd);
    }
    return readFile(target, 'utf8');
  }

  const text = Array.from({ length: 300 }, (_, i) => `user${i}@example.com,ok\n`).join('');

  it('a file whose writes take at most 1000 bytes each: the rest is written after, in order', async () => {
    const probe = await fsp.open(join(dir, '.probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (...a: unknown[]) => Promise<{ bytesWritten: number }> };
    await probe.close();
    await rm(join(dir, '.probe'));
    const real = proto.write;
    vi.spyOn(proto, 'write').mockImplementation(function (this: unknown, buf: unknown, offset: unknown, length: unknown, position: unknown) {
      return real.call(this, buf, offset, Math.min(length as number, 1000), position);
    });
    const path = join(dir, 'out.csv');
    await writeThrough(fileSink(path), text);
    expect(text.length).toBeGreaterThan(5000);
    expect(await readFile(path, 'utf8')).toBe(text);
  });

  it('a device whose writes take at most 1000 bytes each: the same', async () => {
    replaceFsWrite((real, fd, buf, offset, length, position, cb) =>
      real(fd as number, buf as Buffer, offset as number, Math.min(length as number, 1000), position as null, cb as never),
    );
    expect(await throughDescriptor((path) => writeThrough(fileSink(path), text))).toBe(text);
    expect(vi.mocked(fs.write).mock.calls.length).toBe(Math.ceil(text.length / 1000));
  });

  it('a device not ready (EAGAIN, opened without blocking): tried again a moment later, nothing lost', async () => {
    let refused = 0;
    replaceFsWrite((real, ...args) => {
      if (refused < 2) return void (refused++, (args.at(-1) as (e: Error) => void)(Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' })));
      (real as (...a: unknown[]) => void)(...args);
    });
    expect(await throughDescriptor((path) => writeThrough(fileSink(path), text))).toBe(text);
    expect(refused).toBe(2);
  });

  it('a device never ready while the run is stopping: the write ends at once, not tried again', async () => {
    replaceFsWrite((_real, ...args) => (args.at(-1) as (e: Error) => void)(Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' })));
    const stop = new AbortController();
    await throughDescriptor(async (path) => {
      const sink = fileSink(path, stop.signal, true);
      await sink.ready();
      stop.abort('SIGINT');
      await expect(sink.write('a\n')).rejects.toMatchObject({ kind: 'failed', message: `Cannot write ${path}: EAGAIN.` });
      await sink.abort();
    });
    expect(vi.mocked(fs.write).mock.calls.length).toBe(1);
  });
});

describe('standard output that fails or closes ends every wait', () => {
  it('closed before a write (destroyed, with no error): no wait and no error; the sink says closed, nothing handed over', async () => {
    const { stream, blocks } = recordingStdout();
    stream.destroy();
    await new Promise((r) => stream.once('close', r)); // closed some time before: no 'close' is to come
    const sink = stdoutSink(stream, undefined, true);
    await sink.write('a\n');
    expect(sink.closed).toBe(true);
    await sink.write('b\n');
    await sink.commit();
    expect(blocks).toEqual([]);
  });

  it('an output that fails and stays open (no close after its error): the wait for it to drain ends with the failure, and nothing more is handed over', async () => {
    let handed = 0;
    const stream = new Writable({
      highWaterMark: 1,
      autoDestroy: false,
      write: (_chunk, _enc, cb) => void (handed++, setTimeout(() => cb(Object.assign(new Error('write EIO'), { code: 'EIO' })), 1)),
    });
    const sink = stdoutSink(stream, undefined, true);
    const message = 'Cannot write to standard output: an input/output error (EIO).';
    await expect(sink.write('a\n')).rejects.toMatchObject({ kind: 'failed', message });
    expect(sink.closed).toBe(false);
    await expect(sink.write('b\n')).rejects.toMatchObject({ kind: 'failed', message });
    expect(handed).toBe(1);
  });

  it('what was written live is all handed over at the end: the end hands over no empty block', async () => {
    const { stream, blocks } = recordingStdout();
    const sink = stdoutSink(stream, undefined, true);
    await sink.write('a\n');
    await sink.commit();
    expect(blocks).toEqual(['a\n']);
  });
});

describe('FIFOs and terminals in place: the end is reported as it is', () => {
  it('a FIFO whose reader goes away before the last bytes are taken: the end fails, naming the cause', async () => {
    const path = join(dir, 'pipe');
    execFileSync('mkfifo', [path]);
    const reader = openSync(path, C.O_RDONLY | C.O_NONBLOCK);
    const sink = fileSink(path);
    await sink.ready();
    // Another writer fills the pipe: the sink's last bytes wait for a reader that then goes away.
    const filler = openSync(path, C.O_WRONLY | C.O_NONBLOCK);
    try {
      for (;;) writeSync(filler, Buffer.alloc(4096));
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('EAGAIN');
    }
    await sink.write('a@example.com,ok\n');
    const end = sink.commit();
    await new Promise((r) => setTimeout(r, 5));
    closeSync(reader);
    await expect(end).rejects.toMatchObject({ kind: 'failed', message: `Cannot write ${path}: its reader went away (EPIPE).` });
    closeSync(filler);
  });

  it('a FIFO given up keeps nothing of it open (the process can end)', async () => {
    const path = join(dir, 'pipe');
    execFileSync('mkfifo', [path]);
    const reader = openSync(path, C.O_RDONLY | C.O_NONBLOCK);
    const pipes = () => process.getActiveResourcesInfo().filter((r) => r === 'PipeWrap').length;
    const before = pipes();
    const sink = fileSink(path);
    await sink.ready();
    await sink.write('a\n');
    expect(pipes()).toBe(before + 1);
    await sink.abort();
    await vi.waitFor(() => expect(pipes()).toBe(before), { timeout: 500, interval: 1 }); // a handle closes a moment later
    closeSync(reader);
  });

  it('a terminal (-o /dev/pts/N): the records reach it, and the end does not wait for a close a terminal never makes', async () => {
    const child = spawn('script', ['-qfec', 'tty && exec sleep 10', '/dev/null'], { stdio: ['pipe', 'pipe', 'ignore'] });
    try {
      let shown = '';
      child.stdout.on('data', (c: Buffer) => (shown += c.toString()));
      const path = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', () => {
          const m = /^(\/dev\/pts\/\d+)\r?\n/.exec(shown);
          if (m) resolve(m[1]!);
        });
        child.on('error', reject);
      });
      const sink = fileSink(path);
      await writeThrough(sink, 'email,status\n', 'a@example.com,ok\n');
      expect(sink.replaces).toBe(false);
      await vi.waitFor(() => expect(shown).toBe(`${path}\r\nemail,status\r\na@example.com,ok\r\n`), { timeout: 1000, interval: 2 });
    } finally {
      child.kill();
    }
  });
});

describe('a replaced file: its temporary file', () => {
  it('is private from its creation when the file is (never made wider, then narrowed)', async () => {
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
  it('a path not yet looked at counts as a file to replace; a device says otherwise once ready', async () => {
    const device = fileSink('/dev/null');
    expect(device.replaces).toBe(true);
    await device.ready();
    expect(device.replaces).toBe(false);
    await device.abort();
  });
});

describe('a link below a descriptor path', () => {
  it('/proc/self/fd/N/link, N a folder the caller opened: a link all the same, refused; its target untouched', async () => {
    await writeFile(join(dir, 'target.csv'), 'kept\n');
    await symlink(join(dir, 'target.csv'), join(dir, 'link'));
    const fd = openSync(dir, 'r');
    try {
      const path = `/proc/self/fd/${fd}/link`;
      const err = await failure(fileSink(path).ready());
      expect(err.message).toBe(
        `Cannot write ${path}: it is a symbolic link (to ${join(dir, 'target.csv')}); idv neither writes through a link nor replaces one: give the path it leads to, or remove the link.`,
      );
    } finally {
      closeSync(fd);
    }
    expect(await readFile(join(dir, 'target.csv'), 'utf8')).toBe('kept\n');
  });
});

describe('a block device is refused', () => {
  const existing = ['/dev/loop0', '/dev/sda', '/dev/vda'].find((p) => {
    try {
      return fs.statSync(p).isBlockDevice();
    } catch {
      return false;
    }
  });
  it.runIf(isRoot || existing)('by ready(), in one line, and left as it was', async () => {
    const path = isRoot ? join(dir, 'disk') : existing!;
    if (isRoot) execFileSync('mknod', ['-m', '600', path, 'b', '7', '0']);
    const err = await failure(fileSink(path).ready());
    expect(err).toMatchObject({ kind: 'failed', message: `Cannot write ${path}: it is a block device; give a file, a character device or a FIFO.` });
    expect((await lstat(path)).isBlockDevice()).toBe(true);
  });
});
