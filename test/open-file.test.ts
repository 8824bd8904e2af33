// Opening inputs (src/open-file.ts): a regular file's bytes come as FileBlocks, a block when asked for, and its
// descriptor is closed when the reader leaves, at the end, on an error, and never under a read still going on.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { FileBlocks, openForReading } from '../src/open-file.js';

function withFile<T>(bytes: Buffer | string, body: (path: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'idv-open-'));
  const path = join(dir, 'list.txt');
  writeFileSync(path, bytes);
  return body(path).finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** Whether the descriptor is still open (a closed one may not be reused in between: the tests open nothing). */
function isOpen(fd: number): boolean {
  try {
    fstatSync(fd);
    return true;
  } catch (err) {
    expect((err as NodeJS.ErrnoException).code).toBe('EBADF');
    return false;
  }
}

/** Until the close queued on the thread pool has happened. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('FileBlocks: a regular file read a block at a time', () => {
  it('gives every byte in order, in blocks of its size, counts them, and closes the file at its end', async () => {
    await withFile('a'.repeat(10) + 'b'.repeat(10) + 'c'.repeat(5), async (path) => {
      const fd = openSync(path, 'r');
      const blocks = new FileBlocks(fd, 10);
      const got: string[] = [];
      for await (const block of blocks) got.push(block.toString());
      expect(got).toEqual(['a'.repeat(10), 'b'.repeat(10), 'c'.repeat(5)]);
      expect(blocks.bytesRead).toBe(25);
      expect(blocks.readableLength).toBe(0);
      await settle();
      expect(isOpen(fd)).toBe(false);
    });
  });

  it('reads nothing before it is asked, and closes the file when the reader leaves early', async () => {
    await withFile('x'.repeat(100), async (path) => {
      const fd = openSync(path, 'r');
      const blocks = new FileBlocks(fd, 10);
      expect(blocks.bytesRead).toBe(0);
      for await (const block of blocks) {
        expect(block.toString()).toBe('x'.repeat(10));
        break;
      }
      expect(blocks.bytesRead).toBe(10);
      await settle();
      expect(isOpen(fd)).toBe(false);
    });
  });

  it('destroyed while a read waits: the descriptor stays open until the read comes back, then closes, and nothing more comes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idv-open-'));
    try {
      const fifo = join(dir, 'slow');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      const fd = openSync(fifo, 'r+'); // read and write: it opens at once, and a read waits for bytes
      const blocks = new FileBlocks(fd, 10);
      const it = blocks[Symbol.asyncIterator]();
      const first = it.next();
      await settle(); // the read is waiting on the thread pool
      blocks.destroy();
      await settle();
      expect(isOpen(fd)).toBe(true); // a close now would be under the read still waiting on the thread pool
      const writer = openSync(fifo, 'w');
      writeSync(writer, 'late');
      closeSync(writer);
      expect(await first).toEqual({ done: true, value: undefined });
      expect(await it.next()).toEqual({ done: true, value: undefined });
      await settle();
      expect(isOpen(fd)).toBe(false);
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
      const it = new FileBlocks(fd, 10)[Symbol.asyncIterator]();
      await expect(it.next()).rejects.toMatchObject({ code: 'EISDIR' });
      await settle();
      expect(isOpen(fd)).toBe(false);
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
  it('reads a regular file as FileBlocks and any other file as a stream', async () => {
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
