// The spinner's text throttle: at most one redraw per 80 ms, but the last text of a burst is shown when its
// 80 ms are up (the --wait countdown used to be swallowed that way). The 0-column terminal is tested in
// e2e-tty.test.ts, under a hard kill: without the guard, ora's clear() never returns.
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createProgress } from '../src/output/progress.js';

function terminal(columns: number) {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, cb) {
      text += String(chunk);
      cb();
    },
  }) as Writable & { isTTY: boolean; columns: number; cursorTo(x: number): boolean; clearLine(dir: number): boolean; moveCursor(dx: number, dy: number): boolean };
  // What ora asks of a terminal stream (a tty.WriteStream has these).
  stream.isTTY = true;
  stream.columns = columns;
  stream.cursorTo = () => true;
  stream.clearLine = () => true;
  stream.moveCursor = () => true;
  return { stream, text: () => text };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('progress', () => {
  it('shows the last text of a burst once the 80 ms are up, before any stop()', async () => {
    const t = terminal(100);
    const p = await createProgress(t.stream, true, false, {});
    p.update('first');
    p.update('second');
    p.update('waiting 59m for the quota to reset');
    await sleep(250);
    const seen = t.text();
    p.stop();
    expect(seen).toContain('waiting 59m for the quota to reset');
    expect(seen).not.toContain('second');
  });
});
