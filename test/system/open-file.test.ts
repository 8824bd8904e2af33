// Opening inputs (src/system/open-file.ts): a regular file's bytes come as FileBlocks, a block when asked for, and its
// descriptor is closed when the reader leaves, at the end, on an error, and never under a read still going on.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs, { closeSync, fstatSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { FileBlocks, openForReading } from '../../src/system/open-file.js';
import { onlyOn } from '../platforms.js';

function withFile<T>(bytes: Buffer | string, body: (path: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'idv-open-'));
  const path = join(dir, 'list.txt');
  writeFileSync(path, bytes);
  return body(path).finally(() => rmSync(dir, { recursive: true, force: true }));
}

/**
 * The file a descriptor names (its device and inode), or null once it names none. A descriptor number is reused
 * as soon as it is closed (by any test in this worker), so a test asks whether the number still names its file.
 */
function fileOf(fd: number): string | null {
  try {
    const st = fstatSync(fd);
    return `${st.dev}:${st.ino}`;
  } catch (err) {
    expect((err as NodeJS.ErrnoException).code).toBe('EBADF');
    return null;
  }
}

/** Every close() the code makes from now on (node:fs close, as open-file.ts imports it): the file it closed, and whether it has. */
function watchCloses() {
  const closes: Array<{ fd: number; file: string | null; done: boolean }> = [];
  const real = fs.close;
  vi.spyOn(fs, 'close').mockImplementation(((fd: number, cb?: (err: NodeJS.ErrnoException | null) => void) => {
    const close = { fd, file: fileOf(fd), done: false }; // what the number names at the moment it is closed
    closes.push(close);
    real(fd, (err) => {
      close.done = true;
      cb?.(err);
    });
  }) as typeof fs.close);
  syncBuiltinESMExports();
  return {
    /** The closes of `file` so far. */
    of: (file: string) => closes.filter((c) => c.file === file),
    /** Until `file` has been closed, once (a deadline only to stop a hang). */
    async closed(file: string): Promise<void> {
      await vi.waitFor(() => expect(closes.filter((c) => c.file === file && c.done)).toHaveLength(1), { timeout: 20_000, interval: 2 });
    },
  };
}
afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports(); // node:fs's close is the real one again
});

