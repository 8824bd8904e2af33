// What --dry-run prints: the plan's counts, in the chosen format.
import type { Format } from '../../output/format.js';

export interface DryRunFacts {
  records: number;
  unique: number;
  invalid: number;
  cached: number;
  quota: number;
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
