// In-process runs of idv: runCli(argv, io) with a fake Io (streams that collect text, TTY flags, env,
// an abort signal for Ctrl-C). What a test sees is what a user would: stdout, stderr and the exit code.
// Spawn the built program (helpers.ts idv()) only where a real process matters: signals, EPIPE, pty, bin.
import { PassThrough, Readable, Writable } from 'node:stream';
import { runCli } from '../src/main.js';
import { Secrets } from '../src/system/secrets.js';
import type { Io, NetworkOptions } from '../src/system/io.js';
import { Terminal } from '../src/system/terminal.js';
import { ROOT } from './helpers.js';

export interface FakeRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface FakeOptions {
  env?: Record<string, string | undefined>;
  /** Standard input; omitted: an empty pipe. */
  input?: string | Buffer | Readable;
  cwd?: string;
  stdinIsTTY?: boolean;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  color?: boolean;
  colorErr?: boolean;
  /** Abort it to play Ctrl-C (reason 'SIGINT'), SIGTERM or SIGHUP. */
  signal?: AbortSignal;
  /** Called with each chunk written to stderr, as it is written. */
  onStderr?: (text: string) => void;
  /** A stdout that fails every write with this code (EPIPE: the reader went away). */
  stdoutError?: string;
  /** The user id idv runs as (default: this process's); another one makes this process's files someone else's. */
  uid?: number | null;
  /** The system idv believes it runs on (Io.platform): each system's branch, tested here. */
  platform?: NodeJS.Platform;
  /** The terminal's width, as a TTY stream's `columns` says it (stdout and stderr). */
  columns?: number;
  /** Certificates to trust and a name lookup instead of the system's (Io.network). */
  network?: NetworkOptions;
}

class Collector extends Writable {
  text = '';
  columns?: number;
  constructor(private readonly onChunk?: (t: string) => void, private readonly failWith?: string) {
    super();
  }
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.failWith) return cb(Object.assign(new Error(this.failWith), { code: this.failWith }));
    const t = chunk.toString();
    this.text += t;
    this.onChunk?.(t);
    cb();
  }
}

export function fakeIo(o: FakeOptions = {}): Io & { out: Collector; err: Collector } {
  const out = new Collector(undefined, o.stdoutError);
  const err = new Collector(o.onStderr);
  if (o.columns !== undefined) out.columns = err.columns = o.columns;
  let stdin: Readable;
  if (o.input instanceof Readable) stdin = o.input;
  else {
    const p = new PassThrough();
    p.end(o.input ?? '');
    stdin = p;
  }
  const env = o.env ?? {};
  const tty = { stdin: o.stdinIsTTY ?? false, stdout: o.stdoutIsTTY ?? false, stderr: o.stderrIsTTY ?? false };
  const color = { stdout: o.color ?? false, stderr: o.colorErr ?? false };
  return {
    stdin,
    stdout: out,
    stderr: err,
    out,
    err,
    term: new Terminal({ streams: { stdin, stdout: out, stderr: err }, tty, env, color }),
    env,
    cwd: o.cwd ?? ROOT,
    signal: o.signal ?? new AbortController().signal,
    secrets: new Secrets(),
    uid: o.uid === undefined ? (process.geteuid?.() ?? null) : o.uid,
    // The system the tests run on unless a test names another: Windows paths judged by Windows' rules there.
    platform: o.platform ?? process.platform,
    network: o.network,
  };
}

/** Run `idv …args` in this process; never rejects. */
export async function run(args: string[], o: FakeOptions = {}): Promise<FakeRun> {
  const io = fakeIo(o);
  const exitCode = await runCli(args, io);
  return { exitCode, stdout: io.out.text, stderr: io.err.text };
}
