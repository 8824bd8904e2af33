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
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { fsReason, IdvError, interruptedError } from '../errors.js';
import { tempFileGone, tempFileOpened, randomHex } from '../temp-files.js';
import { fsError, inPlaceStream, openInPlace } from '../open-file.js';
import { resolvePath } from '../paths.js';
import type { Io } from '../io.js';
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

/** A formatter's chunk to its sink: text to any sink, a workbook's rows to a workbook sink. */
export function writeChunk(sink: Sink, chunk: Chunk): Promise<void> {
  if (typeof chunk === 'string') return chunk ? sink.write(chunk) : Promise.resolve();
  if (!sink.writeRows) throw new Error(`${sink.name} takes no workbook rows`);
  return sink.writeRows(chunk);
}

/** Paths that name a descriptor of this process (`/dev/stdout`, `/dev/fd/3`…): written in place, never replaced. */
const DESCRIPTOR_PATH = /^\/(?:dev\/(?:stdout|stderr|fd\/\d+)|proc\/self\/fd\/\d+)$/;
const STDOUT_PATH = /^\/(?:dev\/(?:stdout|fd\/1)|proc\/self\/fd\/1)$/;

/**
 * The sink for an output the user named (-o, --report): standard output for none, `-` and the paths that
 * name it (/dev/stdout), else the path against the working directory (fileSink).
 */
export function outputSink(given: string | undefined, io: Pick<Io, 'stdout' | 'signal' | 'cwd'>, live = false): Sink {
  if (given === undefined || given === '-') return stdoutSink(io.stdout, io.signal, live);
  const path = resolvePath(io.cwd, given);
  return STDOUT_PATH.test(path) ? stdoutSink(io.stdout, io.signal, live) : fileSink(path, io.signal, live);
}

/** Whether an output the user named (-o, or none) is standard output. */
export function isStdout(given: string | undefined, cwd: string | null): boolean {
  return given === undefined || given === '-' || STDOUT_PATH.test(resolvePath(cwd, given));
}

/** Until the stream drains, fails or closes, or `signal` aborts (a stalled reader must not hold a stopped run). */
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
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Text gathered into blocks of FLUSH_AT and handed to `out` one block at a time (`live`: each write at once, a
 * live stream's records as they settle); bytes go as they are, after the text before them. The first failure
 * is kept.
 */
function blockWriter(out: (data: string | Uint8Array) => Promise<void>, live = false) {
  let buffer = '';
  let failed: NodeJS.ErrnoException | null = null;
  const send = async (data: string | Uint8Array) => {
    try {
      await out(data);
    } catch (err) {
      failed ??= err as NodeJS.ErrnoException;
    }
  };
  const flush = async () => {
    if (!buffer || failed) return;
    const text = buffer;
    buffer = '';
    await send(text);
  };
  return {
    async write(data: string | Uint8Array) {
      if (failed) return;
      if (typeof data !== 'string') {
        await flush();
        if (!failed) await send(data);
        return;
      }
      buffer += data;
      if (live || buffer.length >= FLUSH_AT) await flush();
    },
    flush,
    fail(err: NodeJS.ErrnoException) {
      failed ??= err;
    },
    failed: () => failed,
  };
}

/** Blocks written to a stream, waiting for it to drain (or `signal`); its 'error' is the failure. */
function streamWriter(stream: Writable, signal?: AbortSignal, onError?: (err: NodeJS.ErrnoException) => void, live = false) {
  const w = blockWriter(async (data) => {
    if (!stream.write(data)) await drained(stream, signal);
  }, live);
  stream.on('error', (err: NodeJS.ErrnoException) => {
    w.fail(err);
    onError?.(err);
  });
  return w;
}

/** Standard output; `live`: each write goes at once (a live stream's records as they settle). */
export function stdoutSink(stdout: Writable, signal?: AbortSignal, live = false): Sink {
  let closed = false;
  const w = streamWriter(
    stdout,
    signal,
    (err) => {
      if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') closed = true;
    },
    live,
  );
  /** A standard output that failed for another reason than its reader going away (a full disk) is an error. */
  const check = () => {
    const err = w.failed();
    if (err && !closed) throw new IdvError('failed', `Cannot write to standard output: ${fsReason(err)}.`);
  };
  const prepare = async () => {
    await w.flush();
    check();
  };
  return {
    ready: async () => undefined,
    write: async (t) => {
      await w.write(t);
      check();
    },
    prepare,
    commit: prepare,
    abort: async () => undefined,
    get closed() {
      return closed;
    },
    replaces: false,
    name: 'standard output',
  };
}

/** What a path holds, as lstat() sees the path itself (never what a link leads to). */
type Found =
  | { kind: 'new' }
  | { kind: 'file'; mode: number; uid: number; gid: number }
  | { kind: 'in-place'; follow: boolean };

async function examine(path: string): Promise<Found> {
  let st: Stats;
  try {
    st = await fsp.lstat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'new' };
    throw err;
  }
  if (st.isFile()) return { kind: 'file', mode: st.mode & 0o777, uid: st.uid, gid: st.gid };
  if (DESCRIPTOR_PATH.test(path)) return { kind: 'in-place', follow: true };
  if (st.isCharacterDevice() || st.isFIFO()) return { kind: 'in-place', follow: false };
  if (st.isDirectory()) throw fsError('EISDIR', 'it is a folder');
  if (st.isSymbolicLink()) {
    const to = await fsp.readlink(path).catch(() => '?');
    throw fsError('ELINK', `it is a symbolic link (to ${to}); idv neither writes through a link nor replaces one: give the path it leads to, or remove the link`);
  }
  throw fsError('ENOTREG', `it is a ${st.isBlockDevice() ? 'block device' : 'socket'}; give a file, a character device or a FIFO`);
}

