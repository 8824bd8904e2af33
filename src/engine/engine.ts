// The engine: records in, results out, in input order, each as soon as its status is known. One engine for the
// CLI's `emails` and `domains` and for the library; each face brings its client, plan and stop signal
// (docs/architecture.md draws the flow). The run stops in one place (`stop`): then nothing new is sent, requests in
// flight finish (their answers are cached and given), and the iterator throws why.
import { setMaxListeners } from 'node:events';
import { IdvError, interruptedError } from '../core/errors.js';
import type { Kind } from '../core/defaults.js';
import { ENDPOINT, FIELD } from '../core/defaults.js';
import type { Client } from '../api/client.js';
import type { CacheScope } from '../cache/store.js';
import { checkerFor } from '../input/items/check.js';
import type { InputRecord } from '../input/records/record.js';
import { liveRecords } from '../input/bytes/live.js';
import { PAUSE_MS } from '../input/bytes/content.js';
import { Scheduler, type DispatchSettings, type DispatchStats } from '../dispatch/scheduler.js';
import { ClaimGate } from '../coordination/claim-gate.js';
import type { Plan } from '../plan/plan.js';
import { planRecords, type PlannedRecord } from '../plan/planned.js';
import { InOrder, WINDOW_CHARS, WINDOW_MAX, type Result } from './in-order.js';
import { OutQueue } from './out-queue.js';

export type { Result } from './in-order.js';

/** Where the engine's lines for a person go (the CLI's RunLog; the library drops them). */
export interface EngineLog {
  line(text: string): void;
  warning(text: string): void;
}

export interface EngineOptions {
  kind: Kind;
  /** The run's plan, its cache loaded when there is one; the caller closes it. */
  plan: Plan;
  /** Where answers are kept, and whose claims the run joins (null: no cache). */
  cache: CacheScope | null;
  /** The service's client; the caller closes it. */
  client: Client;
  /** The service's host, for messages. */
  host: string;
  /** How items are sent: batches, concurrency, retries, the spend cap, the quota's stop or wait (the scheduler's). */
  dispatch: DispatchSettings;
  /** Stops the run: nothing new is sent, requests in flight finish. */
  signal: AbortSignal;
  log: EngineLog;
  /** A live input (standard input, a FIFO): its records are sent as they come; `waited`: its first records waited for a pause. */
  live?: { waited: boolean };
  /** Something changed: records read, an answer. */
  onProgress?(): void;
  /** A wait for the quota began (--wait); it ends at `until` (ms since epoch). */
  onWait?(until: number): void;
  /** How long requests in flight may finish after a stop (the scheduler's default: 3 s). */
  graceMs?: number;
  /** Records the window holds before reading waits (WINDOW_MAX), and their text in characters (WINDOW_CHARS). */
  windowMax?: number;
  windowChars?: number;
}

/** What a run has come to at its end. */
export interface Finished {
  /** Records per status. */
  counts: ReadonlyMap<string, number>;
  stats: DispatchStats;
  lastFailure?: string;
}

export class Engine implements AsyncIterable<Result[]> {
  /** Aborted when the run stops before its end: the caller's signal, or a fatal answer (the key refused, the host gone). */
  readonly signal: AbortSignal;
  readDone = false;
  /** The run's facts once its results have all been given; null before. */
  finished: Finished | null = null;
  private readonly stop = new AbortController();
  private readonly window: InOrder;
  private readonly gate: ClaimGate;
  private readonly dispatcher: Scheduler<PlannedRecord>;
  private readonly out: OutQueue<Result>;
  private running: Promise<void> | null = null;
  private roomWaiter: (() => void) | null = null;
  private cacheWarned = false;
  /** While the reader waits on a live input: told when the quota may have stopped the run (noteQuotaStop). */
  private quotaStopHeard: (() => void) | null = null;
  /** A live input paused after the quota stopped the run: reading ended there, the input left unread. */
  private endedAtPause = false;
  private readonly onSignal = () => this.stop.abort(this.o.signal.reason);
  private readonly windowMax: number;
  private readonly windowChars: number;

