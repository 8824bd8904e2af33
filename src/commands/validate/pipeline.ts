// The running part of `idv emails|domains`: the engine (engine/engine.ts) reads, plans, sends and settles; this
// face takes its results, in order, to the writer (-o, standard output, --split), and shows its progress and the
// --wait countdown. The run stops in one place (`stop`): a signal, or the writer halting; the engine stops with
// it (and on a fatal answer of its own), and the writer stops writing as soon as the engine does.
import { interruptedError } from '../../core/errors.js';
import type { Io } from '../../system/io.js';
import type { Client } from '../../api/client.js';
import type { CacheScope } from '../../cache/store.js';
import type { DispatchStats } from '../../dispatch/scheduler.js';
import type { Plan } from '../../plan/plan.js';
import type { InputRecord } from '../../input/records/record.js';
import { OrderedWriter, type Output, type SplitOutputs } from '../../output/ordered-writer.js';
import type { Sink } from '../../output/sink.js';
import { Engine, type Finished } from '../../engine/engine.js';
import type { Progress } from '../../system/progress.js';
import { startProgressReport, type ProgressReport } from './progress-report.js';
import { totalOf } from '../../output/progress-line.js';
import { clockTime } from '../../output/summary.js';
import { formatDuration } from '../../core/duration.js';
import type { ValidateOptions } from './flags.js';
import type { Target } from './target.js';
import type { RunLog } from './run-log.js';

export type { Finished } from '../../engine/engine.js';

export interface Pipeline {
  options: ValidateOptions;
  io: Io;
  target: Target;
  /** The service's client (api/client.ts, or a fake in tests): the caller makes it and closes it. */
  client: Client;
  plan: Plan;
  cache: CacheScope | null;
  /** The records read, in input order (the engine checks and plans them). */
  records: AsyncIterable<InputRecord[]>;
  /** Standard output or -o (null: --split alone); the files of --split. */
  main: Output | null;
  split: SplitOutputs | null;
  /** The spinner's line; `log` has taken it over (lines go above it) and stops it. */
  progress: Progress;
  log: RunLog;
  /** Bytes read of the bytes the input holds, when every input's size is known (for the total while reading). */
  bytes?: () => { read: number; total: number } | null;
  /** The input's records counted ahead, once counted (a file read in a moment): the exact total; else null. */
  counted?: () => number | null;
  /** Given how many records have their result, live, so that a run that stops can say how far it got. */
  onPassed?(passed: () => number): void;
  /** Given the dispatcher's live counts once it exists, so that a run that stops early can still tell them. */
  onStats?(stats: DispatchStats): void;
  /** A live input (standard input, a FIFO): sent and written as it comes (input/bytes/live.ts); `waited`: its first records waited for a pause. */
  live?: { waited: boolean };
  /** Once every result is in: outputs that depend on how the run ended (the report), put in place with the others, after them. */
  alsoCommit?(done: Finished): Promise<readonly Sink[]>;
}

/** Run it to the end. Null: the reader of standard output went away, and the run ended quietly. */
export async function runPipeline(pipeline: Pipeline): Promise<Finished | null> {
  const run = new PipelineRun(pipeline);
  try {
    return await run.toTheEnd();
  } catch (err) {
    return await run.stopped(err);
  } finally {
    run.close();
  }
}

/** One run of the pipeline: what its parts share (the stop, the engine, the writer) as fields. */
class PipelineRun {
  private readonly stop = new AbortController();
  private readonly writer: OrderedWriter;
  private readonly engine: Engine;
  private readonly countdown: WaitCountdown;
  private readonly report: ProgressReport;
  private readonly onSignal = () => this.stop.abort(this.p.io.signal.reason);

