// argv → ValidateOptions through the command's action seam (as gh's TestNewCmd… does): the table of flags
// in flags.ts is what commander parses and what run() receives, field by field.
import { describe, expect, it } from 'vitest';
import { CommanderError } from 'commander';
import { validateCommand, VALIDATE_FLAGS, type ValidateOptions } from '../../../src/commands/validate/flags.js';
import { parseCacheTtl } from '../../../src/cache/ttl.js';
import type { Kind } from '../../../src/defaults.js';
import { run } from '../../fake-io.js';
import { sandbox, withHome } from '../../helpers.js';
import { existsSync } from 'node:fs';
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
  keepColumns: false,
  suggest: false,
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
    ['status lists, trimmed and lower-cased', 'emails', ['--only', 'OK, alias', '--exclude', 'fake,,'], { only: ['ok', 'alias'], exclude: ['fake'] }],
    ['numbers', 'emails', ['--batch-size', '50', '--concurrency', '2', '--timeout', '2.5', '--retries', '0', '--max-spend', '1000'], {
      batchSize: 50, concurrency: 2, timeoutSeconds: 2.5, retries: 0, maxSpend: 1000,
    }],
    ['--max-wait in seconds', 'emails', ['--max-wait', '1h30m'], { maxWaitSeconds: 5400 }],
    ['--cache-ttl by status', 'emails', ['--cache-ttl', 'ok=90d,2d'], { cacheTtl: parseCacheTtl('ok=90d,2d') }],
    ['paths', 'emails', ['--split', 'out', '--report', 'r.json', '--base-url', 'http://127.0.0.1:9'], {
      split: 'out', report: 'r.json', baseUrl: 'http://127.0.0.1:9',
    }],
  ])('%s', async (_name, kind, argv, fields) => {
    expect(await parse(kind, argv)).toEqual({ ...DEFAULTS, kind, ...fields });
  });

  it.each<[string, string[], string]>([
    ['a format idv does not write', ['-f', 'xml'], `error: option '-f, --format <format>' argument 'xml' is invalid. Allowed choices are table, csv, json, ndjson, xlsx.`],
    ['a batch of none', ['--batch-size', '0'], `error: option '--batch-size <n>' argument '0' is invalid. Give a whole number of at least 1.`],
    ['a time-out of none', ['--timeout', '0'], `error: option '--timeout <seconds>' argument '0' is invalid. Give a number of seconds above 0, at most 86400 (a day).`],
    ['an unknown flag', ['--quiett'], `error: unknown option '--quiett'\n(Did you mean --quiet?)`],
  ])('refuses %s', async (_name, argv, message) => {
    expect(await parse('emails', argv)).toBe(message);
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
    ['--exclude disposible', ['--exclude', 'disposible'], `idv: option '--exclude <statuses>' argument 'disposible' is invalid. "disposible" is no status: did you mean "disposable"?\n(run with --help for usage)\n`],
    ['--only okk', ['--only', 'okk'], `idv: option '--only <statuses>' argument 'okk' is invalid. "okk" is no status: did you mean "ok"?\n(run with --help for usage)\n`],
    ['--cache-ttl fake=1d,disposible=9d', ['--cache-ttl', 'fake=1d,disposible=9d'], `idv: option '--cache-ttl <duration>' argument 'fake=1d,disposible=9d' is invalid. "disposible" is no status: did you mean "disposable"?\n(run with --help for usage)\n`],
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

  it('a name that is no slip of a known status is kept, with a warning (the service may add it)', async () => {
    const r = await run(['emails', '-', '--sandbox', '-q', '--exclude', 'spamtrap,disposable'], { input: 'a@mailinator.com\nb@example.com\n' });
    expect(r.stderr).toBe('idv: warning: --exclude names "spamtrap", not a known status (known: ok, alias, disposable, fake, quota_exceeded, invalid, error).\n');
    expect(r.stdout).toBe('email,status\nb@example.com,ok\n');
    expect(r.exitCode).toBe(0);
  });
});
