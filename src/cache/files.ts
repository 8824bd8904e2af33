// How the cache opens its files: never through a symbolic link (O_NOFOLLOW), so that a link planted in the
// folder cannot make idv read another file as its cache, or append results to someone else's file.
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { randomHex } from '../system/temp-files.js';

/** Windows has no O_NOFOLLOW (nor links a user plants as easily): 0 there. */
export const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW;

/** Append `data` to `path` (created 0600 if missing, unless `create` is false) with one O_APPEND write, then close it. */
export function appendTo(path: string, data: string | Buffer, create = true): void {
  const fd = openSync(path, create ? APPEND : APPEND & ~constants.O_CREAT, 0o600);
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

/** How a rename onto a file that another program holds open is refused on Windows (ERROR_ACCESS_DENIED, ERROR_SHARING_VIOLATION). */
const REFUSED = new Set(['EPERM', 'EACCES', 'EBUSY']);

/**
 * Put `tmp` in the place of `path`, a cache file other runs may hold open. Windows refuses to rename over an
 * open file but lets Node's (FILE_SHARE_DELETE) be renamed away: the old one is moved aside, the new one takes
 * its name, the old one is removed (docs/choices.md). `move` is the rename (tests refuse as Windows does).
 */
export async function renameOver(tmp: string, path: string, move: (from: string, to: string) => Promise<void> = rename): Promise<void> {
  try {
    return await move(tmp, path);
  } catch (err) {
    if (!REFUSED.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
  }
  const aside = `${path}.${randomHex(4)}.old`;
  await move(path, aside); // refused too: a program that does not share deletion holds it (left as it was)
  try {
    await move(tmp, path);
  } catch (err) {
    await move(aside, path).catch(() => undefined);
    throw err;
  }
  await rm(aside, { force: true }).catch(() => undefined);
}
