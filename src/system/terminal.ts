// The terminal a run meets, in one object (as gh's IOStreams): which of standard input, output and error are
// terminals, the width to lay text out for, colour, the progress line, and the questions asked at the keyboard.
// src/cli.cts builds it once from `process`; tests build one of their own (test/fake-io.ts). Commands and
// output ask it, never a stream's isTTY or columns.
import type { Readable, Writable } from 'node:stream';
import { plainProgress, startSpinner, type Progress } from './progress.js';
import { readHidden, readLine } from './prompt.js';
import { usableColumns } from './terminal-size.cjs';

export type Stream = 'stdin' | 'stdout' | 'stderr';
/** The streams a person reads. */
export type Shown = 'stdout' | 'stderr';

export interface TerminalSetup {
  /** The streams (standard input may be a getter: the process makes it on first use). */
  readonly streams: { readonly stdin: Readable; readonly stdout: Writable; readonly stderr: Writable };
  /** Whether each stream is a terminal (stdin's may be a getter, read only when asked). */
  readonly tty: Readonly<Record<Stream, boolean>>;
  /** The environment: NO_COLOR, FORCE_COLOR and TERM decide colour and whether a line can be redrawn. */
  readonly env: Record<string, string | undefined>;
  /** Colour on each stream as decided elsewhere (a test's); absent: by the environment (colourChoice). */
  readonly color?: Readonly<Record<Shown, boolean>>;
}

export class Terminal {
  private readonly colors: Readonly<Record<Shown, boolean>>;

  constructor(private readonly setup: TerminalSetup) {
    const { tty, env } = setup;
    this.colors = setup.color ?? { stdout: colourChoice(tty.stdout, env), stderr: colourChoice(tty.stderr, env) };
  }

  /** Whether `stream` is a terminal (a person at a keyboard, or a screen). */
  isTerminal(stream: Stream): boolean {
    return this.setup.tty[stream];
  }

  /** The columns to lay text out for on `stream`: a terminal's, or undefined (no terminal, one that does not say, or one too narrow). */
  width(stream: Shown): number | undefined {
    return this.isTerminal(stream) ? usableColumns(this.columns(stream)) : undefined;
  }

  /** Whether `stream` is written in colour (--no-color: withoutColor()). */
  color(stream: Shown): boolean {
    return this.colors[stream];
  }

  /** The same terminal with colour off on both streams (--no-color). */
  withoutColor(): Terminal {
    return new Terminal({ ...this.setup, color: { stdout: false, stderr: false } });
  }

  /**
   * The progress line on standard error: a spinner only on a terminal that can show one (`shown`: not --quiet).
   * None on a terminal that reports no width (a pty made by `script` from a pipe, some CI runners: ora divides by
   * it, and at 0 its clear() never ends), one too narrow, or TERM=dumb (it cannot move the cursor).
   */
  async progress(shown: boolean): Promise<Progress> {
    const { stderr } = this.setup.streams;
    if (!shown || this.width('stderr') === undefined || this.setup.env.TERM === 'dumb') return plainProgress(stderr);
    return startSpinner(stderr, () => this.columns('stderr'), this.color('stderr'));
  }

  /** Whether a question can be asked: standard input is a terminal (a script's cannot answer). */
  canAsk(): boolean {
    return this.isTerminal('stdin');
  }

  /** `question` on standard error, then the line typed (echoed by the terminal); null at the end of input. */
  ask(question: string, signal: AbortSignal): Promise<string | null> {
    const { stdin, stderr } = this.setup.streams;
    stderr.write(question);
    return readLine(stdin, stderr, signal);
  }

  /** `prompt` on standard error, then a line typed without echo; reading stops past `max` characters. */
  askHidden(prompt: string, max: number): Promise<string> {
    const { stdin, stderr } = this.setup.streams;
    stderr.write(prompt);
    return readHidden(stdin as NodeJS.ReadStream, stderr, max);
  }

  /** The width a terminal stream says it has now (it may be resized), 0 when it does not say. */
  private columns(stream: Shown): number {
    return (this.setup.streams[stream] as Writable & { columns?: number }).columns ?? 0;
  }
}

/** Colour on a stream: NO_COLOR (set, not empty) turns it off, FORCE_COLOR decides, else a terminal that is not TERM=dumb. */
export function colourChoice(isTTY: boolean, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY && env.TERM !== 'dumb';
}
