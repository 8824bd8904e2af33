// The streams and surroundings a command runs with. Only src/cli.cts builds one from `process`;
// tests and commands receive it, so nothing below cli.cts touches `process`.
import type { LookupFunction } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { ConfigRead } from './api-key.js';
import type { Secrets } from './secrets.js';
import { terminalSafe } from './terminal-text.js';
import type { Terminal } from './terminal.js';
import { hanging } from './wrap.js';

export interface Io {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** The terminal: which streams are terminals, their width, colour, the progress line, questions (--no-color applied). */
  term: Terminal;
  env: Record<string, string | undefined>;
  /** The working directory; null when it no longer exists (paths.ts resolvePath: absolute paths still work). */
  cwd: string | null;
  /** Aborted on SIGINT/SIGTERM/SIGHUP; `signal.reason` names the signal. */
  signal: AbortSignal;
  /** The run's secrets (the key in use…): every message for a person passes through secrets.redact(). */
  secrets: Secrets;
  /** The effective user id, for trusting idv's own files (owned by the user); null where there is none (Windows). */
  uid: number | null;
  /** The system idv runs on (process.platform): its folders, refused renames, shell hints. Absent: Linux's. */
  platform?: NodeJS.Platform;
  /** The config file as main.ts read it at the start of the run (once: its key is masked, then used). */
  configFile?: ConfigRead;
  /** The command line's words after `idv` (main.ts), for the command a stopped run says goes on. */
  argv?: readonly string[];
  /** How hosts are reached; absent (cli.cts leaves it so): the system's certificates and resolver. */
  network?: NetworkOptions;
}

/** Certificates to trust and a name lookup other than the system's (a test's own CA, a resolver that resolves nothing). */
export interface NetworkOptions {
  /** Trusted instead of Node's certificates (PEM). */
  ca?: string | Buffer | Array<string | Buffer>;
  lookup?: LookupFunction;
}

/**
 * `io` with `changes`: what it reads when asked (cli.cts makes standard input on first use: a run from a file
 * does not build process.stdin) is still read when asked, not copied now as a spread would.
 */
export function withIo(io: Io, changes: Partial<Io>): Io {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(io)) as Io;
  for (const [key, value] of Object.entries(changes)) Object.defineProperty(copy, key, { value, writable: true, enumerable: true, configurable: true });
  return copy;
}

/**
 * One line for a person: the run's secrets masked, every control character shown escaped, line breaks too, so
 * that a file name holding "\nidv: done" cannot forge a line of its own.
 */
export function oneLine(io: Io, text: string): string {
  return terminalSafe(io.secrets.redact(text));
}

/** A message for stderr as oneLine() makes it, its words wrapped at the terminal's width when stderr is one. */
export function forStderr(io: Io, text: string): string {
  const line = oneLine(io, text);
  const columns = io.term.width('stderr');
  return columns === undefined ? line : hanging(line, columns);
}

/** Write a message for a person to stderr: one line (wrapped only on a terminal narrower than it). */
export function warn(io: Io, message: string): void {
  io.stderr.write(forStderr(io, message.replace(/\n$/, '')) + '\n');
}
