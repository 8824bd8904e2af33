// argv → ValidateOptions through the command's action seam (as gh's TestNewCmd… does): the table of flags
// in flags.ts is what commander parses and what run() receives, field by field.
import { describe, expect, it } from 'vitest';
import { CommanderError } from 'commander';
import { refusedReport, validateCommand, VALIDATE_FLAGS, type ValidateOptions } from '../../../src/commands/validate/flags.js';
import { parseCacheTtl } from '../../../src/cache/ttl.js';
import type { Kind } from '../../../src/core/defaults.js';
import { run } from '../../fake-io.js';
import { sandbox, withHome } from '../../helpers.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What `idv <kind> …argv` hands run(), or the usage error commander refused it with. */
async function parse(kind: Kind, argv: string[]): Promise<ValidateOptions | string> {
  let got: ValidateOptions | undefined;
  const command = validateCommand(kind, undefined, async (o) => void (got = o))
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} });
  try {
    await command.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.message;
    throw err;
  }
  return got!;
}

const DEFAULTS: ValidateOptions = {
  kind: 'emails',
  files: [],
  items: undefined,
  format: undefined,
  output: undefined,
  column: undefined,
  delimiter: undefined,
  noHeader: false,
  noQuotes: false,
  encoding: undefined,
  sheet: undefined,
  maxUnpacked: undefined,
  maxRowSize: 16 * 1024 ** 2,
  keepColumns: false,
  suggest: false,
  bom: false,
  noBom: false,
  safeCsv: false,
  only: undefined,
  exclude: undefined,
  dryRun: false,
  quiet: false,
  verbose: false,
  noColor: false,
  baseUrl: undefined,
  batchSize: 100,
  concurrency: 4,
  timeoutSeconds: 30,
  retries: 3,
  maxSpend: undefined,
  split: undefined,
  report: undefined,
  wait: false,
  maxWaitSeconds: undefined,
  cache: true,
  cacheTtl: parseCacheTtl('7d'),
  sandbox: false,
};

