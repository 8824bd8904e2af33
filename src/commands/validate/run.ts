// `idv emails` / `idv domains`, as the pipeline it is: resolve the target, open the sources, plan, then
// dispatch and write (or, for --dry-run, only count), summarise, and end with the outcome's exit code.
import { COLUMN, ENDPOINT } from '../../defaults.js';
import { warn, type Io } from '../../io.js';
import { checkerFor } from '../../input/check.js';
import { checkReadable, openSource, sourcesFor, type InputRecord, type OpenedSource, type Source } from '../../input/read.js';
import type { LayoutOverrides } from '../../input/detect.js';
import { cacheDir, openScope, type CacheScope } from '../../cache/store.js';
import { Plan } from '../../plan/plan.js';
import { planRecords, type PlannedRecord } from '../../plan/planned.js';
import { createFormatter, formatForPath, type Format } from '../../output/format.js';
import { fileSink, stdoutSink } from '../../output/sink.js';
import { loadChalk } from '../../output/colors.js';
import { createProgress } from '../../output/progress.js';
import { formatSummary } from '../../output/summary.js';
import { KNOWN_STATUSES } from '../../statuses.js';
import { resolve } from 'node:path';
import type { ValidateOptions } from './flags.js';
import { resolveTarget, type Target } from './target.js';
import { runPipeline } from './pipeline.js';
import { outcomeOf } from './outcome.js';
import { formatDryRun } from './dry-run.js';

export async function run(o: ValidateOptions, io: Io): Promise<void> {
  const started = Date.now();
  const format = chooseFormat(o, io);
  warnUnknownStatuses(io, '--only', o.only);
  warnUnknownStatuses(io, '--exclude', o.exclude);
  const sources = sourcesFor(o.files, io);
  await checkReadable(o.files, io.cwd);
  const target = await resolveTarget(o, io);
  try {
    const plan = new Plan();
    const cache = await openCache(o, io, target, plan);
    const overrides: LayoutOverrides = { column: o.column, delimiter: o.delimiter, noHeader: o.noHeader };
    const first = await openSource(sources[0]!, o.kind, overrides);
    const records = planRecords(recordsOf(first, sources.slice(1), (s) => openSource(s, o.kind, overrides)), checkerFor(o.kind), plan);
    if (o.dryRun) {
      for await (const _block of records); // counting is the plan's
      const c = plan.counts;
      io.stdout.write(formatDryRun({ records: c.records, unique: c.unique, invalid: c.invalid, cached: c.cached, quota: c.unique - c.cached }, format));
      return;
    }
    await validate(o, io, { target, plan, cache, first, records, format, started });
  } finally {
    await target.close();
  }
}

async function validate(
  o: ValidateOptions,
  io: Io,
  c: { target: Target; plan: Plan; cache: CacheScope | null; first: OpenedSource; records: AsyncIterable<PlannedRecord[]>; format: Format; started: number },
): Promise<void> {
  const formatter = await createFormatter(c.format, {
    column: COLUMN[o.kind],
    keepColumns: o.keepColumns,
    header: c.first.layout.header,
    delimiter: c.first.layout.delimiter,
    chalk: c.format === 'table' && io.color && !o.output ? await loadChalk(true) : null,
  });
  const sink = o.output ? fileSink(resolve(io.cwd, o.output)) : stdoutSink(io.stdout);
  const progress = await createProgress(io.stderr, io.stderrIsTTY && !o.quiet, io.colorErr);
  const done = await runPipeline({ o, io, target: c.target, plan: c.plan, cache: c.cache, records: c.records, formatter, sink, progress });
  if (done === null) return; // standard output was closed by its reader: end quietly

  const { stats } = done;
  if (!o.quiet) {
    const remaining = stats.rate?.remaining !== undefined && stats.rateAt !== undefined ? stats.rate.remaining : undefined;
    const summary = formatSummary(
      {
        records: c.plan.counts.records,
        counts: done.counts,
        fromCache: c.plan.counts.cached,
        sentItems: stats.sent,
        requests: stats.requests,
        elapsedMs: Date.now() - c.started,
        remaining,
        quota: stats.rate?.quota,
        resetAt: stats.resetAt,
        now: Date.now(),
      },
      io.colorErr ? await loadChalk(true) : null,
    );
    io.stderr.write(summary);
  }
  const outcome = outcomeOf({ counts: done.counts, resetAt: stats.resetAt, now: Date.now(), cached: c.cache !== null, lastFailure: done.lastFailure });
  if (outcome) throw outcome;
}

/** The result cache of this run's service and endpoint, loaded into the plan; null without one. */
async function openCache(o: ValidateOptions, io: Io, target: Target, plan: Plan): Promise<CacheScope | null> {
  if (!o.cache || target.sandbox) return null;
  const scope = openScope(cacheDir(io.env), target.baseUrl, ENDPOINT[o.kind], o.cacheTtlSeconds);
  try {
    const report = await plan.loadCache(scope);
    if (report.damaged > 0) {
      const lines = `${report.damaged} damaged line${report.damaged === 1 ? '' : 's'}`;
      warn(io, `idv: warning: the cache had ${lines} (${scope.path}); ${report.rebuilt ? 'rebuilt it without them' : 'ignored them'}.`);
    }
    return scope;
  } catch (err) {
    warn(io, `idv: warning: cannot use the cache (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); going on without it.`);
    return null;
  }
}

/** The records of every source in turn; the first is already open (its layout shapes the output). */
async function* recordsOf(first: OpenedSource, rest: Source[], open: (s: Source) => Promise<OpenedSource>): AsyncGenerator<InputRecord[]> {
  yield* first.records;
  for (const source of rest) yield* (await open(source)).records;
}

function chooseFormat(o: ValidateOptions, io: Io): Format {
  if (o.format) return o.format;
  if (o.output) return formatForPath(o.output) ?? 'csv';
  return io.stdoutIsTTY ? 'table' : 'csv';
}

/** A name in --only/--exclude that is no known status: a typo must not pass silently. */
function warnUnknownStatuses(io: Io, flag: string, names: string[] | undefined): void {
  const unknown = (names ?? []).filter((n) => !KNOWN_STATUSES.includes(n));
  if (unknown.length) {
    warn(io, `idv: warning: ${flag} names ${unknown.map((u) => `"${u}"`).join(', ')}, not a known status (known: ${KNOWN_STATUSES.join(', ')}).`);
  }
}
