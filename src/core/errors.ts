// Errors are values with a kind; the kind maps to exactly one exit code, here and nowhere else. IdvError is the
// library's public error class too (docs/api.md): what else this module exports is marked internal, and so left
// out of the declarations the package ships.
import type { ValidationFacts } from '../library/types.js';

export type ErrorKind =
  | 'usage' // bad flags or arguments, refused base URL, an output refused before anything is sent
  | 'input' // unreadable or malformed input
  | 'auth' // no key, or the service answered 401
  | 'quota' // quota used up (clean stop)
  | 'failed' // some records ended `error`, or the program failed
  | 'interrupted'; // SIGINT / SIGTERM / SIGHUP

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** @internal */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  input: 2,
  auth: 3,
  quota: 4,
  sighup: 129,
  sigint: 130,
  sigterm: 143,
} as const;

/**
 * idv's one error class. `kind` says what went wrong, and gives the CLI's exit code for it (`exitCode`): usage 2,
 * input 2, auth 3, quota 4, failed 1, interrupted 130 (143 for SIGTERM, 129 for SIGHUP). The message is one
 * line: what happened, what to do. The library's errors carry the run's facts at the stop (`facts`).
 */
export class IdvError extends Error {
  override readonly name = 'IdvError';
  readonly kind: ErrorKind;
  /** For 'interrupted': which signal. */
  readonly signal?: StopSignal;
  /** The run's facts when it stopped (the library's errors): what was sent and spent, when the quota resets. */
  declare facts?: ValidationFacts;
  constructor(kind: ErrorKind, message: string, signal?: StopSignal) {
    super(message);
    this.kind = kind;
    this.signal = signal;
  }

  /** The CLI's exit code for this error. */
  get exitCode(): number {
    return exitCodeFor(this.kind, this.signal);
  }
}

/** @internal */
export function usageError(message: string): IdvError {
  return new IdvError('usage', message);
}
/** @internal */
export function inputError(message: string): IdvError {
  return new IdvError('input', message);
}

/** An interruption's code depends on its signal; every other kind's is EXIT's entry of its name. */
const EXIT_FOR_SIGNAL: Record<StopSignal, number> = { SIGINT: EXIT.sigint, SIGTERM: EXIT.sigterm, SIGHUP: EXIT.sighup };

/** @internal */
export function exitCodeFor(kind: ErrorKind, signal?: StopSignal): number {
  return kind === 'interrupted' ? EXIT_FOR_SIGNAL[signal ?? 'SIGINT'] : EXIT[kind];
}

/** The signal an abort reason names (SIGINT when it names none). @internal */
export function stopSignal(reason: unknown): StopSignal {
  return reason === 'SIGTERM' || reason === 'SIGHUP' ? reason : 'SIGINT';
}

/** A run stopped by SIGINT, SIGTERM or SIGHUP (the abort reason names which); a validating run says more (outcome.ts). @internal */
export function interruptedError(reason: unknown): IdvError {
  const sig = stopSignal(reason);
  return new IdvError('interrupted', `Interrupted (${sig}).`, sig);
}

/** What a failed file-system call says: the reason in words, and its code (`permission denied (EACCES)`). @internal */
export function fsReason(err: unknown): string {
  const error = err as NodeJS.ErrnoException;
  const words: Record<string, string> = {
    ENOSPC: 'no space left on the device',
    EFBIG: 'the file grew past the size allowed',
    EDQUOT: 'the disk quota is used up',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'the file system is read-only',
    ENOENT: 'no such folder',
    ENOTDIR: 'a part of the path is not a folder',
    EISDIR: 'it is a folder',
    EIO: 'an input/output error',
    EEXIST: 'a file of that name is in the way',
    EMFILE: 'too many files open',
    EPIPE: 'its reader went away',
    ENXIO: 'no such device or address',
    ENFILE: 'too many files open on the system',
  };
  const code = error?.code;
  if (code && words[code]) return `${words[code]} (${code})`;
  return code ?? error?.message ?? String(err);
}
