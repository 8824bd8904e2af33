// examples/ runs: each script of the library's exports, as a user runs it with node from the package (it imports
// 'idv' by name), prints what it promises; the TypeScript one type-checks under --strict.
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { join } from 'node:path';
import { homeForEachTest, ROOT } from '../helpers.js';

const home = homeForEachTest();
const example = (name: string) => execa(process.execPath, [join(ROOT, 'examples', name)], { cwd: ROOT, env: home.env, extendEnv: false, reject: false, timeout: 60_000 });

describe('examples/', () => {
  it('validate-emails.mjs: each status of the list, against a sandbox', async () => {
    const r = await example('validate-emails.mjs');
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(['ann@example.com: ok', 'bob@mailinator.com: disposable', 'cy+news@example.org: alias', 'not-an-address: invalid', 'ANN@example.com: ok'].join('\n'));
  });

  it('validate-domains.mjs: each domain once, as sent', async () => {
    const r = await example('validate-domains.mjs');
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(
      [
        'example.com -> example.com: ok',
        'https://www.mailinator.com/inbox -> www.mailinator.com: disposable',
        'jane@MAILINATOR.com -> mailinator.com: disposable',
        'bücher.de -> xn--bcher-kva.de: ok',
        'not a domain -> (not sent): invalid',
        '5 items, 4 distinct domains, 4 sent',
      ].join('\n'),
    );
  });

  it('read-records.mjs: the sample export cleaned as --keep-columns --exclude disposable,fake,invalid writes it', async () => {
    const r = await example('read-records.mjs');
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(
      ['columns: name, email, plan; the addresses are in "email"', 'Ada Lovelace,ada@example.com,pro,ok', 'Alan Turing,alan.turing+news@example.org,free,alias', 'Ada Lovelace,ada@EXAMPLE.com,pro,ok'].join('\n'),
    );
  });

  it('start-sandbox.mjs: the quota as values and its reset, the spend cap as an IdvError', async () => {
    const r = await example('start-sandbox.mjs');
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(
      [
        'a@example.com: ok',
        'b@example.com: ok',
        'c@example.com: quota_exceeded',
        'quota left: 0 of 2; it resets within the hour: true',
        'd@example.com: quota_exceeded',
        'e@example.com: quota_exceeded',
        'stopped (quota, exit code 4): Spend cap reached: maxSpend 0 items sent; 2 not validated (quota_exceeded).',
      ].join('\n'),
    );
  });

  it('validate-emails.ts type-checks under --strict against the package\'s declarations', async () => {
    const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
    const args = ['--ignoreConfig', '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', join(ROOT, 'examples', 'validate-emails.ts')];
    const r = await execa(tsc, args, { cwd: ROOT, reject: false, timeout: 120_000 });
    expect([r.exitCode, r.stdout + r.stderr]).toEqual([0, '']);
  });
});
