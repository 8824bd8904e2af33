// The spinner: its text never wider than the terminal (asked for the width when drawn), at most ten drawings a
// second (ora's frames and new text alike), the last text of a burst shown when its time is up (the --wait
// countdown used to be swallowed that way), and lines printed above it wrapped at the terminal's width. The
// 0-column terminal is tested in test/e2e/terminal.test.ts, under a hard kill: without the guard, ora's clear() never returns.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Readable, Writable } from 'node:stream';
import { REDRAW_MS } from '../../src/system/progress.js';
import { Terminal } from '../../src/system/terminal.js';

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

/** The run's progress line, as the Terminal gives it: standard error this terminal, colour off; `shown`: not --quiet. */
function progressOn(stream: Writable, shown = true) {
  const term = new Terminal({ streams: { stdin: Readable.from([]), stdout: stream, stderr: stream }, tty: { stdin: false, stdout: false, stderr: true }, env: {}, color: { stdout: false, stderr: false } });
  return term.progress(shown);
}
// The clock is the test's: a busy machine's late timers cannot decide what was drawn.
const sleep = (ms: number) => vi.advanceTimersByTimeAsync(ms);
beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());
/** What ora drew: each frame's text, escape sequences (synchronised output, cursor) taken out. */
const frames = (text: string) =>
  text
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '\n')
    .split('\n')
    .filter((l) => /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /.test(l));

describe('progress', () => {
  it('shows the last text of a burst once its time is up, before any stop()', async () => {
    const t = terminal(100);
    const p = await progressOn(t.stream);
    p.update('first');
    p.update('second');
    p.update('waiting 59m for the quota to reset');
    await sleep(3 * REDRAW_MS);
    const seen = t.text();
    p.stop();
    expect(seen).toContain('waiting 59m for the quota to reset');
    expect(seen).not.toContain('second');
  });

  it('asks the text for the width the terminal leaves it, and cuts what is wider', async () => {
    const t = terminal(40);
    const p = await progressOn(t.stream);
    const asked: number[] = [];
    p.update((width) => {
      asked.push(width);
      return 'x'.repeat(width);
    });
    await sleep(2 * REDRAW_MS);
    p.update('a line far longer than the forty columns of this terminal, and then some');
    await sleep(2 * REDRAW_MS);
    p.stop();
    expect(asked).toEqual([37]);
    const drawn = frames(t.text());
    expect(drawn.map((f) => f.slice(2))).toContain('x'.repeat(37));
    expect(drawn.map((f) => f.slice(2))).toContain('a line far longer than the forty col…');
    for (const f of drawn) expect([...f].length).toBeLessThanOrEqual(39);
  });

  it('cuts a line of wide characters by the columns they take, never half a character', async () => {
    const t = terminal(20);
    const p = await progressOn(t.stream);
    p.update('メールアドレス'.repeat(3));
    await sleep(2 * REDRAW_MS);
    p.stop();
    const drawn = frames(t.text()).map((f) => f.slice(2));
    expect(drawn).toContain('メールアドレスメ…');
  });

  it('draws at most ten times a second, however often the text changes', async () => {
    const t = terminal(80);
    const p = await progressOn(t.stream);
    const start = Date.now();
    let i = 0;
    while (Date.now() - start < 1_000) {
      p.update(`count ${i++}`);
      await sleep(5);
    }
    p.stop();
    const drawn = frames(t.text());
    expect(i).toBeGreaterThan(50);
    expect(drawn.length).toBeLessThanOrEqual(12); // ten a second, and the first and the last
    expect(drawn.length).toBeGreaterThanOrEqual(3); // it does draw (a busy machine draws fewer)
  });

  it('lines printed above the spinner are wrapped at the terminal, each line after the first indented', async () => {
    const t = terminal(40);
    const p = await progressOn(t.stream);
    p.log('idv: note: list.csv: skipped 3 lines below the data (not records): "Total 1,234"');
    p.stop();
    const text = t.text().replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    expect(text).toContain('idv: note: list.csv: skipped 3 lines\n  below the data (not records): "Total\n  1,234"\n');
  });

  it('no spinner off a terminal: log() writes the line as it is', async () => {
    const t = terminal(40);
    const p = await progressOn(t.stream, false);
    expect(p.live).toBe(false);
    p.update('nothing');
    p.log('a line longer than forty columns stays one line here');
    p.stop();
    expect(t.text()).toBe('a line longer than forty columns stays one line here\n');
  });
});
