// The writer on its own: records whose status is known come in input order and are written so, --only/--exclude
// filter the main output (not --split), blocks are formatted a thousand at a time or once 250 ms have passed,
// and every way writing stops (a failed write, a reader gone, stop()) frees whoever waits on it.
import { describe, expect, it, vi } from 'vitest';
import type { Formatter, OutRecord } from '../../src/output/format.js';
import { OrderedWriter, type Output, type OrderedWriterOptions, type SplitOutputs } from '../../src/output/ordered-writer.js';
import type { Sink } from '../../src/output/sink.js';

/** A formatter that writes `item=status` lines, between [ and ]. */
const lines: Formatter = {
  begin: () => '[\n',
  records: (block: OutRecord[]) => block.map((r) => `${r.item}=${r.status}\n`).join(''),
  end: () => ']\n',
};

interface TestSink extends Sink {
  text: string;
  committed: boolean;
  aborted: boolean;
}

/**
 * A sink collecting text; `failAt`: the write that fails (from 1); `stuckAt`: the write that never ends, or
 * ends when `release` is called (failing, with `failAt` the same write); `closeAt`: EPIPE.
 */
function sink(o: { failAt?: number; stuckAt?: number; closeAt?: number } = {}): TestSink & { release(): void } {
  let writes = 0;
  let release = () => undefined as void;
  const s: TestSink & { release(): void } = {
    release: () => release(),
    text: '',
    committed: false,
    aborted: false,
    closed: false,
    replaces: true,
    name: 'test sink',
    ready: async () => undefined,
    prepare: async () => undefined,
    async write(t) {
      writes++;
      const failure = Object.assign(new Error('no space left on the device (ENOSPC)'), { code: 'ENOSPC' });
      if (writes === o.stuckAt) return new Promise<void>((resolve, reject) => (release = () => (writes === o.failAt ? reject(failure) : resolve())));
      if (writes === o.failAt) throw failure;
      if (writes === o.closeAt) (s as { closed: boolean }).closed = true;
      s.text += t;
    },
    commit: async () => void (s.committed = true),
    abort: async () => void (s.aborted = true),
  };
  return s;
}

const rec = (item: string, status = 'ok'): OutRecord => ({ item, status, fields: null });
const many = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => rec(`${prefix}${i}`));

function writer(o: Partial<OrderedWriterOptions> = {}) {
  const main = o.main === undefined ? { formatter: lines, sink: sink() } : o.main;
  const w = new OrderedWriter({ main, split: null, only: null, exclude: null, ...o });
  return { w, main: main as (Output & { sink: TestSink }) | null };
}

