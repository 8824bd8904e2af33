// The spinner on standard error, only when it is a terminal that can show one (and not --quiet): one line,
// never wider than the terminal, drawn at most ten times a second; lines printed above it fit the terminal too.
import type { Writable } from 'node:stream';
import type { Ora } from 'ora';
import { hanging } from '../system/wrap.js';
import { fit } from './progress-line.js';

/** Narrower than this, the spinner's line wraps on every frame (at 1–2 columns, kilobytes of clears and ora's "(content truncated…)"). */
const MIN_COLUMNS = 20;
/** The shortest time between two drawings of the line (ora's frames and new text alike): ten a second. */
export const REDRAW_MS = 100;
/** What the line leaves of the terminal's width: the spinner's frame and a space before the text, and the last column (a line that fills it leaves the cursor past the edge). */
const FRAME_COLUMNS = 3;

/** The line's text, or what makes it for the width it has (asked when it is drawn). */
export type ProgressText = string | ((width: number) => string);

export interface Progress {
  /** A live spinner line (else update() shows nothing and log() writes plain lines). */
  readonly live: boolean;
  update(text: ProgressText): void;
  /** Print a line above the spinner. */
  log(line: string): void;
  stop(): void;
}

/**
 * `enabled`: standard error is a terminal and the run is not --quiet. Even so there is no spinner on a
 * terminal that reports no width (a pty made by `script` from a pipe, some CI runners: ora divides by the
 * width, and at 0 its clear() never ends), on one narrower than MIN_COLUMNS, or with TERM=dumb (a terminal
 * that cannot move the cursor: the escapes would be printed as they are).
 */
export async function createProgress(stream: Writable, enabled: boolean, color: boolean, env: Record<string, string | undefined>): Promise<Progress> {
  const columns = () => (stream as Writable & { columns?: number }).columns ?? 0;
  if (!enabled || !columns() || columns() < MIN_COLUMNS || env.TERM === 'dumb') {
    return { live: false, update() {}, log: (line) => void stream.write(line.endsWith('\n') ? line : line + '\n'), stop() {} };
  }
  const { default: ora } = await import('ora');
  const spinner = ora({
    stream: stream as NodeJS.WritableStream,
    text: 'Reading…',
    color: color ? 'cyan' : false,
    isEnabled: true,
    discardStdin: false,
    interval: REDRAW_MS,
  }).start();
  return new SpinnerLine(spinner, stream, columns);
}

/** The spinner's line: at most one new text every REDRAW_MS; the last text of a burst is shown when its time is up, not lost. */
class SpinnerLine implements Progress {
  readonly live = true;
  /** When a text was last shown, the text waiting to be, and the timer that shows it. */
  private shownAt = 0;
  private pending: ProgressText | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly spinner: Ora,
    private readonly stream: Writable,
    private readonly columns: () => number,
  ) {}

  update(text: ProgressText): void {
    this.pending = text;
    const wait = REDRAW_MS - (Date.now() - this.shownAt);
    if (wait <= 0) this.show();
    else this.timer ??= setTimeout(() => this.show(), wait);
  }

  log(line: string): void {
    this.spinner.clear();
    const lines = line.replace(/\n$/, '').split('\n');
    this.stream.write(lines.map((each) => hanging(each, this.columns())).join('\n') + '\n');
    this.spinner.render();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.pending !== null) this.spinner.text = this.textOf(this.pending);
    this.spinner.stop();
  }

  private show(): void {
    this.timer = null;
    this.shownAt = Date.now();
    if (this.pending !== null) this.spinner.text = this.textOf(this.pending);
    this.pending = null;
  }

  /** The width is asked at each drawing: the terminal may have been resized. */
  private textOf(text: ProgressText): string {
    const width = Math.max(1, this.columns() - FRAME_COLUMNS);
    return fit(typeof text === 'function' ? text(width) : text, width);
  }
}
