// `idv emails` / `idv domains`: the flags, declared once in a table (flag-table.ts) with their parsers and
// defaults, from which commander's options and the typed ValidateOptions both come. A value out of range is
// refused here, by commander, before anything runs.
import { Command } from 'commander';
import { DEFAULTS, type Kind } from '../../core/defaults.js';
import { parseCacheTtl } from '../../cache/ttl.js';
import { cacheTtl, MAX_TIMEOUT_SECONDS, pathFlag, statusList, wholeNumber } from '../parsers.js';
import { durationFlag } from '../../core/duration.js';
import { sizeFlag } from '../../core/size.js';
import { MAX_ROW_SIZE, MIN_ROW_SIZE } from '../../input/layout/csv-rows.js';
import { FORMATS, type Format } from '../../output/format.js';
import { helpAfter, helpFlag, type Example } from '../help-text.js';
import { examplesTitle } from '../help-topics.js';
import type { Io } from '../../system/io.js';
import { addFlags, given, unlisted, group, onUnless, readFlags, value, valueOr, type OptionsOf } from '../flag-table.js';

/** Each group's heading in --help, in gh's order: what is read, what is written, what is kept, what it costs… */
export const GROUPS = {
  input: 'Input flags:',
  output: 'Output flags:',
  filters: 'Filter flags:',
  cost: 'Cost and quota flags:',
  network: 'Network flags:',
  cache: 'Cache flags:',
  terminal: 'Terminal flags:',
} as const;

/**
 * The flags of `emails` and `domains`, in --help's order, grouped as gh groups its flags and the common ones
 * first: each row fills the option field it is keyed by. A description fits beside its flag on one line of 80
 * columns (what more there is to say is in `idv help TOPIC` and docs/cli.md).
 */
export const validateFlags = (kind: Kind) => ({
  ...group(GROUPS.input, {
    items: value<string[]>('-i, --item <item>', 'validate this item as given; repeat for more', {
      // Added to the list commander hands back, not copied into a new one: 30,000 of them cost no more than 30,000 pushes.
      parse: (text: string, previous?: string[]) => (previous ? (previous.push(text), previous) : [text]),
    }),
    column: value('--column <name|N>', 'the item column, by header or number from 1'),
    delimiter: value('--delimiter <char>', "the CSV's delimiter: , ; | or tab"),
    noHeader: given('--no-header', 'the CSV has no header row'),
    noQuotes: given('--no-quotes', 'quotes are text: every line is a row'),
    encoding: value('--encoding <name>', "the input's code page (default: detected)"),
    sheet: value('--sheet <name|N>', "a workbook's sheet (default: the first shown)"),
    maxUnpacked: value('--max-unpacked <size>', 'the most a file may unpack to (default: 1GiB)', { parse: sizeFlag('--max-unpacked') }),
    // Said in idv help input: emails --help fills two screens already, and a refusal names it.
    maxRowSize: unlisted(valueOr('--max-row-size <size>', 'the most text one row may hold', { parse: sizeFlag('--max-row-size', { min: MIN_ROW_SIZE }), fallback: MAX_ROW_SIZE, shown: '16MiB' })),
  }),
  ...group(GROUPS.output, {
    format: value<Format>('-f, --format <format>', 'table, csv, json, ndjson or xlsx (any case)', { choices: FORMATS, what: 'format' }),
    output: value('-o, --output <file>', 'write to this file, atomically', { parse: pathFlag('-o', 'file') }),
    keepColumns: given('--keep-columns', 'keep every input column, add status'),
    split: value('--split <dir>', 'also one file per status in this folder', { parse: pathFlag('--split', 'folder', false) }),
    report: value('--report <file>', 'an account of the run (JSON), at its end', { parse: pathFlag('--report', 'file') }),
    suggest: given('--suggest', 'add a suggestion for a mistyped domain'),
    // Said in idv help output: emails --help fills two screens already.
    bom: unlisted(given('--bom', 'begin CSV with the UTF-8 byte-order mark Excel needs')),
    noBom: unlisted(given('--no-bom', 'never begin CSV with a byte-order mark')),
    safeCsv: given('--safe-csv', 'defuse cells a spreadsheet runs as formulas'),
  }),
  ...group(GROUPS.filters, {
    only: value('--only <statuses>', 'write only these: ok,alias (idv help statuses)', { parse: statusList('--only', kind) }),
    exclude: value('--exclude <statuses>', 'write none of these: disposable,fake,invalid', { parse: statusList('--exclude', kind) }),
  }),
  ...group(GROUPS.cost, {
    dryRun: given('--dry-run', 'read and price the run; send nothing'),
    maxSpend: value('--max-spend <n>', 'send at most n items; the rest quota_exceeded', { parse: wholeNumber(0) }),
    wait: given('--wait', 'when the quota runs out, wait and go on'),
    maxWaitSeconds: value('--max-wait <duration>', 'with --wait, the longest wait: 90m, 2h', { parse: durationFlag('--max-wait') }),
    sandbox: given('--sandbox', 'use a local emulator of the service: no key'),
  }),
  ...group(GROUPS.network, {
    baseUrl: value('--base-url <url>', "the service's address (default: $IDV_BASE_URL)"),
    timeoutSeconds: valueOr('--timeout <duration>', 'per request; no unit: seconds', {
      parse: durationFlag('--timeout', { bareSeconds: true, above: 0, max: MAX_TIMEOUT_SECONDS }),
      fallback: DEFAULTS.timeoutSeconds,
      shown: `${DEFAULTS.timeoutSeconds}s`,
    }),
    retries: valueOr('--retries <n>', 'after network errors, time-outs, 5xx', { parse: wholeNumber(0), fallback: DEFAULTS.retries }),
    concurrency: valueOr('--concurrency <n>', 'requests in flight at once', { parse: wholeNumber(1), fallback: DEFAULTS.concurrency }),
    batchSize: valueOr('--batch-size <n>', 'items per request', { parse: wholeNumber(1), fallback: DEFAULTS.batchSize }),
  }),
  ...group(GROUPS.cache, {
    cache: onUnless('--no-cache', 'neither read nor write the result cache'),
    /** --cache-ttl: how long a cached result counts, by status. */
    cacheTtl: valueOr('--cache-ttl <duration>', 'how long results count; ok=90d,7d', {
      parse: cacheTtl,
      fallback: parseCacheTtl(DEFAULTS.cacheTtl),
      shown: DEFAULTS.cacheTtl,
    }),
  }),
  ...group(GROUPS.terminal, {
    quiet: given('-q, --quiet', 'no progress, no summary on stderr'),
    verbose: given('--verbose', 'log each request on stderr (key masked)'),
    noColor: given('--no-color', 'no colour'),
  }),
});
/** The rows, as emails has them (domains' differ only in what a status word is answered with). */
export const VALIDATE_FLAGS = validateFlags('emails');

