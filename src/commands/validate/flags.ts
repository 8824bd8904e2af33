// `idv emails` / `idv domains`: the flags, declared once in a table (flag-table.ts) with their parsers and
// defaults, from which commander's options and the typed ValidateOptions both come. A value out of range is
// refused here, by commander, before anything runs.
import { Command } from 'commander';
import { DEFAULTS, type Kind } from '../../defaults.js';
import { parseCacheTtl } from '../../cache/ttl.js';
import { cacheTtl, MAX_TIMEOUT_SECONDS, statusList, wholeNumber } from '../parsers.js';
import { durationFlag } from '../../duration.js';
import { sizeFlag } from '../../size.js';
import { FORMATS, type Format } from '../../output/format.js';
import { ENVIRONMENT, EXIT_CODES, FILES, helpAfter, type Block } from '../help-text.js';
import type { Io } from '../../io.js';
import { addFlags, given, onUnless, readFlags, value, valueOr, type OptionsOf } from '../flag-table.js';

/** The flags of `emails` and `domains`, in --help's order: each row fills the option field it is keyed by. */
export const VALIDATE_FLAGS = {
  items: value<string[]>('-i, --item <item>', 'validate this address (a domain for idv domains) as given; repeat for more, beside or instead of FILEs', {
    parse: (text: string, previous?: string[]) => [...(previous ?? []), text],
  }),
  format: value<Format>('-f, --format <format>', 'output format (default: table on a terminal, else csv; with -o, the extension)', { choices: FORMATS, what: 'format' }),
  output: value('-o, --output <file>', 'write results to this file (atomically) instead of standard output'),
  column: value('--column <name|N>', 'the item column, by header name or number (from 1)'),
  delimiter: value('--delimiter <char>', 'CSV delimiter: , ; | or tab (default: guessed)'),
  noHeader: given('--no-header', 'the CSV has no header row'),
  noQuotes: given('--no-quotes', 'quotes in the CSV are text, not CSV quoting: every line is a row, split at the delimiter'),
  encoding: value('--encoding <name>', "the input's encoding, instead of detecting it (windows-1251, shift_jis, gbk, utf-16le…)"),
  sheet: value('--sheet <name|N>', "a workbook's sheet to read, by name or number from 1 (default: the first visible one)"),
  maxUnpacked: value('--max-unpacked <size>', 'what a file may unpack to before its first record (compressed, a workbook copied from a pipe): 4GiB (default: 1GiB, and 100 times its compressed size)', {
    parse: sizeFlag('--max-unpacked'),
  }),
  keepColumns: given('--keep-columns', 'write every input column, plus status as the last one'),
  suggest: given('--suggest', 'add a "suggestion" field where the domain looks mistyped (jane@gmial.com → jane@gmail.com)'),
  safeCsv: given('--safe-csv', "prefix cells that start with = + - @ tab or CR with ' so spreadsheets do not run them as formulas"),
  only: value('--only <statuses>', 'write only records with these statuses (comma-separated: ok,alias; new:NAME for a status the service may add)', { parse: statusList('--only') }),
  exclude: value('--exclude <statuses>', 'write no records with these statuses (comma-separated: disposable,fake; new:NAME for one the service may add)', { parse: statusList('--exclude') }),
  dryRun: given('--dry-run', 'read and plan; print what the run would send and cost, send nothing'),
  quiet: given('-q, --quiet', 'no progress and no summary on standard error'),
  verbose: given('--verbose', 'log each request on standard error (key masked)'),
  noColor: given('--no-color', 'no colour'),
  baseUrl: value('--base-url <url>', 'service address (default: $IDV_BASE_URL or https://api.valididentities.com)'),
  batchSize: valueOr('--batch-size <n>', 'items per request', { parse: wholeNumber(1), fallback: DEFAULTS.batchSize }),
  concurrency: valueOr('--concurrency <n>', 'requests in flight at once', { parse: wholeNumber(1), fallback: DEFAULTS.concurrency }),
  timeoutSeconds: valueOr('--timeout <duration>', 'time allowed per request: 30s, 2m (a number alone is seconds)', {
    parse: durationFlag('--timeout', { bareSeconds: true, above: 0, max: MAX_TIMEOUT_SECONDS }),
    fallback: DEFAULTS.timeoutSeconds,
    shown: `${DEFAULTS.timeoutSeconds}s`,
  }),
  retries: valueOr('--retries <n>', 'retries after network errors, time-outs, 5xx', { parse: wholeNumber(0), fallback: DEFAULTS.retries }),
  maxSpend: value('--max-spend <n>', 'send at most this many items in this run (cache hits are free); the rest end quota_exceeded, exit 4', {
    parse: wholeNumber(0),
  }),
  split: value('--split <dir>', 'also write one file per status into this folder (ok.csv, disposable.csv…), atomically'),
  report: value('--report <file>', 'at the end of every run, write an account of it (JSON) to this file, atomically'),
  wait: given('--wait', 'when the quota is used up, wait for it to reset and go on'),
  maxWaitSeconds: value('--max-wait <duration>', 'with --wait, the longest total wait, with its unit: 90m, 2h; a reset further away stops the run, saying so', {
    parse: durationFlag('--max-wait'),
  }),
  cache: onUnless('--no-cache', 'neither read nor write the local result cache'),
  /** --cache-ttl: how long a cached result counts, by status. */
  cacheTtl: valueOr('--cache-ttl <duration>', 'how long cached results count, with its unit (7d, 12h); per status too: ok=90d,disposable=180d,7d (the bare value for the rest)', {
    parse: cacheTtl,
    fallback: parseCacheTtl(DEFAULTS.cacheTtl),
    shown: DEFAULTS.cacheTtl,
  }),
  sandbox: given('--sandbox', 'run against a local emulator of the service: no key, no network'),
};

