// The outputs of `idv emails|domains`: the format, the main output (standard output or -o), the --split files
// and the --report file, checked against each other (no two on one file) and opened before anything is sent: an
// output that cannot be written (-o naming a folder, a missing or read-only folder, a link, a --split folder that
// cannot be made) is refused before anything is paid for (exit 2), leaving no temporary file.
import { basename, join } from 'node:path';
import type { Io } from '../../system/io.js';
import { IdvError, usageError } from '../../core/errors.js';
import { COLUMN } from '../../core/defaults.js';
import { resolvePath } from '../../system/paths.js';
import { STATUSES_OF } from '../../core/statuses.js';
import type { OpenedSource } from '../../input/sources/source.js';
import { createFormatter, formatForPath, refuseExtension, type Format, type FormatOptions } from '../../output/format.js';
import type { Output, SplitOutputs } from '../../output/ordered-writer.js';
import { sinkFor } from '../../output/sink.js';
import { destinationOf, type Destination } from '../../output/destination.js';
import { workbookSink } from '../../output/workbook-sink.js';
import { splitOutputs } from '../../output/split.js';
import { suggest } from '../../output/suggest.js';
import { loadChalk } from '../../output/colors.js';
import { firstCollision, foldsCase, type NamedOutput } from '../../output/collisions.js';
import { filesRead } from '../../input/sources/list.js';
import type { ReportFile } from '../../output/report.js';
import type { ValidateOptions } from './flags.js';

export interface Outputs {
  /** Standard output or -o; null: --split alone. */
  main: Output | null;
  split: SplitOutputs | null;
}

/** The run's outputs, decided once from the flags and the terminal: where each goes, in which format. */
export interface OutputTarget {
  /** -o: standard output, or the file replaced at the run's end. */
  readonly main: Destination;
  readonly format: Format;
  /** Whether there is a main output: not with --split alone to a terminal (the split files are the output). */
  readonly written: boolean;
  /** To standard output: the table as wide as its terminal (none: no terminal), and coloured when colour is on there. */
  readonly lineWidth: number | undefined;
  readonly color: boolean;
  /** --split: its folder as given and resolved, and its files' format. */
  readonly split: { readonly given: string; readonly dir: string; readonly format: Exclude<Format, 'table'> } | null;
  /** --report (resolved when the run began: run.ts). */
  readonly report: Destination | null;
}

/** The outputs of a run with these flags on this terminal. */
export function outputTarget(options: ValidateOptions, io: Io, report: Destination | null): OutputTarget {
  if (options.output && !options.format) refuseExtension(options.output);
  const main = destinationOf(options.output, io.cwd);
  const format = chooseFormat(options, io, main);
  const toStdout = main.path === null;
  return {
    main,
    format,
    written: hasMainOutput(options, io, format),
    lineWidth: toStdout ? io.term.width('stdout') : undefined,
    color: toStdout && format === 'table' && io.term.color('stdout'),
    split: options.split === undefined ? null : { given: options.split, dir: resolvePath(io.cwd, options.split), format: splitFormat(options) },
    report,
  };
}

/** The format of the main output: -f, else -o's extension, else a table on a terminal and CSV elsewhere. */
function chooseFormat(options: ValidateOptions, io: Io, main: Destination): Format {
  const format = options.format ?? (options.output ? (formatForPath(options.output) ?? 'csv') : io.term.isTerminal('stdout') ? 'table' : 'csv');
  // A workbook is bytes no terminal shows: to a terminal it goes to a file (a pipe, `> x.xlsx` or -o take it).
  if (format === 'xlsx' && !options.dryRun && io.term.isTerminal('stdout') && main.path === null && !(options.split && !options.output)) {
    throw usageError('idv does not write a workbook to a terminal: give -o FILE.xlsx (or redirect it: > FILE.xlsx).');
  }
  return format;
}

/** The split files' format: the one asked for, or -o's; csv for a table. */
function splitFormat(options: ValidateOptions): Exclude<Format, 'table'> {
  const format = options.format ?? (options.output ? formatForPath(options.output) : undefined) ?? 'csv';
  return format === 'table' ? 'csv' : format;
}

/** Whether a workbook is written with every input column (then each cell keeps the type a workbook gave it). */
export function writesWorkbookColumns(options: ValidateOptions, target: OutputTarget): boolean {
  return options.keepColumns && (target.format === 'xlsx' || target.split?.format === 'xlsx');
}

/** Open every output, shaped by the first input's layout: one that cannot be written is refused, leaving nothing. */
export async function openOutputs(options: ValidateOptions, io: Io, target: OutputTarget, first: OpenedSource, live: boolean, report: ReportFile | null): Promise<Outputs> {
  const layout = formatOptions(options, first);
  const main = target.written ? await mainOutput(io, target, { ...layout, bom: withBom(options, first, target.main.path !== null) }, first, live) : null;
  let split: SplitOutputs | null = null;
  try {
    await main?.sink.ready();
    if (target.split) {
      const { dir, format } = target.split;
      const splitLayout = { ...layout, bom: withBom(options, first, true) };
      const another = async (path: string) =>
        (await firstCollision([...namedOutputs(options, target).filter((o) => o.flag !== '--split'), splitFile(target, path)], foldsOn(io)))?.message ?? null;
      split = await splitOutputs(dir, format, splitLayout, STATUSES_OF[options.kind], io.signal, io.platform, another);
    }
    await report?.open();
    return { main, split };
  } catch (err) {
    await main?.sink.abort();
    for (const o of split?.made() ?? []) await o.sink.abort();
    await report?.abort();
    // Nothing has been sent: an output refused now is the command's to fix (exit 2), as a bad flag is.
    throw err instanceof IdvError && err.kind === 'failed' ? usageError(err.message) : err;
  }
}

