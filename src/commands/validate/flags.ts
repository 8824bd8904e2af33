// `idv emails` / `idv domains`: the flags, declared once with their parsers and defaults, read into one typed
// options object. A value out of range is refused here, by commander, before anything runs.
import { Command, Option } from 'commander';
import { DEFAULTS, type Kind } from '../../defaults.js';
import { parseCacheTtl, type CacheTtl } from '../../cache/ttl.js';
import { duration, positiveSeconds, statusList, wholeNumber } from '../parsers.js';
import { FORMATS, type Format } from '../../output/format.js';

export interface ValidateOptions {
  kind: Kind;
  files: string[];
  format?: Format;
  output?: string;
  column?: string;
  delimiter?: string;
  noHeader: boolean;
  /** --encoding NAME: the input's encoding, instead of detecting it. */
  encoding?: string;
  keepColumns: boolean;
  suggest: boolean;
  safeCsv: boolean;
  only?: string[];
  exclude?: string[];
  quiet: boolean;
  verbose: boolean;
  noColor: boolean;
  dryRun: boolean;
  baseUrl?: string;
  batchSize: number;
  concurrency: number;
  timeoutSeconds: number;
  retries: number;
  maxSpend?: number;
  report?: string;
  split?: string;
  wait: boolean;
  maxWaitSeconds?: number;
  cache: boolean;
  /** --cache-ttl: how long a cached result counts, by status. */
  cacheTtl: CacheTtl;
  sandbox: boolean;
}

/** What commander hands the action: each flag as its parser made it. */
interface Flags {
  format?: Format;
  output?: string;
  column?: string;
  delimiter?: string;
  header: boolean;
  encoding?: string;
  keepColumns?: true;
  suggest?: true;
  safeCsv?: true;
  only?: string[];
  exclude?: string[];
  quiet?: true;
  verbose?: true;
  color: boolean;
  dryRun?: true;
  baseUrl?: string;
  batchSize: number;
  concurrency: number;
  timeout: number;
  retries: number;
  maxSpend?: number;
  report?: string;
  split?: string;
  wait?: true;
  maxWait?: number;
  cache: boolean;
  cacheTtl: CacheTtl;
  sandbox?: true;
}

const EXIT_CODES = `Exit codes: 0 done, 1 some items ended "error", 2 usage or input error, 3 no key or key refused,
4 quota used up (results so far written; run again later to go on), 129/130/143 interrupted.`;

const HELP: Record<Kind, string> = {
  emails: `
Input: files or standard input; plain lists (one address a line; a line of several recipients, as a mail
client copies them, is one record each) or CSV/TSV exports, whose email column is found by its header
(email, e-mail, メールアドレス, 电子邮件, Электронная почта… in forty-odd languages) and its contents.
A row that holds text that could be an address is a record: only a header, notes above it and a report's
footer are skipped, each said on stderr. Mailbox forms (Jane <jane@x.com>, mailto:…) are read as the
address inside. Text that is not UTF-8 is read in its detected code page (--encoding NAME overrides).

Examples:
  $ idv emails list.csv                                  # a table in the terminal
  $ idv emails list.csv --sandbox                        # try it without a key, against a local emulator
  $ cat export.csv | idv emails --format json | jq .     # machine-readable, nothing else on stdout
  $ idv emails export.csv --keep-columns --exclude disposable,fake,invalid -o clean.csv
  $ idv emails export.csv --dry-run                      # the layout read, and what the run would cost
  $ idv emails contacts.csv --encoding windows-1251      # a code page detection would not be sure of
  $ idv emails big.csv -o results.csv --quiet --wait --max-wait 2h   # wait out the quota
  $ idv emails list.csv --cache-ttl ok=90d,disposable=180d,7d      # re-check ok after 90 days, the rest after 7

A nightly job: at most 1,000 items paid for, a receipt for monitoring, per-status files to import
(ok.csv + alias.csv back into the mailing tool, the rest as a suppression list); exit 4 means "capped or
quota used up, run again later", and the next run sends only what is not validated yet:
  $ idv emails /data/export.csv --keep-columns --max-spend 1000 --report /data/run.json \\
      --split /data/split -o /data/checked.csv -q || test $? -eq 4

${EXIT_CODES}`,
  domains: `
Input: domains, website URLs (their host is validated), or email addresses (their domain part is
validated, once per distinct domain). Plain lists or CSV/TSV exports, whose column is found by its
header (domain, website, url, host, Site web, 网站…) and its contents. A row that holds a host name,
URL or address is a record. Text that is not UTF-8 is read in its detected code page (--encoding NAME).

Examples:
  $ idv domains domains.txt
  $ idv domains customers.csv --sandbox                  # addresses in, one check per distinct domain
  $ idv domains sites.csv --column Website --format ndjson
  $ idv domains list.txt --only disposable,fake -o suspicious.csv

${EXIT_CODES}`,
};