/** What `emails` and `domains` run with: the command, its operands, and a field per flag. */
export type ValidateOptions = { kind: Kind; files: string[] } & OptionsOf<typeof VALIDATE_FLAGS>;

/** Where the results go, for both commands. */
const OUTPUT: Block = {
  prose:
    'Output: a table on a terminal, as wide as the terminal (the item and status always shown; other columns cut or left out, marked …); CSV in a pipe; with -o, the format its extension names (.csv, .json, .ndjson, .xlsx). csv, json and xlsx hold every column in full; a workbook keeps each cell read from a workbook as a number, date or text.',
};

/** What both commands read besides lists and CSV, and how a live stream is answered. */
const MORE_INPUT: Block = {
  prose:
    'Excel workbooks (.xlsx, by content: the first visible sheet, or --sheet NAME|N) and gzip-compressed files are read like CSV, whatever their names. Standard input from a pipe is answered as it comes: once it pauses, the layout is decided on what has arrived, and each result is written as soon as it is known.',
};

/** What a run shows while it works and when it ends, for both commands. */
const PROGRESS: Block = {
  prose:
    'While it runs, on a terminal: one line on standard error, no wider than the terminal: records done of the total (estimated from the bytes read until the input is read), percentage, rate, time left, errors, quota left, answers from the cache. With --verbose where standard error is no terminal, the same as a log line every 5 seconds. At the end, the summary and a line naming what -o and --split wrote. -q shows none of these.',
};

/** What is true of every run, after each command's examples. */
const EVERY_RUN: Block[] = [
  { list: 'Environment', items: ENVIRONMENT },
  { list: 'Files', items: FILES },
  { list: 'Exit codes', items: EXIT_CODES },
];

