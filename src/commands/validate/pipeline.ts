// The running part of `idv emails|domains`: planned records flow to the scheduler (what is new) and to the
// in-order window (everything); answers settle the plan, go to the cache, and mark their records in the window,
// whose head leaves, in order, for the writer.
// Reading waits when the scheduler's queue or the window is full; while it waits on the window, the output waits
// on the scheduler's queue (Scheduler.waiting), whose part-filled batches then go, so that the three never all
// wait on each other.
// The run stops in one place (`stop`): a signal, the writer halting, or the scheduler's fatal error.
import { interruptedError, IdvError } from '../../errors.js';
import type { Io } from '../../io.js';
import type { Client } from '../../api/client.js';
import type { CacheScope } from '../../cache/store.js';
import { Scheduler, type DispatchStats } from '../../dispatch/scheduler.js';
import type { Plan, Source } from '../../plan/plan.js';
import type { PlannedRecord } from '../../plan/planned.js';
import { ClaimGate } from '../../plan/claim-gate.js';
import { OrderedWriter, type Output, type SplitOutputs } from '../../output/ordered-writer.js';
import { InOrder, WINDOW_MAX } from '../../engine/in-order.js';
import type { Progress } from '../../output/progress.js';
import { startProgressReport, type ProgressReport } from './progress-report.js';
import { clockTime } from '../../output/summary.js';
import { formatDuration } from '../../duration.js';
import { ENDPOINT, FIELD } from '../../defaults.js';
import { liveRecords } from '../../input/live.js';
import type { ValidateOptions } from './flags.js';
import type { Target } from './target.js';
import type { RunLog } from './run-log.js';
import { Stopper, type StopSignal } from '../../stop.js';

export interface Pipeline {
  options: ValidateOptions;
  io: Io;
  target: Target;
  /** The service's client (api/client.ts, or a fake in tests): the caller makes it and closes it. */
  client: Client;
  plan: Plan;
  cache: CacheScope | null;
  records: AsyncIterable<PlannedRecord[]>;
  /** Standard output or -o (null: --split alone); the files of --split. */
  main: Output | null;
  split: SplitOutputs | null;
  /** The spinner's line; `log` has taken it over (lines go above it) and stops it. */
  progress: Progress;
  log: RunLog;
  /** Bytes read of the bytes the input holds, when every input's size is known (for the total while reading). */
  bytes?: () => { read: number; total: number } | null;
  /** Given the dispatcher's live counts once it exists, so that a run that stops early can still tell them. */
  onStats?(stats: DispatchStats): void;
  /** A live input (standard input, a FIFO): sent and written as it comes (input/live.ts); `waited`: its first records waited for a pause. */
  live?: { waited: boolean };
}

export interface Finished {
  /** Records per status. */
  counts: ReadonlyMap<string, number>;
  stats: DispatchStats;
  lastFailure?: string;
}

/** Run it to the end. Null: the reader of standard output went away, and the run ended quietly. */
export async function runPipeline(pipeline: Pipeline): Promise<Finished | null> {
  const run = new PipelineRun(pipeline);
  run.startDispatcher();
  try {
    return await run.toTheEnd();
  } catch (err) {
    return await run.stopped(err);
  } finally {
    run.close();
  }
}

/** One run of the pipeline: what its parts share (the stop, the writer, the claim gate) as fields. */
class PipelineRun {
  private readonly stop = new Stopper();
  private readonly writer: OrderedWriter;
  private readonly window: InOrder;
  private roomWaiter: (() => void) | null = null;
  private readonly gate: ClaimGate;
  private readonly countdown: WaitCountdown;
  /** Started once the dispatcher, whose counts it tells, exists. */
  private report: ProgressReport | null = null;
  private readDone = false;
  private dispatcher!: Scheduler<PlannedRecord>;
  private readonly onSignal = () => this.stop.abort(this.p.io.signal.reason);