  constructor(
    private readonly records: AsyncIterable<InputRecord[]>,
    private readonly o: EngineOptions,
  ) {
    // What waits on the run's stop (the claim gate, the scheduler, the window, a read) is bounded: not a leak.
    setMaxListeners(0, this.stop.signal);
    this.signal = this.stop.signal;
    this.windowMax = o.windowMax ?? WINDOW_MAX;
    this.windowChars = o.windowChars ?? WINDOW_CHARS;
    if (o.signal.aborted) this.onSignal();
    else o.signal.addEventListener('abort', this.onSignal, { once: true });
    this.stop.signal.addEventListener('abort', () => this.releaseRoom(), { once: true });
    this.window = new InOrder(o.plan);
    // Between the plan and the dispatcher: what another idv run is validating is waited for, not sent again.
    this.gate = new ClaimGate(o.plan, this.stop.signal, (line) => o.log.line(line));
    this.dispatcher = this.scheduler();
    void this.dispatcher.fatal.then((err) => this.stop.abort(err));
    this.out = new OutQueue<Result>({
      first: () => void this.start(),
      gone: async () => {
        this.stop.abort(new IdvError('interrupted', 'The results were no longer read.'));
        await this.start();
      },
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<Result[]> {
    return this.out[Symbol.asyncIterator]();
  }

  /** The dispatcher's counts, live: what was sent, requests, the quota. */
  get stats(): DispatchStats {
    return this.dispatcher.stats;
  }

  /** Records per status, of the results given so far. */
  get counts(): ReadonlyMap<string, number> {
    return this.window.counts;
  }

  /** Results given so far. */
  get passed(): number {
    return this.window.passed;
  }

  private start(): Promise<void> {
    return (this.running ??= this.run());
  }

  private scheduler(): Scheduler<PlannedRecord> {
    const { o } = this;
    return new Scheduler<PlannedRecord>({
      client: o.client,
      endpoint: ENDPOINT[o.kind],
      field: FIELD[o.kind],
      host: o.host,
      ...o.dispatch,
      signal: this.stop.signal,
      graceMs: o.graceMs,
      onResults: (results) => this.settle(results),
      onProgress: () => {
        this.noteQuotaStop(); // a 429's items end before the stop is set: the batch's end is where it is sure
        o.onProgress?.();
      },
      onWait: o.onWait ? (until) => o.onWait!(until) : undefined,
    });
  }

  /** Read, send and settle to the end; results go out as they are known; a stop ends it with its error. */
  private async run(): Promise<void> {
    try {
      await this.gate.open(this.o.cache, {
        send: (record) => this.dispatcher.push(record),
        sendPartialBatches: () => this.dispatcher.waiting('other-runs', this.gate.urgent),
        whenQueueHasRoom: () => this.dispatcher.whenQueueHasRoom(),
        answered: () => this.pass(), // the plan has their statuses: the window's head may go
      });
      await this.readAll();
      this.readDone = true;
      this.o.onProgress?.();
      await this.gate.drain();
      const stats = await this.dispatcher.finish();
      if (this.stop.signal.aborted) throw this.stop.signal.reason;
      this.pass();
      this.finished = { counts: this.window.counts, stats, lastFailure: this.dispatcher.lastFailure() };
      this.out.end();
    } catch (err) {
      await this.stopped(err);
    } finally {
      this.o.signal.removeEventListener('abort', this.onSignal);
      this.gate.close();
    }
  }

  /** Every record read, checked and planned: into the window, its new items through the gate to the scheduler. */
  private async readAll(): Promise<void> {
    const { o, dispatcher } = this;
    const input = o.live ? liveRecords(this.records, (go) => dispatcher.waiting('input', go), o.live.waited) : this.records;
    const blocks = planRecords(input, checkerFor(o.kind), o.plan)[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await this.nextOrStop(blocks);
        if (next === null || next.done) break;
        const block = next.value;
        this.window.add(block);
        this.pass();
        await this.gate.push(block); // the NEW records: sent, or held while another run validates them
        o.onProgress?.();
        await this.out.caughtUp(); // results are taken as fast as they are read
        await dispatcher.whenQueueHasRoom();
        if (this.window.length >= this.windowMax || this.window.chars >= this.windowChars) await this.outputWaitsForBatches();
      }
    } finally {
      if (this.stop.signal.aborted || this.endedAtPause) void blocks.return?.(undefined).catch(() => undefined);
    }
  }

  /**
   * The next block, or null once the run stops: an input that waits for ever (a user's iterable, a silent pipe) still
   * hears a stop. A live input that gives nothing for PAUSE_MS once the quota has stopped the run ends reading too
   * (docs/choices.md): what it sends later could only be quota_exceeded, and `tail -f log | idv` would never exit 4.
   */
  private nextOrStop<T>(it: AsyncIterator<T>): Promise<IteratorResult<T> | null> {
    const { signal } = this.stop;
    if (signal.aborted) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      let pause: NodeJS.Timeout | undefined;
      const settled = () => {
        signal.removeEventListener('abort', onStop);
        clearTimeout(pause);
        this.quotaStopHeard = null;
      };
      const onStop = () => (settled(), resolve(null));
      signal.addEventListener('abort', onStop);
      if (this.o.live) {
        this.quotaStopHeard = () => void (pause ??= setTimeout(() => ((this.endedAtPause = true), onStop()), PAUSE_MS));
        this.noteQuotaStop();
      }
      it.next().then(
        (r) => (settled(), resolve(r)),
        (err: unknown) => (settled(), reject(err)),
      );
    });
  }