/** Why a path cannot be written, in words. */
function reasonOf(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === 'ELINK' || code === 'ENOTREG' ? (err as Error).message : fsReason(err);
}

/**
 * A path the user named (-o, a --split file, --report): a regular file is replaced atomically; a character
 * device, FIFO or descriptor path is written in place; a folder, a link, a block device or a socket is refused
 * by ready(). `signal` ends the waits a FIFO can cause (for a reader to come, for a slow one to read).
 */
export function fileSink(path: string, signal?: AbortSignal, live = false): Sink {
  let inner: Sink | null = null;
  let examined: Promise<Sink> | null = null;
  const get = (): Promise<Sink> =>
    (examined ??= (async () => {
      let found: Found;
      try {
        found = await examine(path);
      } catch (err) {
        const folder = (err as NodeJS.ErrnoException).code === 'EISDIR';
        throw new IdvError('failed', `Cannot write ${path}: ${reasonOf(err)}${folder ? '; give a file name' : ''}.`);
      }
      inner = found.kind === 'in-place' ? inPlaceSink(path, found.follow, signal, live) : replacingSink(path, found.kind === 'file' ? found : null);
      await inner.ready();
      return inner;
    })());
  return {
    async ready() {
      await get();
    },
    write: async (text) => (await get()).write(text),
    prepare: async () => (await get()).prepare(),
    commit: async () => (await get()).commit(),
    async abort() {
      await examined?.catch(() => undefined);
      await inner?.abort();
    },
    get closed() {
      return false;
    },
    get replaces() {
      return inner?.replaces ?? true;
    },
    get tempPath() {
      return inner?.tempPath;
    },
    name: path,
  };
}

