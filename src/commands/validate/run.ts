// `idv emails` / `idv domains`, as the pipeline it is: resolve the target, open the sources, plan, then
// dispatch and write (or, for --dry-run, only count), summarise, and end with the outcome's exit code.
// What the run learns along the way goes into its facts, for the summary and for --report.
import { resolvePath } from '../../paths.js';
import { COLUMN, ENDPOINT } from '../../defaults.js';
import { forStderr, warn, type Io } from '../../io.js';
import { fsReason, inputError, usageError } from '../../errors.js';
import { checkerFor } from '../../input/check.js';
import { checkReadable, openSource, sourcesFor, type InputRecord, type OpenedSource, type Source } from '../../input/read.js';
import { isItemsSource, itemsSources, openItems, refuseItemsAsFiles } from '../../input/items.js';
import type { LayoutOverrides } from '../../input/detect.js';
import type { CacheScope } from '../../cache/store.js';
import type { CacheTtl } from '../../cache/ttl.js';
import { Plan } from '../../plan/plan.js';
import { planRecords, type PlannedRecord } from '../../plan/planned.js';
import { createFormatter, formatForPath, refuseExtension, type Format, type FormatOptions } from '../../output/format.js';
import { splitOutputs } from '../../output/split.js';
import type { SplitOutputs } from '../../output/ordered-writer.js';
import { suggest } from '../../output/suggest.js';
import { isStdout, outputSink } from '../../output/sink.js';
import { workbookSink } from '../../output/workbook-sink.js';
import { loadChalk } from '../../output/colors.js';
import { createProgress } from '../../output/progress.js';
import { formatSummary } from '../../output/summary.js';
import { emptyFacts, reportJson, writeReport, type RunFacts } from '../../output/report.js';
import { isCacheable, KNOWN_STATUSES, STATUSES_OF } from '../../statuses.js';
import { version } from '../../version.js';
import { columnsOf } from '../../wrap.js';
import type { ValidateOptions } from './flags.js';
import { resolveTarget, type Target } from './target.js';
import { runPipeline, type Finished } from './pipeline.js';
import type { DispatchStats } from '../../dispatch/scheduler.js';
import { outcomeOf } from './outcome.js';
import { dryRunFacts, fileLayout, formatDryRun, formatLayouts } from './dry-run.js';
import { countBytes, type ByteCount } from './progress-report.js';
import { emptyInputLine, wroteLines } from './wrote.js';

export async function run(o: ValidateOptions, io: Io): Promise<void> {
  const facts = emptyFacts(o.kind, Date.now(), o.maxSpend, o.output, o.dryRun);
  let failure: unknown = null;
  try {
    await validate(o, io, facts);
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    if (o.report) await saveReport(o.report, io, facts, failure);
  }
}

