// Where a run's lines for a person go (notes, warnings, --verbose lines): standard error, and once the progress
// line turns, above it, until the run stops it. One object, so that no part of the run asks which it is.
import { forStderr, warn, type Io } from '../../system/io.js';
import type { Listeners } from '../../input/read.js';
import type { Progress } from '../../system/progress.js';

export class RunLog {
  private progress: Progress | null = null;

  constructor(
    private readonly io: Io,
    private readonly verboseLines: boolean,
  ) {}

  /** The progress line takes standard error over: lines go above it from now on. */
  takeOver(progress: Progress): void {
    this.progress = progress;
  }

  /** The progress line is done with: it is stopped, and lines go to standard error as before. */
  handBack(): void {
    this.progress?.stop();
    this.progress = null;
  }

  line(text: string): void {
    if (this.progress) this.progress.log(forStderr(this.io, text));
    else warn(this.io, text);
  }

  note(text: string): void {
    this.line(`idv: note: ${text}`);
  }

  warning(text: string): void {
    this.line(`idv: warning: ${text}`);
  }

  /** A line for --verbose only. */
  verbose(text: string): void {
    if (this.verboseLines) this.line(`idv: ${text}`);
  }

  /** What reading a source may say: its notes, and with --verbose its details. */
  get listeners(): Listeners {
    return { note: (text) => this.note(text), verbose: this.verboseLines ? (text) => this.verbose(text) : undefined };
  }

  /** The same, held until release(): a source opened before its turn says what it found when its turn comes. */
  held(): { listeners: Listeners; release(): void } {
    let waiting: Array<() => void> | null = [];
    const later = (say: (text: string) => void) => (text: string) => void (waiting ? waiting.push(() => say(text)) : say(text));
    return {
      listeners: { note: later((text) => this.note(text)), verbose: this.verboseLines ? later((text) => this.verbose(text)) : undefined },
      release: () => {
        const said = waiting ?? [];
        waiting = null;
        for (const say of said) say();
      },
    };
  }
}
