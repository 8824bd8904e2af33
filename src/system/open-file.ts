// Opening a path that may be a FIFO or a device without ever blocking: open() of a FIFO waits for its other
// end, and a pool thread stuck there leaves the run deaf to signals and holds the process at exit (libuv joins
// its threads). Every open here is O_NONBLOCK; a FIFO is then read or written through the event loop, and a
// wait for its other end is a timer that a signal ends.
import { constants as C, close, createReadStream, fstatSync, open, openSync, closeSync, promises as fsp, read, type Stats } from 'node:fs';
import { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { isatty, ReadStream as TtyReadStream, WriteStream as TtyWriteStream } from 'node:tty';
import type { Writable } from 'node:stream';
import { interruptedError } from '../core/errors.js';

const NONBLOCK = C.O_NONBLOCK ?? 0;
const NOFOLLOW = C.O_NOFOLLOW ?? 0;

/** A file-system error with its code, as node:fs gives them. */
export function fsError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/**
 * An input's bytes as the reader takes them (input/read.ts): iterated once, let go with destroy(). What its
 * reader has taken so far is `bytesRead` less `readableLength` (the progress line: progress-report.ts).
 */
export interface ByteSource extends AsyncIterable<Buffer> {
  destroy(error?: Error): unknown;
  readonly bytesRead?: number;
  readonly readableLength?: number;
}

/**
 * A regular file's bytes, a block at a time when asked for, as fs.createReadStream reads them but without a
 * stream (a short run's start-up does not compile Node's stream machinery). The descriptor is closed at the end,
 * on an error, return() or destroy(), never while a read is under way. Once `signal` aborts, the next block
 * asked for is the interruption: however long the reader spends on blocks, it hears the signal within one.
 */
export class FileBlocks implements ByteSource {
  bytesRead = 0;
  readonly readableLength = 0;
  private state: 'open' | 'reading' | 'closing' | 'closed' = 'open';
  /** The last block asked for: a next() asked before it came waits for it (blocks come in order). */
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly fd: number,
    private readonly blockSize: number,
    private readonly signal?: AbortSignal,
  ) {}

  destroy(): void {
    if (this.state === 'reading') this.state = 'closing'; // closed once the read comes back
    else if (this.state === 'open') this.closeNow();
  }

  /** Its descriptor, handed over to be read otherwise (and closed there): no more blocks. Null while a block is read, or once closed. */
  handOver(): number | null {
    if (this.state !== 'open') return null;
    this.state = 'closed';
    return this.fd;
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    const done = { done: true, value: undefined } as const;
    return {
      next: () => {
        const step = async (): Promise<IteratorResult<Buffer>> => {
          if (this.state !== 'open') return done;
          if (this.signal?.aborted) {
            this.destroy();
            throw interruptedError(this.signal.reason);
          }
          const block = await this.readBlock();
          return block === null ? done : { done: false, value: block };
        };
        const next = this.last.then(step, step);
        this.last = next;
        return next;
      },
      return: async () => {
        this.destroy();
        return done;
      },
    };
  }

  /** The next block; null at the end of the file or once destroyed. */
  private readBlock(): Promise<Buffer | null> {
    const buffer = Buffer.allocUnsafe(this.blockSize);
    this.state = 'reading';
    return new Promise((resolve, reject) =>
      read(this.fd, buffer, 0, buffer.length, null, (err, n) => {
        const wanted = this.state === 'reading';
        this.state = 'open';
        if (err || n === 0 || !wanted) this.closeNow();
        if (err) reject(err);
        else if (n === 0 || !wanted) resolve(null);
        else {
          this.bytesRead += n;
          resolve(n < buffer.length ? buffer.subarray(0, n) : buffer);
        }
      }),
    );
  }

  private closeNow(): void {
    this.state = 'closed';
    close(this.fd, () => undefined);
  }
}

/**
 * A file to read, opened at once: a regular file through the thread pool (FileBlocks), a device through
 * node:fs, a terminal as a terminal, a FIFO or socket through the event loop (waiting for a writer without
 * holding a thread). Each ends with `signal`, failing with the interruption (a regular file at its next block).
 * Throws as openSync does.
 */
export function openForReading(path: string, signal?: AbortSignal, highWaterMark = 64 * 1024): ByteSource {
  const fd = openSync(path, C.O_RDONLY | NONBLOCK);
  let st: Stats;
  try {
    st = fstatSync(fd);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  if (st.isFile()) return new FileBlocks(fd, highWaterMark, signal);
  const stream =
    st.isFIFO() || st.isSocket()
      ? new Socket({ fd, readable: true, writable: false })
      : st.isCharacterDevice() && isatty(fd)
        ? new TtyReadStream(fd)
        : createReadStream('', { fd, highWaterMark });
  if (signal) {
    const onAbort = () => stream.destroy(interruptedError(signal.reason));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    stream.once('close', () => signal.removeEventListener('abort', onAbort));
  }
  return stream;
}

/**
 * A small regular file read whole (the config): never a FIFO or a device, never more than `maxBytes`.
 * Throws ENOTREG (not a regular file) or EFBIG (larger than maxBytes) besides open()'s own errors.
 */
export async function readSmallFile(path: string, maxBytes: number): Promise<{ text: string; stat: Stats }> {
  const handle = await fsp.open(path, C.O_RDONLY | NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw fsError('ENOTREG', `${path} is not a regular file`);
    if (stat.size > maxBytes) throw fsError('EFBIG', `${path} is larger than ${maxBytes} bytes`);
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length <= maxBytes; length += n) {
      n = (await handle.read(buffer, length, buffer.length - length, length)).bytesRead;
    }
    if (length > maxBytes) throw fsError('EFBIG', `${path} is larger than ${maxBytes} bytes`); // it grew as it was read
    return { text: buffer.toString('utf8', 0, length), stat };
  } finally {
    await handle.close();
  }
}

/** How often a FIFO with no reader is tried again. */
const READER_POLL_MS = 100;

/**
 * A FIFO, character device or terminal opened for writing in place (appending: a descriptor shared with the
 * shell keeps what is in it). A FIFO with no reader yet is tried again until one comes, or until `signal`
 * aborts (then ENXIO). `follow`: whether a symbolic link at `path` may lead there (else ELOOP).
 */
export async function openInPlace(path: string, follow: boolean, signal?: AbortSignal): Promise<number> {
  const flags = C.O_WRONLY | C.O_APPEND | NONBLOCK | (follow ? 0 : NOFOLLOW);
  for (;;) {
    try {
      // A plain descriptor, not a FileHandle: a stream may take it over (inPlaceStream).
      return await new Promise<number>((resolve, reject) => open(path, flags, (err, fd) => (err ? reject(err) : resolve(fd))));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENXIO' || !signal || signal.aborted) throw err;
    }
    await sleep(READER_POLL_MS, undefined, { signal }).catch(() => undefined); // aborted: the next try throws
  }
}

/**
 * What an in-place handle is written through: a FIFO, socket or terminal as a stream on the event loop (a
 * slow reader makes it wait, a signal does not), or null for another device (plain writes to the descriptor).
 */
export function inPlaceStream(fd: number, stat: Stats): Writable | null {
  if (stat.isFIFO() || stat.isSocket()) return new Socket({ fd, readable: false, writable: true });
  if (stat.isCharacterDevice() && isatty(fd)) return new TtyWriteStream(fd);
  return null;
}