  constructor(private readonly p: Pipeline) {
    const { options, io, progress, log } = p;
    if (io.signal.aborted) this.onSignal();
    else io.signal.addEventListener('abort', this.onSignal, { once: true });
    this.writer = new OrderedWriter({
      main: p.main,
      split: p.split,
      only: options.only ? new Set(options.only) : null,
      exclude: options.exclude ? new Set(options.exclude) : null,
      live: p.live !== undefined,
    });
    void this.writer.halted.then((why) => this.stop.abort(why));
    this.countdown = new WaitCountdown(progress, log, progress.live && !options.quiet, !options.quiet);
    const { batchSize, concurrency, retries, maxSpend, wait, maxWaitSeconds } = options;
    this.engine = new Engine(p.records, {
      kind: options.kind,
      plan: p.plan,
      cache: p.cache,
      client: p.client,
      host: new URL(p.target.baseUrl).host,
      dispatch: { batchSize, concurrency, retries, maxSpend, wait, maxWaitSeconds },
      signal: this.stop.signal,
      log,
      live: p.live,
      onProgress: () => this.report?.changed(),
      onWait: (until) => this.countdown.start(until),
    });
    this.engine.signal.addEventListener('abort', () => this.writer.stop(), { once: true });
    p.onStats?.(this.engine.stats);
    p.onPassed?.(() => this.engine.passed);
    this.report = progressReport(p, this.engine, this.countdown, this.stop.signal);
  }

  /** The engine's results, in order, to the writer; output keeps pace with input (the engine reads on once the writes begun are done). */
  async toTheEnd(): Promise<Finished> {
    const { writer, engine } = this;
    writer.begin();
    for await (const block of engine) {
      writer.write(block);
      await writer.keptUp();
    }
    const done = engine.finished; // null when the run was stopped
    await writer.finish(done && this.p.alsoCommit ? await this.p.alsoCommit(done) : []);
    if (this.stop.signal.aborted) throw interruptedError(this.stop.signal.reason);
    this.stopShowing();
    return done!;
  }

  /** The run stopped before its end: what it wrote is taken back, and the error says why (null: a reader that went away). */
  async stopped(err: unknown): Promise<null> {
    this.stopShowing();
    await this.writer.abort();
    if (this.writer.failed) throw this.writer.failed;
    if (this.stop.signal.reason === 'EPIPE') return null; // a reader that went away: end quietly
    throw err;
  }

  private stopShowing(): void {
    this.report.stop();
    this.p.log.handBack();
    this.countdown.stop();
  }

  close(): void {
    this.report.stop();
    this.p.io.signal.removeEventListener('abort', this.onSignal);
  }
}

/** The run's progress for a person: the spinner's line, or --verbose's log lines where there is no spinner. */
function progressReport(p: Pipeline, engine: Engine, countdown: { running(): boolean }, stopped: { aborted: boolean }): ProgressReport {
  const { options, plan, progress } = p;
  return startProgressReport({
    progress,
    facts: () => {
      const { counts } = plan;
      const f = {
        read: counts.records,
        // Reading stopped by a signal is not the input's end: the records read are no total then.
        readDone: engine.readDone && !stopped.aborted,
        bytes: p.bytes?.() ?? null,
        counted: p.counted?.() ?? null,
        done: engine.passed,
        sent: engine.stats.sent,
        cached: counts.cached,
        errors: engine.counts.get('error') ?? 0,
        quotaLeft: engine.stats.rateAt !== undefined ? engine.stats.rate?.remaining : undefined,
      };
      return { ...f, toSend: toSend(counts, f.sent, totalOf({ ...f, rate: undefined })?.count ?? null) };
    },
    // While the countdown to the quota's reset runs, it keeps the line (it stops itself at the reset).
    paused: () => countdown.running(),
    log: options.verbose && !options.quiet ? (line) => p.log.line(line) : null,
  });
}

/**
 * Items still to send: those read and not sent yet (distinct, not from the cache), and when the total is known,
 * the records not read yet as many as those read so far needed sending. Undefined when it cannot be told.
 */
function toSend(counts: Plan['counts'], sent: number, total: number | null): number | undefined {
  const needed = counts.unique - counts.cached;
  const left = Math.max(0, needed - sent);
  if (total === null || counts.records === 0) return total === null ? undefined : left;
  return left + Math.round(Math.max(0, total - counts.records) * (needed / counts.records));
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
