// The spinner on standard error, only when it is a terminal (and not --quiet).
import type { Writable } from 'node:stream';

export interface Progress {
  update(text: string): void;
  /** Print a line above the spinner. */
  log(line: string): void;
  stop(): void;
}


export async function createProgress(stream: Writable, enabled: boolean, color: boolean): Promise<Progress> {
  // A terminal that reports no width (a pty made by `script` from a pipe, some CI runners) gets no spinner:
  // ora divides by the width, and at 0 its clear() never ends.
  const columns = (stream as Writable & { columns?: number }).columns;
  if (!enabled || !columns) {
    return { update() {}, log: (line) => void stream.write(line.endsWith('\n') ? line : line + '\n'), stop() {} };
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