/** A moment for a read to be under way on the thread pool (it then waits there for bytes). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('FileBlocks: a regular file read a block at a time', () => {
  it('gives every byte in order, in blocks of its size, counts them, and closes the file at its end', async () => {
    await withFile('a'.repeat(10) + 'b'.repeat(10) + 'c'.repeat(5), async (path) => {
      const fd = openSync(path, 'r');
      const file = fileOf(fd)!;
      const closes = watchCloses();
      const blocks = new FileBlocks(fd, 10);
      const got: string[] = [];
      for await (const block of blocks) got.push(block.toString());
      expect(got).toEqual(['a'.repeat(10), 'b'.repeat(10), 'c'.repeat(5)]);
      expect(blocks.bytesRead).toBe(25);
      expect(blocks.readableLength).toBe(0);
      await closes.closed(file);
    });
  });

  it('reads nothing before it is asked, and closes the file when the reader leaves early', async () => {
    await withFile('x'.repeat(100), async (path) => {
      const fd = openSync(path, 'r');
      const file = fileOf(fd)!;
      const closes = watchCloses();
      const blocks = new FileBlocks(fd, 10);
      expect(blocks.bytesRead).toBe(0);
      for await (const block of blocks) {
        expect(block.toString()).toBe('x'.repeat(10));
        break;
      }
      expect(blocks.bytesRead).toBe(10);
      await closes.closed(file);
    });
  });

  onlyOn('fifo').it('destroyed while a read waits: the descriptor stays open until the read comes back, then closes, and nothing more comes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idv-open-'));
    try {
      const fifo = join(dir, 'slow');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      const fd = openSync(fifo, 'r+'); // read and write: it opens at once, and a read waits for bytes
      const file = fileOf(fd)!;
      const closes = watchCloses();
      const blocks = new FileBlocks(fd, 10);
      const it = blocks[Symbol.asyncIterator]();
      const first = it.next();
      await settle(); // the read is waiting on the thread pool
      blocks.destroy();
      await settle();
      expect(closes.of(file)).toEqual([]); // a close now would be under the read still waiting on the thread pool
      expect(fileOf(fd)).toBe(file);
      const writer = openSync(fifo, 'w');
      writeSync(writer, 'late');
      closeSync(writer);
      expect(await first).toEqual({ done: true, value: undefined });
      expect(await it.next()).toEqual({ done: true, value: undefined });
      await closes.closed(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers next() asked several at once in order', async () => {
    await withFile('0123456789', async (path) => {
      const it = new FileBlocks(openSync(path, 'r'), 3)[Symbol.asyncIterator]();
      const all = await Promise.all([it.next(), it.next(), it.next(), it.next(), it.next()]);
      expect(all.map((r) => (r.done ? null : r.value.toString()))).toEqual(['012', '345', '678', '9', null]);
    });
  });

  it('fails with the read error and closes the descriptor', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idv-open-'));
    try {
      const fd = openSync(dir, 'r'); // a directory: read() fails with EISDIR
      const folder = fileOf(fd)!;
      const closes = watchCloses();
      const it = new FileBlocks(fd, 10)[Symbol.asyncIterator]();
      await expect(it.next()).rejects.toMatchObject({ code: 'EISDIR' });
      // This descriptor, naming this folder when it was closed: a number another test reopened since cannot pass for it.
      await closes.closed(folder);
      expect(closes.of(folder)).toMatchObject([{ fd, file: folder, done: true }]);
      expect(fileOf(fd)).not.toBe(folder);
      expect(await it.next()).toEqual({ done: true, value: undefined });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a signal ends the reading at the next block: the reader gets the interruption, and nothing more', async () => {
    await withFile('x'.repeat(100), async (path) => {
      const stop = new AbortController();
      const blocks = openForReading(path, stop.signal, 10) as FileBlocks;
      const it = blocks[Symbol.asyncIterator]();
      expect((await it.next()).value.toString()).toBe('x'.repeat(10));
      stop.abort('SIGTERM');
      await expect(it.next()).rejects.toMatchObject({ kind: 'interrupted', signal: 'SIGTERM' });
      expect(await it.next()).toEqual({ done: true, value: undefined }); // let go: its descriptor is closed
      expect(blocks.bytesRead).toBe(10);
    });
  });

  it('gives any file back byte for byte, whatever the block size (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 3000 }), fc.integer({ min: 1, max: 700 }), async (bytes, size) => {
        await withFile(Buffer.from(bytes), async (path) => {
          const blocks = new FileBlocks(openSync(path, 'r'), size);
          const parts: Buffer[] = [];
          for await (const block of blocks) {
            expect(block.length).toBeLessThanOrEqual(size);
            expect(block.length).toBeGreaterThan(0);
            parts.push(Buffer.from(block));
          }
          expect(Buffer.concat(parts).equals(Buffer.from(bytes))).toBe(true);
          expect(blocks.bytesRead).toBe(bytes.length);
        });
      }),
      { seed: 20261125, numRuns: 60 },
    );
  });
});

describe('openForReading', () => {
  onlyOn('devFiles').it('reads a regular file as FileBlocks and any other file as a stream', async () => {
    await withFile('ann@example.com\n', async (path) => {
      const file = openForReading(path);
      expect(file).toBeInstanceOf(FileBlocks);
      const got: Buffer[] = [];
      for await (const block of file) got.push(block);
      expect(Buffer.concat(got).toString()).toBe('ann@example.com\n');
    });
    const device = openForReading('/dev/null');
    expect(device).not.toBeInstanceOf(FileBlocks);
    expect(device).toHaveProperty('pipe');
    device.destroy();
  });
});
