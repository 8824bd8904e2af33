// The ordered writer on its own: records leave in input order once their status is known, --only/--exclude
// filter the main output (not the counts or --split), the window makes reading wait and frees it at half,
// and every way writing stops (a failed write, a reader gone, stop()) frees whoever waits on it.
import { describe, expect, it, vi } from 'vitest';
import { NEW, PENDING, type Known } from '../../src/plan/plan.js';
import type { PlannedRecord } from '../../src/plan/planned.js';
import type { Formatter, OutRecord } from '../../src/output/format.js';
import { OrderedWriter, type Output, type OrderedWriterOptions, type SplitOutputs } from '../../src/output/ordered-writer.js';
import type { Sink } from '../../src/output/sink.js';

const known = new Map<string, Known>();
const knownAs = (status: string): Known => {
  let k = known.get(status);
  if (!k) known.set(status, (k = { kind: 'known', status }));
  return k;
};

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

const rec = (item: string, state: PlannedRecord['state'] = NEW): PlannedRecord => ({ item, key: item, send: item, fields: null, state });

function writer(o: Partial<OrderedWriterOptions> & { statuses?: Map<string, string> } = {}) {
  const main = o.main === undefined ? { formatter: lines, sink: sink() } : o.main;
  const statuses = o.statuses ?? new Map<string, string>();
  const w = new OrderedWriter({ main, split: null, statusOf: (k) => statuses.get(k), knownAs, only: null, exclude: null, ...o });
  return { w, main: main as (Output & { sink: TestSink }) | null, statuses };
}