const HELP: Record<Kind, Block[]> = {
  emails: [
    {
      prose:
        'Input: files, standard input, or addresses given with --item; plain lists (one address a line; a line of several recipients, as a mail client copies them, is one record each) or CSV/TSV exports, whose email column is found by its header (email, e-mail, メールアドレス, 电子邮件, Электронная почта… in forty-odd languages) and its contents. A row that holds text that could be an address is a record: only a header, notes above it and a report\'s footer are skipped, each said on stderr. Mailbox forms (Jane <jane@x.com>, mailto:…) are read as the address inside. Text that is not UTF-8 is read in its detected code page (--encoding NAME overrides). An address given as a FILE that does not exist is refused with the --item to use (exit 2), never validated; an input with no records draws a warning (exit 0).',
    },
    MORE_INPUT,
    OUTPUT,
    PROGRESS,
    {
      title: 'Examples:',
      examples: [
        { command: 'idv emails list.csv', comment: 'a table in the terminal' },
        { command: 'idv emails -i jane@gmail.com -i bob@example.org', comment: 'addresses given here (exit 0, 1, 3 or 4 as for a file)' },
        { command: 'idv emails list.csv --sandbox', comment: 'try it without a key, against a local emulator' },
        { command: 'cat export.csv | idv emails --format json | jq .', comment: 'machine-readable, nothing else on stdout' },
        { command: 'idv emails export.csv --keep-columns --exclude disposable,fake,invalid -o clean.csv', comment: 'a cleaned copy' },
        { command: 'idv emails export.csv --dry-run', comment: 'the layout read, and what the run would cost' },
        { command: 'idv emails contacts.csv --encoding windows-1251', comment: 'a code page detection would not be sure of' },
        { command: 'idv emails contacts.xlsx --sheet Leads --keep-columns -o clean.xlsx', comment: 'a workbook in, a workbook out' },
        { command: 'tail -f signups.log | idv emails -f ndjson', comment: 'each result as its line arrives' },
        { command: 'idv emails big.csv -o results.csv --quiet --wait --max-wait 2h', comment: 'wait out the quota' },
        { command: 'idv emails list.csv --cache-ttl ok=90d,disposable=180d,7d', comment: 're-check ok after 90 days, the rest after 7' },
      ],
    },
    {
      title:
        'A nightly job: at most 1,000 items paid for, a receipt for monitoring, per-status files to import (ok.csv + alias.csv back into the mailing tool, the rest as a suppression list); exit 4 means "capped or quota used up, run again later", and the next run sends only what is not validated yet:',
      examples: [
        { command: 'idv emails /data/export.csv --keep-columns --max-spend 1000 --report /data/run.json --split /data/split -o /data/checked.csv -q || test $? -eq 4' },
      ],
    },
    ...EVERY_RUN,
  ],
  domains: [
    {
      prose:
        'Input: domains, website URLs (their host is validated), or email addresses (their domain part is validated, once per distinct domain). Plain lists or CSV/TSV exports, whose column is found by its header (domain, website, url, host, Site web, 网站…) and its contents; or domains given with --item. A row that holds a host name, URL or address is a record. Text that is not UTF-8 is read in its detected code page (--encoding NAME). A domain given as a FILE that does not exist is refused with the --item to use (exit 2); an input with no records draws a warning (exit 0).',
    },
    MORE_INPUT,
    OUTPUT,
    PROGRESS,
    {
      title: 'Examples:',
      examples: [
        { command: 'idv domains domains.txt' },
        { command: 'idv domains -i example.com', comment: 'one domain' },
        { command: 'idv domains customers.csv --sandbox', comment: 'addresses in, one check per distinct domain' },
        { command: 'idv domains sites.csv --column Website --format ndjson' },
        { command: 'idv domains list.txt --only disposable,fake -o suspicious.csv' },
      ],
    },
    ...EVERY_RUN,
  ],
};

/** The `emails` or `domains` command: its flags, and `action` called with the typed options. */
export function validateCommand(kind: Kind, io: Io | undefined, action: (o: ValidateOptions) => Promise<void>): Command {
  const what = kind === 'emails' ? 'email addresses' : 'domains';
  const command = new Command(kind)
    .description(`validate ${what} (POST /${kind}/validate)`)
    .argument('[FILE...]', 'files to read; - for standard input (read when piped and neither FILE nor --item is given)');
  return helpAfter(addFlags(command, VALIDATE_FLAGS), io, HELP[kind]).action(async (files: string[], parsed: Record<string, unknown>) => action({ kind, files, ...readFlags(VALIDATE_FLAGS, parsed) }));
}
