// The temporary files this process is writing (-o, --split and --report files, each renamed into place at the
// end; the key's config file; a cache compaction). Every normal ending removes or renames its own. When the
// process must end at once (a second Ctrl-C, the safety net), cli.cts calls removeTempFilesNow() first, so
// that no `.tmp` file is ever left behind.
import { promises as fsp, rmSync } from 'node:fs';

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
 * is then renamed over `path`; on failure it is removed and `path` is left as it was.
 */
export async function replaceFile(path: string, fill: (tmp: string) => Promise<void>): Promise<void> {
  const tmp = `${path}.${randomHex(6)}.tmp`;
  tempFileOpened(tmp);
  try {
    await fill(tmp);
    await fsp.rename(tmp, path);
  } catch (err) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  } finally {
    tempFileGone(tmp);
  }
}
