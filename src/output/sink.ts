// Where output text goes. A regular file (or a new one) is written to a temporary file beside it and renamed
// into place at the end, keeping the mode and, where allowed, the owner that lstat() finds at the path, as
// `sed -i` and git do (a private list stays private; a new file gets what the umask gives). Standard output,
// `-`, /dev/stdout and other descriptor paths, character devices and FIFOs are written in place as records
// come: they cannot be replaced. A symbolic link is refused: written through, it would put results into a
// file someone else chose; replaced, it would no longer be the link the user made.
// Several outputs of one run are put in place together (commitTogether, in commit.ts): prepare() flushes
// each to its temporary file; commit() renames.
import { close as closeFd, constants as C, fstat as fstatFd, promises as fsp, write as writeFd, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { fsReason, IdvError, interruptedError } from '../core/errors.js';
import { removeLeftovers, tempFileGone, tempFileOpened, tempPathBeside } from '../system/temp-files.js';
import { fsError, inPlaceStream, openInPlace } from '../system/open-file.js';
import type { Io } from '../system/io.js';
import type { Destination } from './destination.js';
import type { Chunk, SheetRows } from './format.js';

export interface Sink {
  /** Resolves once the destination can be written; one that cannot (a folder, a link, no such folder) fails here, before anything is sent. */
  ready(): Promise<void>;
  /** Text (UTF-8), or bytes as they are (a workbook copied to standard output). */
  write(data: string | Uint8Array): Promise<void>;
  /** A workbook's rows (workbook-sink.ts); the text sinks take none. */
  writeRows?(rows: SheetRows): Promise<void>;
  /** A file replaced whole: its temporary file, once ready() (a workbook is written there by its own writer). */
  readonly tempPath?: string;
  /** Everything written so far reaches its temporary file (flushed to the disk) or its device; nothing is put in place yet. */
  prepare(): Promise<void>;
  /** prepare() if not done, then put the file in place (rename). */
  commit(): Promise<void>;
  /** Give up: a temporary file is removed; what is in place stays as it was. */
  abort(): Promise<void>;
  /** Standard output was closed by its reader (`| head`). */
  readonly closed: boolean;
  /** Whether commit() replaces a file (after ready()); false: written in place as it goes. */
  readonly replaces: boolean;
  /** What it writes to, for messages. */
  readonly name: string;
}

const FLUSH_AT = 64 * 1024;
/**
 * Text held longer than this goes out with the next write, however little: a reader that has gone (`| head`)
 * is found by a write, and each write found late is quota spent on results no one reads.
 */
const FLUSH_MS = 250;

/** A formatter's chunk to its sink: text to any sink, a workbook's rows to a workbook sink. */
export function writeChunk(sink: Sink, chunk: Chunk): Promise<void> {
  if (typeof chunk === 'string') return chunk ? sink.write(chunk) : Promise.resolve();
  if (!sink.writeRows) throw new Error(`${sink.name} takes no workbook rows`);
  return sink.writeRows(chunk);
}

/** Paths that name a descriptor of this process (`/dev/stdout`, `/dev/fd/3`…): written in place, never replaced. */
const DESCRIPTOR_PATH = /^\/(?:dev\/(?:stdout|stderr|fd\/\d+)|proc\/self\/fd\/\d+)$/;

/** The sink for an output the user named (-o, --report): standard output, or the file (fileSink). */
export function sinkFor(to: Destination, io: Pick<Io, 'stdout' | 'signal' | 'platform'>, live = false): Sink {
  return to.path === null ? stdoutSink(io.stdout, io.signal, live) : fileSink(to.path, io.signal, live, { platform: io.platform });
}

/** How a file sink meets the system: its platform (how a refused rename reads), and its rename (tests refuse as Windows does). */
export interface SinkSystem {
  platform?: NodeJS.Platform;
  rename?: (from: string, to: string) => Promise<void>;
}

/**
 * A file that another program holds open (Excel, the usual case: yesterday's list is still open in it), so that
 * it could not be replaced: its message says which and what to do; run.ts adds where the results are.
 */
export class HeldOpen extends IdvError {
  constructor(readonly path: string, message: string) {
    super('failed', message);
  }
}

/** Waits between tries to put a file in place while another program holds it (about 2 s in all: a program just closing it). */
const HELD_WAITS_MS = [100, 250, 500, 1_000];

/**
 * Until the stream drains, fails or closes, or `signal` aborts (a stalled reader must not hold a stopped run).
 * After end(), no 'drain' comes: until it closes or fails.
 */
function drained(stream: Writable, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('error', done);
      stream.off('close', done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('error', done);
    stream.on('close', done);
    signal?.addEventListener('abort', done);
  });
}