describe('OrderedWriter', () => {
  it('writes the records as they come, the format\'s beginning first and its end last, and commits the outputs at the end', async () => {
    const { w, main } = writer();
    w.begin();
    w.write([rec('a', 'fake'), rec('b')]);
    w.write([rec('c', 'invalid')]);
    await w.finish();
    expect(main!.sink.text).toBe('[\na=fake\nb=ok\nc=invalid\n]\n');
    expect(main!.sink.committed).toBe(true);
  });

  it('--only and --exclude filter the main output, not the --split files; a file made by the last records gets its end', async () => {
    const split: Record<string, TestSink> = {};
    const outputs: SplitOutputs = {
      get: async (status) => ({ formatter: lines, sink: (split[status] ??= sink()) }),
      made: () => Object.values(split).map((s) => ({ formatter: lines, sink: s })),
    };
    const { w, main } = writer({ split: outputs, exclude: new Set(['fake']) });
    w.begin();
    w.write([rec('a'), rec('b', 'fake'), rec('c')]);
    await w.finish();
    expect(main!.sink.text).toBe('[\na=ok\nc=ok\n]\n');
    expect(split.fake!.text).toBe('b=fake\n]\n');
    expect(split.ok!.text).toBe('a=ok\nc=ok\n]\n');
  });

  it('--only writes only the statuses it names', async () => {
    const { w, main } = writer({ only: new Set(['ok', 'alias']) });
    w.begin();
    w.write([rec('a'), rec('b', 'fake'), rec('c', 'alias'), rec('d', 'invalid')]);
    await w.finish();
    expect(main!.sink.text).toBe('[\na=ok\nc=alias\n]\n');
  });

  it('stop() frees one waiting on a write that never ends', async () => {
    const { w } = writer({ main: { formatter: lines, sink: sink({ stuckAt: 1 }) } });
    w.begin();
    const written = w.written();
    await new Promise((r) => setImmediate(r)); // the first write has begun, and hangs
    w.stop();
    await written;
    await w.abort(); // does not wait for the stuck write for ever
  });

  it('a failed write halts the writer once (write-failed), written() throws it, and nothing is committed', async () => {
    const out = sink({ failAt: 2 });
    const { w } = writer({ main: { formatter: lines, sink: out } });
    w.begin();
    w.write(many(1500)); // 1,500 records: a block of 1,000 is formatted and written at once
    await expect(w.written()).rejects.toThrow('no space left on the device (ENOSPC)');
    expect(await w.halted).toBe('write-failed');
    await w.abort();
    expect(out.committed).toBe(false);
    expect(out.aborted).toBe(true);
    expect(w.failed).toMatchObject({ code: 'ENOSPC' });
  });

  it('a reader that went away (EPIPE) halts the writer with EPIPE, and no failure', async () => {
    const { w } = writer({ main: { formatter: lines, sink: sink({ closeAt: 1 }) } });
    w.begin();
    await w.written();
    expect(await w.halted).toBe('EPIPE');
    expect(w.failed).toBeNull();
  });

  it('a write failing after stop() (abort cutting it short) is no failure of its own', async () => {
    const out = sink({ stuckAt: 1, failAt: 1 });
    const { w } = writer({ main: { formatter: lines, sink: out } });
    w.begin();
    await new Promise((r) => setImmediate(r)); // the write has begun
    await w.abort(); // gives up on it after a moment
    out.release(); // and then it fails
    await new Promise((r) => setImmediate(r));
    await w.written();
    expect(w.failed).toBeNull();
  });

  it('a thousand records leave for the output at once, without waiting for the reader', async () => {
    const { w, main } = writer();
    w.begin();
    w.write(many(1000));
    await new Promise((r) => setImmediate(r));
    expect(main!.sink.text.split('\n')).toHaveLength(1002); // [, 1,000 records, and the empty rest after the last newline
  });

  it('records that come 250 ms after the last ones formatted leave at once, however few (| head sees them, a reader gone is found)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const { w, main } = writer();
      w.begin();
      vi.advanceTimersByTime(249);
      w.write([rec('a')]);
      await new Promise((r) => setImmediate(r));
      expect(main!.sink.text).not.toContain('a=ok');
      vi.advanceTimersByTime(1);
      w.write([rec('b')]);
      await new Promise((r) => setImmediate(r));
      expect(main!.sink.text).toBe('[\na=ok\nb=ok\n');
      w.write([rec('c', 'fake')]); // formatted just now: this one waits
      await new Promise((r) => setImmediate(r));
      expect(main!.sink.text).toBe('[\na=ok\nb=ok\n');
    } finally {
      vi.useRealTimers();
    }
  });

  it('what has come when the reader waits for the writes is written then (a live stream gets its results as it goes)', async () => {
    const { w, main } = writer();
    w.begin();
    w.write([rec('a')]);
    await w.written();
    expect(main!.sink.text).toBe('[\na=ok\n');
  });

  it('keptUp() waits for the writes begun, and leaves fewer than a thousand records to go with the next ones (one format call, not one per batch)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] }); // the clock stands still: no 250 ms pass between the batches
    try {
      const calls: number[] = [];
      const counting: Formatter = { ...lines, records: (block) => (calls.push(block.length), lines.records(block)) };
      const { w, main } = writer({ main: { formatter: counting, sink: sink() } });
      w.begin();
      for (let i = 0; i < 9; i++) {
        w.write(many(100, `b${i}-`));
        await w.keptUp();
      }
      expect(calls).toEqual([]);
      w.write(many(100, 'b9-'));
      await w.keptUp();
      expect(calls).toEqual([1000]);
      expect(main!.sink.text.split('\n')).toHaveLength(1002);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a stopped run (Ctrl-C) puts nothing in place at the end: the outputs are left as they were', async () => {
    const { w, main } = writer();
    w.begin();
    w.write([rec('a')]);
    w.stop();
    await w.finish();
    expect(main!.sink.committed).toBe(false);
    expect(main!.sink.text).toBe('');
  });

  it('writes queued before stop() are not made after it, when the write they waited on ends', async () => {
    const out = sink({ stuckAt: 1 });
    const { w } = writer({ main: { formatter: lines, sink: out } });
    w.begin();
    w.write(many(1000)); // a block queued behind the stuck write
    await new Promise((r) => setImmediate(r));
    w.stop();
    out.release();
    await new Promise((r) => setImmediate(r));
    await w.written();
    expect(out.text).toBe(''); // the test sink keeps no text of a write that hung
  });

  it('after a failed write nothing more is written', async () => {
    const out = sink({ failAt: 2 });
    const { w } = writer({ main: { formatter: lines, sink: out } });
    w.begin();
    w.write(many(1000)); // write 2: fails
    await new Promise((r) => setImmediate(r));
    w.write(many(1000, 's')); // would be write 3
    expect(await w.halted).toBe('write-failed');
    expect(await w.written().then(() => null, (e: unknown) => e)).toMatchObject({ code: 'ENOSPC' });
    expect(out.text).toBe('[\n');
  });

  it('a reader that goes away after the run stopped for another reason does not halt it a second time', async () => {
    const out = sink({ stuckAt: 1 });
    const { w } = writer({ main: { formatter: lines, sink: out } });
    let halt: string | null = null;
    void w.halted.then((why) => (halt = why));
    w.begin();
    await new Promise((r) => setImmediate(r)); // the write has begun
    w.stop();
    (out as { closed: boolean }).closed = true;
    out.release();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(halt).toBeNull();
  });

  it('abort() leaves no timer behind when no write was pending (an interrupted run exits at once)', async () => {
    vi.useFakeTimers();
    try {
      const { w } = writer();
      w.begin();
      await vi.advanceTimersByTimeAsync(0);
      await w.abort();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