  /** The quota has stopped the run (not --wait's waiting): a live input's pause from now on ends reading. */
  private noteQuotaStop(): void {
    if (this.dispatcher.stats.quotaStopped) this.quotaStopHeard?.();
  }

  /** The window is full and waits on the records at its head: their batch must not wait for more input. */
  private async outputWaitsForBatches(): Promise<void> {
    const windowHasRoom = this.stop.signal.aborted ? Promise.resolve() : new Promise<void>((resolve) => (this.roomWaiter = resolve));
    this.dispatcher.waiting('output', true);
    await windowHasRoom;
    this.dispatcher.waiting('output', false);
  }

  /** Answers from the service: they settle the plan (which the window asks), go to the cache (its first failure to write said once); the window's head goes out. */
  private settle(results: Array<[PlannedRecord, string]>): void {
    const { plan, cache } = this.o;
    for (const [record, status] of results) plan.settle(record.key, status);
    this.noteQuotaStop();
    if (cache) {
      cache.append(results.map(([record, status]) => [record.key, status])); // the store keeps only what is cacheable
      const err = cache.writeError();
      if (err && !this.cacheWarned) {
        this.cacheWarned = true;
        this.o.log.warning(`cannot write the cache (${err.code ?? err.message}: ${cache.path}); this run's results will be paid for again by the next run.`);
      }
    }
    this.pass();
  }

  /** The records at the head of the window whose status is known go out; reading waiting for room goes on at half. */
  private pass(): void {
    this.out.push(this.window.take());
    if (this.window.length < this.windowMax / 2 && this.window.chars < this.windowChars / 2) this.releaseRoom();
  }

  private releaseRoom(): void {
    const wake = this.roomWaiter;
    this.roomWaiter = null;
    wake?.();
  }

  /**
   * The run stopped before its end: nothing new is sent, requests in flight get their grace (their answers are
   * cached and settled), what is known is given, in order, and then the iterator throws why: the fatal error, or
   * the caller's stop as an interruption.
   */
  private async stopped(err: unknown): Promise<void> {
    this.stop.abort(err);
    await this.dispatcher.finish().catch(() => undefined);
    this.out.push(this.window.takeKnown());
    const reason = this.stop.signal.reason;
    this.out.fail(reason instanceof IdvError || !this.o.signal.aborted ? reason : interruptedError(reason));
  }
}
