// Where output text goes: standard output, or `-o FILE` written to a temporary file beside it and
// renamed into place on success (a failed or interrupted run leaves an existing file as it was).
// The temporary file takes the mode (and, where allowed, the owner) of the file it will replace before any
// data is written, as `sed -i` and git do: a private list stays private. A new file gets what the umask
// gives, as the shell's `>` does.
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { fsReason, IdvError } from '../errors.js';
import { tempFileGone, tempFileOpened, randomHex } from '../temp-files.js';

export interface Sink {
  /** Resolves once the destination can be written; a file that cannot (a folder, no such folder) fails here, before anything is sent. */
  ready(): Promise<void>;
  write(text: string): Promise<void>;
  /** Finish: flush and, for a file, rename into place. */
  commit(): Promise<void>;
  /** Give up: for a file, remove the temporary file. */
  abort(): Promise<void>;
  /** Standard output was closed by its reader (`| head`). */
  readonly closed: boolean;
}

const FLUSH_AT = 64 * 1024;

function bufferedWriter(stream: Writable, onError: (err: NodeJS.ErrnoException) => void) {
  let buffer = '';
  let failed: NodeJS.ErrnoException | null = null;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    failed ??= err;
    onError(err);
  });
  const flush = async () => {
    if (!buffer || failed) return;
    const text = buffer;
    buffer = '';
    if (!stream.write(text)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          stream.off('drain', done);
          stream.off('error', done);
          stream.off('close', done);
          resolve();
        };
        stream.on('drain', done);
        stream.on('error', done);
        stream.on('close', done);
      });
    }
  };
  return {
    async write(text: string) {
      if (failed) return;
      buffer += text;
      if (buffer.length >= FLUSH_AT) await flush();
    },
    flush,
    failed: () => failed,
  };
}

export function stdoutSink(stdout: Writable): Sink {
  let closed = false;
  const w = bufferedWriter(stdout, (err) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') closed = true;
  });
  /** A standard output that failed for another reason than its reader going away (a full disk) is an error. */
  const check = () => {
    const err = w.failed();
    if (err && !closed) throw new IdvError('failed', `Cannot write to standard output: ${fsReason(err)}.`);
  };
  return {
    ready: async () => undefined,
    write: async (t) => {
      await w.write(t);
      check();
    },
    commit: async () => {
      await w.flush();
      check();
    },
    abort: async () => undefined,
    get closed() {
      return closed;
    },
  };
}

export function fileSink(path: string): Sink {
  const tmp = join(dirname(path), `.${basename(path)}.${randomHex(4)}.tmp`);
  const fail = (err: unknown) =>
    new IdvError(
      'failed',
      `Cannot write ${path}: ${fsReason(err)}; ${folder ? 'give a file name' : existed ? 'the previous file is left as it was' : 'nothing was written'}.`,
    );
  let existed = false;
  let folder = false;
  let handle: FileHandle | null = null;
  let stream: Writable | null = null;
  let w: ReturnType<typeof bufferedWriter> | null = null;
  let aborted = false;
  const opened = (async () => {
    let mode: number | undefined;
    let owner: { uid: number; gid: number } | undefined;
    try {
      const st = await fsp.stat(path);
      existed = true;
      folder = st.isDirectory();
      if (st.isFile()) {
        mode = st.mode & 0o7777;
        owner = { uid: st.uid, gid: st.gid };
      }
    } catch {
      /* a new file: the umask decides */
    }
    // A folder cannot be replaced: say so now, before anything is sent and paid for, not at the final rename.
    if (folder) throw Object.assign(new Error('it is a folder'), { code: 'EISDIR' });
    tempFileOpened(tmp);
    handle = await fsp.open(tmp, 'wx', mode ?? 0o666);
    if (aborted) throw new Error('aborted');
    if (mode !== undefined) {
      await handle.chmod(mode); // the umask narrowed the mode open() was given
      if (owner) await handle.chown(owner.uid, owner.gid).catch(() => undefined); // allowed to root or the owner only
    }
    stream = handle.createWriteStream();
    w = bufferedWriter(stream, () => undefined);
  })();
  opened.catch(() => undefined); // reported by the next write or commit
  const ready = async () => {
    try {
      await opened;
    } catch (err) {
      throw fail(err);
    }
    if (w!.failed()) throw fail(w!.failed());
    return w!;
  };
  return {
    async ready() {
      await ready();
    },
    async write(text) {
      const writer = await ready();
      await writer.write(text);
      if (writer.failed()) throw fail(writer.failed());
    },
    async commit() {
      const writer = await ready();
      await writer.flush();
      await new Promise<void>((resolve, reject) => stream!.end((err?: Error | null) => (err ? reject(err) : resolve()))).catch((err) => {
        throw fail(err);
      });
      if (writer.failed()) throw fail(writer.failed());
      try {
        await fsp.rename(tmp, path);
        tempFileGone(tmp);
      } catch (err) {
        await fsp.rm(tmp, { force: true });
        tempFileGone(tmp);
        throw fail(err);
      }
    },
    async abort() {
      aborted = true;
      await opened.catch(() => undefined);
      stream?.destroy();
      await handle?.close().catch(() => undefined);
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      tempFileGone(tmp);
    },
    closed: false,
  };
}
