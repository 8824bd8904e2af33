// How the cache opens its files: never through a symbolic link (O_NOFOLLOW), so that a link planted in the
// folder cannot make idv read another file as its cache, or append results to someone else's file.
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** Windows has no O_NOFOLLOW (nor links a user plants as easily): 0 there. */
export const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW;

/** Append `data` to `path` (created 0600 if missing) with one O_APPEND write, then close it. */
export function appendTo(path: string, data: string | Buffer): void {
  const fd = openSync(path, APPEND, 0o600);
  try {
    writeWhole(fd, typeof data === 'string' ? Buffer.from(data) : data);
  } finally {
    closeSync(fd);
  }
}

/** A file descriptor open for appending and reading (the claims file stays open for a run). */
export function openAppendable(path: string): number {
  return openSync(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | NOFOLLOW, 0o600);
}

/** Reads never wait on a FIFO put in a file's place (for a file, O_NONBLOCK changes nothing). */
const READ = constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0);

/** Open a cache file to read it. */
export function openToRead(path: string): Promise<FileHandle> {
  return open(path, READ);
}

export function openToReadSync(path: string): number {
  return openSync(path, READ);
}

/** One write call for the whole buffer when the system allows, looping only on a short write. */
export function writeWhole(fd: number, buf: Buffer): void {
  for (let at = 0; at < buf.length; ) at += writeSync(fd, buf, at, buf.length - at);
}
