// Answers typed at the terminal: a line (echoed by the terminal: cache clear's [y/N]) and a hidden line (raw mode,
// nothing echoed: auth login's key). The Terminal (terminal.ts) writes the question first.
import type { Readable, Writable } from 'node:stream';
import { IdvError, interruptedError } from '../core/errors.js';

/** One line typed at the terminal; null at the end of input. Ctrl-C (the run's signal) ends the wait. */
export function readLine(stdin: Readable, stderr: Writable, signal: AbortSignal): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = (line: string | null, err?: Error) => {
      stdin.off('data', onData).off('end', onEnd);
      signal.removeEventListener('abort', onAbort);
      stdin.pause();
      if (err) reject(err);
      else resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      const nl = text.indexOf('\n');
      if (nl !== -1) finish(text.slice(0, nl));
    };
    const onEnd = () => finish(text === '' ? null : text);
    // The terminal echoed ^C after the question: the message goes on a line of its own.
    const onAbort = () => (stderr.write('\n'), finish(null, interruptedError(signal.reason)));
    if (signal.aborted) return onAbort();
    stdin.on('data', onData).on('end', onEnd);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** One line read from a terminal without echoing it (Ctrl-C in raw mode is a character: it interrupts); at most `max` + 1 characters. */
export function readHidden(stdin: NodeJS.ReadStream, stderr: Writable, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let value = '';
    const raw = typeof stdin.setRawMode === 'function';
    if (raw) stdin.setRawMode(true);
    stdin.resume();
    const done = (err?: Error) => {
      stdin.off('data', onData);
      if (raw) stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new IdvError('interrupted', 'Interrupted.', 'SIGINT'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
        if (value.length > max) return done();
      }
    };
    stdin.on('data', onData);
  });
}
