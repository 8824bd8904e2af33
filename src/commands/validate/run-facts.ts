// The facts of a run (RunFacts: for the summary and --report), built in one place, factsOf(), from the parts
// that know them: the inputs (records read from each), the plan (records, unique, invalid, cached), the
// dispatcher (what was sent and what the quota said) and the writer (records per status). A run that stops
// early tells what it had read and paid for by then.
import type { RunFacts } from '../../output/report.js';
import type { DispatchStats } from '../../dispatch/scheduler.js';
import type { PlanCounts } from '../../plan/plan.js';
import { KNOWN_STATUSES } from '../../core/statuses.js';
import type { ValidateOptions } from './flags.js';
import type { RunInputs } from './inputs.js';
import type { Finished } from './pipeline.js';
import type { OutputTarget } from './outputs.js';

/** What a run has learnt so far: each part is there once the run got that far. */
export interface RunParts {
  options: Pick<ValidateOptions, 'kind' | 'maxSpend' | 'output' | 'dryRun' | 'sandbox' | 'cache'>;
  started: number;
  inputs?: RunInputs;
  plan?: { counts: PlanCounts };
  /** The dispatcher's counts, live. */
  dispatched?: DispatchStats;
  /** Records with their result so far, live; the input's records counted ahead, once counted. */
  passed?: () => number;
  counted?: number | null;
  /** Where the run's results are kept: the cache, nowhere (--no-cache, a cache idv could not use), the sandbox. */
  kept?: 'cache' | 'nothing' | 'sandbox';
  finished?: Finished;
  /** The run's outputs, once decided (outputs.ts). */
  output?: OutputTarget;
}

export function factsOf(run: RunParts): RunFacts {
  const counts = run.plan?.counts;
  return {
    command: run.options.kind,
    started: run.started,
    inputs: run.inputs?.reportInputs() ?? [],
    output: run.options.output ?? null,
    dryRun: run.options.dryRun,
    records: counts?.records ?? 0,
    skipped: run.inputs?.skippedLines() ?? 0,
    unique: counts?.unique ?? 0,
    invalid: counts?.invalid ?? 0,
    fromCache: counts?.cached ?? 0,
    statuses: run.finished ? byStatus(run.finished.counts) : {},
    ...spent(run.dispatched),
    maxSpend: run.options.maxSpend ?? null,
  };
}

/** Known statuses in their usual order, then any other the service gave, by name. */
function byStatus(counts: ReadonlyMap<string, number>): Record<string, number> {
  const order = [...KNOWN_STATUSES, ...[...counts.keys()].filter((s) => !KNOWN_STATUSES.includes(s)).sort()];
  return Object.fromEntries(order.filter((s) => counts.has(s)).map((s) => [s, counts.get(s)!]));
}

/** What the dispatcher sent and learnt of the quota, finished or not. */
function spent(stats: DispatchStats | undefined): Pick<RunFacts, 'sent' | 'requests' | 'retries' | 'capped' | 'quotaStopped' | 'quota'> {
  if (!stats) return { sent: 0, requests: 0, retries: 0, capped: 0, quotaStopped: false, quota: null };
  const remaining = stats.rate?.remaining !== undefined && stats.rateAt !== undefined ? stats.rate.remaining : undefined;
  const told = remaining !== undefined || stats.rate?.quota !== undefined || stats.resetAt !== undefined;
  const quota = told
    ? { remaining: remaining ?? null, limit: stats.rate?.quota ?? null, resetsAt: stats.resetAt !== undefined ? new Date(stats.resetAt).toISOString() : null }
    : null;
  return { sent: stats.sent, requests: stats.requests, retries: stats.retries, capped: stats.capped, quotaStopped: stats.quotaStopped, quota };
}
