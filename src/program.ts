// commander wiring: flags → options objects → each command's run(options, io). No `process` here.
import { Command, Option } from 'commander';
import { DEFAULTS, type Kind } from './defaults.js';
import { usageError } from './errors.js';
import { forPerson, type Io } from './io.js';
import { parseDuration } from './duration.js';
import { FORMATS, type Format } from './output/format.js';

export interface ProgramDeps {
  version: () => string;
  /** The run's surroundings; commander's own output (help, usage errors) goes to its streams too. */
  io: Io;
}

/** The Io a command runs with: --no-color turns colour off on both streams. */
function ioFor(deps: ProgramDeps, noColor: boolean): Io {
  return noColor ? { ...deps.io, color: false, colorErr: false } : deps.io;
}

/** commander writes help to the run's stdout and usage errors to its stderr, prefixed like idv's own. */
function output(io: Io) {
  return {
    writeOut: (str: string) => void io.stdout.write(str),
    writeErr: (str: string) => void io.stderr.write(str),
    // The width the pre-rendered help (dist/help/) has, so that both paths print the same text.
    getOutHelpWidth: () => 80,
    getErrHelpWidth: () => 80,
    outputError: (str: string, write: (s: string) => void) => write(forPerson(io, `idv: ${str.replace(/^error: /, '')}`)),
  };
}

function intFlag(value: string | undefined, flag: string, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value.trim()) || Number(value) < min) {
    throw usageError(`${flag} takes a whole number${min > 0 ? ` of at least ${min}` : ''}, not "${value}".`);
  }
  return Number(value);
}

function positiveNumber(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n > 0)) throw usageError(`${flag} takes a number of seconds above 0, not "${value}".`);
  return n;
}

function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

const EXAMPLES: Record<Kind, string> = {
  emails: `
Input: files or standard input; plain lists (one address a line) or CSV/TSV exports, whose email
column is found by its header (email, e-mail, mail…) and its contents.

Examples:
  $ idv emails list.csv                                  # a table in the terminal
  $ idv emails list.csv --sandbox                        # try it without a key, against a local emulator
  $ cat export.csv | idv emails --format json | jq .     # machine-readable, nothing else on stdout
  $ idv emails export.csv --keep-columns --exclude disposable,fake,invalid -o clean.csv
  $ idv emails export.csv --dry-run                      # what the run would cost, without sending anything
  $ idv emails big.csv -o results.csv --quiet --wait --max-wait 2h   # from cron

Exit codes: 0 done, 1 some items ended "error", 2 usage or input error, 3 no key or key refused,
4 quota used up (results so far written; run again later to go on), 130/143 interrupted.`,
  domains: `
Input: domains, website URLs (their host is validated), or email addresses (their domain part is
validated, once per distinct domain). Plain lists or CSV/TSV exports, whose column is found by its
header (domain, website, url, host…) and its contents.

Examples:
  $ idv domains domains.txt
  $ idv domains customers.csv --sandbox                  # addresses in, one check per distinct domain
  $ idv domains sites.csv --column Website --format ndjson
  $ idv domains list.txt --only disposable,fake -o suspicious.csv

Exit codes: 0 done, 1 some items ended "error", 2 usage or input error, 3 no key or key refused,
4 quota used up (results so far written; run again later to go on), 130/143 interrupted.`,
};

function validateCommand(kind: Kind, deps: ProgramDeps): Command {
  const what = kind === 'emails' ? 'email addresses' : 'domains';
  const cmd = new Command(kind)
    .description(`validate ${what} (POST /${kind}/validate)`)
    .argument('[FILE...]', 'files to read; - for standard input (default when piped)')
    .addOption(new Option('-f, --format <format>', 'output format (default: table on a terminal, else csv; with -o, the extension)').choices(FORMATS as string[]))
    .option('-o, --output <file>', 'write results to this file (atomically) instead of standard output')
    .option('--column <name|N>', 'the item column, by header name or number (from 1)')
    .option('--delimiter <char>', 'CSV delimiter: , ; | or tab (default: guessed)')
    .option('--no-header', 'the CSV has no header row')
    .option('--keep-columns', 'write every input column, plus status as the last one')
    .option('--only <statuses>', 'write only records with these statuses (comma-separated)')
    .option('--exclude <statuses>', 'write no records with these statuses (comma-separated)')
    .option('--dry-run', 'read and plan; print what the run would send and cost, send nothing')
    .option('-q, --quiet', 'no progress and no summary on standard error')
    .option('--verbose', 'log each request on standard error (key masked)')
    .option('--no-color', 'no colour')
    .option('--base-url <url>', 'service address (default: $IDV_BASE_URL or https://api.valididentities.com)')
    .option('--batch-size <n>', `items per request (default: ${DEFAULTS.batchSize})`)
    .option('--concurrency <n>', `requests in flight at once (default: ${DEFAULTS.concurrency})`)
    .option('--timeout <seconds>', `time allowed per request (default: ${DEFAULTS.timeoutSeconds})`)
    .option('--retries <n>', `retries after network errors, time-outs, 5xx (default: ${DEFAULTS.retries})`)
    .option('--wait', 'when the quota is used up, wait for it to reset and go on')
    .option('--max-wait <duration>', 'with --wait, the longest total wait, e.g. 90m or 2h')
    .option('--no-cache', 'neither read nor write the local result cache')
    .option('--cache-ttl <duration>', `how long cached results count (default: ${DEFAULTS.cacheTtl})`)
    .option('--sandbox', 'run against a local emulator of the service: no key, no network')
    .addHelpText('after', EXAMPLES[kind])
    .action(async (files: string[], f: Record<string, string | boolean | undefined>) => {
      const str = (k: string) => (typeof f[k] === 'string' ? (f[k] as string) : undefined);
      const io = ioFor(deps, f.color === false);
      const { run } = await import('./commands/validate.js');
      await run(
        {
          kind,
          files,
          format: str('format') as Format | undefined,
          output: str('output'),
          column: str('column'),
          delimiter: str('delimiter'),
          noHeader: f.header === false,
          keepColumns: f.keepColumns === true,
          only: list(str('only')),
          exclude: list(str('exclude')),
          quiet: f.quiet === true,
          verbose: f.verbose === true,
          dryRun: f.dryRun === true,
          baseUrl: str('baseUrl'),
          batchSize: intFlag(str('batchSize'), '--batch-size', 1, DEFAULTS.batchSize),
          concurrency: intFlag(str('concurrency'), '--concurrency', 1, DEFAULTS.concurrency),
          timeoutSeconds: positiveNumber(str('timeout'), '--timeout', DEFAULTS.timeoutSeconds),
          retries: intFlag(str('retries'), '--retries', 0, DEFAULTS.retries),
          wait: f.wait === true,
          maxWaitSeconds: str('maxWait') !== undefined ? parseDuration(str('maxWait')!, '--max-wait') : undefined,
          cache: f.cache !== false,
          cacheTtlSeconds: parseDuration(str('cacheTtl') ?? DEFAULTS.cacheTtl, '--cache-ttl'),
          sandbox: f.sandbox === true,
        },
        io,
      );
    });
  return cmd;
}

