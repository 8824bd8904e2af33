// Stopping a run and the files it writes: SIGINT/SIGTERM mid-run (exit 130/143, nothing more on stdout, answered
// results cached), -o replaced only by a run that succeeds, no .tmp left even by a second Ctrl-C, an output
// that cannot be made refused before anything is paid for, a closed stdout. Signals need the built program.
import { describe, it, expect } from 'vitest';
import { execa } from 'execa';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IDV, idv, makeHome, sandbox, sentBatches, homeForEachTest, addresses, interruptedLine } from '../helpers.js';
import { run } from '../fake-io.js';
import { hygiene, runChecked, items, listOf, csv, setup, since, until, spawnIdv, FAST } from './checked-run.js';
import { onlyOn } from '../platforms.js';
import { untilDelivered, untilWaiting } from '../process-wait.js';

// --- signals, atomic output, closed stdout -------------------------------------------------------

onlyOn('signals').describe.concurrent('signals and output files', () => {
  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${sig} mid-run → exit ${code}, no stack, nothing more on stdout, answered results cached`, async ({ onTestFinished }) => {
      const xs = items(30);
      const { sb, env, file } = await setup(onTestFinished, {}, xs);
      const args = ['emails', file, '--batch-size', '5', '--concurrency', '1', '--retries', '2'];
      // The service answers the first batch and holds the second: the signal comes while it is in flight.
      const release = sb.hold(1);
      const proc = spawnIdv(args, env);
      const { p, chunks } = proc;
      await until(() => sb.requests.length >= 2, 20_000, 'the second request', proc);
      await untilWaiting(p.pid!, 500); // asleep on the held request: all it wrote so far is out, and read here
      const bytesBefore = chunks.reduce((a, c) => a + c.n, 0);
      p.kill(sig);
      await untilWaiting(p.pid!, 500); // the signal heard: it waits out its grace for the request in flight
      release(); // answered within the grace: cached, never written
      const r1 = await p;
      hygiene(r1);
      expect(r1.exitCode, String(r1.stderr)).toBe(code);
      expect(r1.stderr).not.toMatch(/Error:|unexpected/);
      expect(Buffer.byteLength(String(r1.stdout))).toBe(bytesBefore); // nothing more on stdout after the signal
      expect(sb.requests.length).toBe(2); // no new requests after the signal

      const answered = new Set(sb.requests.filter((q) => q.status === 200).flatMap((q) => q.items ?? []));
      const n = sb.requests.length;
      const r2 = await runChecked(args, env);
      expect(r2.exitCode, String(r2.stderr)).toBe(0);
      expect(r2.stdout).toBe(csv(xs));
      const sent2 = since(sb, n).flatMap((q) => q.items ?? []);
      expect(sent2.filter((e) => answered.has(e))).toEqual([]);
      expect(sent2.sort()).toEqual(xs.map(([e]) => e).filter((e) => !answered.has(e)).sort());
    });
  }

  it('SIGINT with a request hanging: exits 130 after a short grace; a second SIGINT exits at once', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'hang' }, 4);
    // An hour's --timeout: only the grace after the signal can end the hung request before the test's time-out.
    const args = ['emails', file, '--timeout', '3600', ...FAST];
    const one = spawnIdv(args, env);
    await until(() => sb.requests.length >= 1, 20_000, 'a request', one);
    one.p.kill('SIGINT');
    const r1 = await one.p;
    hygiene(r1);
    expect(r1.exitCode, String(r1.stderr)).toBe(130);
    expect(r1.stderr).toMatch(interruptedLine('SIGINT')); // the run's own end, after the grace
    expect(r1.stdout).toBe('');

    const n = sb.requests.length;
    const two = spawnIdv(args, env);
    await until(() => sb.requests.length > n, 20_000, 'a request', two);
    two.p.kill('SIGINT');
    await untilDelivered(two.p.pid!, 'SIGINT', 200); // else the second would merge with it
    two.p.kill('SIGINT');
    const r2 = await two.p;
    hygiene(r2);
    expect(r2.exitCode, String(r2.stderr)).toBe(130);
    expect(r2.stderr).toBe(''); // ended by the second signal at once, not by the first's grace (whose end says Interrupted)
  });

  it('-o out.csv: interrupted or failed runs leave it byte-identical; a successful one replaces it', async ({ onTestFinished }) => {
    const xs = items(20);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    const outDir = join(home.dir, 'results');
    await mkdir(outDir);
    const out = join(outDir, 'out.csv');
    const old = Buffer.from('email,status\r\nold@example.com,ok\r\n\u00e9\u0000tail');
    await writeFile(out, old);
    const files = async () => (await readdir(outDir)).sort();
    const before = await files();

    // interrupted: one answer in, the next request held until the run has stopped
    const release = sb.hold(1);
    const proc = spawnIdv(['emails', file, '-o', out, ...FAST], env);
    const { p } = proc;
    await until(() => sb.requests.length >= 2, 20_000, 'an answer, and the next request', proc);
    p.kill('SIGINT');
    const ri = await p.finally(release);
    hygiene(ri);
    expect(ri.exitCode, String(ri.stderr)).toBe(130);
    expect(await readFile(out)).toEqual(old);
    expect(await files()).toEqual(before);

    // failed: key refused
    const rf = await runChecked(['emails', file, '-o', out, ...FAST], { ...env, IDV_API_KEY: 'sk_test_wrong_key_0000' });
    expect(rf.exitCode, String(rf.stderr)).toBe(3);
    expect(await readFile(out)).toEqual(old);
    // failed: unreadable input
    const ru = await runChecked(['emails', join(home.dir, 'missing.txt'), '-o', out], env);
    expect(ru.exitCode, String(ru.stderr)).toBe(2);
    expect(await readFile(out)).toEqual(old);
    expect(await files()).toEqual(before);

    // success
    const rs = await runChecked(['emails', file, '-o', out, '--batch-size', '20'], env);
    expect(rs.exitCode, String(rs.stderr)).toBe(0);
    expect(rs.stdout).toBe('');
    expect(await readFile(out, 'utf8')).toBe(csv(xs));
    expect(await files()).toEqual(before);
  });

  it('-o out.csv with a quota stop: results so far are written (exit 4)', async ({ onTestFinished }) => {
    const xs = items(12);
    const { env, file, home } = await setup(onTestFinished, { quota: 5 }, xs);
    const out = join(home.dir, 'out.csv');
    await writeFile(out, 'old\n');
    const r = await runChecked(['emails', file, '-o', out, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(r.stdout).toBe('');
    expect(await readFile(out, 'utf8')).toBe(csv(xs.map(([e, st], i) => [e, i < 5 ? st : 'quota_exceeded'])));
  });

  it('a closed stdout (| head -n 2) ends the run quietly', async ({ onTestFinished }) => {
    const home = await makeHome();
    onTestFinished(() => home.cleanup());
    const xs = items(5000);
    const file = join(home.dir, 'big.txt');
    await writeFile(file, listOf(xs));
    const errFile = join(home.dir, 'err.txt');
    const rcFile = join(home.dir, 'rc.txt');
    const r = await execa(
      'bash',
      ['-c', 'node "$0" emails "$1" --sandbox 2>"$2" | head -n 2; echo "${PIPESTATUS[0]}" >"$3"', IDV, file, errFile, rcFile],
      { env: home.env, extendEnv: false, reject: false, timeout: 25_000, stdin: 'ignore' },
    );
    expect(r.timedOut).toBe(false);
    expect(r.stdout).toBe(`email,status\n${xs[0]![0]},${xs[0]![1]}`);
    const err = await readFile(errFile, 'utf8');
    hygiene({ stderr: err });
    expect(err).not.toMatch(/EPIPE/);
    expect(err).not.toMatch(/Error/);
    expect(['0', '141']).toContain((await readFile(rcFile, 'utf8')).trim());
  });
});

onlyOn('signals').describe('no temporary file is left behind, even by a second Ctrl-C', () => {
  const home = homeForEachTest();
  const list = home.list;
  it('a second SIGINT exits 130 at once and removes the .tmp files of -o, --split and --report', async () => {
    const { sb, env } = await sandbox({ delayMs: 2000 }, home);
    try {
      const file = await list(Array.from({ length: 50 }, (_, i) => `u${i}@example.com`));
      const out = join(home.dir, 'out.csv');
      await writeFile(out, 'old\n');
      const split = join(home.dir, 'split');
      const child = execa('node', [IDV, 'emails', file, '-q', '-o', out, '--split', split, '--report', join(home.dir, 'run.json'), '--batch-size', '10'], {
        env,
        extendEnv: false,
        reject: false,
      });
      await expect.poll(() => sb.requests.length, { timeout: 20_000 }).toBeGreaterThan(0);
      await expect.poll(async () => (await readdir(split).catch(() => [])).length, { timeout: 20_000 }).toBeGreaterThan(0);
      child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGINT');
      const r = await child;
      expect(r.exitCode).toBe(130);
      expect(await readFile(out, 'utf8')).toBe('old\n');
      expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
      expect(await readdir(split)).toEqual([]); // before the fix: .ok.csv.1a2b3c4d.tmp and six more
    } finally {
      await sb.close();
    }
  });
});

onlyOn('signals').describe('-o naming a folder fails before anything is paid for', () => {
  const home = homeForEachTest();
  const list = home.list;
  it('exit 2, one line, no request sent, no .tmp beside it, not after paying for the items', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const { mkdir } = await import('node:fs/promises');
      const folder = join(home.dir, 'results');
      await mkdir(folder);
      const r = await run(['emails', await list(Array.from({ length: 2000 }, (_, i) => `u${i}@example.com`)), '-q', '-o', folder], { env });
      expect(r.stderr).toBe(`idv: Cannot write ${folder}: it is a folder (EISDIR); give a file name.\n`);
      expect(r.exitCode).toBe(2);
      expect(sentBatches(sb)).toEqual([]);
      expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

onlyOn('signals').describe('an output that cannot be made leaves no temporary file of the others', () => {
  const home = homeForEachTest();
  const list = home.list;
  it('--split naming a file: exit 2 before any request, and no .tmp of -o left', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const notAFolder = join(home.dir, 'split');
      await writeFile(notAFolder, 'x');
      const out = join(home.dir, 'out.csv');
      const r = await run(['emails', await list(['a@example.com']), '-q', '-o', out, '--split', notAFolder], { env });
      expect(r.stderr).toBe(`idv: Cannot make the --split folder ${notAFolder}: a file of that name is in the way (EEXIST).\n`);
      expect(r.exitCode).toBe(2);
      expect(sentBatches(sb)).toEqual([]);
      expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]); // no .out.csv.1a2b3c4d.tmp
    } finally {
      await sb.close();
    }
  });
});

onlyOn('signals').describe('Ctrl-C frees a reader waiting on a full output window', () => {
  const home = homeForEachTest();
  const list = home.list;
  it('60,000 lines of 50 addresses, their one request never answered: Ctrl-C ends the run (130), not a hang', async () => {
    const { sb, env } = await sandbox({ quota: 0 }, home);
    try {
      sb.inject({ kind: 'hang' });
      const lines = Array.from({ length: 60_000 }, (_, i) => `p${i % 50}@example.com`);
      const ctrlC = new AbortController();
      const running = run(['emails', '-', '-q'], { env, input: lines.join('\n') + '\n', signal: ctrlC.signal });
      await expect.poll(() => sb.requests.length, { timeout: 20_000 }).toBe(1);
      await new Promise((r) => setTimeout(r, 300)); // the reader has filled the window (50,000 records) and waits
      ctrlC.abort('SIGINT');
      const r = await running; // before the fix: never settles once the request is cut
      expect(r.exitCode).toBe(130);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(interruptedLine('SIGINT'));
    } finally {
      await sb.close();
    }
  });
});
