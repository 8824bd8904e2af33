// Where an output the user named goes (-o, --report): standard output, or a file. Decided once, when the flags
// are read: the path resolved against the working directory then, and every later step (the format, the
// colliding-outputs check, the sink, the closing lines) reads this value instead of deciding again.
import { resolvePath } from '../system/paths.js';

export interface Destination {
  /** As the user gave it (`-o clean.csv`), for messages; null: none given. */
  readonly given: string | null;
  /**
   * The file, absolute; null: standard output (none given, `-`, /dev/stdout and the paths that name it), written
   * in place as results come. A file is replaced at the run's end (unless it proves a device or a FIFO: sink.ts).
   */
  readonly path: string | null;
}

/** Paths that name this process's standard output: written to it, never replaced. */
const STDOUT_PATH = /^\/(?:dev\/(?:stdout|fd\/1)|proc\/self\/fd\/1)$/;

/** `given` against the working directory `cwd` (null: gone, so only an absolute path works: paths.ts). */
export function destinationOf(given: string | undefined, cwd: string | null): Destination {
  if (given === undefined || given === '-') return { given: given ?? null, path: null };
  const path = resolvePath(cwd, given);
  return { given, path: STDOUT_PATH.test(path) ? null : path };
}