/** The `emails` or `domains` command: its flags, and `action` called with the typed options. */
export function validateCommand(kind: Kind, action: (o: ValidateOptions) => Promise<void>): Command {
  const what = kind === 'emails' ? 'email addresses' : 'domains';
  return new Command(kind)
    .description(`validate ${what} (POST /${kind}/validate)`)
    .argument('[FILE...]', 'files to read; - for standard input (default when piped)')
    .addOption(new Option('-f, --format <format>', 'output format (default: table on a terminal, else csv; with -o, the extension)').choices(FORMATS))
    .option('-o, --output <file>', 'write results to this file (atomically) instead of standard output')
    .option('--column <name|N>', 'the item column, by header name or number (from 1)')
    .option('--delimiter <char>', 'CSV delimiter: , ; | or tab (default: guessed)')
    .option('--no-header', 'the CSV has no header row')
    .option('--encoding <name>', 'the input\'s encoding (default: UTF-8, or the code page detected: windows-1251, shift_jis…)')
    .option('--keep-columns', 'write every input column, plus status as the last one')
    .option('--suggest', 'add a "suggestion" field where the domain looks mistyped (jane@gmial.com → jane@gmail.com)')
    .option('--safe-csv', "prefix cells that start with = + - @ tab or CR with ' so spreadsheets do not run them as formulas")
    .option('--only <statuses>', 'write only records with these statuses (comma-separated)', statusList)
    .option('--exclude <statuses>', 'write no records with these statuses (comma-separated)', statusList)
    .option('--dry-run', 'read and plan; print what the run would send and cost, send nothing')
    .option('-q, --quiet', 'no progress and no summary on standard error')
    .option('--verbose', 'log each request on standard error (key masked)')
    .option('--no-color', 'no colour')
    .option('--base-url <url>', 'service address (default: $IDV_BASE_URL or https://api.valididentities.com)')
    .addOption(new Option('--batch-size <n>', 'items per request').argParser(wholeNumber(1)).default(DEFAULTS.batchSize))
    .addOption(new Option('--concurrency <n>', 'requests in flight at once').argParser(wholeNumber(1)).default(DEFAULTS.concurrency))
    .addOption(new Option('--timeout <seconds>', 'time allowed per request').argParser(positiveSeconds).default(DEFAULTS.timeoutSeconds))
    .addOption(new Option('--retries <n>', 'retries after network errors, time-outs, 5xx').argParser(wholeNumber(0)).default(DEFAULTS.retries))
    .addOption(new Option('--max-spend <n>', 'send at most this many items in this run (cache hits are free); the rest end quota_exceeded, exit 4').argParser(wholeNumber(0)))
    .option('--split <dir>', 'also write one file per status into this folder (ok.csv, disposable.csv…), atomically')
    .option('--report <file>', 'at the end of every run, write an account of it (JSON) to this file, atomically')
    .option('--wait', 'when the quota is used up, wait for it to reset and go on')
    .addOption(new Option('--max-wait <duration>', 'with --wait, the longest total wait, e.g. 90m or 2h').argParser(duration('--max-wait')))
    .option('--no-cache', 'neither read nor write the local result cache')
    .addOption(
      new Option('--cache-ttl <duration>', 'how long cached results count; per status too: ok=90d,disposable=180d,7d (the bare value for the rest)')
        .argParser(parseCacheTtl)
        .default(parseCacheTtl(DEFAULTS.cacheTtl), DEFAULTS.cacheTtl),
    )
    .option('--sandbox', 'run against a local emulator of the service: no key, no network')
    .addHelpText('after', HELP[kind])
    .action(async (files: string[], f: Flags) => action(toOptions(kind, files, f)));
}

function toOptions(kind: Kind, files: string[], f: Flags): ValidateOptions {
  return {
    kind,
    files,
    format: f.format,
    output: f.output,
    column: f.column,
    delimiter: f.delimiter,
    noHeader: !f.header,
    encoding: f.encoding,
    keepColumns: f.keepColumns === true,
    suggest: f.suggest === true,
    safeCsv: f.safeCsv === true,
    only: f.only,
    exclude: f.exclude,
    quiet: f.quiet === true,
    verbose: f.verbose === true,
    noColor: !f.color,
    dryRun: f.dryRun === true,
    baseUrl: f.baseUrl,
    batchSize: f.batchSize,
    concurrency: f.concurrency,
    timeoutSeconds: f.timeout,
    retries: f.retries,
    maxSpend: f.maxSpend,
    report: f.report,
    split: f.split,
    wait: f.wait === true,
    maxWaitSeconds: f.maxWait,
    cache: f.cache,
    cacheTtl: f.cacheTtl,
    sandbox: f.sandbox === true,
  };
}