  constructor(private readonly p: Pipeline) {
    const { options, io, plan, progress, log } = p;
    if (io.signal.aborted) this.onSignal();
    else io.signal.addEventListener('abort', this.onSignal, { once: true });
    this.writer = new OrderedWriter({
      main: p.main,
      split: p.split,
      only: options.only ? new Set(options.only) : null,
      exclude: options.exclude ? new Set(options.exclude) : null,
      live: p.live !== undefined,
    });
    this.window = new InOrder(plan);
    void this.writer.halted.then((why) => this.stop.abort(why));
    this.stop.signal.addEventListener('abort', () => (this.writer.stop(), this.releaseRoom()), { once: true });
    this.countdown = new WaitCountdown(progress, log, progress.live && !options.quiet, !options.quiet);
    // Between the plan and the dispatcher: what another idv run is validating is waited for, not sent again.
    this.gate = new ClaimGate(plan, this.stop.signal, (line) => log.line(line));
  }

  /** The scheduler: answers settle the plan, go to the cache, and then to the writer. */
  startDispatcher(): void {
    const dispatcher = startDispatcher(this.p, (results) => this.settled(results), this.stop.signal, {
      progress: () => this.report?.changed(),
      wait: (until) => this.countdown.start(until),
    });
    this.dispatcher = dispatcher;
    this.p.onStats?.(dispatcher.stats);
    this.report = progressReport(this.p, this.window, dispatcher, this.countdown, () => this.readDone);
    void dispatcher.fatal.then((err) => this.stop.abort(err));
  }

  /** Read every record, hand the new ones on, then wait for the answers and the writes. */
  async toTheEnd(): Promise<Finished> {
    const { gate, writer, dispatcher } = this;
    await gate.open(this.p.cache, {
      send: (record) => dispatcher.push(record),
      sendPartialBatches: () => dispatcher.waiting('other-runs', gate.urgent),
      whenQueueHasRoom: () => dispatcher.whenQueueHasRoom(),
      answered: (results) => this.settled(results, 'cache'),
    });
    writer.begin();
    await this.readAll();
    this.readDone = true;
    this.report!.changed();
    await gate.drain();
    const stats = await dispatcher.finish();
    this.pass();
    await writer.finish();
    if (this.stop.signal.aborted) throw interruptedError(this.stop.signal.reason);
    this.stopShowing();
    return { counts: this.window.counts, stats, lastFailure: dispatcher.lastFailure() };
  }

  /** Answers for records of the window: they are marked, and the head of the window leaves for the writer. */
  private settled(results: ReadonlyArray<readonly [PlannedRecord, string]>, source?: Source): void {
    this.window.settle(results, source);
    this.pass();
  }

  /** The records at the head of the window whose status is known go to the writer; reading waiting for room goes on at half. */
  private pass(): void {
    this.writer.write(this.window.take());
    if (this.window.length < WINDOW_MAX / 2) this.releaseRoom();
  }

  private releaseRoom(): void {
    const wake = this.roomWaiter;
    this.roomWaiter = null;
    wake?.();
  }

  private async readAll(): Promise<void> {
    const { p, writer, dispatcher } = this;
    const records = p.live ? liveRecords(p.records, (go) => dispatcher.waiting('input', go), p.live.waited) : p.records;
    for await (const block of records) {
      if (this.stop.signal.aborted) break;
      this.window.add(block);
      this.pass();
      await this.gate.push(block); // the NEW records: sent, or held while another run validates them
      this.report!.changed();
      await writer.written(); // output keeps pace with input
      await dispatcher.whenQueueHasRoom();
      if (this.window.length >= WINDOW_MAX) await this.outputWaitsForBatches();
    }
  }

  /** Output waits on the records at the window's head: their batch must not wait for more input. */
  private async outputWaitsForBatches(): Promise<void> {
    const windowHasRoom = this.stop.signal.aborted ? Promise.resolve() : new Promise<void>((resolve) => (this.roomWaiter = resolve));
    this.dispatcher.waiting('output', true);
    await windowHasRoom;
    this.dispatcher.waiting('output', false);
  }

