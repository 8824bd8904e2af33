// What --dry-run prints: the plan's counts, in the chosen format.
import type { Format } from '../../output/format.js';

export interface DryRunFacts {
  records: number;
  unique: number;
  invalid: number;
  cached: number;
  /** What the run would spend: new items, at most --max-spend. */
  quota: number;
  /** With --max-spend: the new items the cap would leave unsent. */
  unsent?: number;
}

/** The dry run's facts from the plan's counts. */
export function dryRunFacts(c: { records: number; unique: number; invalid: number; cached: number }, maxSpend: number | undefined): DryRunFacts {
  const fresh = c.unique - c.cached;
  const facts: DryRunFacts = { records: c.records, unique: c.unique, invalid: c.invalid, cached: c.cached, quota: Math.min(fresh, maxSpend ?? Infinity) };
  if (maxSpend !== undefined) facts.unsent = fresh - facts.quota;
  return facts;
}

export function formatDryRun(f: DryRunFacts, format: Format): string {
  const entries = Object.entries(f) as Array<[string, number]>;
  switch (format) {
    case 'json':
    case 'ndjson':
      return JSON.stringify(f) + '\n';
    case 'csv':
      return entries.map(([k]) => k).join(',') + '\n' + entries.map(([, v]) => v).join(',') + '\n';
    case 'table':
      return entries.map(([k, v]) => `${k.padEnd(8)} ${v.toLocaleString('en-US')}`).join('\n') + '\n';
  }
}
