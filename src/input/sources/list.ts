// The run's sources as named: files, `-` and standard input (the items given with --item: items.ts), and each
// named file's size, from stat(), before anything is read.
import { statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { openForReading } from '../../system/open-file.js';
import { resolvePath } from '../../system/paths.js';
import { interruptedError, usageError } from '../../core/errors.js';
import type { Io } from '../../system/io.js';
import { readError } from '../bytes/read-error.js';
import type { Source } from './source.js';

/** The files a run reads, as named: `-` (standard input) when neither a file nor an item is given. */
export const filesRead = (files: string[], items: number): string[] => (files.length === 0 && items === 0 ? ['-'] : files);

/** The files' sources, then `more` (the items given with --item: items.ts); standard input when there is neither. */
export function sourcesFor(files: string[], io: Io, more: Source[] = []): Source[] {
  if (files.length === 0 && more.length === 0 && io.term.isTerminal('stdin')) {
    throw usageError('No input: give a FILE or --item ITEM, or pipe a list in (e.g. cat list.csv | idv emails). See idv emails --help.');
  }
  files = filesRead(files, more.length);
  const { signal } = io;
  const sources: Source[] = files.map((f) => {
    if (f === '-') return { name: 'standard input', path: '-', open: () => endedBySignal(io.stdin, signal), signal };
    const file = resolvePath(io.cwd, f);
    return { name: f, path: f, file, open: () => openForReading(file, signal), signal };
  });
  return [...sources, ...more];
}

/**
 * Standard input that a signal ends: a live stream may never end on its own (`tail -f … | idv`), and a run
 * waiting for its next line must hear Ctrl-C or SIGTERM (a FIFO named as a file is opened so: open-file.ts).
 */
function endedBySignal(stdin: Readable, signal: AbortSignal): Readable {
  const onAbort = () => stdin.destroy(interruptedError(signal.reason));
  stdin.on('error', () => undefined); // its reader hears the error; none is left unheard when there is none
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  stdin.once('close', () => signal.removeEventListener('abort', onAbort));
  return stdin;
}

/**
 * Each named file's size (for the report and the progress line's total), from stat(): a file that is missing
 * or a folder fails here, before anything is sent (not after paying for the files before it).
 */
export async function statInputFiles(files: string[], cwd: string | null): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const file of files) {
    if (file === '-') continue;
    let stats;
    try {
      stats = statSync(resolvePath(cwd, file)); // as the file is opened (open-file.ts): no round trip through the pool
    } catch (err) {
      throw readError(err, file);
    }
    if (stats.isDirectory()) throw readError(Object.assign(new Error('directory'), { code: 'EISDIR' }), file);
    sizes.set(file, stats.size);
  }
  return sizes;
}
