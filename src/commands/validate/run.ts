// `idv emails` / `idv domains`, as the pipeline it is: open the inputs, open the outputs, a dry run or dispatch
// and write, and finish (the summary, what was written, the exit code). Notes go through one RunLog, which the
// progress line takes over while it turns; the run's facts (summary, --report) are built by factsOf().
import type { Io } from '../../system/io.js';
import { checkerFor } from '../../input/items/check.js';
import type { ReadOptions } from '../../input/read.js';
import { Plan } from '../../plan/plan.js';
import { planRecords, type PlannedRecord } from '../../plan/planned.js';
import type { Format } from '../../output/format.js';
import { loadChalk } from '../../output/colors.js';
import { formatSummary } from '../../output/summary.js';
import { ReportFile, reportJson, type RunFacts } from '../../output/report.js';
import { OutputsNotPut } from '../../output/commit.js';
import { ServiceStopped } from '../../dispatch/breaker.js';
import { sinkFor } from '../../output/sink.js';
import { destinationOf, type Destination } from '../../output/destination.js';
import { isCacheable, KNOWN_STATUSES, STATUSES_OF } from '../../core/statuses.js';
import { version } from '../../core/version.js';
import type { ValidateOptions } from './flags.js';
import { IdvError, type StopSignal } from '../../core/errors.js';
import { keyRefusedMessage } from '../../system/api-key.js';
import { resolveTarget, type Target } from './target.js';
import type { Client } from '../../api/client.js';
import { openCache } from '../../engine/open-cache.js';
import { RunInputs } from './inputs.js';
import { checkBom, checkFilters, openOutputs, outputTarget, refuseCollidingOutputs, writesWorkbookColumns, type OutputTarget } from './outputs.js';
import { runPipeline, type Finished } from './pipeline.js';
import { HeldOpen } from '../../output/sink.js';
import { endingOf, interruptionOf, outcomeOf } from './outcome.js';
import { dryRunFacts, formatDryRun, formatLayouts } from './dry-run.js';
import { factsOf, type RunParts } from './run-facts.js';
import { RunLog } from './run-log.js';
import { wroteLines } from './wrote.js';

export async function run(options: ValidateOptions, io: Io): Promise<void> {
  const parts: RunParts = { options, started: Date.now() };
  const log = new RunLog(io, options.verbose);
  // --report is resolved first: a run that fails after this point still writes it.
  const reportTo = options.report === undefined ? null : destinationOf(options.report, io.cwd);
  const report = reportTo === null ? null : new ReportFile(() => sinkFor(reportTo, io));
  let failure: unknown = null;
  try {
    await validate(options, io, parts, log, { report, reportTo });
  } catch (err) {
    failure = err instanceof IdvError && err.kind === 'interrupted' && err.signal ? interruption(err.signal, parts, io) : err;
    throw failure;
  } finally {
    log.handBack();
    if (report) await saveReport(report, io, factsOf(parts), failure, log);
  }
}

