// Compaction: the log rewritten with only its good, fresh lines (the latest per key), when it holds damaged
// lines or is mostly waste. One rewriter at a time (a lock file beside the log); lines other runs append
// meanwhile are carried over: those written before the rename are copied from the old file's tail, and a
// last look at the old file after the rename catches an append that had opened it just before.
import { writeFile, type FileHandle } from 'node:fs/promises';
import { replaceFile } from '../system/temp-files.js';
import { appendTo, openToRead, renameOver } from './files.js';
import { FileLock } from '../system/lock.js';
import { readLines } from './log.js';
import { isFresh, type Freshness } from './ttl.js';

/** A compaction renews its lock while it works; one not renewed for this long belongs to a dead run. */
const LOCK_STALE_MS = 60_000;
/** How long an append that opened the old file just before the rename may take to land. */
const LAST_LOOK_MS = 20;

/** Rewrite the log at `path`; false when another run is at it or it could not be done (the log is left as it was). */
export async function compactLog(path: string, header: string, fresh: Freshness, now: () => number): Promise<boolean> {
  const lock = new FileLock(`${path}.lock`, LOCK_STALE_MS, now);
  if (!lock.take()) return false;
  let old: FileHandle | null = null;
  try {
    old = await openToRead(path);
    const { text, end } = await freshLines(path, (await old.stat()).size, fresh, () => lock.renew());
    let copied = end;
    await replaceFile(path, async (tmp) => {
      await writeFile(tmp, header + text, { mode: 0o600, flag: 'wx' });
      copied = await copyTail(old!, end, tmp); // what was appended since it was read, whole lines or not
    }, renameOver); // this run holds the old file open (so may others): on Windows it is moved aside
    await new Promise((r) => setTimeout(r, LAST_LOOK_MS));
    await copyTail(old, copied, path);
    return true;
  } catch {
    return false;
  } finally {
    await old?.close().catch(() => undefined);
    lock.drop();
  }
}

/** The good, fresh lines of the log's first `size` bytes, the latest per key, as text; where the last whole line ends. */
async function freshLines(path: string, size: number, fresh: Freshness, working: () => void): Promise<{ text: string; end: number }> {
  const kept = new Map<string, string>();
  // The same parser as a load: what it calls a good line is what is kept. A stale line hides an older
  // fresh one, as it does in a load: the latest answer counts.
  const { end } = await readLines(path, 0, size, (buf, start, stop, ts, status) => {
    const key = buf.toString('utf8', start, stop);
    if (isFresh(ts, status, fresh)) kept.set(key, `${ts}\t${status}\t${key}\n`);
    else kept.delete(key);
    working();
  });
  let text = '';
  for (const line of kept.values()) text += line;
  return { text, end };
}

/** Append what `from` holds from byte `at` on to the file `to`; give where it ended. */
async function copyTail(from: FileHandle, at: number, to: string): Promise<number> {
  const size = (await from.stat()).size;
  if (size <= at) return at;
  const buf = Buffer.alloc(size - at);
  const { bytesRead } = await from.read(buf, 0, buf.length, at);
  appendTo(to, buf.subarray(0, bytesRead));
  return at + bytesRead;
}