/** What `emails` and `domains` run with: the command, its operands, and a field per flag. */
export type ValidateOptions = { kind: Kind; files: string[] } & OptionsOf<typeof VALIDATE_FLAGS>;

/** After the flags: a few examples, under a title naming the topics that say the rest. */
const EXAMPLES: Record<Kind, Example[]> = {
  emails: [
    { command: 'idv emails list.csv --sandbox', comment: 'try it: no key needed' },
    { command: 'idv emails export.csv --keep-columns --exclude disposable,fake -o clean.csv' },
  ],
  domains: [
    { command: 'idv domains customers.csv', comment: 'addresses: once per domain' },
    { command: 'idv domains list.txt --only disposable,fake -o suspicious.csv' },
  ],
};

/** The `emails` or `domains` command: its flags, and `action` called with the typed options. */
export function validateCommand(kind: Kind, io: Io | undefined, action: (o: ValidateOptions) => Promise<void>): Command {
  const what = kind === 'emails' ? 'email addresses' : 'domains';
  const command = new Command(kind)
    .description(`validate ${what} (POST /${kind}/validate)`)
    .argument('[FILE...]');
  const flags = validateFlags(kind);
  const help = [{ title: examplesTitle('input', 'output', 'statuses', 'cron', 'exit-codes'), examples: EXAMPLES[kind] }];
  return helpAfter(addFlags(command, flags).addHelpOption(helpFlag(GROUPS.terminal)), io, help).action(async (files: string[], parsed: Record<string, unknown>) => action({ kind, files, ...readFlags(flags, parsed) }));
}

/**
 * The --report of `idv emails|domains …` whose flags were refused: the run never started, but a monitor reading the
 * file must not go on trusting the last run's report. Read by commander from this command's own flags, as a run
 * reads it (the last one given, `--report=FILE`, nothing after `--`, the value of a flag that takes one is no
 * flag), with every flag's parser left out: a refused value or an unknown flag does not stop the reading there.
 */
export function refusedReport(argv: readonly string[]): { command: Kind; path: string } | null {
  const [command, ...args] = argv;
  if (command !== 'emails' && command !== 'domains') return null;
  const reading = validateCommand(command, undefined, async () => {})
    .allowUnknownOption()
    .exitOverride()
    .configureOutput({ outputError: () => {} });
  for (const option of reading.options) option.parseArg = undefined;
  try {
    reading.parseOptions([...args]);
  } catch {
    // a flag without its value, last: what was read before it stands
  }
  const path: unknown = reading.getOptionValue('report');
  // A name that looks like a flag (`--report --max-spend 5`) is refused for a run too: no report written under it.
  return typeof path === 'string' && path.trim() !== '' && (path === '-' || !path.startsWith('-')) ? { command, path } : null;
}
