// Files that are not what a list should be. With the built idv (signals and blocking need a real process): a FIFO
// nobody writes to as the config file or as an input, a FIFO nobody reads as -o, /dev/stdout, a full device; every
// signal is heard whatever idv is waiting on, and nothing that is not a regular file is replaced. In this process:
// a directory, a binary file, an unterminated quote, an empty file, a 2 MB line, a million blank lines, NUL bytes
// (a binary file; one in a cell deep in a CSV; binary data appended to text).
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { execFileSync, spawn } from 'node:child_process';
import { lstat, mkdir, open, readdir, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IDV, idv, fixture, sandbox, sentBatches, sentItems, homeForEachTest, addresses, interruptedLine } from '../helpers.js';
import { untilWaiting } from '../process-wait.js';
import { hygiene, runChecked, setup, refused } from './checked-run.js';
import { onlyOn } from '../platforms.js';

const home = homeForEachTest();

const isRoot = process.getuid?.() === 0;
const mkfifo = (path: string) => execFileSync('mkfifo', [path]);
const stackLines = (stderr: string) => stderr.split('\n').filter((l) => /^\s+at\s|node:internal/.test(l));

/**
 * Start the built idv, wait until it is up and waiting, send `sig`; its result. What it waits on never comes, so
 * only the signal can end it: one that is not heard runs into the 25 s deadline, which only stops the hang.
 */
async function signalled(args: string[], sig: 'SIGINT' | 'SIGTERM' | 'SIGHUP', env: Record<string, string> = home.env) {
  const child = execa('node', [IDV, ...args], { env, extendEnv: false, reject: false, cwd: home.dir, stdin: 'ignore', timeout: 25_000, stripFinalNewline: false });
  await untilWaiting(child.pid!, 1500); // loaded and waiting
  child.kill(sig);
  const r = await child;
  expect(r.timedOut, 'the signal was not heard').toBe(false);
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

onlyOn('fifo').describe('a FIFO nobody writes to', () => {
  it('as the config file: refused at once (exit 3, one line), not waited on; other commands run as usual', async () => {
    const dir = join(home.env.XDG_CONFIG_HOME!, 'idv');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const config = join(dir, 'config.json');
    mkfifo(config);
    const r = await idv(['emails', '--base-url', 'https://api.example.test', '-'], { env: home.env, input: 'ada@example.com\n', timeout: 25_000 });
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([
      3,
      '',
      `idv: Refusing the config file ${config}: it is not a regular file; remove it and store the key with idv auth login, or set IDV_API_KEY.\n`,
    ]);
    const completion = await idv(['completion', 'bash'], { env: home.env, timeout: 25_000 });
    expect(completion.exitCode).toBe(0);
    expect((await lstat(config)).isFIFO()).toBe(true);
  });

  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`as an input file: ${sig} ends the run at once with its exit code, one line, no stack`, async () => {
      mkfifo(join(home.dir, 'list.txt'));
      const r = await signalled(['emails', '--sandbox', 'list.txt'], sig);
      expect(r.exitCode).toBe({ SIGINT: 130, SIGTERM: 143, SIGHUP: 129 }[sig]);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(interruptedLine(sig));
      expect(stackLines(r.stderr)).toEqual([]);
    });
  }

  it('as an input file that a writer then opens: read like any file', async () => {
    const fifo = join(home.dir, 'list.txt');
    mkfifo(fifo);
    const child = execa('node', [IDV, 'emails', '--sandbox', '-q', fifo], { env: home.env, extendEnv: false, reject: false, stdin: 'ignore', stripFinalNewline: false });
    await untilWaiting(child.pid!, 1000); // waiting for a writer
    await writeFile(fifo, 'ada@example.com\nbob@mailinator.com\n');
    const r = await child;
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, 'email,status\nada@example.com,ok\nbob@mailinator.com,disposable\n', '']);
  });
});

