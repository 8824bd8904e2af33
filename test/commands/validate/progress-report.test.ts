// A run's progress report: the spinner's line redrawn on changes and every second (the rate and time left move
// while answers are slow), held while the --wait countdown has the line; off a terminal with --verbose, one log
// line every 5 seconds; the bytes read of the files' sizes, for the total while reading.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PassThrough, Readable } from 'node:stream';
import { createReadStream } from 'node:fs';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countBytes, LOG_EVERY_MS, startProgressReport } from '../../../src/commands/validate/progress-report.js';
import type { Progress, ProgressText } from '../../../src/system/progress.js';
import type { Source } from '../../../src/input/sources/source.js';

function fakeProgress(live: boolean) {
  const drawn: string[] = [];
  const progress: Progress = {
    live,
    update: (t: ProgressText) => void drawn.push(typeof t === 'function' ? t(77) : t),
    log() {},
    stop() {},
  };
  return { progress, drawn };
}

describe('startProgressReport', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 0 }));
  afterEach(() => void vi.useRealTimers());

  const counts = { read: 20_000, readDone: true, bytes: null, done: 0, sent: 0, toSend: 20_000, cached: 0, errors: 0, quotaLeft: undefined };

  it('on a terminal: the line on each change and each second, with the rate of items sent once a second is seen', () => {
    const { progress, drawn } = fakeProgress(true);
    const c = { ...counts };
    const report = startProgressReport({ progress, facts: () => c, log: null, paused: () => false, now: () => Date.now() });
    report.changed();
    expect(drawn).toEqual(['Validating 0 of 20,000 · 0%']);
    Object.assign(c, { done: 2_000, sent: 2_000, toSend: 18_000 });
    vi.advanceTimersByTime(1_000);
    expect(drawn.at(-1)).toBe('Validating 2,000 of 20,000 · 10% · 2,000 sent/s · 9s left');
    vi.advanceTimersByTime(1_000); // nothing new: the rate falls
    expect(drawn.at(-1)).toBe('Validating 2,000 of 20,000 · 10% · 1,000 sent/s · 18s left');
    report.stop();
    vi.advanceTimersByTime(5_000);
    expect(drawn).toHaveLength(3);
  });

  it('while paused (the --wait countdown), the line is left alone', () => {
    const { progress, drawn } = fakeProgress(true);
    let paused = true;
    const report = startProgressReport({ progress, facts: () => counts, log: null, paused: () => paused, now: () => Date.now() });
    report.changed();
    vi.advanceTimersByTime(3_000);
    expect(drawn).toEqual([]);
    paused = false;
    vi.advanceTimersByTime(1_000);
    expect(drawn).toHaveLength(1);
    report.stop();
  });

  it('off a terminal with --verbose: one log line every 5 seconds, the rate included', () => {
    const { progress, drawn } = fakeProgress(false);
    const logged: string[] = [];
    const c = { ...counts };
    const report = startProgressReport({ progress, facts: () => c, log: (l) => logged.push(l), paused: () => false, now: () => Date.now() });
    for (let s = 1; s <= 11; s++) {
      Object.assign(c, { done: s * 1_000, sent: s * 1_000, toSend: 20_000 - s * 1_000 });
      vi.advanceTimersByTime(1_000);
      report.changed();
    }
    report.stop();
    expect(drawn).toEqual([]);
    expect(LOG_EVERY_MS).toBe(5_000);
    expect(logged).toEqual([
      'idv: progress: 5,000 of 20,000 records · 25% · 1,000 sent/s · 15s left',
      'idv: progress: 10,000 of 20,000 records · 50% · 1,000 sent/s · 10s left',
    ]);
  });

  it('cache hits move the count, not the rate: a resumed run\'s time left is that of what it still sends', () => {
    const { progress, drawn } = fakeProgress(true);
    const c = { ...counts, read: 51_300, toSend: 2_000 };
    const report = startProgressReport({ progress, facts: () => c, log: null, paused: () => false, now: () => Date.now() });
    Object.assign(c, { done: 11_000, cached: 11_000, sent: 0 }); // the first second: answers from the cache
    vi.advanceTimersByTime(1_000);
    Object.assign(c, { done: 11_050, sent: 50, toSend: 1_950 }); // then 50 items sent a second
    vi.advanceTimersByTime(1_000);
    expect(drawn.at(-1)).toBe('Validating 11,050 of 51,300 · 21% · 50 sent/s · 39s left · 11,000 from cache');
    report.stop();
  });

  it('off a terminal without --verbose: nothing, and no timer left', () => {
    const { progress, drawn } = fakeProgress(false);
    const report = startProgressReport({ progress, facts: () => counts, log: null, paused: () => false });
    expect(vi.getTimerCount()).toBe(0);
    report.changed();
    report.stop();
    expect(drawn).toEqual([]);
  });
});

describe('countBytes', () => {
  let dir: string;
  beforeEach(async () => void (dir = await mkdtemp(join(tmpdir(), 'idv-bytes-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  const fileSource = (path: string): Source => ({ name: path, path, open: () => createReadStream(path, { highWaterMark: 1024 }) });
  const drain = async (s: Readable) => {
    for await (const _chunk of s);
  };

  it('the bytes the reader took from each file, the earlier files whole, of their sizes together', async () => {
    const a = join(dir, 'a.txt');
    const b = join(dir, 'b.txt');
    await writeFile(a, 'x'.repeat(3000));
    await writeFile(b, 'y'.repeat(5000));
    const counted = countBytes([fileSource(a), fileSource(b)], (s) => ({ [a]: 3000, [b]: 5000 })[s.path]);
    expect(counted.bytes()).toEqual({ read: 0, total: 8000 });
    const first = counted.sources[0]!.open();
    const it = first[Symbol.asyncIterator]();
    await it.next(); // one chunk taken; more may be buffered, not yet taken
    expect(counted.bytes()).toEqual({ read: 1024, total: 8000 });
    await it.return?.();
    counted.reading(1);
    const second = counted.sources[1]!.open();
    expect(counted.bytes()).toEqual({ read: 3000, total: 8000 });
    await drain(second);
    expect(counted.bytes()).toEqual({ read: 8000, total: 8000 });
  });

  it('no total when a size is unknown (standard input)', async () => {
    const stdin: Source = { name: 'standard input', path: '-', open: () => new PassThrough() };
    expect(countBytes([stdin], () => undefined).bytes()).toBeNull();
  });

  it('a source without bytes (the items given with --item) leaves the total as it is', () => {
    const items: Source = { name: '--item', path: '--item', open: () => Readable.from(['a@b.co\n']) };
    expect(countBytes([items], () => 0).bytes()).toEqual({ read: 0, total: 0 });
  });
});