/**
 * Text gathered into blocks of FLUSH_AT and handed to `out` one block at a time (`live`: each write at once, a
 * live stream's records as they settle); bytes go as they are, after the text before them. The first failure
 * is kept.
 */
class BlockWriter {
  private buffer = '';
  /** When the oldest text in the buffer came. */
  private heldSince = 0;
  private failure: NodeJS.ErrnoException | null = null;

  constructor(
    private readonly out: (data: string | Uint8Array) => Promise<void>,
    private readonly live = false,
  ) {}

  async write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== 'string') {
      await this.flush();
      await this.send(data);
      return;
    }
    if (this.buffer === '') this.heldSince = Date.now();
    this.buffer += data;
    if (this.live || this.buffer.length >= FLUSH_AT || Date.now() - this.heldSince >= FLUSH_MS) await this.flush();
  }

  async flush(): Promise<void> {
    const text = this.buffer;
    this.buffer = '';
    if (text) await this.send(text);
  }

  fail(err: NodeJS.ErrnoException): void {
    this.failure ??= err;
  }

  failed(): NodeJS.ErrnoException | null {
    return this.failure;
  }

  /** Nothing more is handed over once a write has failed (a reader gone, a full disk). */
  private async send(data: string | Uint8Array): Promise<void> {
    if (this.failure) return;
    try {
      await this.out(data);
    } catch (err) {
      this.failure ??= err as NodeJS.ErrnoException;
    }
  }
}

/**
 * Blocks written to a stream, waiting for it to drain (or `signal`); its 'error' is the failure, and so is a
 * stream already closed (destroyed without an error, it takes nothing, says nothing and never drains).
 */
function streamWriter(stream: Writable, signal: AbortSignal | undefined, live: boolean): BlockWriter {
  const writer = new BlockWriter(async (data) => {
    if (stream.destroyed) throw fsError('ERR_STREAM_DESTROYED', 'the stream is closed');
    if (!stream.write(data)) await drained(stream, signal);
  }, live);
  stream.on('error', (err: NodeJS.ErrnoException) => writer.fail(err));
  return writer;
}

/** Standard output; `live`: each write goes at once (a live stream's records as they settle). */
export function stdoutSink(stdout: Writable, signal?: AbortSignal, live = false): Sink {
  return new StdoutSink(stdout, signal, live);
}

class StdoutSink implements Sink {
  readonly replaces = false;
  readonly name = 'standard output';
  private readonly writer: BlockWriter;

  constructor(stdout: Writable, signal: AbortSignal | undefined, live: boolean) {
    this.writer = streamWriter(stdout, signal, live);
  }

  /** Its reader went away (EPIPE), or it was closed (destroyed). */
  get closed(): boolean {
    const code = this.writer.failed()?.code;
    return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED';
  }

  async ready(): Promise<void> {}

  async write(data: string | Uint8Array): Promise<void> {
    await this.writer.write(data);
    this.check();
  }

  async prepare(): Promise<void> {
    await this.writer.flush();
    this.check();
  }

  commit(): Promise<void> {
    return this.prepare();
  }

  async abort(): Promise<void> {}

  /** A standard output that failed for another reason than its reader going away (a full disk) is an error. */
  private check(): void {
    const err = this.writer.failed();
    if (err && !this.closed) throw new IdvError('failed', `Cannot write to standard output: ${fsReason(err)}.`);
  }
}

/** What a path holds, as lstat() sees the path itself (never what a link leads to): null for nothing (a new file). */
type Found = Existing | { follow: boolean } | null;

type Existing = { mode: number; uid: number; gid: number };