export function buildProgram(deps: ProgramDeps): Command {
  const program = new Command('idv')
    .description('Validate email addresses and domains in bulk with the Valid Identities API.')
    .version(deps.version(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput(output(deps.io))
    .addHelpText(
      'after',
      `
Examples:
  $ idv emails fixtures/newsletter.csv --sandbox
  $ cat list.txt | idv emails --format json | jq .
  $ idv auth login
  $ idv sandbox --port 8080 --quota 50

Key: IDV_API_KEY, else the file written by idv auth login. Docs: README.md.`,
    );
  const inherit = (c: Command) => c.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput(output(deps.io));

  program.addCommand(inherit(validateCommand('emails', deps)));
  program.addCommand(inherit(validateCommand('domains', deps)));

  const auth = inherit(new Command('auth').description('store, show (masked) and remove the API key')).addHelpText(
    'after',
    `
Examples:
  $ idv auth login                          # paste the key at a hidden prompt
  $ printf %s "$KEY" | idv auth login       # or pipe it in
  $ idv auth status                         # where the key comes from, masked
  $ idv auth logout

The key is read from IDV_API_KEY first, then from $XDG_CONFIG_HOME/idv/config.json.`,
  );
  for (const [action, text, example] of [
    ['login', 'store the API key (hidden prompt, or standard input when piped)', '$ idv auth login\n  $ printf %s "$KEY" | idv auth login'],
    ['status', 'show where the key comes from, masked', '$ idv auth status'],
    ['logout', 'remove the stored key', '$ idv auth logout'],
  ] as const) {
    auth.addCommand(
      inherit(new Command(action))
        .description(text)
        .addHelpText('after', `\nExamples:\n  ${example}`)
        .action(async () => {
          const { run } = await import('./commands/auth.js');
          await run({ action }, deps.io);
        }),
    );
  }
  program.addCommand(auth);

  const cache = inherit(new Command('cache').description('inspect and empty the local result cache')).addHelpText(
    'after',
    `
Examples:
  $ idv cache stats
  $ idv cache stats --format json
  $ idv cache clear

Results are kept in $XDG_CACHE_HOME/idv/ (default ~/.cache/idv/) for --cache-ttl (default 7d).`,
  );
  cache.addCommand(
    inherit(new Command('stats'))
      .description('entries, size, path and oldest entry of the cache')
      .option('--format <format>', 'json for a machine-readable object')
      .addHelpText('after', '\nExamples:\n  $ idv cache stats\n  $ idv cache stats --format json')
      .action(async (f: { format?: string }) => {
        if (f.format !== undefined && f.format !== 'json') throw usageError('idv cache stats --format takes json.');
        const { run } = await import('./commands/cache.js');
        await run({ action: 'stats', format: f.format as 'json' | undefined }, deps.io);
      }),
  );
  cache.addCommand(
    inherit(new Command('clear'))
      .description('remove every cached result')
      .addHelpText('after', '\nExamples:\n  $ idv cache clear')
      .action(async () => {
        const { run } = await import('./commands/cache.js');
        await run({ action: 'clear' }, deps.io);
      }),
  );
  program.addCommand(cache);

  program.addCommand(
    inherit(new Command('sandbox'))
      .description('run a local emulator of the service on 127.0.0.1')
      .option('--port <n>', 'port to listen on (0: any free port)', '0')
      .option('--quota <n>', 'validations per window (0: unlimited)', '1000')
      .option('--window <seconds>', 'quota window length in seconds', '3600')
      .option('--key <key>', 'the API key it accepts (default: a random one, printed)')
      .addHelpText(
        'after',
        `
Examples:
  $ idv sandbox --port 8080 --quota 50 --window 3600
  $ IDV_BASE_URL=http://127.0.0.1:8080 IDV_API_KEY=<printed key> idv emails list.csv`,
      )
      .action(async (f: { port: string; quota: string; window: string; key?: string }) => {
        const { run } = await import('./commands/sandbox.js');
        await run(
          {
            port: intFlag(f.port, '--port', 0, 0),
            quota: intFlag(f.quota, '--quota', 0, 1000),
            window: intFlag(f.window, '--window', 1, 3600),
            key: f.key,
          },
          deps.io,
        );
      }),
  );
  return program;
}
