// The writer of a run's results: records whose status is known come in input order (the engine's in-order
// window sends them: engine/in-order.ts) and go to the main output (filtered by --only/--exclude) and, with
// --split, to their status's own file. Each output formats a block at a time and hands it to its sink. Writes go
// one after another and never overlap; a failed write halts the writer (`halted` settles) and is thrown by
// written()/finish().
import type { Chunk, Formatter, OutRecord } from './format.js';
import { writeChunk, type Sink } from './sink.js';
import { commitTogether, notPut } from './commit.js';

/** How long abort() waits for a write in progress before giving up on it. */
const ABORT_WAIT_MS = 1000;
/** Records formatted for the main output at a time. */
const FORMAT_BLOCK = 1000;
/** Records settled this long ago are formatted (and so written) whatever their number: `| head` sees them, and a reader gone is found. */
const FORMAT_MS = 250;

export interface Output {
  formatter: Formatter;
  sink: Sink;
}

/** One output per status (--split): made on first use, its format's beginning already written. */
export interface SplitOutputs {
  get(status: string): Promise<Output>;
  /** Every output made so far. */
  made(): Output[];
}

export interface OrderedWriterOptions {
  /** Standard output or -o; null when --split alone writes (to a terminal, the files are the output). */
  main: Output | null;
  split: SplitOutputs | null;
  only: ReadonlySet<string> | null;
  exclude: ReadonlySet<string> | null;
  /** A live input: each record is written as soon as it leaves the window, not a thousand at a time. */
  live?: boolean;
}

/** Why writing stopped on its own: a write failed, or the reader of standard output went away. */
export type WriterHalt = 'write-failed' | 'EPIPE';

export class OrderedWriter {
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private stopped = false;
  /** Records for the main output, waiting to be formatted as one block. */
  private unformatted: OutRecord[] = [];
  private formattedAt = Date.now();
  private beginning: Chunk | null = null;
  private onHalt: (why: WriterHalt) => void = () => undefined;
  private onStopped: () => void = () => undefined;
  /** Settles once stop() is called: a write that never ends (a reader that stopped reading) holds no stopped run. */
  private readonly stoppedNow = new Promise<void>((resolve) => (this.onStopped = resolve));
  /** Settles when a write failed or the reader of standard output went away: the run must stop. */
  readonly halted = new Promise<WriterHalt>((resolve) => (this.onHalt = resolve));

  constructor(private readonly o: OrderedWriterOptions) {}

  begin(): void {
    const { main } = this.o;
    // Live, each write goes out at once: the format's beginning (a header) waits for the first records (or the
    // end), so that a run stopped before any answer writes nothing, as any other run.
    if (main && this.o.live) this.beginning = main.formatter.begin();
    else if (main) this.enqueue(() => writeChunk(main.sink, main.formatter.begin()));
  }

  /** The format's beginning held back (live), written before anything else. */
  private writeBeginning(): void {
    const { main } = this.o;
    const chunk = this.beginning;
    this.beginning = null;
    if (main && chunk !== null) this.enqueue(() => writeChunk(main.sink, chunk));
  }

  /** Records whose status is known, in input order (every one: --only/--exclude filter here). */
  write(records: readonly OutRecord[]): void {
    if (this.stopped || records.length === 0) return;
    const { main, split, only, exclude } = this.o;
    if (main) {
      // Formatted a thousand records or more at a time (csv-stringify's cost is per call as much as per
      // record); what is left is formatted when the reader next waits for the writes, or at the end.
      for (const r of records) if (!(only && !only.has(r.status)) && !(exclude && exclude.has(r.status))) this.unformatted.push(r);
      if (this.unformatted.length >= FORMAT_BLOCK || this.o.live || Date.now() - this.formattedAt >= FORMAT_MS) this.formatMain();
    }
    if (split) {
      for (const [status, group] of byStatus(records)) this.enqueue(async () => {
        const output = await split.get(status);
        await writeChunk(output.sink, output.formatter.records(group));
      });
    }
  }

  /** No more writing: free a reader waiting for the writes. */
  stop(): void {
    this.stopped = true;
    this.onStopped();
  }

  /** Format what waits to be, and wait for the writes so far (or for stop()); throw the failure of one. */
  async written(): Promise<void> {
    this.formatMain();
    await this.keptUp();
  }

  /** Wait for the writes so far (or for stop()); throw the failure of one. Unformatted records wait for a block. */
  async keptUp(): Promise<void> {
    await Promise.race([this.writing, this.stoppedNow]);
    if (this.failure) throw this.failure;
  }

  /** Everything is in: write the rest and each format's end, and put every output in place, with `also` after them (the report). */
  async finish(also: readonly Sink[] = []): Promise<void> {
    this.writeBeginning();
    this.formatMain();
    // Each format's end once the writes before it ran: a --split file they made (a status first met in the
    // last answers) is among the outputs only then.
    this.enqueue(async () => {
      for (const output of this.outputs()) await writeChunk(output.sink, output.formatter.end());
    });
    await this.written();
    if (this.stopped) return;
    await commitTogether([...this.outputs().map((o) => o.sink), ...also]);
  }

  /** Give up: nothing more is written; output files are left as they were. */
  async abort(): Promise<void> {
    this.stop();
    // A write still pending is waited for a moment, not for ever (a reader that stopped reading would hold the
    // run): the sinks' abort ends it.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.writing, new Promise((resolve) => (timer = setTimeout(resolve, ABORT_WAIT_MS)))]);
    clearTimeout(timer);
    for (const output of this.outputs()) await output.sink.abort();
  }

  get failed(): unknown {
    return this.failure;
  }

  private formatMain(): void {
    const { main } = this.o;
    if (!main || this.unformatted.length === 0) return;
    const block = this.unformatted;
    this.unformatted = [];
    this.formattedAt = Date.now();
    if (this.stopped) return;
    this.writeBeginning();
    const chunk = main.formatter.records(block);
    this.enqueue(() => writeChunk(main.sink, chunk));
  }

  private outputs(): Output[] {
    return [...(this.o.main ? [this.o.main] : []), ...(this.o.split?.made() ?? [])];
  }

  private enqueue(step: () => Promise<void>): void {
    this.writing = this.writing
      .then(async () => {
        if (this.stopped) return;
        await step();
        if (this.o.main?.sink.closed) this.halt('EPIPE');
      })
      .catch((err: unknown) => {
        if (this.stopped) return; // a write cut short by abort(): the run stops for another reason
        this.failure = notPut(err, []);
        this.halt('write-failed');
      });
  }

  private halt(why: WriterHalt): void {
    if (this.stopped) return;
    this.stop();
    this.onHalt(why);
  }
}

/** The records by status, each group in input order. */
function byStatus(records: readonly OutRecord[]): Map<string, OutRecord[]> {
  const groups = new Map<string, OutRecord[]>();
  for (const r of records) {
    const group = groups.get(r.status);
    if (group) group.push(r);
    else groups.set(r.status, [r]);
  }
  return groups;
}