/** Throws the refusal of what cannot be written (an IdvError), or lstat()'s own error. */
async function examine(path: string): Promise<Found> {
  let st: Stats;
  try {
    st = await fsp.lstat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (st.isFile()) return { mode: st.mode & 0o777, uid: st.uid, gid: st.gid };
  if (DESCRIPTOR_PATH.test(path)) return { follow: true };
  if (st.isCharacterDevice() || st.isFIFO()) return { follow: false };
  if (st.isDirectory()) throw cannotWrite(path, `${fsReason({ code: 'EISDIR' })}; give a file name`);
  if (st.isSymbolicLink()) {
    const to = await fsp.readlink(path);
    throw cannotWrite(path, `it is a symbolic link (to ${to}); idv neither writes through a link nor replaces one: give the path it leads to, or remove the link`);
  }
  throw cannotWrite(path, `it is a ${st.isBlockDevice() ? 'block device' : 'socket'}; give a file, a character device or a FIFO`);
}

function cannotWrite(path: string, reason: string): IdvError {
  return new IdvError('failed', `Cannot write ${path}: ${reason}.`);
}

/**
 * A path the user named (-o, a --split file, --report): a regular file is replaced atomically; a character
 * device, FIFO or descriptor path is written in place; a folder, a link, a block device or a socket is refused
 * by ready(). `signal` ends the waits a FIFO can cause (for a reader to come, for a slow one to read).
 */
export function fileSink(path: string, signal?: AbortSignal, live = false, system: SinkSystem = {}): Sink {
  return new FileSink(path, signal, live, system);
}

/** What a FileSink hands on to, once it knows what the path holds. */
type Opened = Omit<Sink, 'closed' | 'name'>;

class FileSink implements Sink {
  readonly closed = false;
  /** The sink for what lstat() found at the path, once ready. */
  private inner: Opened | null = null;
  private examined: Promise<Opened> | null = null;

  constructor(
    readonly name: string,
    private readonly signal: AbortSignal | undefined,
    private readonly live: boolean,
    private readonly system: SinkSystem,
  ) {}

  /** Before ready(), a path not yet looked at is taken for a file to replace (what most paths are). */
  get replaces(): boolean {
    return this.inner?.replaces ?? true;
  }

  get tempPath(): string | undefined {
    return this.inner?.tempPath;
  }

  async ready(): Promise<void> {
    await this.opened();
  }

  async write(data: string | Uint8Array): Promise<void> {
    return (await this.opened()).write(data);
  }

  async prepare(): Promise<void> {
    return (await this.opened()).prepare();
  }

  async commit(): Promise<void> {
    return (await this.opened()).commit();
  }

  /** Waits for ready() to settle first: the inner sinks are never given up while they open. */
  async abort(): Promise<void> {
    await this.examined?.catch(() => undefined);
    await this.inner?.abort();
  }

  private opened(): Promise<Opened> {
    return (this.examined ??= this.open());
  }

  private async open(): Promise<Opened> {
    const path = this.name;
    let found: Found;
    try {
      found = await examine(path);
    } catch (err) {
      throw err instanceof IdvError ? err : cannotWrite(path, fsReason(err));
    }
    this.inner = found && 'follow' in found ? new InPlaceSink(path, found.follow, this.signal, this.live) : new ReplacingSink(path, found, this.system);
    await this.inner.ready();
    return this.inner;
  }
}

/** Writes `length` bytes of `buf` from `offset` where the descriptor stands; resolves to how many it took. */
type WriteSome = (buf: Uint8Array, offset: number, length: number) => Promise<number>;

/** Every byte of `data` through `write`, across short writes and a device's EAGAIN. */
async function writeAll(write: WriteSome, data: string | Uint8Array, signal?: AbortSignal): Promise<void> {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  for (let off = 0; off < buf.length; ) {
    try {
      off += await write(buf, off, buf.length - off);
    } catch (err) {
      // A device opened without blocking that is not ready yet: a moment later, unless the run is stopping.
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || signal?.aborted) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/** A character device, FIFO or descriptor path, written in place: nothing to rename, nothing to take back. */
class InPlaceSink implements Opened {
  readonly replaces = false;
  private fd: number | null = null;
  private stream: Writable | null = null;
  private writer: BlockWriter | null = null;

  constructor(
    readonly name: string,
    private readonly follow: boolean,
    private readonly signal: AbortSignal | undefined,
    private readonly live: boolean,
  ) {}

  async ready(): Promise<void> {
    const { name: path, follow, signal } = this;
    try {
      const fd = (this.fd = await openInPlace(path, follow, signal));
      const st = await new Promise<Stats>((resolve, reject) => fstatFd(fd, (err, stats) => (err ? reject(err) : resolve(stats))));
      // Replaced between lstat() and open(): a regular file is only ever replaced whole (a descriptor path aside).
      if (st.isDirectory() || (st.isFile() && !follow)) throw cannotWrite(path, 'it changed as it was opened');
      const stream = (this.stream = inPlaceStream(fd, st));
      const write: WriteSome = (buf, offset, length) =>
        new Promise((resolve, reject) => writeFd(fd, buf, offset, length, null, (err, n) => (err ? reject(err) : resolve(n))));
      this.writer = stream ? streamWriter(stream, signal, this.live) : new BlockWriter((data) => writeAll(write, data, signal), this.live);
    } catch (err) {
      await this.release();
      throw signal?.aborted ? interruptedError(signal.reason) : this.failure(err);
    }
  }

  async write(data: string | Uint8Array): Promise<void> {
    await this.writer!.write(data);
    this.check();
  }

  /** A second time finds nothing left to hand over and nothing open. */
  async prepare(): Promise<void> {
    await this.writer!.flush();
    this.check();
    const stream = this.stream;
    if (stream) {
      // 'finish': all handed over (a terminal's stream never closes by itself); a FIFO's reader gone fails it.
      const finished = new Promise<void>((resolve) => stream.once('finish', resolve));
      stream.end();
      await Promise.race([finished, drained(stream, this.signal)]);
      this.check();
    }
    await this.release();
  }

  commit(): Promise<void> {
    return this.prepare();
  }

  abort(): Promise<void> {
    return this.release();
  }

  private async release(): Promise<void> {
    const fd = this.fd;
    if (this.stream) this.stream.destroy();
    else if (fd !== null) await new Promise<void>((resolve) => closeFd(fd, () => resolve()));
    this.fd = null;
    this.stream = null;
  }

  private check(): void {
    const err = this.writer!.failed();
    if (err) throw this.failure(err);
  }

  private failure(err: unknown): IdvError {
    return err instanceof IdvError ? err : cannotWrite(this.name, fsReason(err));
  }
}

/** A regular file (or a new one), replaced whole: a temporary file beside it, renamed over it by commit(). */
class ReplacingSink implements Opened {
  readonly replaces = true;
  readonly tempPath: string;
  /** The temporary file, open from ready() until prepare() (or abort()). */
  private handle: FileHandle | null = null;
  private done = false;
  private readonly writer = new BlockWriter((data) => {
    const handle = this.handle!;
    return writeAll(async (buf, offset, length) => (await handle.write(buf, offset, length, null)).bytesWritten, data);
  });

  constructor(
    readonly name: string,
    private readonly existing: Existing | null,
    private readonly system: SinkSystem = {},
  ) {
    this.tempPath = tempPathBeside(name);
  }

  async ready(): Promise<void> {
    const { tempPath, existing } = this;
    try {
      tempFileOpened(tempPath);
      // Created with the file's own mode (a private list is never readable by others, even for a moment).
      const handle = (this.handle = await fsp.open(tempPath, C.O_WRONLY | C.O_CREAT | C.O_EXCL, existing?.mode));
      if (existing) {
        await handle.chmod(existing.mode); // the umask narrowed the mode open() was given
        await handle.chown(existing.uid, existing.gid).catch(() => undefined); // allowed to root or the owner only
      }
      await removeLeftovers(this.name); // a killed run's temporary files of this output
    } catch (err) {
      await this.abort();
      throw this.failure(err);
    }
  }

  async write(data: string | Uint8Array): Promise<void> {
    await this.writer.write(data);
    this.check();
  }

  async prepare(): Promise<void> {
    const handle = this.handle;
    if (!handle) return;
    try {
      await this.writer.flush();
      this.check();
      // On the disk before any output is put in place: a full disk or a quota fails here, not after.
      await handle.sync();
      await handle.close();
      this.handle = null;
    } catch (err) {
      throw err instanceof IdvError ? err : this.failure(err);
    }
  }

  async commit(): Promise<void> {
    await this.prepare();
    if (this.done) return;
    try {
      await this.putInPlace();
    } catch (err) {
      await this.removeTemp();
      throw this.failure(err);
    }
    this.done = true;
    tempFileGone(this.tempPath);
  }

  async abort(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    await handle?.close().catch(() => undefined);
    if (!this.done) await this.removeTemp();
  }

  private async removeTemp(): Promise<void> {
    await fsp.unlink(this.tempPath).catch(() => undefined);
    tempFileGone(this.tempPath);
  }

  private check(): void {
    const err = this.writer.failed();
    if (err) throw this.failure(err);
  }

  /** The rename, tried again a few times while another program holds the file (it may be closing it). */
  private async putInPlace(): Promise<void> {
    const rename = this.system.rename ?? fsp.rename;
    for (let tries = 0; ; tries++) {
      try {
        return await rename(this.tempPath, this.name);
      } catch (err) {
        if (!this.heldOpen(err) || tries >= HELD_WAITS_MS.length) throw err;
        await new Promise((r) => setTimeout(r, HELD_WAITS_MS[tries]));
      }
    }
  }

  /**
   * Whether a refused rename means another program holds the file: EBUSY anywhere; on Windows also EPERM and
   * EACCES onto a file that is there (MoveFileEx refuses to replace a file with open handles; the folder's
   * permission was checked before anything was sent).
   */
  private heldOpen(err: unknown): boolean {
    const code = (err as NodeJS.ErrnoException)?.code;
    return code === 'EBUSY' || (this.system.platform === 'win32' && this.existing !== null && (code === 'EPERM' || code === 'EACCES'));
  }

  private failure(err: unknown): IdvError {
    const left = this.existing ? 'the previous file is left as it was' : 'nothing was written';
    if (this.heldOpen(err)) {
      const code = (err as NodeJS.ErrnoException).code;
      return new HeldOpen(this.name, `Cannot write ${this.name}: another program has it open (${code}); close it there (in Excel, close the file), then run the same command again; ${left}.`);
    }
    return new IdvError('failed', `Cannot write ${this.name}: ${fsReason(err)}; ${left}.`);
  }
}