async function validate(o: ValidateOptions, io: Io, facts: RunFacts): Promise<void> {
  const format = chooseFormat(o, io);
  warnUnknownStatuses(io, '--only', o.only);
  warnUnknownStatuses(io, '--exclude', o.exclude);
  warnUncachedStatuses(io, o.cacheTtl);
  const counted = await inputsOf(o, io, facts);
  const sources = counted.sources;
  const target = await resolveTarget(o, io);
  const plan = new Plan();
  try {
    const cache = await openCache(o, io, target, plan);
    const overrides: LayoutOverrides = { column: o.column, delimiter: o.delimiter, noHeader: o.noHeader, keepColumns: o.keepColumns, encoding: o.encoding, sheet: o.sheet };
    // A workbook written with every column keeps each cell's type from a workbook read.
    overrides.cellTypes = o.keepColumns && (format === 'xlsx' || (o.split !== undefined && splitFormat(o) === 'xlsx'));
    // Notes (skipped lines, a close column choice, a doubtful encoding) go above the spinner once it turns.
    let say = (line: string) => warn(io, line);
    const note = (line: string) => say(`idv: note: ${line}`);
    const verbose = o.verbose ? (line: string) => say(`idv: ${line}`) : undefined;
    const openWith = (s: Source, notes?: { note(line: string): void; verbose?(line: string): void }) =>
      isItemsSource(s) ? openItems(s, o.kind, o.keepColumns, openSource) : openSource(s, o.kind, overrides, notes);
    const open = (s: Source) => openWith(s, { note, verbose });
    const first = await open(sources[0]!);
    // Every source's layout is known before anything is sent, so that a file idv cannot read is refused
    // (exit 2) before paying for the files before it. With --keep-columns they stay open: their columns
    // must agree.
    const rest: Array<Source | OpenedSource> = o.keepColumns
      ? await sameColumns(first, sources.slice(1), open)
      : await readable(sources.slice(1), (s) => openWith(s), open);
    const opened: OpenedSource[] = [];
    const read = recordsOf([first, ...rest], open, { ...readingNotes(facts, counted, (line) => say(line)), opened: (i, s) => (opened[i] = s) });
    const skipped = () => (facts.skipped = opened.reduce((n, s) => n + s.facts().skippedLines, 0));
    const records = planRecords(read, checkerFor(o.kind), plan);
    if (o.dryRun) {
      for await (const _block of records); // counting is the plan's
      Object.assign(facts, countsOf(plan));
      skipped();
      const files = opened.map((s, i) => fileLayout(sources[i]!.path === '-' ? '-' : sources[i]!.name, s, facts.inputs[i]!.records));
      io.stdout.write(formatDryRun({ ...dryRunFacts(plan.counts, o.maxSpend), files }, format));
      // Beside machine-readable counts, the layouts go to standard error: standard output stays one object.
      if (format !== 'table' && !o.quiet) io.stderr.write(formatLayouts(files).replace(/^\n/, ''));
      return;
    }
    const layout: FormatOptions = {
      column: COLUMN[o.kind],
      keepColumns: o.keepColumns,
      header: first.layout.header,
      delimiter: first.layout.delimiter,
      width: first.layout.width,
      itemColumn: first.layout.column,
      suggest: o.suggest ? (item) => suggest(o.kind, item) : null,
      safeCsv: o.safeCsv,
    };
    // Standard input or a FIFO: records are sent and written as they come (input/live.ts).
    const live = [first, ...rest].some((s) => 'records' in s && s.live);
    const main = mainOutput(o, io, format)
      ? {
          formatter: await createFormatter(format, {
            ...layout,
            chalk: format === 'table' && io.color && !o.output ? await loadChalk(true) : null,
            lineWidth: o.output ? undefined : columnsOf(io.stdout, io.stdoutIsTTY),
            live,
          }),
          sink: format === 'xlsx' ? workbookSink(outputSink(o.output, io), { sheetName: first.sheet?.name }) : outputSink(o.output, io, live),
        }
      : null;
    // Outputs that cannot be written (-o naming a folder, a missing folder; a --split folder that cannot be
    // made) fail now, before anything is sent and paid for, leaving no temporary file.
    let split: SplitOutputs | null = null;
    try {
      await main?.sink.ready();
      if (o.split) split = await splitOutputs(resolvePath(io.cwd, o.split), splitFormat(o), layout, STATUSES_OF[o.kind], io.signal);
    } catch (err) {
      await main?.sink.abort();
      throw err;
    }
    const progress = await createProgress(io.stderr, io.stderrIsTTY && !o.quiet, io.colorErr, io.env);
    say = (line) => progress.log(forStderr(io, line));
    let spent: DispatchStats | null = null;
    let done: Finished | null;
    try {
      const streaming = live ? { live: { waited: first.paused } } : {};
      done = await runPipeline({ o, io, target, plan, cache, records, main, split, progress, bytes: counted.bytes, onStats: (s) => (spent = s), ...streaming });
    } finally {
      // Also when the run stops early (Ctrl-C, a refused key, a failed write): what was read and paid for.
      Object.assign(facts, countsOf(plan));
      skipped();
      if (spent) noteSpent(facts, spent);
    }
    if (done === null) return; // standard output was closed by its reader: end quietly
    noteFinished(facts, done);
    if (!o.quiet) await tellTheEnd(o, io, facts, done);
    const outcome = outcomeOf({
      counts: done.counts,
      resetAt: done.stats.resetAt,
      now: Date.now(),
      cached: cache !== null,
      lastFailure: done.lastFailure,
      maxSpend: o.maxSpend,
      capped: done.stats.capped,
      quotaStopped: done.stats.quotaStopped,
      quotaStop: done.stats.quotaStop,
      wait: o.wait ? { maxWaitSeconds: o.maxWaitSeconds, waitedMs: done.stats.waitedMs } : undefined,
    });
    if (outcome) throw outcome;
  } finally {
    plan.close();
    await target.close();
  }
}

