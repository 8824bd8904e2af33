// The progress line on standard error: a spinner, one line never wider than the terminal, drawn at most ten times
// a second; lines printed above it fit the terminal too. The Terminal (terminal.ts) decides whether there is one.
import type { Writable } from 'node:stream';
import type { Ora } from 'ora';
import { fitToWidth } from './display-width.js';
import { hanging } from './wrap.js';

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

/** No spinner (standard error is no terminal, or one that cannot show it, or --quiet): lines printed as they are. */
export function plainProgress(stream: Writable): Progress {
  return { live: false, update() {}, log: (line) => void stream.write(line.endsWith('\n') ? line : line + '\n'), stop() {} };
}

/** The spinner on `stream`, a terminal `columns()` wide (asked at each drawing: it may be resized). */
export async function startSpinner(stream: Writable, columns: () => number, color: boolean): Promise<Progress> {
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
    return fitToWidth(typeof text === 'function' ? text(width) : text, width);
  }
}
