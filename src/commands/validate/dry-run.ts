// What --dry-run prints: the plan's counts in the chosen format, and per file the layout the run would use
// (encoding, delimiter, header, item column and runner-up, what was skipped) for a person: under the counts
// in a table, on standard error beside csv/json/ndjson, whose standard output stays the counts alone.
import type { Format } from '../../output/format.js';
import type { OpenedSource } from '../../input/sources/source.js';
import type { SourceFacts } from '../../input/records/found.js';
import { terminalSafe } from '../../system/terminal-text.js';

export interface DryRunFacts {
  records: number;
  unique: number;
  invalid: number;
  cached: number;
  /** What the run would spend: new items, at most --max-spend. */
  quota: number;
  /** With --max-spend: the new items the cap would leave unsent. */
  unsent?: number;
  files?: FileLayout[];
}

interface ColumnRef {
  number: number;
  name: string | null;
}

export interface FileLayout {
  path: string;
  /** A workbook's sheet read: name, number (from 1) and how many the workbook has. */
  sheet?: { name: string; number: number; of: number };
  encoding: string;
  /** Detection was not sure: the other encoding it could be. */
  encodingUnsure?: string;
  /** null for a plain list. */
  delimiter: string | null;
  header: { line: number; cells: string[] } | null;
  column: ColumnRef;
  runnerUp: ColumnRef | null;
  records: number;
  /** What was skipped: `lines 1–3, 9` and why. */
  skipped: Array<{ lines: string; why: SourceFacts['skipped'][number]['why'] }>;
}

/** The dry run's facts from the plan's counts. */
export function dryRunFacts(c: { records: number; unique: number; invalid: number; cached: number }, maxSpend: number | undefined): DryRunFacts {
  const fresh = c.unique - c.cached;
  const facts: DryRunFacts = { records: c.records, unique: c.unique, invalid: c.invalid, cached: c.cached, quota: Math.min(fresh, maxSpend ?? Infinity) };
  if (maxSpend !== undefined) facts.unsent = fresh - facts.quota;
  return facts;
}

/** A file's layout, once its records are read (`records` of them). */
export function fileLayout(path: string, source: OpenedSource, records: number): FileLayout {
  const { layout: l } = source;
  const { encoding, skipped } = source.facts();
  const ref = (i: number | null): ColumnRef | null => (i === null ? null : { number: i + 1, name: l.header?.[i] ?? null });
  return {
    path,
    ...(source.sheet ? { sheet: source.sheet } : {}),
    encoding: encoding.name,
    ...(encoding.alternative ? { encodingUnsure: encoding.alternative } : {}),
    delimiter: l.delimiter,
    header: l.header && l.headerLine !== null ? { line: l.headerLine, cells: l.header } : null,
    column: ref(l.column)!,
    runnerUp: ref(l.runnerUp),
    records,
    skipped: skipped.map((s) => ({ lines: String(s.lines), why: s.why })),
  };
}

/** The counts for standard output; in a table, each file's layout under them. */
export function formatDryRun(f: DryRunFacts, format: Format): string {
  const { files = [], ...counts } = f;
  const entries = Object.entries(counts) as Array<[string, number]>;
  switch (format) {
    case 'json':
    case 'ndjson':
      return JSON.stringify(counts) + '\n';
    case 'csv':
    case 'xlsx': // a dry run writes no workbook: its counts are csv
      return entries.map(([k]) => k).join(',') + '\n' + entries.map(([, v]) => v).join(',') + '\n';
    case 'table':
      return entries.map(([k, v]) => `${k.padEnd(8)} ${v.toLocaleString('en-US')}`).join('\n') + '\n' + formatLayouts(files);
  }
}

/** Each file's layout as aligned lines, for a person. */
export function formatLayouts(files: readonly FileLayout[]): string {
  return files.map(tableOf).join('');
}

const column = (c: ColumnRef) => `${c.number}${c.name !== null && c.name.trim() !== '' ? ` "${terminalSafe(c.name)}"` : ''}`;

/** A file's layout as aligned lines, under a blank line; what comes from the file is shown escaped. */
function tableOf(f: FileLayout): string {
  // A workbook's cells need no encoding or delimiter: its sheet is what was chosen.
  const rows: Array<[string, string]> = f.sheet
    ? [['sheet', `"${terminalSafe(f.sheet.name)}" (${f.sheet.number} of ${f.sheet.of})`]]
    : [
        ['encoding', f.encoding + (f.encodingUnsure ? ` (not sure: it could be ${f.encodingUnsure})` : '')],
        ['delimiter', f.delimiter === null ? 'none (a plain list)' : f.delimiter === '\t' ? 'tab' : `"${f.delimiter}"`],
      ];
  rows.push(
    ['header', f.header ? `${f.sheet ? 'row' : 'line'} ${f.header.line}: ${f.header.cells.map((c) => `"${terminalSafe(c)}"`).join(' ')}` : 'none'],
  );
  if (f.delimiter !== null) rows.push(['column', column(f.column) + (f.runnerUp ? `; runner-up ${column(f.runnerUp)}` : '')]);
  rows.push(['records', f.records.toLocaleString('en-US')]);
  for (const s of f.skipped) rows.push(['skipped', `${s.lines} (${s.why})`]);
  return `\n${terminalSafe(f.path)}\n` + rows.map(([k, v]) => `  ${k.padEnd(10)} ${v}`).join('\n') + '\n';
}