/**
 * The run's sources: files, standard input, the items given with --item. An address typed where a FILE goes,
 * and a file that cannot be read, are refused before anything is read or sent; each source's bytes are counted.
 */
async function inputsOf(o: ValidateOptions, io: Io, facts: RunFacts): Promise<ByteCount> {
  await refuseItemsAsFiles(o.kind, o.files, io.cwd);
  const given = sourcesFor(o.files, io, itemsSources(o.items));
  const sizes = await checkReadable(o.files, io.cwd);
  facts.inputs = given.map((s) => ({ path: s.path, bytes: sizes.get(s.path) ?? null, records: 0 }));
  // A size of 0 is an empty file or a FIFO: no total can be told from it.
  return countBytes(given, (s) => (isItemsSource(s) ? 0 : sizes.get(s.path) || undefined));
}

/** What reading learns, source by source: records counted for the report, bytes for the total, inputs without records said. */
function readingNotes(facts: RunFacts, counted: ByteCount, say: (line: string) => void) {
  return {
    block(i: number, n: number) {
      counted.reading(i);
      facts.inputs[i]!.records += n;
    },
    // An input without records is said, not passed over (the run still ends 0).
    ended(i: number, name: string) {
      if (facts.inputs[i]!.records > 0) return;
      say(emptyInputLine(name, i === facts.inputs.length - 1 && facts.inputs.every((input) => input.records === 0)));
    },
  };
}

/** The summary (none when there was nothing to validate: the warning said so), then what -o and --split wrote. */
async function tellTheEnd(o: ValidateOptions, io: Io, facts: RunFacts, done: Finished): Promise<void> {
  if (facts.records > 0) {
    const summary = { ...summaryFacts(facts, done), bars: io.stderrIsTTY, width: columnsOf(io.stderr, io.stderrIsTTY) };
    io.stderr.write(formatSummary(summary, io.colorErr ? await loadChalk(true) : null));
  }
  const written = { output: o.output, only: o.only, exclude: o.exclude, split: o.split, splitExtension: `.${splitFormat(o)}`, statuses: STATUSES_OF[o.kind], counts: done.counts };
  for (const line of wroteLines(written)) warn(io, line);
}

function countsOf(plan: Plan): Pick<RunFacts, 'records' | 'unique' | 'invalid' | 'fromCache'> {
  const c = plan.counts;
  return { records: c.records, unique: c.unique, invalid: c.invalid, fromCache: c.cached };
}

function noteFinished(facts: RunFacts, done: Finished): void {
  // Known statuses in their usual order, then any other the service gave, by name.
  const order = [...KNOWN_STATUSES, ...[...done.counts.keys()].filter((s) => !KNOWN_STATUSES.includes(s)).sort()];
  facts.statuses = Object.fromEntries(order.filter((s) => done.counts.has(s)).map((s) => [s, done.counts.get(s)!]));
}

