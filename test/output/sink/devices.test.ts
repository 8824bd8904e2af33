// Sinks (src/output/sink.ts) for a character device, a FIFO, a terminal or a descriptor path: written in place,
// still what it was after, every byte handed over (short writes, a device not yet ready), no descriptor left open.
import { describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { lstat, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import fs, { promises as fsp, closeSync, constants as C, createReadStream, openSync, writeSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileSink, sinkFor } from '../../../src/output/sink.js';
import { destinationOf } from '../../../src/output/destination.js';
import { dir, useTestFolder, isRoot, entries, writeThrough, failure } from './harness.js';
import { onlyOn } from '../../platforms.js';

useTestFolder();

onlyOn('devices').describe('devices, FIFOs and standard output are written in place', () => {
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
    stop.abort('SIGTERM');
    const err = await failure(ready); // with no reader ever, only the signal ends it (else: the test's time-out)
    expect(err).toMatchObject({ kind: 'interrupted', signal: 'SIGTERM' });
    expect((await lstat(path)).isFIFO()).toBe(true);
  });

  it('-o -, /dev/stdout, /dev/fd/1 and /proc/self/fd/1 are standard output itself', async () => {
    for (const given of ['-', '/dev/stdout', '/dev/fd/1', '/proc/self/fd/1']) {
      const out = new PassThrough();
      let text = '';
      out.on('data', (c) => (text += c));
      const sink = sinkFor(destinationOf(given, dir), { stdout: out, signal: new AbortController().signal });
      await writeThrough(sink, 'email,status\n');
      expect([given, text, sink.name]).toEqual([given, 'email,status\n', 'standard output']);
    }
    expect(await entries()).toEqual([]);
  });
});

onlyOn('devices').describe('devices and FIFOs: nothing lost, nothing left open', () => {
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

onlyOn('devices').describe('a device that fails', () => {
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

onlyOn('devices').describe('descriptor paths are written in place, through to what they name', () => {
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

onlyOn('devices').describe('a path that changes as it is opened', () => {
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
    await end; // a write end left open would keep the reader waiting: the test's time-out says so
    expect(ended).toBe(true);
  });
});

onlyOn('devices').describe('every byte arrives through short writes and a device not yet ready', () => {
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

onlyOn('devices').describe('FIFOs and terminals in place: the end is reported as it is', () => {
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
    await vi.waitFor(() => expect(pipes()).toBe(before), { timeout: 20_000, interval: 1 }); // a handle closes a moment later
    closeSync(reader);
  });

  it('a terminal (-o /dev/pts/N): the records reach it, and the end does not wait for a close a terminal never makes', async () => {
    const child = spawn('script', ['-qfec', 'tty && exec sleep 60', '/dev/null'], { stdio: ['pipe', 'pipe', 'ignore'] });
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
      await vi.waitFor(() => expect(shown).toBe(`${path}\r\nemail,status\r\na@example.com,ok\r\n`), { timeout: 20_000, interval: 2 });
    } finally {
      child.kill();
    }
  });
});