/**
 * Whether a CSV begins with the UTF-8 byte-order mark: asked for (--bom), refused (--no-bom), else kept from an
 * input that had one (an Excel export, read back into Excel) in a file, never on standard output unasked (a pipe's
 * reader would take the mark for text).
 */
function withBom(options: ValidateOptions, first: OpenedSource, toFile: boolean): boolean {
  if (options.noBom) return false;
  return options.bom || (toFile && first.facts().encoding.how === 'bom');
}

/**
 * --only and --exclude that leave no status to write (`--only ok --exclude ok`, or --exclude naming every status):
 * the run would pay for every item and write none, so it is refused before anything is read.
 */
export function checkFilters(options: ValidateOptions): void {
  const { only, exclude } = options;
  if (!exclude) return;
  const kept = (only ?? STATUSES_OF[options.kind]).filter((s) => !exclude.includes(s));
  if (kept.length > 0) return;
  const given = only ? `--only ${only.join(',')} with --exclude ${exclude.join(',')}` : `--exclude ${exclude.join(',')}`;
  throw usageError(`${given} leaves no status to write: every record would be paid for and left out; keep at least one.`);
}

/** --bom with no CSV to write: a usage error before anything is read. */
export function checkBom(options: ValidateOptions, target: OutputTarget): void {
  const csv = target.format === 'csv' || target.split?.format === 'csv';
  if (options.bom && !csv) throw usageError(`--bom is for CSV output (a byte-order mark has no place in ${target.format}); drop it, or write CSV (-f csv).`);
}

/**
 * Refuse (exit 2, before anything is read or sent) two outputs that are one file: one would replace the other.
 * A report on another output's file is not written either (it would replace that file).
 */
export async function refuseCollidingOutputs(options: ValidateOptions, io: Io, target: OutputTarget, report: ReportFile | null): Promise<void> {
  const outputs = namedOutputs(options, target);
  const collision = outputs.length > 0 ? await firstCollision([...outputs, ...namedInputs(options, io)], foldsOn(io)) : null;
  if (!collision) return;
  if (collision.outputs.some((o) => o.flag === '--report')) report?.forgo();
  throw usageError(collision.message);
}

/** The files the run replaces, as the user named them: -o and --report (unless standard output), the --split folder and its files. */
function namedOutputs(options: ValidateOptions, target: OutputTarget): NamedOutput[] {
  const named: NamedOutput[] = [];
  for (const [flag, to] of [['-o', target.main], ['--report', target.report]] as const) {
    if (to?.path) named.push({ flag, what: `${flag} ${to.given}`, path: to.path });
  }
  if (target.split) {
    const { given, dir, format } = target.split;
    named.push({ flag: '--split', what: `--split ${given}`, path: dir, folder: true });
    for (const status of STATUSES_OF[options.kind]) named.push(splitFile(target, join(dir, `${status}.${format}`)));
  }
  return named;
}

/** The input files, and standard input when it is a file (`idv emails -o list.csv < list.csv`): an output must not replace one of them. */
function namedInputs(options: ValidateOptions, io: Io): NamedOutput[] {
  return filesRead(options.files, options.items?.length ?? 0).flatMap((f): NamedOutput[] => {
    if (f !== '-') return [{ flag: 'input', what: f, path: resolvePath(io.cwd, f) }];
    const fd = (io.stdin as { fd?: unknown }).fd;
    return typeof fd === 'number' ? [{ flag: 'input', what: 'standard input', path: '', fd }] : [];
  });
}

const splitFile = (target: OutputTarget, path: string): NamedOutput => ({ flag: '--split', what: `--split ${target.split!.given} (its ${basename(path)})`, path });

/** Whether a folder's file system ignores case, by what it does (the platform's custom where it cannot tell). */
const foldsOn = (io: Io) => (dir: string) => foldsCase(dir, io.platform ?? 'linux');

function formatOptions(options: ValidateOptions, first: OpenedSource): FormatOptions {
  return {
    column: COLUMN[options.kind],
    keepColumns: options.keepColumns,
    header: first.layout.header,
    delimiter: first.layout.delimiter,
    width: first.layout.width,
    itemColumn: first.layout.column,
    suggest: options.suggest ? (item) => suggest(options.kind, item) : null,
    safeCsv: options.safeCsv,
  };
}

async function mainOutput(io: Io, target: OutputTarget, layout: FormatOptions, first: OpenedSource, live: boolean): Promise<Output> {
  const { format, main, lineWidth } = target;
  const formatter = await createFormatter(format, { ...layout, chalk: target.color ? await loadChalk(true) : null, lineWidth, live });
  const sink = format === 'xlsx' ? workbookSink(sinkFor(main, io), { sheetName: first.sheet?.name }) : sinkFor(main, io, live);
  return { formatter, sink };
}

/**
 * Whether there is a main output: always, but with --split to a terminal and no -o or --format, where the
 * split files are the output (a table of every record would only scroll past).
 */
function hasMainOutput(options: ValidateOptions, io: Io, format: Format): boolean {
  if (options.split && !options.output && io.term.isTerminal('stdout') && format === 'xlsx') return false; // the workbooks are the split files
  return !(options.split && !options.output && !options.format && io.term.isTerminal('stdout') && format === 'table');
}
