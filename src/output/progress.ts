// The spinner on standard error, only when it is a terminal (and not --quiet).
import type { Writable } from 'node:stream';

export interface Progress {
  update(text: string): void;
  /** Print a line above the spinner. */
  log(line: string): void;
  stop(): void;
}


export async function createProgress(stream: Writable, enabled: boolean, color: boolean): Promise<Progress> {
  if (!enabled) {
    return { update() {}, log: (line) => void stream.write(line.endsWith('\n') ? line : line + '\n'), stop() {} };
  }
  const { default: ora } = await import('ora');
  const spinner = ora({ stream: stream as NodeJS.WritableStream, text: 'Reading…', color: color ? 'cyan' : false, isEnabled: true, discardStdin: false }).start();
  let last = 0;
  let pending: string | null = null;
  return {
    update(text) {
      const t = Date.now();
      if (t - last < 80) {
        pending = text;
        return;
      }
      last = t;
      pending = null;
      spinner.text = text;
    },
    log(line) {
      spinner.clear();
      stream.write(line.endsWith('\n') ? line : line + '\n');
      spinner.render();
    },
    stop() {
      if (pending) spinner.text = pending;
      spinner.stop();
    },
  };
}
