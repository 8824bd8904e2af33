// --report FILE (src/output/report.ts): its message is masked like every other; a device named as the report
// is written in place and stays a device; `-` is standard output.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeHome, writeList, type Home } from '../helpers.js';
import { run } from '../fake-io.js';

let home: Home;
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  await home.cleanup();
});

const KEY = 'sk_test_abcdef123';
const isRoot = process.getuid?.() === 0;

describe('the report message', () => {
  it('an error that quotes the key (a list file named after it): masked in the report as on stderr', async () => {
    const missing = join(home.dir, `list-${KEY}.csv`);
    const report = join(home.dir, 'run.json');
    const r = await run(['emails', missing, '--report', report], { env: { ...home.env, IDV_API_KEY: KEY } });
    const masked = `Cannot read ${join(home.dir, 'list-****.csv')}: no such file.`;
    expect(r).toEqual({ exitCode: 2, stdout: '', stderr: `idv: ${masked}\n` });
    const text = await readFile(report, 'utf8');
    expect(JSON.parse(text)).toMatchObject({ exitCode: 2, reason: 'usage', message: masked });
    expect(text).not.toContain(KEY);
  });
});

describe('where the report goes', () => {
  it('a character device (./null): written in place, still the same device after, no temporary file beside it', async () => {
    // As root, a device node of our own in the test folder (as a container user would have); else the system's.
    const path = isRoot ? join(home.dir, 'null') : '/dev/null';
    if (isRoot) execFileSync('mknod', ['-m', '666', path, 'c', '1', '3']);
    const before = await lstat(path);
    const r = await run(['emails', await writeList(home, ['ada@example.com']), '--sandbox', '-q', '--report', path], { cwd: home.dir });
    expect(r).toEqual({ exitCode: 0, stdout: 'email,status\nada@example.com,ok\n', stderr: '' });
    const after = await lstat(path);
    expect(after.isCharacterDevice()).toBe(true);
    expect([after.ino, after.rdev, after.mode]).toEqual([before.ino, before.rdev, before.mode]);
    if (isRoot) expect((await readdir(home.dir)).sort()).toEqual(['list.txt', 'null']);
  });

  it('`-`: the report follows the records on standard output', async () => {
    const r = await run(['emails', await writeList(home, ['ada@example.com']), '--sandbox', '-q', '--report', '-'], { cwd: home.dir });
    expect(r.exitCode).toBe(0);
    const [csv, json] = [r.stdout.slice(0, r.stdout.indexOf('{')), r.stdout.slice(r.stdout.indexOf('{'))];
    expect(csv).toBe('email,status\nada@example.com,ok\n');
    expect(JSON.parse(json)).toMatchObject({ reason: 'done', records: 1 });
    expect(await readdir(home.dir)).toEqual(['list.txt']);
  });
});
