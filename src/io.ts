// The streams and surroundings a command runs with. Only src/cli.cts builds one from `process`;
// tests and commands receive it, so nothing below cli.cts touches `process`.
import type { Readable, Writable } from 'node:stream';
import type { Secrets } from './secrets.js';

export interface Io {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Colour on standard output / standard error (NO_COLOR, FORCE_COLOR, --no-color already applied). */
  color: boolean;
  colorErr: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Aborted on SIGINT/SIGTERM/SIGHUP; `signal.reason` names the signal. */
  signal: AbortSignal;
  /** The run's secrets (the key in use…): every message for a person passes through secrets.redact(). */
  secrets: Secrets;
}

/** Write a line to stderr. */
export function warn(io: Io, message: string): void {
  io.stderr.write(message.endsWith('\n') ? message : message + '\n');
}
