// Where output text goes: standard output, or `-o FILE` written to a temporary file beside it and
// renamed into place on success (a failed or interrupted run leaves an existing file as it was).
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Writable } from 'node:stream';
import { IdvError } from '../errors.js';

export interface Sink {
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
  return {
    write: (t) => w.write(t),
    commit: () => w.flush(),
    abort: async () => undefined,
    get closed() {
      return closed;
    },
  };
}

export function fileSink(path: string): Sink {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  const stream = createWriteStream(tmp, { flags: 'wx' });
  const w = bufferedWriter(stream, () => undefined);
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  opened.catch(() => undefined); // reported by the next write or commit
  const fail = (err: unknown) =>
    new IdvError('failed', `Cannot write ${path}: ${(err as NodeJS.ErrnoException)?.code ?? (err as Error)?.message ?? err}.`);
  return {
    async write(text) {
      await opened.catch((e) => {
        throw fail(e);
      });
      await w.write(text);
      if (w.failed()) throw fail(w.failed());
    },
    async commit() {
      await opened.catch((e) => {
        throw fail(e);
      });
      await w.flush();
      await new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
      if (w.failed()) throw fail(w.failed());
      try {
        await rename(tmp, path);
      } catch (err) {
        await rm(tmp, { force: true });
        throw fail(err);
      }
    },
    async abort() {
      stream.destroy();
      await rm(tmp, { force: true }).catch(() => undefined);
    },
    closed: false,
  };
}
