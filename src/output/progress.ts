// The spinner on standard error, only when it is a terminal that can show one (and not --quiet).
import type { Writable } from 'node:stream';

/** Narrower than this, the spinner's line wraps on every frame (at 1–2 columns, kilobytes of clears and ora's "(content truncated…)"). */
const MIN_COLUMNS = 20;

export interface Progress {
  /** A live spinner line (else update() shows nothing and log() writes plain lines). */
  readonly live: boolean;
  update(text: string): void;
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
  const columns = (stream as Writable & { columns?: number }).columns;
  if (!enabled || !columns || columns < MIN_COLUMNS || env.TERM === 'dumb') {
    return { live: false, update() {}, log: (line) => void stream.write(line.endsWith('\n') ? line : line + '\n'), stop() {} };
  }
  const { default: ora } = await import('ora');
  const spinner = ora({ stream: stream as NodeJS.WritableStream, text: 'Reading…', color: color ? 'cyan' : false, isEnabled: true, discardStdin: false }).start();
  // At most one redraw every 80 ms; the last text of a burst is shown when its 80 ms are up, not lost.
  let last = 0;
  let pending: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  const show = () => {
    timer = null;
    last = Date.now();
    if (pending !== null) spinner.text = pending;
    pending = null;
  };
  return {
    live: true,
    update(text) {
      pending = text;
      const wait = 80 - (Date.now() - last);
      if (wait <= 0) show();
      else timer ??= setTimeout(show, wait);
    },
    log(line) {
      spinner.clear();
      stream.write(line.endsWith('\n') ? line : line + '\n');
      spinner.render();
    },
    stop() {
      if (timer) clearTimeout(timer);
      if (pending !== null) spinner.text = pending;
      spinner.stop();
    },
  };
}