async function validate(options: ValidateOptions, io: Io, parts: RunParts, log: RunLog, asked: { report: ReportFile | null; reportTo: Destination | null }): Promise<void> {
  const { report } = asked;
  const output = (parts.output = outputTarget(options, io, asked.reportTo));
  const { format } = output;
  checkBom(options, output);
  checkFilters(options);
  warnOddStatusNames(options, log);
  await refuseCollidingOutputs(options, io, output, report);
  const inputs = (parts.inputs = await RunInputs.check(options, io));
  const target = await resolveTarget(options, io);
  const plan = (parts.plan = new Plan());
  let over = false; // the run needs no count ahead any more
  try {
    const cache =
      options.cache && !target.sandbox
        ? await openCache({ baseUrl: target.baseUrl, kind: options.kind, ttl: options.cacheTtl, env: io.env, platform: io.platform }, plan, (text) => log.warning(text))
        : null;
    const kept = (parts.kept = target.sandbox ? 'sandbox' : cache ? 'cache' : 'nothing');
    const overrides = layoutOverrides(options, output);
    const opened = await inputs.open(overrides, log);
    if (options.dryRun) return await dryRun(options, io, format, planRecords(opened.records, checkerFor(options.kind), plan), parts);
    const outputs = await openOutputs(options, io, output, opened.first, opened.live, report);
    const progress = await io.term.progress(!options.quiet);
    log.takeOver(progress);
    // The total, exact before the input is read when that is cheap: only for a progress shown.
    if (!opened.live && (progress.live || (options.verbose && !options.quiet))) {
      inputs.countAhead(overrides, () => over).then((n) => void (parts.counted = n), () => undefined);
    }
    const client = await connect(options, io, target, log);
    // How the run ends, once its results are all in: the report says it, and is put in place with the outputs.
    let outcome = null as IdvError | null;
    const ended = (done: Finished) => {
      parts.finished = done;
      outcome = outcomeOf(endingOf(options, done, cache !== null, new URL(target.baseUrl).host));
      return report ? reportJson(version(), factsOf(parts), outcome, Date.now(), io.secrets) : null;
    };
    let done: Finished | null;
    try {
      done = await runPipeline({
        ...outputs,
        ...{ options, io, target, client, plan, cache, progress, log },
        records: opened.records,
        bytes: () => inputs.bytes(),
        counted: () => parts.counted ?? null,
        onStats: (stats) => (parts.dispatched = stats),
        onPassed: (passed) => (parts.passed = passed),
        ...(opened.live ? { live: { waited: opened.first.paused } } : {}),
        alsoCommit: async (finished) => {
          const json = ended(finished);
          const filled = json === null ? null : await report!.fill(json);
          return filled ? [filled] : [];
        },
      });
    } catch (err) {
      throw saidOfKept(err, kept, (parts.dispatched?.sent ?? 0) > 0, target);
    } finally {
      over = true;
      await client.close();
    }
    if (done === null) return; // standard output was closed by its reader: end quietly
    if (!options.quiet) await tellTheEnd(options, io, output, factsOf(parts), done, log, cache !== null);
    if (outcome) throw outcome;
  } finally {
    over = true;
    plan.close();
    await target.close();
  }
}

/** An interruption said with how far the run got, what it keeps, and the command that goes on. */
function interruption(signal: StopSignal, parts: RunParts, io: Io): IdvError {
  const facts = factsOf(parts);
  return interruptionOf({
    signal,
    passed: parts.passed?.() ?? 0,
    read: facts.records,
    total: parts.counted ?? null,
    sent: facts.sent,
    kept: parts.kept ?? (parts.options.sandbox ? 'sandbox' : parts.options.cache ? 'cache' : 'nothing'),
    output: writtenFile(parts.output),
    argv: io.argv ?? [],
    platform: io.platform,
  });
}

/** The service refused the key (401): said naming where the key came from, and the fix for that place. */
function refusedKey(err: unknown, target: Target): unknown {
  const refused = err instanceof IdvError && err.kind === 'auth' && target.keySource;
  return refused ? new IdvError('auth', keyRefusedMessage(target.keySource!, '401 Unauthorized')) : err;
}

/** The service's client for the run (loaded only here: a dry run does not load it), --verbose's lines through the run's log. */
async function connect(options: ValidateOptions, io: Io, target: Target, log: RunLog): Promise<Client> {
  const { createClient } = await import('../../api/client.js');
  return createClient({
    baseUrl: target.baseUrl,
    key: target.key,
    timeoutMs: options.timeoutSeconds * 1000,
    connections: options.concurrency,
    env: io.env,
    secrets: io.secrets,
    network: io.network,
    log: options.verbose ? (line) => log.verbose(line) : undefined,
  });
}

function layoutOverrides(options: ValidateOptions, output: OutputTarget): ReadOptions {
  const { column, delimiter, noHeader, noQuotes, keepColumns, encoding, sheet, maxUnpacked, maxRowSize } = options;
  // A workbook written with every column keeps each cell's type from a workbook read.
  return { column, delimiter, noHeader, noQuotes, keepColumns, encoding, sheet, cellTypes: writesWorkbookColumns(options, output), maxUnpacked, maxRowSize };
}

/** -o as given when it names a file (replaced at the end); null for standard output, or before the outputs are decided. */
const writtenFile = (output: OutputTarget | undefined) => (output?.main.path ? output.main.given : null);

/** --dry-run: every record read and planned (counted), then the counts and each file's layout. */
async function dryRun(options: ValidateOptions, io: Io, format: Format, records: AsyncIterable<PlannedRecord[]>, parts: RunParts): Promise<void> {
  for await (const _block of records); // counting is the plan's
  const files = parts.inputs!.layouts();
  io.stdout.write(formatDryRun({ ...dryRunFacts(parts.plan!.counts, options.maxSpend), files }, format));
  // Beside machine-readable counts, the layouts go to standard error: standard output stays one object.
  if (format !== 'table' && !options.quiet) io.stderr.write(formatLayouts(files).replace(/^\n/, ''));
}

