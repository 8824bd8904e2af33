// A run's facts for the summary and --report (src/commands/validate/run-facts.ts), from the parts that know them:
// a run stopped early tells what it had read and paid for by then; statuses in their usual order, new ones after;
// the quota as the service last told it, or null when it told nothing.
import { describe, expect, it } from 'vitest';
import { factsOf, type RunParts } from '../../../src/commands/validate/run-facts.js';
import type { DispatchStats } from '../../../src/dispatch/scheduler.js';
import type { PlanCounts } from '../../../src/plan/plan.js';

const OPTIONS: RunParts['options'] = { kind: 'emails', maxSpend: undefined, output: undefined, dryRun: false, sandbox: false, cache: true };
const STARTED = Date.UTC(2026, 10, 22, 10, 0, 0);

const stats = (o: Partial<DispatchStats> = {}): DispatchStats => ({ requests: 3, sent: 250, inFlight: 0, retries: 1, quotaStopped: false, quotaStop: null, capped: 0, waitedMs: 0, ...o });
const counts = (o: Partial<PlanCounts> = {}) => ({ records: 300, unique: 260, invalid: 10, cached: 10, ...o }) as PlanCounts;

describe('factsOf', () => {
  it('a run stopped before it read anything: its command, start and output, and zeros', () => {
    expect(factsOf({ options: { ...OPTIONS, kind: 'domains', output: 'out.csv', maxSpend: 50 }, started: STARTED })).toEqual({
      command: 'domains',
      started: STARTED,
      inputs: [],
      output: 'out.csv',
      dryRun: false,
      records: 0,
      skipped: 0,
      unique: 0,
      invalid: 0,
      fromCache: 0,
      statuses: {},
      sent: 0,
      requests: 0,
      retries: 0,
      capped: 0,
      quotaStopped: false,
      quota: null,
      maxSpend: 50,
    });
  });

  it("the plan's counts and the dispatcher's as they are, finished or not; statuses only once the run finished", () => {
    const facts = factsOf({ options: OPTIONS, started: STARTED, plan: { counts: counts() }, dispatched: stats({ capped: 5, quotaStopped: true }) });
    expect(facts).toMatchObject({ records: 300, unique: 260, invalid: 10, fromCache: 10, sent: 250, requests: 3, retries: 1, capped: 5, quotaStopped: true, statuses: {} });
  });

  it('statuses: the known ones in their usual order, then any the service added, by name', () => {
    const finished = { counts: new Map([['risky', 2], ['invalid', 1], ['ok', 7], ['abandoned', 1], ['disposable', 3]]), stats: stats() };
    expect(Object.entries(factsOf({ options: OPTIONS, started: STARTED, finished }).statuses)).toEqual([
      ['ok', 7],
      ['disposable', 3],
      ['invalid', 1],
      ['abandoned', 1],
      ['risky', 2],
    ]);
  });

  it('the quota: what the service last told (remaining only when its headers came), the reset as a time; null when it told nothing', () => {
    const resetAt = Date.UTC(2026, 10, 22, 11, 0, 0);
    expect(factsOf({ options: OPTIONS, started: STARTED, dispatched: stats({ rate: { remaining: 740, quota: 1000 }, rateAt: STARTED + 5000, resetAt }) }).quota).toEqual({
      remaining: 740,
      limit: 1000,
      resetsAt: '2026-11-22T11:00:00.000Z',
    });
    expect(factsOf({ options: OPTIONS, started: STARTED, dispatched: stats({ rate: { remaining: 740 } }) }).quota).toBeNull(); // no time it came
    expect(factsOf({ options: OPTIONS, started: STARTED, dispatched: stats({ resetAt }) }).quota).toEqual({ remaining: null, limit: null, resetsAt: '2026-11-22T11:00:00.000Z' });
    expect(factsOf({ options: OPTIONS, started: STARTED, dispatched: stats() }).quota).toBeNull();
  });

  it("the inputs' own account: each input and the lines skipped, as the inputs tell them", () => {
    const inputs = { reportInputs: () => [{ path: 'a.csv', size: 120, records: 4 }], skippedLines: () => 2 } as unknown as RunParts['inputs'];
    expect(factsOf({ options: { ...OPTIONS, dryRun: true }, started: STARTED, inputs })).toMatchObject({ inputs: [{ path: 'a.csv', size: 120, records: 4 }], skipped: 2, dryRun: true });
  });
});