  /** The run stopped before its end: what it wrote is taken back, and the error says why (null: a reader that went away). */
  async stopped(err: unknown): Promise<null> {
    this.stopShowing();
    await this.writer.abort();
    if (this.writer.failed) throw this.writer.failed;
    const { signal } = this.stop;
    if (signal.reason === 'EPIPE') return null; // a reader that went away: end quietly
    if (signal.aborted && !(err instanceof IdvError && err.kind !== 'interrupted')) {
      await this.dispatcher.finish().catch(() => undefined);
      throw interruptedError(signal.reason);
    }
    throw err;
  }

  private stopShowing(): void {
    this.report!.stop();
    this.p.log.handBack();
    this.countdown.stop();
  }

  close(): void {
    this.report?.stop();
    this.p.io.signal.removeEventListener('abort', this.onSignal);
    this.gate.close();
  }
}

/** The run's progress for a person: the spinner's line, or --verbose's log lines where there is no spinner. */
function progressReport(
  p: Pipeline,
  window: InOrder,
  dispatcher: Scheduler<PlannedRecord>,
  countdown: { running(): boolean },
  readDone: () => boolean,
): ProgressReport {
  const { options, plan, progress } = p;
  return startProgressReport({
    progress,
    facts: () => ({
      read: plan.counts.records,
      readDone: readDone(),
      bytes: p.bytes?.() ?? null,
      done: window.passed,
      cached: plan.counts.cached,
      errors: window.counts.get('error') ?? 0,
      quotaLeft: dispatcher.stats.rateAt !== undefined ? dispatcher.stats.rate?.remaining : undefined,
    }),
    // While the countdown to the quota's reset runs, it keeps the line (it stops itself at the reset).
    paused: () => countdown.running(),
    log: options.verbose && !options.quiet ? (line) => p.log.line(line) : null,
  });
}

/** The scheduler of a run: answers settle the plan, go to the cache, and then to the window. */
function startDispatcher(p: Pipeline, settled: (results: Array<[PlannedRecord, string]>) => void, signal: StopSignal, on: { progress(): void; wait(until: number): void }): Scheduler<PlannedRecord> {
  const { options } = p;
  const settle = settleAnswers(p, settled);
  return new Scheduler<PlannedRecord>({
    client: p.client,
    endpoint: ENDPOINT[options.kind],
    field: FIELD[options.kind],
    host: new URL(p.target.baseUrl).host,
    batchSize: options.batchSize,
    concurrency: options.concurrency,
    retries: options.retries,
    maxSpend: options.maxSpend,
    wait: options.wait,
    maxWaitSeconds: options.maxWaitSeconds,
    signal,
    onResults: settle,
    onProgress: on.progress,
    onWait: on.wait,
  });
}

/** Answers settle the plan, go to the cache (its first failure to write said once), then to the window. */
function settleAnswers(p: Pipeline, settled: (results: Array<[PlannedRecord, string]>) => void): (results: Array<[PlannedRecord, string]>) => void {
  let cacheWarned = false;
  return (results) => {
    for (const [record, status] of results) p.plan.settle(record.key, status);
    if (p.cache) {
      p.cache.append(results.map(([record, status]) => [record.key, status])); // the store keeps only what is cacheable
      const err = p.cache.writeError();
      if (err && !cacheWarned) {
        cacheWarned = true;
        p.log.warning(`cannot write the cache (${err.code ?? err.message}: ${p.cache.path}); this run's results will be paid for again by the next run.`);
      }
    }
    settled(results);
  };
}

/** The wait for the quota (--wait): a countdown on the spinner line on a terminal, one line otherwise. */
class WaitCountdown {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly progress: Progress,
    private readonly log: RunLog,
    private readonly onTheLine: boolean,
    private readonly said: boolean,
  ) {}

  start(until: number): void {
    const line = () => `Quota used up; waiting ${formatDuration((until - Date.now()) / 1000)} for it to reset (at ${clockTime(until, Date.now())}), as --wait asks.`;
    this.stop();
    if (this.onTheLine) {
      this.progress.update(line());
      this.timer = setInterval(() => (Date.now() >= until ? this.stop() : this.progress.update(line())), 1000);
    } else if (this.said) this.log.line(`idv: ${line()}`);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  running(): boolean {
    return this.timer !== null;
  }
}
