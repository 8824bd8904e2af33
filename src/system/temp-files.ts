// The temporary files this process is writing (output files, the config file, a compaction). A process that
// must end at once (a second Ctrl-C) calls removeTempFilesNow() first, so that no `.tmp` file is left; one
// killed outright cannot, so its -o and --split files and a workbook's copy carry its process's mark, and a later
// run writing the same file (or copying the workbook) removes those of a process that no longer runs.
import { promises as fsp, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { markAlive, selfMark, type ProcessMark } from './process-mark.js';

const beingWritten = new Set<string>();

/** A temporary file is being written at `path`. */
export function tempFileOpened(path: string): void {
  beingWritten.add(path);
}

/** It was renamed into place or removed. */
export function tempFileGone(path: string): void {
  beingWritten.delete(path);
}

/** Remove every temporary file still being written, synchronously (the process is about to exit). */
export function removeTempFilesNow(): void {
  for (const path of beingWritten) {
    try {
      rmSync(path, { force: true });
    } catch {
      /* gone already, or not ours to remove */
    }
  }
  beingWritten.clear();
}

/**
 * Random hex for temporary file names (and the sandbox's made-up key), from the global Web Crypto: it is
 * loaded on first use, so a run that writes no temporary file never loads node:crypto (a start-up cost).
 */
export function randomHex(bytes: number): string {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
}

/**
 * Replace `path` atomically: `fill` writes a temporary file beside it (registered while it exists), which
 * is then renamed over `path` (by `put`: a file others may hold open has its own, cache/files.ts renameOver);
 * on failure it is removed and `path` is left as it was.
 */
export async function replaceFile(path: string, fill: (tmp: string) => Promise<void>, put: (tmp: string, path: string) => Promise<void> = fsp.rename): Promise<void> {
  const tmp = `${path}.${randomHex(6)}.tmp`;
  tempFileOpened(tmp);
  try {
    await fill(tmp);
    await put(tmp, path);
  } catch (err) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  } finally {
    tempFileGone(tmp);
  }
}

let self: ProcessMark | null | undefined;
/** The digits of a pid namespace (`pid:[4026531836]`), as a temporary file's name holds them. */
const namespaceDigits = (mark: ProcessMark) => mark.namespace.replace(/\D/g, '');

/** A hidden temporary file's name beside `path`, marked with the process writing it (where /proc tells). */
export function tempPathBeside(path: string): string {
  self ??= selfMark();
  const mark = self ? `${namespaceDigits(self)}-${self.pid}-${self.started}` : 'x';
  return join(dirname(path), `.${basename(path)}.${mark}.${randomHex(4)}.tmp`);
}

/**
 * Remove the temporary files beside `path` that a process killed outright left: marked with a process that
 * no longer runs. Those of a live process, or of one this process cannot see (another pid namespace), stay.
 */
export async function removeLeftovers(path: string): Promise<void> {
  self ??= selfMark();
  if (self === null) return;
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = await fsp.readdir(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)-(\d+)-(\d+)\.[0-9a-f]+\.tmp$/.exec(name.slice(prefix.length)) : null;
    if (!m || m[1] !== namespaceDigits(self)) continue;
    if (markAlive({ pid: Number(m[2]), namespace: self.namespace, started: m[3]! }, self) === false) {
      await fsp.unlink(join(dirname(path), name)).catch(() => undefined);
    }
  }
}
