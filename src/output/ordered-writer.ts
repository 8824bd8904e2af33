// The in-order window: planned records wait here until their status is known, then leave in input order,
// filtered by --only/--exclude, formatted a block at a time and handed to the sink. Writes go one after
// another and never overlap; a failed write stops the run (onStop) and is thrown by written()/finish().
import { Fifo } from '../fifo.js';
import type { PlannedRecord } from '../plan/planned.js';
import type { Formatter, OutRecord } from './format.js';
import type { Sink } from './sink.js';

/** Records held for in-order output; reading waits while this many are held. */
export const WINDOW_MAX = 50_000;

export interface OrderedWriterOptions {
  formatter: Formatter;
  sink: Sink;
  /** The status of a pending item once it is known, else undefined. */
  statusOf(key: string): string | undefined;
  only: ReadonlySet<string> | null;
  exclude: ReadonlySet<string> | null;
  /** Called once when writing cannot go on: a write failed, or the reader of standard output went away. */
  onStop(reason: 'write-failed' | 'EPIPE'): void;
}

export class OrderedWriter {
  /** Records per status, all of them (--only/--exclude filter what is written, not what is counted). */
  readonly counts = new Map<string, number>();
  /** Records that have left the window. */
  passed = 0;
  private readonly window = new Fifo<PlannedRecord>();
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private stopped = false;
  private roomWaiter: (() => void) | null = null;

  constructor(private readonly o: OrderedWriterOptions) {}

  begin(): void {
    this.enqueue(this.o.formatter.begin());
  }

  /** Take records in (in input order) and pass on those whose status is known. */
  add(block: PlannedRecord[]): void {
    for (const r of block) this.window.push(r);
    this.flush();
  }

  /** Pass on every record at the head of the window whose status is known (call when answers arrive). */
  flush(): void {
    const out: OutRecord[] = [];
    const { only, exclude } = this.o;
    for (let r = this.window.peek(); r !== undefined; r = this.window.peek()) {
      const status = r.state.kind === 'known' ? r.state.status : this.o.statusOf(r.key);
      if (status === undefined) break;
      this.window.shift();
      this.passed++;
      this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
      if ((only && !only.has(status)) || (exclude && exclude.has(status))) continue;
      out.push({ item: r.item, status, fields: r.fields });
    }
    if (out.length && !this.stopped) this.enqueue(this.o.formatter.records(out));
    if (this.roomWaiter && this.window.length < WINDOW_MAX / 2) this.release();
  }

  /** The window is full: reading should wait (waitForRoom) until answers empty it. */
  get full(): boolean {
    return this.window.length >= WINDOW_MAX;
  }

  /** Whether reading waits on the window now (then the dispatcher must not hold a part-filled batch back). */
  get waiting(): boolean {
    return this.roomWaiter !== null;
  }

  /** Until the window is half empty, or stop(). */
  waitForRoom(): Promise<void> {
    if (!this.full || this.stopped) return Promise.resolve();
    return new Promise((resolve) => (this.roomWaiter = resolve));
  }

  /** No more writing: free a reader waiting for room. */
  stop(): void {
    this.stopped = true;
    this.release();
  }

  /** Wait for the writes so far; throw the failure of one. */
  async written(): Promise<void> {
    await this.writing;
    if (this.failure) throw this.failure;
  }

  /** The records still held (0 once every answer has come). */
  get held(): number {
    return this.window.length;
  }

  /** Everything is in: write the rest and the format's end, and put the output in place. */
  async finish(): Promise<void> {
    this.flush();
    if (!this.stopped) this.enqueue(this.o.formatter.end());
    await this.written();
    if (!this.stopped) await this.o.sink.commit();
  }

  /** Give up: nothing more is written; an output file is left as it was. */
  async abort(): Promise<void> {
    this.stop();
    await this.writing;
    await this.o.sink.abort();
  }

  get failed(): unknown {
    return this.failure;
  }

  private enqueue(text: string): void {
    if (!text) return;
    this.writing = this.writing
      .then(async () => {
        if (this.stopped) return;
        await this.o.sink.write(text);
        if (this.o.sink.closed) this.halt('EPIPE');
      })
      .catch((err: unknown) => {
        this.failure ??= err;
        this.halt('write-failed');
      });
  }

  private halt(reason: 'write-failed' | 'EPIPE'): void {
    if (this.stopped) return;
    this.stop();
    this.o.onStop(reason);
  }

  private release(): void {
    const w = this.roomWaiter;
    this.roomWaiter = null;
    w?.();
  }
}
