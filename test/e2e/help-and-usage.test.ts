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
    expect(r.stderr).toBe("idv: option '--timeout <seconds>' argument '2200000' is invalid. Give a number of seconds above 0, at most 86400 (a day).\n(run with --help for usage)\n");
    expect(r.exitCode).toBe(2);
    const day = await run(['emails', '--sandbox', '-q', '--timeout', '86400'], { input: 'a@example.com\n' });
    expect(day.stdout).toBe('email,status\na@example.com,ok\n');
    expect(day.exitCode).toBe(0);
  });
});