/** What the dispatcher sent and learnt of the quota, finished or not. */
function noteSpent(facts: RunFacts, stats: DispatchStats): void {
  Object.assign(facts, { sent: stats.sent, requests: stats.requests, retries: stats.retries, capped: stats.capped, quotaStopped: stats.quotaStopped });
  const remaining = stats.rate?.remaining !== undefined && stats.rateAt !== undefined ? stats.rate.remaining : undefined;
  if (remaining !== undefined || stats.rate?.quota !== undefined || stats.resetAt !== undefined) {
    facts.quota = {
      remaining: remaining ?? null,
      limit: stats.rate?.quota ?? null,
      resetsAt: stats.resetAt !== undefined ? new Date(stats.resetAt).toISOString() : null,
    };
  }
}

function summaryFacts(f: RunFacts, done: Finished) {
  const { stats } = done;
  return {
    records: f.records,
    skipped: f.skipped,
    counts: done.counts,
    fromCache: f.fromCache,
    sentItems: stats.sent,
    requests: stats.requests,
    elapsedMs: Date.now() - f.started,
    remaining: f.quota?.remaining ?? undefined,
    quota: stats.rate?.quota,
    resetAt: stats.resetAt,
    now: Date.now(),
  };
}

async function saveReport(path: string, io: Io, facts: RunFacts, failure: unknown): Promise<void> {
  try {
    await writeReport(outputSink(path, io), reportJson(version(), facts, failure, Date.now(), io.secrets));
  } catch (err) {
    if (failure === null) throw err; // the run went well: a report that cannot be written is its failure
    warn(io, `idv: warning: ${(err as Error).message}`);
  }
}

/** The result cache of this run's service and endpoint, loaded into the plan; null without one. */
async function openCache(o: ValidateOptions, io: Io, target: Target, plan: Plan): Promise<CacheScope | null> {
  if (!o.cache || target.sandbox) return null;
  // Loaded only here: a run without a cache does not load it, nor node:crypto (a few ms of a short run).
  const { cacheDir, openScope } = await import('../../cache/store.js');
  let dir: string;
  try {
    dir = cacheDir(io.env);
  } catch (err) {
    warn(io, `idv: warning: ${(err as Error).message.replace(/\.$/, '')}; going on without it.`); // no home folder
    return null;
  }
  try {
    const scope = openScope(dir, target.baseUrl, ENDPOINT[o.kind], o.cacheTtl);
    const report = await plan.loadCache(scope);
    if (report.damaged > 0) {
      const lines = `${report.damaged} damaged line${report.damaged === 1 ? '' : 's'}`;
      warn(io, `idv: warning: the cache had ${lines} (${scope.path}); ${report.rebuilt ? 'rebuilt it without them' : 'ignored them'}.`);
    }
    return scope;
  } catch (err) {
    warn(io, `idv: warning: cannot use the cache in ${dir}: ${fsReason(err)}; going on without it.`);
    return null;
  }
}

/**
 * The other sources, opened, when their columns are the first's: --keep-columns writes one header, and a
 * file whose columns differ would be misaligned under it. Refused before anything is sent (exit 2).
 */
async function sameColumns(first: OpenedSource, rest: Source[], open: (s: Source) => Promise<OpenedSource>): Promise<OpenedSource[]> {
  const shape = (l: OpenedSource['layout']) => (l.delimiter === null ? 'a plain list' : l.header ? l.header.map((h) => h.trim()).join(l.delimiter) : 'no header');
  const opened: OpenedSource[] = [];
  for (const source of rest) {
    const s = await open(source);
    opened.push(s);
    if (shape(s.layout) !== shape(first.layout)) {
      for (const o of opened) await o.close();
      throw inputError(
        `${s.name} has other columns than ${first.name} (${shape(s.layout)} / ${shape(first.layout)}); with --keep-columns every file needs the same header: run them one at a time.`,
      );
    }
  }
  return opened;
}

/**
 * The other sources, each opened once to guess its layout (which throws when idv cannot read it) and closed
 * again, silently: it is read, and its notes said, when its turn comes. Standard input cannot be opened twice,
 * so it stays open.
 */