/** The summary (none when there was nothing to validate: the warning said so), then what -o and --split wrote. */
async function tellTheEnd(options: ValidateOptions, io: Io, output: OutputTarget, facts: RunFacts, done: Finished, log: RunLog, cacheUsed: boolean): Promise<void> {
  if (facts.records > 0) {
    const summary = { ...summaryFacts(facts, done), cacheUsed, bars: io.term.isTerminal('stderr'), width: io.term.width('stderr') };
    io.stderr.write(formatSummary(summary, io.term.color('stderr') ? await loadChalk(true) : null));
  }
  const { only, exclude } = options;
  const { split } = output;
  const written = { output: writtenFile(output) ?? undefined, only, exclude, split: split?.given, splitExtension: split ? `.${split.format}` : '', statuses: STATUSES_OF[options.kind], counts: done.counts };
  for (const line of wroteLines(written)) log.line(line);
}

function summaryFacts(facts: RunFacts, done: Finished) {
  const { stats } = done;
  return {
    records: facts.records,
    skipped: facts.skipped,
    counts: done.counts,
    fromCache: facts.fromCache,
    sentItems: stats.sent,
    requests: stats.requests,
    elapsedMs: Date.now() - facts.started,
    remaining: facts.quota?.remaining ?? undefined,
    quota: stats.rate?.quota,
    resetAt: stats.resetAt,
    now: Date.now(),
  };
}

/** The report of a run whose report was not put in place with its outputs (written at its end, or not again when it failed). */
async function saveReport(report: ReportFile, io: Io, facts: RunFacts, failure: unknown, log: RunLog): Promise<void> {
  try {
    await report.save(reportJson(version(), facts, failure, Date.now(), io.secrets));
  } catch (err) {
    if (failure === null) throw err; // the run went well: a report that cannot be written is its failure
    log.warning((err as Error).message);
  }
}

/** What a run that failed says of the results it paid for: kept in the cache (the rerun does not pay again), or not. */
function saidOfKept(err: unknown, kept: NonNullable<RunParts['kept']>, paid: boolean, target: Target): unknown {
  const note = (cached: string, rerun = ', so the same command sends nothing for them again') =>
    kept === 'cache' ? cached + rerun : NOT_KEPT[kept];
  // An output another program held open; outputs that could not all be put in place (left as they were).
  if (err instanceof HeldOpen) return withNote('failed', err, note('the results it would hold are kept in the cache'));
  if (err instanceof OutputsNotPut) return withNote('failed', err, note('the results are kept in the cache'));
  if (err instanceof ServiceStopped) return withNote('failed', err, note('results received so far are cached', ''));
  // Input found damaged past what was paid for (a workbook's late part, a quote that never closes): still exit 2;
  // a --sandbox run paid nothing, so nothing is said.
  if (paid && kept !== 'sandbox' && err instanceof IdvError && err.kind === 'input') {
    return withNote('input', err, note('the results received before it are cached'));
  }
  return refusedKey(err, target);
}

const NOT_KEPT = {
  nothing: 'with --no-cache the results were not kept, so the same command pays for them again',
  sandbox: 'a --sandbox run keeps no results (and costs nothing)',
};
const withNote = (kind: 'failed' | 'input', err: Error, note: string) =>
  new IdvError(kind, `${err.message.replace(/\.$/, '')}; ${note}.`);

/** A --cache-ttl name no cached result can have (idv's own statuses, never kept): the duration would do nothing. */
function warnOddStatusNames(options: ValidateOptions, log: RunLog): void {
  const uncached = [...options.cacheTtl.byStatus.keys()].filter((s) => KNOWN_STATUSES.includes(s) && !isCacheable(s));
  if (uncached.length) {
    const kept = KNOWN_STATUSES.filter(isCacheable).join(', ');
    log.warning(`--cache-ttl names ${quoted(uncached)}, not a status the cache keeps (it keeps: ${kept}, and any new status the service gives).`);
  }
}

const quoted = (names: string[]) => names.map((name) => `"${name}"`).join(', ');
