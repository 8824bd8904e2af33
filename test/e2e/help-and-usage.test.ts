// --help, --version and usage errors (exit 2, nothing sent), the bounds of the values flags take.
import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { idv, ROOT, sandbox, withHome } from '../helpers.js';
import { run } from '../fake-io.js';
import { withSandbox } from './helpers.js';

// ---------------------------------------------------------------------------------------------
describe.concurrent('help, version, usage errors', () => {
  it.each([['emails'], ['domains'], ['auth'], ['cache'], ['sandbox']])('idv %s --help: exit 0 with Examples', async (cmd) => {
    await withHome(async (home) => {
      const r = await idv([cmd, '--help'], { env: home.env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('Examples');
    });
  });

  it('--version prints the package.json version', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    await withHome(async (home) => {
      const r = await idv(['--version'], { env: home.env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(`${pkg.version}\n`);
    });
  });

  it('an unknown flag: exit 2, nothing sent', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', '--bogus', '-'], { env, input: 'a@gmail.com\n' });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('--bogus');
      expect(sb.requests).toHaveLength(0);
    });
  });

  it('--format xml: exit 2, nothing sent', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', '--format', 'xml', '-'], { env, input: 'a@gmail.com\n' });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('xml');
      expect(sb.requests).toHaveLength(0);
    });
  });
});

describe('--timeout is bounded: past Node\'s timer limit is refused', () => {
  it('a --timeout past Node\'s timer limit (25 days) is refused, not turned into "no answer within 2200000 s" at once', async () => {
    const r = await run(['emails', '--sandbox', '--timeout', '2200000'], { input: 'a@example.com\n' });
    expect(r.stderr).toBe('idv: --timeout "2200000" is too long: give at most 24h.\n');
    expect(r.exitCode).toBe(2);
    const day = await run(['emails', '--sandbox', '-q', '--timeout', '86400'], { input: 'a@example.com\n' });
    expect(day.stdout).toBe('email,status\na@example.com,ok\n');
    expect(day.exitCode).toBe(0);
  });
});

describe('every usage error is one line in idv\'s voice, with the name meant when one is close (exit 2)', () => {
  it.each([
    [['emails', '-', '--keep-column'], 'idv: unknown option --keep-column; did you mean --keep-columns?'],
    [['emial', 'list.csv'], 'idv: unknown command "emial"; did you mean emails?'],
    [['cache', 'stat'], 'idv: unknown command "stat"; did you mean stats?'],
    [['emails', '-', '-f', 'jsn'], 'idv: --format "jsn" is no format; did you mean json? (table, csv, json, ndjson, xlsx)'],
    [['emails', '-', '--only', 'valid'], 'idv: --only "valid" is no status; the statuses that mean it: --only ok,alias'],
    [['emails', '-', '--only', 'fake', '--only', 'disposible'], 'idv: --only "disposible" is no status; did you mean --only disposable?'],
    [['auth', 'status', 'extra'], 'idv: idv auth status takes no arguments, not "extra" (idv auth status --help)'],
  ])('idv %j', async (args, line) => {
    const r = await run(args, { input: 'a@example.com\n', env: { IDV_API_KEY: 'sk_test_12345678', IDV_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.stderr).toBe(line + '\n');
    expect(r.stdout).toBe('');
    expect(r.exitCode).toBe(2);
  });

  it('format names whatever their case; a duration with its unit for --timeout, a bare number still seconds', async () => {
    for (const args of [['-f', 'JSON'], ['-f', 'Json', '--timeout', '30s'], ['--format=json', '--timeout', '30']]) {
      const r = await run(['emails', '--sandbox', '-q', '-i', 'a@example.com', ...args]);
      expect(r.stdout, args.join(' ')).toBe('[\n  {"email":"a@example.com","status":"ok"}\n]\n');
      expect(r.exitCode).toBe(0);
    }
  });
});