describe('OrderedWriter', () => {
  it('records leave in input order as soon as those before them are known, and the outputs commit at the end', async () => {
    const { w, main } = writer();
    const [a, b, c] = [rec('a'), rec('b'), rec('c', knownAs('invalid'))];
    w.begin();
    w.add([a, b, c]);
    w.settle([[b, 'ok']]);
    expect(w.passed).toBe(0); // a is still unknown
    w.settle([[a, 'fake']]);
    expect(w.passed).toBe(3);
    await w.finish();
    expect(main!.sink.text).toBe('[\na=fake\nb=ok\nc=invalid\n]\n');
    expect(main!.sink.committed).toBe(true);
    expect(Object.fromEntries(w.counts)).toEqual({ fake: 1, ok: 1, invalid: 1 });
  });

  it('a duplicate waiting on an item sent for another record learns its status from the plan', async () => {
    const { w, main, statuses } = writer();
    const first = rec('a');
    const dup = rec('a', PENDING);
    w.begin();
    w.add([first, dup]);
    statuses.set('a', 'ok');
    w.settle([[first, 'ok']]);
    await w.finish();
    expect(main!.sink.text).toBe('[\na=ok\na=ok\n]\n');
  });

  it('--only and --exclude filter the main output, not the counts nor the --split files; a file made by the last answers gets its end', async () => {
    const split: Record<string, TestSink> = {};
    const outputs: SplitOutputs = {
      get: async (status) => ({ formatter: lines, sink: (split[status] ??= sink()) }),
      made: () => Object.values(split).map((s) => ({ formatter: lines, sink: s })),
    };
    const { w, main } = writer({ split: outputs, exclude: new Set(['fake']) });
    const rs = [rec('a'), rec('b'), rec('c')];
    w.begin();
    w.add(rs);
    w.settle([[rs[0]!, 'ok'], [rs[1]!, 'fake'], [rs[2]!, 'ok']]);
    await w.finish();
    expect(main!.sink.text).toBe('[\na=ok\nc=ok\n]\n');
    expect(split.fake!.text).toBe('b=fake\n]\n');
    expect(split.ok!.text).toBe('a=ok\nc=ok\n]\n');
    expect(Object.fromEntries(w.counts)).toEqual({ ok: 2, fake: 1 });
  });

  it('a full window makes reading wait until it is half empty', async () => {
    const { w } = writer({ windowMax: 4 });
    const rs = ['a', 'b', 'c', 'd'].map((i) => rec(i));
    w.add(rs);
    expect(w.full).toBe(true);
    let free = false;
    const room = w.waitForRoom().then(() => (free = true));
    w.settle([[rs[0]!, 'ok'], [rs[1]!, 'ok']]);
    await new Promise((r) => setImmediate(r));
    expect(free).toBe(false); // 2 of 4 held: not yet less than half
    w.settle([[rs[2]!, 'ok']]);
    await room;
    expect(free).toBe(true);
  });

  it('stop() frees a reader waiting for room, and one waiting on a write that never ends', async () => {
    const { w } = writer({ windowMax: 2, main: { formatter: lines, sink: sink({ stuckAt: 1 }) } });
    w.begin();
    w.add([rec('a'), rec('b')]);
    const room = w.waitForRoom();
    const written = w.written();
    await new Promise((r) => setImmediate(r)); // the first write has begun, and hangs
    w.stop();
    await room;
    await written;
    await w.abort(); // does not wait for the stuck write for ever
  });

  it('a failed write halts the writer once (write-failed), written() throws it, and nothing is committed', async () => {
    const out = sink({ failAt: 2 });
    const { w } = writer({ main: { formatter: lines, sink: out } });
    w.begin();
    const rs = Array.from({ length: 1500 }, (_, i) => rec(`r${i}`, knownAs('ok')));
    w.add(rs); // 1,500 records: a block of 1,000 is formatted and written at once
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
  it('a thousand records whose status is known leave for the output at once, without waiting for the reader', async () => {
    const { w, main } = writer();
    w.begin();
    w.add(Array.from({ length: 1000 }, (_, i) => rec(`r${i}`, knownAs('ok'))));
    await new Promise((r) => setImmediate(r));
    expect(main!.sink.text.split('\n')).toHaveLength(1002); // [, 1,000 records, and the empty rest after the last newline
  });

  it('records settled 250 ms after the last ones formatted leave at once, however few (| head sees them, a reader gone is found)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const { w, main } = writer();
      w.begin();
      const [a, b, c] = [rec('a'), rec('b'), rec('c')];
      w.add([a, b, c]);
      vi.advanceTimersByTime(249);
      w.settle([[a, 'ok']]);
      await new Promise((r) => setImmediate(r));
      expect(main!.sink.text).not.toContain('a=ok');
      vi.advanceTimersByTime(1);
      w.settle([[b, 'ok']]);
      await new Promise((r) => setImmediate(r));
      expect(main!.sink.text).toBe('[\na=ok\nb=ok\n');
      w.settle([[c, 'fake']]); // formatted just now: this one waits
      await new Promise((r) => setImmediate(r));
      expect(main!.sink.text).toBe('[\na=ok\nb=ok\n');
    } finally {
      vi.useRealTimers();
    }
  });

  it('what is known when the reader waits for the writes is written then (a live stream gets its results as it goes)', async () => {
    const { w, main } = writer();
    w.begin();
    w.add([rec('a', knownAs('ok')), rec('b'), rec('c', knownAs('invalid'))]);
    await w.written();
    expect(main!.sink.text).toBe('[\na=ok\n');
  });

  it('at the end, a record whose status the plan learnt after the last answer still leaves', async () => {
    const { w, main, statuses } = writer();
    w.begin();
    w.add([rec('a', knownAs('invalid')), rec('b', PENDING)]);
    statuses.set('b', 'ok');
    await w.finish();
    expect(main!.sink.text).toBe('[\na=invalid\nb=ok\n]\n');
  });

  it('waitForRoom() does not wait while the window has room, nor once writing stopped', async () => {
    const { w } = writer({ windowMax: 2 });
    w.add([rec('a')]);
    let free = false;
    void w.waitForRoom().then(() => (free = true));
    await new Promise((r) => setImmediate(r));
    expect(free).toBe(true);
    w.add([rec('b')]);
    expect(w.full).toBe(true);
    w.stop();
    free = false;
    void w.waitForRoom().then(() => (free = true));
    await new Promise((r) => setImmediate(r));
    expect(free).toBe(true);
  });

  it('a stopped run (Ctrl-C) puts nothing in place at the end: the outputs are left as they were', async () => {
    const { w, main } = writer();
    w.begin();
    w.add([rec('a', knownAs('ok'))]);
    w.stop();
    await w.finish();
    expect(main!.sink.committed).toBe(false);
    expect(main!.sink.text).toBe('');
  });

  it('writes queued before stop() are not made after it, when the write they waited on ends', async () => {
    const out = sink({ stuckAt: 1 });
    const { w } = writer({ main: { formatter: lines, sink: out } });
    w.begin();
    w.add(Array.from({ length: 1000 }, (_, i) => rec(`r${i}`, knownAs('ok')))); // a block queued behind the stuck write
    await new Promise((r) => setImmediate(r));
    w.stop();
    out.release();
    await new Promise((r) => setImmediate(r));
    await w.written();
    expect(out.text).toBe(''); // the test sink keeps no text of a write that hung
  });

  it('after a failed write nothing more is written, and a reader waiting for room is freed', async () => {
    const out = sink({ failAt: 2 });
    const { w } = writer({ main: { formatter: lines, sink: out }, windowMax: 3000 });
    w.begin();
    w.add(Array.from({ length: 1000 }, (_, i) => rec(`r${i}`, knownAs('ok')))); // write 2: fails
    await new Promise((r) => setImmediate(r));
    w.add(Array.from({ length: 1000 }, (_, i) => rec(`s${i}`, knownAs('ok')))); // would be write 3
    const pending = Array.from({ length: 3000 }, (_, i) => rec(`t${i}`));
    w.add(pending);
    await w.waitForRoom();
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