describe('idv emails|domains: argv → options', () => {
  it.each<[string, Kind, string[], Partial<ValidateOptions>]>([
    ['no flags', 'emails', [], {}],
    ['files, in order; - for stdin', 'emails', ['a.csv', '-', 'b.txt'], { files: ['a.csv', '-', 'b.txt'] }],
    ['domains', 'domains', ['d.txt'], { kind: 'domains', files: ['d.txt'] }],
    ['items, repeated, in order, beside files', 'emails', ['-i', 'a@x.org', 'list.csv', '--item', 'b@y.org', '--item=c@z.org'], { items: ['a@x.org', 'b@y.org', 'c@z.org'], files: ['list.csv'] }],
    ['-f and -o', 'emails', ['-f', 'json', '-o', 'out.json'], { format: 'json', output: 'out.json' }],
    ['--format=ndjson', 'emails', ['--format=ndjson'], { format: 'ndjson' }],
    ['column, delimiter', 'emails', ['--column', 'E-mail', '--delimiter', ';'], { column: 'E-mail', delimiter: ';' }],
    ['--no-header sets noHeader', 'emails', ['--no-header'], { noHeader: true }],
    ['--no-quotes sets noQuotes', 'emails', ['--no-quotes'], { noQuotes: true }],
    ['--encoding as given', 'emails', ['--encoding', 'windows-1251'], { encoding: 'windows-1251' }],
    ['--sheet as given (a name or a number)', 'emails', ['--sheet', 'Contacts'], { sheet: 'Contacts' }],
    ['-f xlsx', 'emails', ['-f', 'xlsx', '-o', 'clean.xlsx'], { format: 'xlsx', output: 'clean.xlsx' }],
    ['switches', 'emails', ['--keep-columns', '--suggest', '--safe-csv', '--dry-run', '-q', '--verbose', '--wait', '--sandbox'], {
      keepColumns: true, suggest: true, safeCsv: true, dryRun: true, quiet: true, verbose: true, wait: true, sandbox: true,
    }],
    ['--no-color sets noColor', 'emails', ['--no-color'], { noColor: true }],
    ['--no-cache turns cache off', 'emails', ['--no-cache'], { cache: false }],
    ['--bom asks for the byte-order mark, --no-bom refuses it', 'emails', ['--bom'], { bom: true }],
    ['--no-bom', 'emails', ['--no-bom'], { noBom: true }],
    ['status lists, trimmed and lower-cased', 'emails', ['--only', 'OK, alias', '--exclude', 'fake,,'], { only: ['ok', 'alias'], exclude: ['fake'] }],
    ['formats whatever their case', 'emails', ['-f', 'JSON'], { format: 'json' }],
    ['--timeout with its unit', 'emails', ['--timeout', '2m'], { timeoutSeconds: 120 }],
    ['a status the service may add, marked', 'emails', ['--only', 'ok,New:Verified'], { only: ['ok', 'verified'] }],
    ['numbers', 'emails', ['--batch-size', '50', '--concurrency', '2', '--timeout', '2.5', '--retries', '0', '--max-spend', '1000'], {
      batchSize: 50, concurrency: 2, timeoutSeconds: 2.5, retries: 0, maxSpend: 1000,
    }],
    ['--max-wait in seconds', 'emails', ['--max-wait', '1h30m'], { maxWaitSeconds: 5400 }],
    ['--max-unpacked in bytes', 'emails', ['--max-unpacked', '4GiB'], { maxUnpacked: 4 * 1024 ** 3 }],
    ['--cache-ttl by status', 'emails', ['--cache-ttl', 'ok=90d,2d'], { cacheTtl: parseCacheTtl('ok=90d,2d') }],
    ['paths', 'emails', ['--split', 'out', '--report', 'r.json', '--base-url', 'http://127.0.0.1:9'], {
      split: 'out', report: 'r.json', baseUrl: 'http://127.0.0.1:9',
    }],
  ])('%s', async (_name, kind, argv, fields) => {
    expect(await parse(kind, argv)).toEqual({ ...DEFAULTS, kind, ...fields });
  });

  it.each<[string, string[], string]>([
    ['a format idv does not write', ['-f', 'xml'], '--format "xml" is no format (table, csv, json, ndjson, xlsx)'],
    ['a slip of a format, with the one meant', ['-f', 'jsn'], '--format "jsn" is no format; did you mean json? (table, csv, json, ndjson, xlsx)'],
    ['a batch of none', ['--batch-size', '0'], '--batch-size "0": give a whole number of at least 1.'],
    ['a time-out of none', ['--timeout', '0'], '--timeout "0" is too short: give more than 0s.'],
    ['a time-out past a day', ['--timeout', '25h'], '--timeout "25h" is too long: give at most 24h.'],
    ['an unknown flag', ['--quiett'], 'unknown option --quiett; did you mean --quiet?'],
    ['an unknown flag with none near it', ['--bogus'], 'unknown option --bogus (idv emails --help lists them)'],
    ['a flag without its value', ['--column'], '--column needs a value: <name|N>'],
    ['an empty --split (a variable left unset in cron), which would write into the working folder', ['--split', ''], '--split "" names no folder: give one, or leave --split out'],
    ['an empty -o', ['-o', ''], '-o "" names no file: give one, or leave -o out'],
    ['a flag where --report\'s file goes (out.csv would be read as an input, and paid for)', ['--report', '-o', 'out.csv'], '--report "-o" looks like a flag, not a file: give --report its file (./-o for one of that name)'],
    ['a flag where -o\'s file goes', ['-o', '--report', 'r.json'], '-o "--report" looks like a flag, not a file: give -o its file (./--report for one of that name)'],
    ['a size without its unit', ['--max-unpacked', '16'], '--max-unpacked "16" has no unit: write 16MiB, 16GiB or 16K (powers of 1024; MB and GB are powers of 1000).'],
  ])('refuses %s, in one line', async (_name, argv, message) => {
    const r = await run(['emails', '-', ...argv], { input: 'a@example.com\n', env: { IDV_API_KEY: 'sk_test_12345678', IDV_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.stderr).toBe(`idv: ${message}\n`);
    expect(r.exitCode).toBe(2);
  });

  it('each --item is added to the one list commander carries, never copied into a new one (30,000 items: 30,000 steps, not 450 million)', () => {
    const parseArg = VALIDATE_FLAGS.items.option().parseArg as (text: string, previous: string[] | undefined) => string[];
    const list = parseArg('a@x.org', undefined);
    expect(parseArg('b@y.org', list)).toBe(list);
    expect(parseArg('c@z.org', list)).toBe(list);
    expect(list).toEqual(['a@x.org', 'b@y.org', 'c@z.org']);
  });

  it('every row of the table is a flag of both commands, and every flag a row', async () => {
    for (const kind of ['emails', 'domains'] as const) {
      const command = validateCommand(kind, undefined, async () => {});
      expect(command.options.map((o) => o.attributeName()).sort()).toEqual(Object.values(VALIDATE_FLAGS).map((f) => f.attribute).sort());
    }
    expect(Object.keys(DEFAULTS).filter((k) => k !== 'kind' && k !== 'files').sort()).toEqual(Object.keys(VALIDATE_FLAGS).sort());
  });
});

describe('a slip in a status name or a duration stops the run before anything is sent or written', () => {
  it.each<[string, string[], string]>([
    ['--exclude disposible', ['--exclude', 'fake,disposible'], 'idv: --exclude "disposible" is no status; did you mean --exclude fake,disposable?\n'],
    ['--only okk', ['--only', 'okk'], 'idv: --only "okk" is no status; did you mean --only ok?\n'],
    ['--only valid (never answered with invalid, its opposite)', ['--only', 'valid'], 'idv: --only "valid" is no status; the statuses that mean it: --only ok,alias\n'],
    ['--only good', ['--only', 'Good'], 'idv: --only "good" is no status; the statuses that mean it: --only ok,alias\n'],
    ['--exclude bad,risky', ['--exclude', 'bad,risky'], 'idv: --exclude "bad" is no status; the statuses that mean it: --exclude disposable,fake,invalid,risky\n'],
    ['--exclude temporary', ['--exclude', 'temporary'], 'idv: --exclude "temporary" is no status; the statuses that mean it: --exclude disposable\n'],
    ['--only spamtrap', ['--only', 'spamtrap'], 'idv: --only "spamtrap" is no status idv knows (ok, alias, disposable, fake, quota_exceeded, invalid, error); one the service may add is written new:spamtrap\n'],
    ['--only new:', ['--only', 'new:'], 'idv: --only "new:": after new: comes a status name (letters, digits, _ and -), like new:verified\n'],
    ['--cache-ttl fake=1d,disposible=9d', ['--cache-ttl', 'fake=1d,disposible=9d'], 'idv: --cache-ttl "disposible" is no status; did you mean disposable?\n'],
    ['--cache-ttl 7', ['--cache-ttl', '7'], 'idv: --cache-ttl "7" has no unit: write 7s, 7m, 7h or 7d (seconds, minutes, hours or days).\n'],
    ['--max-wait 90', ['--wait', '--max-wait', '90'], 'idv: --max-wait "90" has no unit: write 90s, 90m, 90h or 90d (seconds, minutes, hours or days).\n'],
  ])('%s: exit 2, no -o file, no request', async (_name, flags, stderr) => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({}, home);
      try {
        const out = join(home.dir, 'clean.csv');
        const r = await run(['emails', '-', ...flags, '-o', out], { env, input: 'a@mailinator.com\nb@example.com\n' });
        expect(r.stderr).toBe(stderr);
        expect(r.exitCode).toBe(2);
        expect(existsSync(out)).toBe(false);
        expect(sb.requests).toEqual([]);
      } finally {
        await sb.close();
      }
    });
  });

  it('idv domains --only valid is answered with ok alone: a domain is never alias', async () => {
    const r = await run(['domains', '-', '--sandbox', '--only', 'valid'], { input: 'example.com\n' });
    expect(r.stderr).toBe('idv: --only "valid" is no status; the statuses that mean it: --only ok\n');
    expect(r.exitCode).toBe(2);
  });

  it('a status marked as one the service may add (new:NAME) is kept as NAME, without a word', async () => {
    const r = await run(['emails', '-', '--sandbox', '-q', '--exclude', 'new:spamtrap,Disposable'], { input: 'a@mailinator.com\nb@example.com\n' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('email,status\nb@example.com,ok\n');
    expect(r.exitCode).toBe(0);
  });

  it('--only good -o clean.csv: exit 2 before anything is paid, not a clean list holding only its header', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({}, home);
      try {
        const out = join(home.dir, 'clean.csv');
        const r = await run(['emails', '-', '--only', 'good', '-o', out], { env, input: 'a@example.com\n' });
        expect(r.exitCode).toBe(2);
        expect(existsSync(out)).toBe(false);
        expect(sb.requests).toEqual([]);
        const right = await run(['emails', '-', '--only', 'ok,alias', '-o', out, '-q'], { env, input: 'a@example.com\nb+x@example.com\nc@mailinator.com\n' });
        expect(right.exitCode).toBe(0);
        expect(readFileSync(out, 'utf8')).toBe('email,status\na@example.com,ok\nb+x@example.com,alias\n');
      } finally {
        await sb.close();
      }
    });
  });
});

