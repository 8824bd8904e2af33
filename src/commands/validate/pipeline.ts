// The running part of `idv emails|domains`: planned records flow to the scheduler (what is new) and to the
// ordered writer (everything, in order); answers settle the plan, go to the cache, and then to the writer.
// Reading waits when the scheduler's queue or the writer's window is full; while reading waits on the
// window, the scheduler sends part-filled batches, so that the three never all wait on each other.
// The run stops in one place (`stop`): a signal, the writer halting, or the scheduler's fatal error.
import { interruptedError, IdvError } from '../../errors.js';
import { forStderr, type Io } from '../../io.js';
import type { CacheScope } from '../../cache/store.js';
import { Scheduler, type DispatchStats } from '../../dispatch/scheduler.js';
import type { Plan } from '../../plan/plan.js';
import type { PlannedRecord } from '../../plan/planned.js';
import { ClaimGate } from '../../plan/claim-gate.js';
import { OrderedWriter, type Output, type SplitOutputs } from '../../output/ordered-writer.js';
import type { Progress } from '../../output/progress.js';
import { startProgressReport, type ProgressReport } from './progress-report.js';
import { clockTime } from '../../output/summary.js';
import { formatDuration } from '../../duration.js';
import { ENDPOINT, FIELD } from '../../defaults.js';
import { liveRecords } from '../../input/live.js';
import type { ValidateOptions } from './flags.js';
import type { Target } from './target.js';