describe('a reader that stops reading', () => {
  /** 200,000 addresses: far more than a pipe holds, so that writing waits on the reader. */
  const bigList = () => writeFile(join(home.dir, 'list.txt'), Array.from({ length: 200_000 }, (_, i) => `user${i}@example.com\n`).join(''));

  onlyOn('signals').it('standard output that nobody reads: SIGTERM ends the run at once (143), one line', async () => {
    await bigList();
    const child = spawn('node', [IDV, 'emails', '--sandbox', '-q', 'list.txt'], { cwd: home.dir, env: home.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const ended = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await untilWaiting(child.pid!, 3000); // its standard output is full, never read
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000); // only to stop a hang: the signal alone can end it
    const code = await ended;
    clearTimeout(timer);
    expect([code, stderr]).toEqual([143, expect.stringMatching(interruptedLine('SIGTERM'))]);
  });

  onlyOn('fifo').it('-o a FIFO whose reader stops reading: SIGINT ends the run at once (130)', async () => {
    await bigList();
    mkfifo(join(home.dir, 'out'));
    const reader = await open(join(home.dir, 'out'), 'r+'); // a reader that never reads (O_RDWR: opened at once)
    try {
      const r = await signalled(['emails', '--sandbox', '-q', 'list.txt', '-o', 'out'], 'SIGINT');
      expect([r.exitCode, r.stdout, r.stderr]).toEqual([130, '', expect.stringMatching(interruptedLine('SIGINT'))]);
    } finally {
      await reader.close();
    }
  });
});

describe('outputs that are not regular files', () => {
  onlyOn('fifo').it('-o a FIFO nobody reads: SIGINT ends the wait (130); the FIFO is still a FIFO, nothing beside it', async () => {
    await writeFile(join(home.dir, 'list.txt'), 'ada@example.com\n');
    mkfifo(join(home.dir, 'out'));
    const r = await signalled(['emails', '--sandbox', 'list.txt', '-o', 'out'], 'SIGINT');
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([130, '', expect.stringMatching(interruptedLine('SIGINT'))]);
    expect((await lstat(join(home.dir, 'out'))).isFIFO()).toBe(true);
    expect((await readdir(home.dir)).sort()).toEqual(['list.txt', 'out']);
  });

  onlyOn('devFiles').it('-o /dev/stdout and -o -: the records on standard output (a pipe here)', async () => {
    await writeFile(join(home.dir, 'list.txt'), 'ada@example.com\n');
    for (const o of ['/dev/stdout', '-']) {
      const r = await idv(['emails', '--sandbox', '-q', 'list.txt', '-o', o], { env: home.env, cwd: home.dir });
      expect([o, r.exitCode, r.stdout, r.stderr]).toEqual([o, 0, 'email,status\nada@example.com,ok\n', '']);
    }
    expect((await readdir(home.dir)).sort()).toEqual(['list.txt']);
  });

  onlyOn('devices').it('-o ./full (a full device): exit 1 naming ENOSPC, and ./full is still that device', async () => {
    await writeFile(join(home.dir, 'list.txt'), 'ada@example.com\n');
    const full = isRoot ? './full' : '/dev/full';
    if (isRoot) execFileSync('mknod', ['-m', '666', join(home.dir, 'full'), 'c', '1', '7']);
    const r = await idv(['emails', '--sandbox', '-q', 'list.txt', '-o', full], { env: home.env, cwd: home.dir });
    const path = isRoot ? join(home.dir, 'full') : '/dev/full';
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([1, '', `idv: Cannot write ${path}: no space left on the device (ENOSPC); a --sandbox run keeps no results (and costs nothing).\n`]);
    const st = await lstat(path);
    expect([st.isCharacterDevice(), st.rdev]).toEqual([true, (await lstat('/dev/full')).rdev]);
  });

  onlyOn('devices').it('-o a link to /proc/self/fd/1: refused before anything is sent, the link left as it was', async () => {
    await writeFile(join(home.dir, 'list.txt'), 'ada@example.com\n');
    await symlink('/proc/self/fd/1', join(home.dir, 'out.csv'));
    const r = await idv(['emails', '--sandbox', '-q', 'list.txt', '-o', 'out.csv'], { env: home.env, cwd: home.dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      `idv: Cannot write ${join(home.dir, 'out.csv')}: it is a symbolic link (to /proc/self/fd/1); idv neither writes through a link nor replaces one: give the path it leads to, or remove the link.\n`,
    );
    expect(await readlink(join(home.dir, 'out.csv'))).toBe('/proc/self/fd/1');
  });
});

describe.concurrent('hostile input', () => {
  it('a directory → one-line error, exit 2', async ({ onTestFinished }) => {
    const { env, home } = await setup(onTestFinished);
    refused(await runChecked(['emails', home.dir, '-q'], env), `Cannot read ${home.dir}: it is a directory; give a file.`);
  });

  it('binary.bin (a PNG) is named for what it is: exit 2, nothing sent', async ({ onTestFinished }) => {
    const { sb, env } = await setup(onTestFinished);
    const f = fixture('broken/binary.bin');
    refused(await runChecked(['emails', f, '-q'], env), `${f} is an image, not a list or CSV file; give a text list (one address a line) or a CSV export.`, sb);
  });

  it('a quoted cell that never closes, in a file read whole before anything is sent: exit 2 naming its line, nothing sent', async ({ onTestFinished }) => {
    const { sb, env } = await setup(onTestFinished);
    const f = fixture('broken/unterminated-quote.csv');
    refused(await runChecked(['emails', f, '-q'], env), `${f} is not well-formed CSV: a quoted cell in the record that starts on line 3 is never closed; if its quotes are text, not CSV quoting, give --no-quotes, else check the file.`, sb);
  });

  it('an empty file → no records, exit 0', async ({ onTestFinished }) => {
    const { sb, env, home } = await setup(onTestFinished);
    const empty = join(home.dir, 'empty.txt');
    await writeFile(empty, '');
    const r = await runChecked(['emails', empty, '-q'], env);
    hygiene(r);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe('email,status\n');
    expect(sentItems(sb)).toEqual([]);
  });

  it('a 2 MB single line → one invalid record, exit 0, nothing sent', async ({ onTestFinished }) => {
    const { sb, env, home } = await setup(onTestFinished);
    const f = join(home.dir, 'long.txt');
    await writeFile(f, 'a'.repeat(2 * 1024 * 1024) + '\n');
    const r = await runChecked(['emails', f, '-q'], env);
    hygiene(r);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`email,status\n${'a'.repeat(2 * 1024 * 1024)},invalid\n`);
    expect(sentItems(sb)).toEqual([]);
  });

  it('1,000,000 blank lines and 2 addresses → 2 records, one request', async ({ onTestFinished }) => {
    const { sb, env, home } = await setup(onTestFinished);
    const f = join(home.dir, 'blank.txt');
    await writeFile(f, '\n'.repeat(500_000) + 'a@gmail.com\n' + '\r\n'.repeat(500_000) + 'b@mailinator.com\n');
    const r = await runChecked(['emails', f, '-q'], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe('email,status\na@gmail.com,ok\nb@mailinator.com,disposable\n');
    expect(sentBatches(sb)).toEqual([['a@gmail.com', 'b@mailinator.com']]);
  });

  it('NUL bytes (a file, standard input) → a binary file: exit 2, nothing sent', async ({ onTestFinished }) => {
    const { sb, env, home } = await setup(onTestFinished);
    const f = join(home.dir, 'nul.txt');
    await writeFile(f, 'a@gmail.com\n\u0000\u0000\u0000\nb\u0000c@gmail.com\n\u0000d@gmail.com\n');
    const binary = 'is a binary file (it holds NUL bytes), not a list or CSV file; give a text list (one address a line) or a CSV export.';
    refused(await runChecked(['emails', f, '-q'], env), `${f} ${binary}`, sb);
    refused(await runChecked(['emails', '-', '-q'], { ...env }, { input: Buffer.from('x@gmail.com\n\0\0\n') }), `standard input ${binary}`, sb);
  });

  it('a NUL byte deep in a CSV is a control character in its cell: that row is a record (invalid only when the NUL is in its item), the run goes on', async ({ onTestFinished }) => {
    const { sb, env, home } = await setup(onTestFinished, { quota: 10_000 });
    const f = join(home.dir, 'late-nul.csv');
    const rows = Array.from({ length: 6000 }, (_, i) => `${i},User ${i},u${i}@gmail.com`);
    rows[3000] = '3000,Bad\0Name,bad@gmail.com';
    rows[5000] = '5000,Ok,b\0d@gmail.com';
    await writeFile(f, ['id,name,email', ...rows].join('\n') + '\n');
    const r = await runChecked(['emails', f, '-q', '--keep-columns'], env);
    hygiene(r);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stderr).toBe('');
    const lines = String(r.stdout).split('\n');
    expect(lines.length).toBe(6002);
    expect(lines[3001]).toBe('3000,Bad\0Name,bad@gmail.com,ok');
    expect(lines[5001]).toBe('5000,Ok,b\0d@gmail.com,invalid');
    expect(lines[6000]).toBe('5999,User 5999,u5999@gmail.com,ok');
    const sent = sentItems(sb);
    expect(sent.length).toBe(5999);
    expect(sent).toContain('bad@gmail.com');
    expect(sent.filter((s) => s.includes('\0'))).toEqual([]);
  });

  it('text that turns into a stretch of NUL bytes (binary data appended) is refused from there: exit 2 naming the byte and --encoding', async ({ onTestFinished }) => {
    const { env, home } = await setup(onTestFinished);
    const f = join(home.dir, 'binary-tail.txt');
    const text = Array.from({ length: 10_000 }, (_, i) => `u${i}@gmail.com\n`).join('');
    await writeFile(f, Buffer.concat([Buffer.from(text), Buffer.alloc(100_000), Buffer.from('x@gmail.com\n')]));
    const r = await runChecked(['emails', f, '-q', '--max-spend', '0'], env);
    hygiene(r);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^idv: ${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} holds binary data from byte ${text.length.toLocaleString('en-US')} on \\(NUL bytes, [\\d,]+ of [\\d,]+\\): it is no text list or CSV file there; if it is UTF-16 text, give --encoding utf-16le \\(or utf-16be\\); otherwise cut the file before that byte\\.\n$`),
    );
  });
});