describe('refusedReport: the report a run whose flags were refused still writes, read as a run reads --report', () => {
  const rows: Array<[string[], { command: string; path: string } | null]> = [
    [['emails', 'list.csv', '--report', 'run.json', '--batch-size', 'x'], { command: 'emails', path: 'run.json' }],
    [['emails', 'list.csv', '--batch-size', 'x', '--report', 'run.json'], { command: 'emails', path: 'run.json' }], // after the refused value too
    [['domains', '--report=run.json', '--bogus'], { command: 'domains', path: 'run.json' }],
    [['emails', '--bogus', 'x', '--report', 'run.json'], { command: 'emails', path: 'run.json' }], // after an unknown flag too
    [['emails', '--report', 'first.json', '--report=second.json'], { command: 'emails', path: 'second.json' }], // the last, as a run takes it
    [['emails', '-o', '--report', 'run.json'], null], // -o's value, as a run reads it; run.json is a FILE
    [['emails', '--report', '--max-spend', '5'], null], // a name that looks like a flag is refused, not written
    [['auth', '--report', 'run.json'], null], // only emails and domains write a report
    [['emails', 'list.csv', '--bogus'], null],
    [['emails', '--', '--report', 'run.json'], null], // after --, a file name
    [['emails', '--report'], null], // no value
    [['emails', '--report='], null],
    [['emails', 'report.csv', '-o', 'out.csv'], null],
  ];
  for (const [argv, expected] of rows) {
    it(`${argv.join(' ')} → ${expected ? expected.path : 'none'}`, () => {
      expect(refusedReport(argv)).toEqual(expected);
    });
  }

  it('is what a run that is not refused takes for --report', async () => {
    for (const argv of [['--report', 'a.json', '--report', 'b.json'], ['-o', 'out.csv', '--report', 'x.json', '--report=c.json']]) {
      expect(refusedReport(['emails', ...argv])?.path).toBe(((await parse('emails', argv)) as ValidateOptions).report);
    }
  });
});