/** Every byte of `text` written to `fd` at `position` (null: the device's own), through short writes and a device's EAGAIN. */
async function writeAll(handle: FileHandle | number, data: string | Uint8Array, position: number | null, signal?: AbortSignal): Promise<number> {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  for (let off = 0; off < buf.length; ) {
    try {
      const at = position === null ? null : position + off;
      const { bytesWritten } =
        typeof handle === 'number'
          ? await new Promise<{ bytesWritten: number }>((resolve, reject) =>
              writeFd(handle, buf, off, buf.length - off, at, (err, n) => (err ? reject(err) : resolve({ bytesWritten: n }))),
            )
          : await handle.write(buf, off, buf.length - off, at);
      off += bytesWritten;
    } catch (err) {
      // A device opened without blocking that is not ready yet: a moment later, unless the run is stopping.
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || signal?.aborted) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  return buf.length;
}

/** A character device, FIFO or descriptor path, written in place: nothing to rename, nothing to take back. */
function inPlaceSink(path: string, follow: boolean, signal?: AbortSignal, live = false): Sink {
  let fd: number | null = null;
  let stream: Writable | null = null;
  let w: ReturnType<typeof blockWriter> | null = null;
  const fail = (err: unknown) => new IdvError('failed', `Cannot write ${path}: ${reasonOf(err)}.`);
  const check = () => {
    if (w?.failed()) throw fail(w.failed());
  };
  const ready = async () => {
    try {
      fd = await openInPlace(path, follow, signal);
      const st = await new Promise<Stats>((resolve, reject) => fstatFd(fd!, (err, s) => (err ? reject(err) : resolve(s))));
      // Replaced between lstat() and open(): a regular file is only ever replaced whole (a descriptor path aside).
      if (st.isDirectory() || (st.isFile() && !follow)) throw fsError('ENOTREG', 'it changed as it was opened');
      stream = inPlaceStream(fd, st);
      const handle = fd;
      w = stream ? streamWriter(stream, signal, undefined, live) : blockWriter(async (data) => void (await writeAll(handle, data, null, signal)), live);
    } catch (err) {
      await release();
      throw signal?.aborted ? interruptedError(signal.reason) : fail(err);
    }
  };
  const release = async () => {
    if (stream) stream.destroy();
    else if (fd !== null) await new Promise<void>((resolve) => closeFd(fd!, () => resolve()));
    fd = null;
    stream = null;
  };
  let prepared = false;
  const prepare = async () => {
    if (prepared) return;
    await w!.flush();
    check();
    if (stream) {
      const s = stream;
      const finished = new Promise<void>((resolve) => s.once('finish', resolve));
      s.end();
      await Promise.race([finished, drained(s, signal)]);
      check();
    }
    prepared = true;
    await release();
  };
  return {
    ready,
    async write(data) {
      await w!.write(data);
      check();
    },
    prepare,
    commit: prepare,
    abort: release,
    closed: false,
    replaces: false,
    name: path,
  };
}

/** A regular file (or a new one), replaced whole: a temporary file beside it, renamed over it by commit(). */
function replacingSink(path: string, existing: { mode: number; uid: number; gid: number } | null): Sink {
  const tmp = join(dirname(path), `.${basename(path)}.${randomHex(4)}.tmp`);
  const fail = (err: unknown) =>
    new IdvError('failed', `Cannot write ${path}: ${reasonOf(err)}; ${existing ? 'the previous file is left as it was' : 'nothing was written'}.`);
  let handle: FileHandle | null = null;
  let size = 0;
  let aborted = false;
  let state: 'open' | 'prepared' | 'done' = 'open';
  const w = blockWriter(async (data) => {
    size += await writeAll(handle!, data, size);
  });
  const check = () => {
    if (w.failed()) throw fail(w.failed());
  };
  const release = async () => {
    const h = handle;
    handle = null;
    await h?.close().catch(() => undefined);
  };
  return {
    async ready() {
      try {
        tempFileOpened(tmp);
        handle = await fsp.open(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL, existing?.mode ?? 0o666);
        if (aborted) throw new Error('aborted');
        if (existing) {
          await handle.chmod(existing.mode); // the umask narrowed the mode open() was given
          await handle.chown(existing.uid, existing.gid).catch(() => undefined); // allowed to root or the owner only
        }
      } catch (err) {
        await release();
        await fsp.rm(tmp, { force: true }).catch(() => undefined);
        tempFileGone(tmp);
        throw fail(err);
      }
    },
    async write(data) {
      await w.write(data);
      check();
    },
    async prepare() {
      if (state !== 'open') return;
      try {
        await w.flush();
        check();
        // On the disk before any output is put in place: a full disk or a quota fails here, not after.
        await handle!.sync();
        await handle!.close();
        handle = null;
      } catch (err) {
        throw err instanceof IdvError ? err : fail(err);
      }
      state = 'prepared';
    },
    async commit() {
      await this.prepare();
      if (state === 'done') return;
      try {
        await fsp.rename(tmp, path);
      } catch (err) {
        await fsp.rm(tmp, { force: true }).catch(() => undefined);
        tempFileGone(tmp);
        throw fail(err);
      }
      state = 'done';
      tempFileGone(tmp);
    },
    async abort() {
      aborted = true;
      await release();
      if (state === 'done') return;
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      tempFileGone(tmp);
    },
    closed: false,
    replaces: true,
    tempPath: tmp,
    name: path,
  };
}