async function readable(
  rest: Source[],
  probe: (s: Source) => Promise<OpenedSource>,
  open: (s: Source) => Promise<OpenedSource>,
): Promise<Array<Source | OpenedSource>> {
  const out: Array<Source | OpenedSource> = [];
  try {
    for (const source of rest) {
      if (source.path === '-') out.push(await open(source));
      else {
        await (await probe(source)).close();
        out.push(source);
      }
    }
  } catch (err) {
    for (const s of out) if ('records' in s) await s.close();
    throw err;
  }
  return out;
}

/**
 * The records of every source in turn (the first is open already: its layout shapes the output); `on` learns
 * each source once open, how many records each block gave, and when a source ended.
 */
async function* recordsOf(
  sources: Array<Source | OpenedSource>,
  open: (s: Source) => Promise<OpenedSource>,
  on: { opened(source: number, s: OpenedSource): void; block(source: number, records: number): void; ended(source: number, name: string): void },
): AsyncGenerator<InputRecord[]> {
  for (let i = 0; i < sources.length; i++) {
    const s = sources[i]!;
    const opened = 'records' in s ? s : await open(s);
    on.opened(i, opened);
    for await (const block of opened.records) {
      on.block(i, block.length);
      yield block;
    }
    on.ended(i, opened.name);
  }
}

/**
 * Whether there is a main output: always, but with --split to a terminal and no -o or --format, where the
 * split files are the output (a table of every record would only scroll past).
 */
function mainOutput(o: ValidateOptions, io: Io, format: Format): boolean {
  if (o.split && !o.output && io.stdoutIsTTY && format === 'xlsx') return false; // the workbooks are the split files
  return !(o.split && !o.output && !o.format && io.stdoutIsTTY && format === 'table');
}

/** The split files' format: the one asked for, or -o's; csv for a table. */
function splitFormat(o: ValidateOptions): Exclude<Format, 'table'> {
  const f = o.format ?? (o.output ? formatForPath(o.output) : undefined) ?? 'csv';
  return f === 'table' ? 'csv' : f;
}

function chooseFormat(o: ValidateOptions, io: Io): Format {
  if (o.output && !o.format) refuseExtension(o.output);
  const format = o.format ?? (o.output ? (formatForPath(o.output) ?? 'csv') : io.stdoutIsTTY ? 'table' : 'csv');
  // A workbook is bytes no terminal shows: to a terminal it goes to a file (a pipe, `> x.xlsx` or -o take it).
  if (format === 'xlsx' && !o.dryRun && io.stdoutIsTTY && isStdout(o.output, io.cwd) && !(o.split && !o.output)) {
    throw usageError('idv does not write a workbook to a terminal: give -o FILE.xlsx (or redirect it: > FILE.xlsx).');
  }
  return format;
}

/** A name in --only/--exclude that is no known status: a typo must not pass silently. */
function warnUnknownStatuses(io: Io, flag: string, names: string[] | undefined): void {
  const unknown = (names ?? []).filter((n) => !KNOWN_STATUSES.includes(n));
  if (unknown.length) {
    warn(io, `idv: warning: ${flag} names ${unknown.map((u) => `"${u}"`).join(', ')}, not a known status (known: ${KNOWN_STATUSES.join(', ')}).`);
  }
}

/** A --cache-ttl name that no cached result can have (a typo, or a status never kept) must not pass silently. */
function warnUncachedStatuses(io: Io, ttl: CacheTtl): void {
  const odd = [...ttl.byStatus.keys()].filter((s) => !KNOWN_STATUSES.includes(s) || !isCacheable(s));
  if (odd.length) {
    const kept = KNOWN_STATUSES.filter(isCacheable).join(', ');
    warn(io, `idv: warning: --cache-ttl names ${odd.map((u) => `"${u}"`).join(', ')}, not a status the cache keeps (it keeps: ${kept}, and any new status the service gives).`);
  }
}