export interface Pipeline {
  o: ValidateOptions;
  io: Io;
  target: Target;
  plan: Plan;
  cache: CacheScope | null;
  records: AsyncIterable<PlannedRecord[]>;
  /** Standard output or -o (null: --split alone); the files of --split. */
  main: Output | null;
  split: SplitOutputs | null;
  progress: Progress;
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
export async function runPipeline(p: Pipeline): Promise<Finished | null> {
  const { o, io, plan, progress } = p;
  const showProgress = progress.live; // a spinner line: not --quiet, and a terminal that can show one

  // Stops: Ctrl-C / SIGTERM / SIGHUP from the caller, a failed write, a reader that closed standard output,
  // or the scheduler's fatal error (the key refused, the host unreachable). Any of them frees a waiting reader.
  const stop = new AbortController();
  const onSignal = () => stop.abort(io.signal.reason);
  if (io.signal.aborted) onSignal();
  else io.signal.addEventListener('abort', onSignal, { once: true });

  const writer = new OrderedWriter({
    main: p.main,
    split: p.split,
    statusOf: (key) => plan.statusOf(key),
    knownAs: (status) => plan.knownAs(status),
    only: o.only ? new Set(o.only) : null,
    exclude: o.exclude ? new Set(o.exclude) : null,
    live: p.live !== undefined,
  });
  void writer.halted.then((why) => stop.abort(why));
  stop.signal.addEventListener('abort', () => writer.stop(), { once: true });

  const countdown = waitCountdown(io, progress, showProgress && !o.quiet, !o.quiet);
  let report: ProgressReport | null = null; // started once the dispatcher, whose counts it tells, exists
  const update = () => report?.changed();
  let readDone = false;
  // Between the plan and the dispatcher: what another idv run is validating is waited for, not sent again.
  const gate = new ClaimGate(plan, stop.signal, (line) => progress.log(forStderr(io, line)));
  const { client, dispatcher } = await startDispatcher(p, writer, stop.signal, { progress: update, wait: (until) => countdown.start(until) });
  p.onStats?.(dispatcher.stats);
  report = progressReport(p, writer, dispatcher, countdown, () => readDone);
  void dispatcher.fatal.then((err) => stop.abort(err));
  // Part-filled batches go at once while output waits on them, or while other runs wait on this one's (or it on theirs).
  let outputWaits = false;
  let inputWaits = false; // a live input's records have waited their time for a batch to fill
  const partialBatches = () => dispatcher.sendPartialBatches(outputWaits || gate.urgent || inputWaits);
  const records = p.live ? liveRecords(p.records, (go) => ((inputWaits = go), partialBatches()), p.live.waited) : p.records;
  await gate.open(p.cache, {
    send: (record) => dispatcher.push(record),
    sendPartialBatches: partialBatches,
    whenQueueHasRoom: () => dispatcher.whenQueueHasRoom(),
    answered: (results) => writer.settle(results),
  });

  try {
    writer.begin();
    for await (const block of records) {
      if (stop.signal.aborted) break;
      writer.add(block);
      await gate.push(block); // the NEW records: sent, or held while another run validates them
      update();
      await writer.written(); // output keeps pace with input
      await dispatcher.whenQueueHasRoom();
      if (writer.full) {
        // Output waits on the records at the window's head: their batch must not wait for more input.
        const room = writer.waitForRoom();
        outputWaits = true;
        partialBatches();
        await room;
        outputWaits = false;
        partialBatches();
      }
    }
    readDone = true;
    update();
    await gate.drain();
    const stats = await dispatcher.finish();
    await writer.finish();
    if (stop.signal.aborted) throw interruptedError(stop.signal.reason);
    report.stop();
    progress.stop();
    countdown.stop();
    return { counts: writer.counts, stats, lastFailure: dispatcher.lastFailure() };
  } catch (err) {
    report.stop();
    progress.stop();
    countdown.stop();
    await writer.abort();
    if (writer.failed) throw writer.failed;
    if (stop.signal.reason === 'EPIPE') return null; // a reader that went away: end quietly
    if (stop.signal.aborted && !(err instanceof IdvError && err.kind !== 'interrupted')) {
      await dispatcher.finish().catch(() => undefined);
      throw interruptedError(stop.signal.reason);
    }
    throw err;
  } finally {
    report.stop(); // also when the claim gate failed to open
    io.signal.removeEventListener('abort', onSignal);
    gate.close();
    await client.close();
  }
}

/** The run's progress for a person: the spinner's line, or --verbose's log lines where there is no spinner. */
function progressReport(
  p: Pipeline,
  writer: OrderedWriter,
  dispatcher: Scheduler<PlannedRecord>,
  countdown: { running(): boolean },
  readDone: () => boolean,
): ProgressReport {
  const { o, io, plan, progress } = p;
  return startProgressReport({
    progress,
    facts: () => ({
      read: plan.counts.records,
      readDone: readDone(),
      bytes: p.bytes?.() ?? null,
      done: writer.passed,
      cached: plan.counts.cached,
      errors: writer.counts.get('error') ?? 0,
      quotaLeft: dispatcher.stats.rateAt !== undefined ? dispatcher.stats.rate?.remaining : undefined,
    }),
    // While the countdown to the quota's reset runs, it keeps the line (it stops itself at the reset).
    paused: () => countdown.running(),
    log: o.verbose && !o.quiet ? (line) => progress.log(forStderr(io, line)) : null,
  });
}

/** The client and the scheduler of a run: answers settle the plan, go to the cache, and then to the writer. */
async function startDispatcher(
  p: Pipeline,
  writer: OrderedWriter,
  signal: AbortSignal,
  on: { progress(): void; wait(until: number): void },
) {
  const { o, io, plan, progress } = p;
  let cacheWarned = false;
  const { createClient } = await import('../../api/client.js');
  const client = await createClient({
    baseUrl: p.target.baseUrl,
    key: p.target.key,
    timeoutMs: o.timeoutSeconds * 1000,
    connections: o.concurrency,
    env: io.env,
    secrets: io.secrets,
    network: io.network,
    log: o.verbose ? (line) => progress.log(forStderr(io, `idv: ${line}`)) : undefined,
  });
  const dispatcher = new Scheduler<PlannedRecord>({
    client,
    endpoint: ENDPOINT[o.kind],
    field: FIELD[o.kind],
    host: new URL(p.target.baseUrl).host,
    batchSize: o.batchSize,
    concurrency: o.concurrency,
    retries: o.retries,
    maxSpend: o.maxSpend,
    wait: o.wait,
    maxWaitSeconds: o.maxWaitSeconds,
    signal,
    onResults(results) {
      for (const [record, status] of results) plan.settle(record.key, status);
      if (p.cache) {
        p.cache.append(results.map(([i, s]) => [i.key, s])); // the store keeps only what is cacheable
        const err = p.cache.writeError();
        if (err && !cacheWarned) {
          cacheWarned = true;
          progress.log(forStderr(io, `idv: warning: cannot write the cache (${err.code ?? err.message}: ${p.cache.path}); this run's results will be paid for again by the next run.`));
        }
      }
      writer.settle(results);
    },
    onProgress: on.progress,
    onWait: on.wait,
  });
  return { client, dispatcher };
}

/** The wait for the quota (--wait): a countdown on the spinner line on a terminal, one line otherwise. */
function waitCountdown(io: Io, progress: Progress, live: boolean, say: boolean) {
  let timer: NodeJS.Timeout | null = null;
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  return {
    start(until: number) {
      const line = () => `Quota used up; waiting ${formatDuration((until - Date.now()) / 1000)} for it to reset (at ${clockTime(until, Date.now())}), as --wait asks.`;
      stop();
      if (live) {
        progress.update(line());
        timer = setInterval(() => (Date.now() >= until ? stop() : progress.update(line())), 1000);
      } else if (say) progress.log(forStderr(io, `idv: ${line()}`));
    },
    stop,
    running: () => timer !== null,
  };
}
