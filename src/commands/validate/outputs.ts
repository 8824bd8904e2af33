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
import { isStdout, outputSink } from '../../output/sink.js';
import { workbookSink } from '../../output/workbook-sink.js';
import { splitOutputs } from '../../output/split.js';
import { suggest } from '../../output/suggest.js';
import { loadChalk } from '../../output/colors.js';
import { firstCollision, foldsCase, type NamedOutput } from '../../output/collisions.js';
import type { ReportFile } from '../../output/report.js';
import type { ValidateOptions } from './flags.js';

export interface Outputs {
  /** Standard output or -o; null: --split alone. */
  main: Output | null;
  split: SplitOutputs | null;
}

/** The format of the main output: -f, else -o's extension, else a table on a terminal and CSV elsewhere. */
export function chooseFormat(options: ValidateOptions, io: Io): Format {
  if (options.output && !options.format) refuseExtension(options.output);
  const format = options.format ?? (options.output ? (formatForPath(options.output) ?? 'csv') : io.term.isTerminal('stdout') ? 'table' : 'csv');
  // A workbook is bytes no terminal shows: to a terminal it goes to a file (a pipe, `> x.xlsx` or -o take it).
  if (format === 'xlsx' && !options.dryRun && io.term.isTerminal('stdout') && isStdout(options.output, io.cwd) && !(options.split && !options.output)) {
    throw usageError('idv does not write a workbook to a terminal: give -o FILE.xlsx (or redirect it: > FILE.xlsx).');
  }
  return format;
}

/** The split files' format: the one asked for, or -o's; csv for a table. */
export function splitFormat(options: ValidateOptions): Exclude<Format, 'table'> {
  const format = options.format ?? (options.output ? formatForPath(options.output) : undefined) ?? 'csv';
  return format === 'table' ? 'csv' : format;
}

/** Whether a workbook is written with every input column (then each cell keeps the type a workbook gave it). */
export function writesWorkbookColumns(options: ValidateOptions, format: Format): boolean {
  return options.keepColumns && (format === 'xlsx' || (options.split !== undefined && splitFormat(options) === 'xlsx'));
}

/**
 * Open the main output, the --split folder and files and the report, shaped by the first input's layout: one that
 * cannot be written is refused (exit 2), and nothing is left behind.
 */
export async function openOutputs(options: ValidateOptions, io: Io, format: Format, first: OpenedSource, live: boolean, report: ReportFile | null): Promise<Outputs> {
  const layout = formatOptions(options, first);
  const toFile = !isStdout(options.output, io.cwd);
  const main = hasMainOutput(options, io, format) ? await mainOutput(options, io, format, { ...layout, bom: withBom(options, first, toFile) }, first, live) : null;
  let split: SplitOutputs | null = null;
  try {
    await main?.sink.ready();
    if (options.split) {
      const splitLayout = { ...layout, bom: withBom(options, first, true) };
      const another = async (path: string) =>
        (await firstCollision([...namedOutputs(options, io).filter((o) => o.flag !== '--split'), splitFile(options, path)], foldsOn(io)))?.message ?? null;
      split = await splitOutputs(resolvePath(io.cwd, options.split), splitFormat(options), splitLayout, STATUSES_OF[options.kind], io.signal, io.platform, another);
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

/** --bom with no CSV to write: a usage error before anything is read. */
export function checkBom(options: ValidateOptions, format: Format): void {
  const csv = format === 'csv' || (options.split !== undefined && splitFormat(options) === 'csv');
  if (options.bom && !csv) throw usageError(`--bom is for CSV output (a byte-order mark has no place in ${format}); drop it, or write CSV (-f csv).`);
}

/**
 * Refuse (exit 2, before anything is read or sent) two outputs that are one file: one would replace the other.
 * A report on another output's file is not written either (it would replace that file).
 */
export async function refuseCollidingOutputs(options: ValidateOptions, io: Io, report: ReportFile | null): Promise<void> {
  const outputs = namedOutputs(options, io);
  const collision = outputs.length > 0 ? await firstCollision([...outputs, ...namedInputs(options, io)], foldsOn(io)) : null;
  if (!collision) return;
  if (collision.outputs.some((o) => o.flag === '--report')) report?.forgo();
  throw usageError(collision.message);
}

/** The files the run replaces, as the user named them: -o and --report (unless standard output), the --split folder and its files. */
function namedOutputs(options: ValidateOptions, io: Io): NamedOutput[] {
  const named: NamedOutput[] = [];
  for (const [flag, given] of [['-o', options.output], ['--report', options.report]] as const) {
    if (given !== undefined && !isStdout(given, io.cwd)) named.push({ flag, what: `${flag} ${given}`, path: resolvePath(io.cwd, given) });
  }
  if (options.split) {
    const dir = resolvePath(io.cwd, options.split);
    named.push({ flag: '--split', what: `--split ${options.split}`, path: dir, folder: true });
    for (const status of STATUSES_OF[options.kind]) named.push(splitFile(options, join(dir, `${status}.${splitFormat(options)}`)));
  }
  return named;
}

/** The input files (not standard input): an output must not replace one of them. */
const namedInputs = (options: ValidateOptions, io: Io): NamedOutput[] =>
  options.files.filter((f) => f !== '-').map((f) => ({ flag: 'input', what: f, path: resolvePath(io.cwd, f) }));

const splitFile = (options: ValidateOptions, path: string): NamedOutput => ({ flag: '--split', what: `--split ${options.split} (its ${basename(path)})`, path });

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

async function mainOutput(options: ValidateOptions, io: Io, format: Format, layout: FormatOptions, first: OpenedSource, live: boolean): Promise<Output> {
  const formatter = await createFormatter(format, {
    ...layout,
    chalk: format === 'table' && io.term.color('stdout') && !options.output ? await loadChalk(true) : null,
    lineWidth: options.output ? undefined : io.term.width('stdout'),
    live,
  });
  const sink = format === 'xlsx' ? workbookSink(outputSink(options.output, io), { sheetName: first.sheet?.name }) : outputSink(options.output, io, live);
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
