// End-to-end tests for cron-grade runs (issue 3): cache and resume, rate limits and --wait, retries and
// time-outs, signals, atomic -o, closed stdout, hostile input and key hygiene. Each test has its own HOME
// (so its own cache) and its own sandbox; tests run concurrently to keep the file short. Runs are in this
// process (test/fake-io.ts); the built program is spawned where a process matters: signals (SIGINT,
// SIGTERM, kill -9), a closed stdout, and two runs at once sharing the cache.
import { describe, it, expect } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { execa, type Result } from 'execa';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestSandbox, TestSandboxOptions } from './sandbox/test-sandbox.js';
import { IDV, ROOT, fixture, idv, makeHome, sandbox, sentBatches, sentItems, type Home } from './helpers.js';
import { run as runIn, type FakeOptions, type FakeRun } from './fake-io.js';

const KEY = 'sk_test_0123456789abcdef';
const KEY_SECRET = '0123456789abcdef';

// --- helpers ------------------------------------------------------------------------------------

/** Key hygiene and "never a stack trace", checked after every run. */
function hygiene(r: { stdout?: unknown; stderr?: unknown }): void {
  const text = `${String(r.stdout ?? '')}\n${String(r.stderr ?? '')}`;
  expect(text, 'the API key leaked').not.toContain(KEY);
  expect(text, 'the secret part of the API key leaked').not.toContain(KEY_SECRET);
  expect(String(r.stderr ?? ''), 'a stack trace on stderr').not.toMatch(/^\s+at\s.+/m);
}

/** Run idv in this process (test/fake-io.ts); a run that hangs fails at the test's time-out. */
async function run(args: string[], env: Record<string, string>, o: FakeOptions = {}): Promise<FakeRun> {
  const r = await runIn(args, { env, ...o });
  hygiene(r);
  return r;
}

/** Run the built idv as a process, for what needs one (two processes sharing the cache). */
async function runProcess(args: string[], env: Record<string, string>): Promise<Result> {
  const r = await idv(args, { env, timeout: 25_000 });
  hygiene(r);
  expect(r.timedOut, `idv ${args.join(' ')} timed out`).toBe(false);
  return r;
}

/** Items with known sandbox classes, lower-case so the cache key is the item itself. */
function items(n: number, p = 'u'): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < n; i++) {
    switch (i % 4) {
      case 0: out.push([`${p}${i}@gmail.com`, 'ok']); break;
      case 1: out.push([`${p}${i}@mailinator.com`, 'disposable']); break;
      case 2: out.push([`${p}${i}+t@gmail.com`, 'alias']); break;
      default: out.push([`${p}${i}@fake.com`, 'fake']);
    }
  }
  return out;
}
const list = (xs: Array<[string, string]>) => xs.map(([e]) => e).join('\n') + '\n';
const csv = (rows: Array<[string, string]>) => 'email,status\n' + rows.map(([e, s]) => `${e},${s}\n`).join('');

interface Ctx {
  home: Home;
  sb: TestSandbox;
  env: Record<string, string>;
  file: string;
}

/** A home, a sandbox and a list file in the home; closed when the test ends. */
async function setup(
  onTestFinished: (fn: () => Promise<void> | void) => void,
  opts: TestSandboxOptions = {},
  xs: Array<[string, string]> = [],
): Promise<Ctx> {
  const home = await makeHome();
  const { sb, env } = await sandbox(opts, home);
  onTestFinished(async () => {
    await sb.close();
    await home.cleanup();
  });
  const file = join(home.dir, 'list.txt');
  await writeFile(file, list(xs));
  return { home, sb, env, file };
}

/** Validate requests received since index `from`. */
const since = (sb: TestSandbox, from: number) =>
  sb.requests.slice(from).filter((r) => r.path.endsWith('/validate'));

type Spawned = ReturnType<typeof spawnIdv>;

/** Poll `cond`; fail early (with idv's stderr) when the watched idv ended first. */
async function until(cond: () => boolean, ms: number, what: string, proc?: Spawned): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (proc?.ended.done) {
      const r = await proc.p;
      throw new Error(`idv ended (exit ${r.exitCode}) before ${what}; stderr: ${String(r.stderr)}`);
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function spawnIdv(args: string[], env: Record<string, string>) {
  const p = execa('node', [IDV, ...args], {
    env,
    extendEnv: false,
    reject: false,
    cwd: ROOT,
    stdin: 'ignore',
    timeout: 25_000,
    stripFinalNewline: false,
  });
  const chunks: Array<{ t: number; n: number }> = [];
  p.stdout?.on('data', (b: Buffer) => chunks.push({ t: Date.now(), n: b.length }));
  const ended = { done: false };
  void p.then(() => (ended.done = true));
  return { p, chunks, ended };
}

async function cacheLogs(home: Home): Promise<string[]> {
  const dir = join(home.env.XDG_CACHE_HOME!, 'idv');
  return (await readdir(dir)).filter((n) => n.endsWith('.log')).map((n) => join(dir, n));
}

const FAST = ['--retries', '2', '--batch-size', '5', '--concurrency', '1'];

// --- 1. cache and resume ---------------------------------------------------------------------

describe.concurrent('cache and resume', () => {
  it('quota 10 over 25 → exit 4; refill; rerun sends exactly the 15 left; third run sends nothing', async ({ onTestFinished }) => {
    const xs = items(25);
    const { sb, env, file } = await setup(onTestFinished, { quota: 10 }, xs);
    const args = ['emails', file, '--batch-size', '5', '--concurrency', '1', '--retries', '2'];

    const r1 = await run(args, env);
    expect(r1.exitCode, String(r1.stderr)).toBe(4);
    expect(r1.stdout).toBe(csv(xs.map(([e, s], i) => [e, i < 10 ? s : 'quota_exceeded'])));
    expect(sentItems(sb)).toEqual(xs.slice(0, 10).map(([e]) => e));
    expect(r1.stderr).toMatch(/resets in/i);

    sb.setRemaining(100); // a refill of quota 10 would not cover the 15 left
    const n1 = sb.requests.length;
    const r2 = await run(args, env);
    expect(r2.exitCode, String(r2.stderr)).toBe(0);
    expect(r2.stdout).toBe(csv(xs));
    expect(since(sb, n1).flatMap((r) => r.items ?? [])).toEqual(xs.slice(10).map(([e]) => e));

    const n2 = sb.requests.length;
    const r3 = await run(args, env);
    expect(r3.exitCode, String(r3.stderr)).toBe(0);
    expect(r3.stdout).toBe(csv(xs));
    expect(sb.requests.length - n2).toBe(0);
    expect(r3.stderr).toMatch(/\b25\b[^\n]*from the cache/i);
  });

  it('--no-cache neither reads nor writes the cache', async ({ onTestFinished }) => {
    const xs = items(12);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    const r0 = await run(['emails', file, '--no-cache', ...FAST], env);
    expect(r0.exitCode, String(r0.stderr)).toBe(0);
    expect(r0.stdout).toBe(csv(xs));
    const stats0 = await run(['cache', 'stats'], home.env);
    expect(stats0.exitCode, String(stats0.stderr)).toBe(0);
    expect(stats0.stdout).toMatch(/entries\D{0,12}\b0\b/i);

    const r1 = await run(['emails', file, ...FAST], env); // fills the cache: all 12 sent
    expect(r1.exitCode, String(r1.stderr)).toBe(0);
    const n1 = sb.requests.length;
    expect(sentItems(sb)).toHaveLength(24);

    const r2 = await run(['emails', file, '--no-cache', ...FAST], env);
    expect(r2.exitCode, String(r2.stderr)).toBe(0);
    expect(r2.stdout).toBe(csv(xs));
    expect(since(sb, n1).flatMap((r) => r.items ?? [])).toEqual(xs.map(([e]) => e));
  });

  it('the cache is keyed by base URL and normalised item; --dry-run counts cached items', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file, home } = await setup(onTestFinished, { quota: 10 }, xs);
    const r1 = await run(['emails', file, ...FAST], env);
    expect(r1.exitCode, String(r1.stderr)).toBe(0);
    // the same addresses with the domain part upper-cased: cached (normalised key), output keeps the input
    const upper = xs.map(([e, st]): [string, string] => [e.replace(/@(.*)$/, (_m, d: string) => '@' + d.toUpperCase()), st]);
    const fu = join(home.dir, 'upper.txt');
    await writeFile(fu, list(upper));
    const dry = await run(['emails', fu, '--dry-run', '--format', 'json'], env);
    expect(dry.exitCode, String(dry.stderr)).toBe(0);
    expect(JSON.parse(String(dry.stdout))).toMatchObject({ records: 10, unique: 10, invalid: 0, cached: 10, quota: 0 });
    const n = sb.requests.length;
    const r2 = await run(['emails', fu, ...FAST], env);
    expect(r2.exitCode, String(r2.stderr)).toBe(0);
    expect(r2.stdout).toBe(csv(upper));
    expect(sb.requests.length - n).toBe(0);

    // another service (base URL) does not share these results
    const other = await sandbox({}, home);
    onTestFinished(() => other.sb.close());
    const r3 = await run(['emails', file, ...FAST], other.env);
    expect(r3.exitCode, String(r3.stderr)).toBe(0);
    expect(sentItems(other.sb)).toEqual(xs.map(([e]) => e));
  });

  it('--cache-ttl 0s counts nothing as fresh', async ({ onTestFinished }) => {
    const xs = items(5);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    const r1 = await run(['emails', file, ...FAST], env);
    expect(r1.exitCode, String(r1.stderr)).toBe(0);
    // Entries written a moment ago (here: stamped with the current second, as a run that just finished
    // writes them) must not count as fresh with a TTL of 0.
    const [log] = await cacheLogs(home);
    for (let i = 0; i < 3; i++) {
      await sleep(1000 - (Date.now() % 1000)); // to the start of the next second (polling for it missed it under load)
      const sec = Math.floor(Date.now() / 1000);
      const text = await readFile(log!, 'utf8');
      await writeFile(log!, text.replace(/^\d+\t/gm, `${sec}\t`));
      const n = sb.requests.length;
      const r2 = await run(['emails', file, '--cache-ttl', '0s', ...FAST], env);
      expect(r2.exitCode, String(r2.stderr)).toBe(0);
      expect(r2.stdout).toBe(csv(xs));
      expect(since(sb, n).flatMap((q) => q.items ?? []), `run ${i + 2} with --cache-ttl 0s`).toEqual(xs.map(([e]) => e));
    }
  });

  it('--cache-ttl makes older entries stale', async ({ onTestFinished }) => {
    const xs = items(6);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    expect((await run(['emails', file, ...FAST], env)).exitCode).toBe(0);
    // The entries made 5 s older (rather than sleeping until they are): stale for 1s, fresh for 1h.
    const [log] = await cacheLogs(home);
    const stamped = Math.floor(Date.now() / 1000) - 5;
    await writeFile(log!, (await readFile(log!, 'utf8')).replace(/^\d+\t/gm, `${stamped}\t`));
    let n = sb.requests.length;
    const fresh = await run(['emails', file, '--cache-ttl', '1h', ...FAST], env);
    expect(fresh.stdout).toBe(csv(xs));
    expect(sb.requests.length - n).toBe(0);
    n = sb.requests.length;
    const stale = await run(['emails', file, '--cache-ttl', '1s', ...FAST], env);
    expect(stale.exitCode, String(stale.stderr)).toBe(0);
    expect(stale.stdout).toBe(csv(xs));
    expect(since(sb, n).flatMap((r) => r.items ?? [])).toEqual(xs.map(([e]) => e));
  });

  it('two runs at once on overlapping lists share the cache safely; a third run sends nothing', async ({ onTestFinished }) => {
    const all = items(45);
    const a = all.slice(0, 30);
    const b = all.slice(15);
    const { sb, env, home } = await setup(onTestFinished, { delayMs: 30 }, all);
    const fa = join(home.dir, 'a.txt');
    const fb = join(home.dir, 'b.txt');
    const fall = join(home.dir, 'all.txt');
    await writeFile(fa, list(a));
    await writeFile(fb, list(b));
    await writeFile(fall, list(all));
    const opts = ['--batch-size', '3', '--concurrency', '2', '--retries', '2'];
    // Two processes, as two cron jobs would be: the cache is shared through the file system only.
    const [ra, rb] = await Promise.all([runProcess(['emails', fa, ...opts], env), runProcess(['emails', fb, ...opts], env)]);
    expect(ra.exitCode, String(ra.stderr)).toBe(0);
    expect(rb.exitCode, String(rb.stderr)).toBe(0);
    expect(ra.stdout).toBe(csv(a));
    expect(rb.stdout).toBe(csv(b));
    const n = sb.requests.length;
    const r3 = await run(['emails', fall, ...opts], env);
    expect(r3.exitCode, String(r3.stderr)).toBe(0);
    expect(r3.stdout).toBe(csv(all));
    expect(sb.requests.length - n).toBe(0);
    expect(r3.stderr).not.toMatch(/warning|damaged/i);
  });

  it('a torn and a garbage line in the cache log → warning, correct output, only the lost item re-sent', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    expect((await run(['emails', file, ...FAST], env)).exitCode).toBe(0);
    const [log] = await cacheLogs(home);
    expect(log).toBeDefined();
    const text = await readFile(log!, 'utf8');
    const lines = text.split('\n').filter(Boolean);
    const lastKey = lines[lines.length - 1]!.split('\t').pop()!;
    expect(xs.map(([e]) => e)).toContain(lastKey);
    // garbage line in the middle, last line torn (no newline, cut short)
    const body = lines.slice(0, -1);
    body.splice(2, 0, 'garbage \u0000\u00ff line with no tabs');
    await writeFile(log!, body.join('\n') + '\n' + lines[lines.length - 1]!.slice(0, -4));

    const n = sb.requests.length;
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(r.stderr).toMatch(/warning/i);
    expect(since(sb, n).flatMap((q) => q.items ?? [])).toEqual([lastKey]);

    const n2 = sb.requests.length;
    const again = await run(['emails', file, ...FAST], env);
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect(again.stdout).toBe(csv(xs));
    expect(again.stderr).not.toMatch(/warning/i);
    expect(sb.requests.length - n2).toBe(0);
  });

  it('a cache log that is binary garbage → warning, everything re-sent, no crash', async ({ onTestFinished }) => {
    const xs = items(8);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    expect((await run(['emails', file, ...FAST], env)).exitCode).toBe(0);
    const [log] = await cacheLogs(home);
    await writeFile(log!, await readFile(fixture('broken/binary.bin')));
    const n = sb.requests.length;
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(r.stderr).toMatch(/warning/i);
    expect(since(sb, n).flatMap((q) => q.items ?? [])).toEqual(xs.map(([e]) => e));
  });

  it('idv cache stats shows entries and path; idv cache clear empties it', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    expect((await run(['emails', file, ...FAST], env)).exitCode).toBe(0);
    const dir = join(home.env.XDG_CACHE_HOME!, 'idv');
    const s1 = await run(['cache', 'stats'], home.env);
    expect(s1.exitCode, String(s1.stderr)).toBe(0);
    expect(s1.stdout).toContain(dir);
    expect(s1.stdout).toMatch(/entries\D{0,12}\b10\b/i);

    const c = await run(['cache', 'clear', '--yes'], home.env);
    expect(c.exitCode, String(c.stderr)).toBe(0);
    const s2 = await run(['cache', 'stats'], home.env);
    expect(s2.stdout).toMatch(/entries\D{0,12}\b0\b/i);

    const n = sb.requests.length;
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(since(sb, n).flatMap((q) => q.items ?? [])).toEqual(xs.map(([e]) => e));
  });

  it('--sandbox runs never create the cache folder', async ({ onTestFinished }) => {
    const home = await makeHome();
    onTestFinished(() => home.cleanup());
    const r = await run(['emails', fixture('emails.txt'), '--sandbox'], home.env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(existsSync(home.env.XDG_CACHE_HOME!)).toBe(false);
    expect(existsSync(join(home.dir, '.cache'))).toBe(false);
  });
});

// --- 2. SIGKILL mid-run ------------------------------------------------------------------------

describe.concurrent('kill -9 and resume', () => {
  it('a rerun after SIGKILL sends no item the first run saw answered', async ({ onTestFinished }) => {
    const xs = items(40);
    const { sb, env, file } = await setup(onTestFinished, { delayMs: 200 }, xs);
    const proc = spawnIdv(['emails', file, '--batch-size', '5', '--concurrency', '1', '--retries', '2'], env);
    const { p } = proc;
    await until(() => sb.requests.filter((r) => r.status === 200).length >= 2, 15_000, 'two answers', proc);
    // Kill once the client has stored what the server answered so far (a fixed sleep is not enough on a busy
    // machine): the next request is then in flight, its answer lost with the process.
    const answered = new Set(sb.requests.filter((r) => r.status === 200).flatMap((r) => r.items ?? []));
    const logged = () => {
      const dir = join(env.XDG_CACHE_HOME!, 'idv');
      const log = readdirSync(dir).find((n) => n.endsWith('.log'));
      const text = log ? readFileSync(join(dir, log), 'utf8') : '';
      return [...answered].every((e) => text.includes(`\t${e}\n`));
    };
    await until(logged, 15_000, 'the answers in the cache', proc);
    p.kill('SIGKILL');
    const r1 = await p;
    hygiene(r1);
    expect(r1.signal).toBe('SIGKILL');
    expect(answered.size).toBeGreaterThanOrEqual(10);
    expect(answered.size).toBeLessThan(40);

    const n = sb.requests.length;
    const r2 = await run(['emails', file, '--batch-size', '5', '--concurrency', '1', '--retries', '2'], env);
    expect(r2.exitCode, String(r2.stderr)).toBe(0);
    expect(r2.stdout).toBe(csv(xs));
    const resent = since(sb, n).flatMap((q) => q.items ?? []).filter((e) => answered.has(e));
    expect(resent).toEqual([]);
  });
});

// --- 3. rate limits ----------------------------------------------------------------------------

describe.concurrent('rate limits', () => {
  it('RateLimit r smaller than the batch cuts the next batch to r; r = 0 sends nothing more', async ({ onTestFinished }) => {
    const xs = items(20);
    const { sb, env, file } = await setup(onTestFinished, { quota: 1000 }, xs);
    sb.setRemaining(7);
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(sentBatches(sb).map((b) => b.length)).toEqual([5, 2]);
    expect(sb.requests.map((q) => q.status)).toEqual([200, 200]);
    expect(r.stdout).toBe(csv(xs.map(([e, s], i) => [e, i < 7 ? s : 'quota_exceeded'])));
    expect(r.stderr).toMatch(/resets in/i);
  });

  it('r = 0 in a successful answer: no request after it, exit 4', async ({ onTestFinished }) => {
    const xs = items(20);
    const { sb, env, file } = await setup(onTestFinished, { quota: 1000 }, xs);
    sb.setRemaining(5);
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(sentBatches(sb)).toHaveLength(1);
    expect(r.stdout).toBe(csv(xs.map(([e, s], i) => [e, i < 5 ? s : 'quota_exceeded'])));
    expect(r.stderr).toMatch(/resets in/i);
  });

  it('429 (HTML body) on the first request: nothing more sent, all quota_exceeded, exit 4', async ({ onTestFinished }) => {
    const xs = items(12);
    const { sb, env, file } = await setup(onTestFinished, { quota: 1000 }, xs);
    sb.setRemaining(0);
    sb.inject({ kind: 'status', status: 429, body: '<html><body>Slow down</body></html>' });
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(sentBatches(sb)).toHaveLength(1);
    expect(r.stdout).toBe(csv(xs.map(([e]) => [e, 'quota_exceeded'])));
    expect(r.stderr).toMatch(/resets in/i);
  });

  it('RateLimit is read tolerantly (spacing, parameter order): r = 0 stops the run', async ({ onTestFinished }) => {
    const xs = items(15);
    const { sb, env, file } = await setup(onTestFinished, { quota: 1000 }, xs);
    const first = xs.slice(0, 5);
    sb.inject({
      kind: 'status',
      status: 200,
      body: JSON.stringify({ emails: Object.fromEntries(first.map(([e, st]) => [e, { status: st }])) }),
      headers: { RateLimit: '"validations" ; t=1800 ;  r=0', 'RateLimit-Policy': 'w=3600;"validations";q=50' },
    });
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(sentBatches(sb)).toHaveLength(1);
    expect(r.stdout).toBe(csv(xs.map(([e, st], i) => [e, i < 5 ? st : 'quota_exceeded'])));
    expect(r.stderr).toMatch(/resets in (29m|30m)/i);
  });

  it('--wait with a 2 s window waits for the reset and finishes, exit 0', async ({ onTestFinished }) => {
    const xs = items(12);
    const { sb, env, file } = await setup(onTestFinished, { quota: 6, window: 2 }, xs);
    const r = await run(['emails', file, '--wait', ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(sentItems(sb).sort()).toEqual(xs.map(([e]) => e).sort());
    expect(sb.requests.every((q) => q.status === 200)).toBe(true);
    expect(r.stderr).toMatch(/wait/i);
  });

  it('--wait on a 429 that only says Retry-After: 1 waits and goes on', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file } = await setup(onTestFinished, { quota: 0 }, xs); // unlimited: no RateLimit headers
    sb.inject({ kind: 'status', status: 429, body: '', headers: { 'Retry-After': '1' } });
    const r = await run(['emails', file, '--wait', ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(sb.requests.map((q) => q.status)).toEqual([429, 200, 200]);
    expect(sb.requests[1]!.startedAt - sb.requests[0]!.endedAt).toBeGreaterThanOrEqual(900);
  });

  it('SIGINT during a --wait wait → exit 130 promptly; the rerun sends only what was not validated', async ({ onTestFinished }) => {
    const xs = items(12);
    const { sb, env, file } = await setup(onTestFinished, { quota: 5, window: 3600 }, xs);
    const proc = spawnIdv(['emails', file, '--wait', ...FAST], env);
    await until(() => sb.requests.some((q) => q.status === 200), 15_000, 'an answer', proc);
    await sleep(300); // now waiting for the window to reset
    const t0 = Date.now();
    proc.p.kill('SIGINT');
    const r1 = await proc.p;
    hygiene(r1);
    expect(r1.exitCode, String(r1.stderr)).toBe(130);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(sentBatches(sb)).toHaveLength(1);
    sb.setRemaining(100);
    const r2 = await run(['emails', file, '--wait', ...FAST], env);
    expect(r2.exitCode, String(r2.stderr)).toBe(0);
    expect(r2.stdout).toBe(csv(xs));
    expect(sentBatches(sb).slice(1).flat()).toEqual(xs.slice(5).map(([e]) => e));
  });

  it('--wait --max-wait 1s with a one-hour window stops at once with exit 4', async ({ onTestFinished }) => {
    const xs = items(12);
    const { sb, env, file } = await setup(onTestFinished, { quota: 5, window: 3600 }, xs);
    const t0 = Date.now();
    const r = await run(['emails', file, '--wait', '--max-wait', '1s', ...FAST], env);
    expect(Date.now() - t0).toBeLessThan(15_000); // not the hour the window asks
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(sentBatches(sb)).toHaveLength(1);
    expect(r.stdout).toBe(csv(xs.map(([e, s], i) => [e, i < 5 ? s : 'quota_exceeded'])));
    expect(r.stderr).toMatch(/resets in/i);
  });
});

// --- 4. retries ------------------------------------------------------------------------------

describe.concurrent('retries and faults', () => {
  it('500 twice then success → all validated, 3 requests for that batch, exit 0', async ({ onTestFinished }) => {
    const xs = items(5);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'status', status: 500 }, 2);
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    const all = xs.map(([e]) => e);
    expect(sentBatches(sb)).toEqual([all, all, all]);
    expect(sb.requests.map((q) => q.status)).toEqual([500, 500, 200]);
  });

  it('503 more times than --retries → that batch is error, exit 1, other batches ok', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'status', status: 503 }, 3);
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(1);
    expect(r.stdout).toBe(csv(xs.map(([e, s], i) => [e, i < 5 ? 'error' : s])));
    expect(sb.requests.map((q) => q.status)).toEqual([503, 503, 503, 200]);
    expect(sentBatches(sb)[3]).toEqual(xs.slice(5).map(([e]) => e));
  });

  for (const [name, fault] of [
    ['reset', { kind: 'reset' }],
    ['garbage', { kind: 'garbage' }],
    ['truncated', { kind: 'truncated' }],
    ['408', { kind: 'status', status: 408 }],
  ] as const) {
    it(`${name} is retried`, async ({ onTestFinished }) => {
      const xs = items(5);
      const { sb, env, file } = await setup(onTestFinished, {}, xs);
      sb.inject(fault);
      const r = await run(['emails', file, ...FAST], env);
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(r.stdout).toBe(csv(xs));
      const all = xs.map(([e]) => e);
      expect(sentBatches(sb)).toEqual([all, all]);
    });
  }

  it('a kept-alive connection the server reset as it was reused: sent again at once on a fresh one, no retry spent', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'none' }); // the first request opens the connection…
    sb.inject({ kind: 'reset' }); // …the second, on the same connection, is reset before any answer
    const r = await run(['emails', file, '--batch-size', '5', '--concurrency', '1', '--retries', '0', '-q'], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    const [first, second] = [xs.slice(0, 5), xs.slice(5)].map((b) => b.map(([e]) => e));
    expect(sentBatches(sb)).toEqual([first, second, second]);
  });

  it('the summary counts items the service answered, once each, not every attempt', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'status', status: 503 }, 2);
    const r = await run(['emails', file, '--retries', '2', '--batch-size', '5', '--concurrency', '1'], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(sb.requests).toHaveLength(4);
    expect(String(r.stderr)).toContain('0 items from the cache · 10 items sent in 4 requests');
  });

  it('--concurrency 12: no listener warning on stderr', async ({ onTestFinished }) => {
    const xs = items(60);
    const { env, file } = await setup(onTestFinished, {}, xs);
    const r = await run(['emails', file, '--batch-size', '5', '--concurrency', '12', '-q'], env);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(r.stderr).toBe('');
  });

  it('a hung request with --timeout 1 is retried and then succeeds', async ({ onTestFinished }) => {
    const xs = items(5);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'hang' });
    const t0 = Date.now();
    const r = await run(['emails', file, '--timeout', '1', ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(sentBatches(sb)).toHaveLength(2);
    // the client gave up on the hung request after about --timeout 1, not the default 30 s
    const hung = sb.requests[0]!.endedAt - sb.requests[0]!.startedAt;
    expect(hung).toBeGreaterThanOrEqual(500);
    expect(hung).toBeLessThan(6000);
    expect(Date.now() - t0).toBeLessThan(20_000);
  });

  it('Retry-After: 1 on a 503 is honoured', async ({ onTestFinished }) => {
    const xs = items(5);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'status', status: 503, headers: { 'Retry-After': '1' } });
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(sb.requests).toHaveLength(2);
    const gap = sb.requests[1]!.startedAt - sb.requests[0]!.endedAt;
    expect(gap).toBeGreaterThanOrEqual(900);
    expect(gap).toBeLessThan(6000);
  });

  it('Retry-After as an HTTP date is honoured', async ({ onTestFinished }) => {
    const xs = items(5);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    // whole seconds: at least ~1 s from now
    sb.inject({ kind: 'status', status: 503, headers: { 'Retry-After': new Date(Math.ceil(Date.now() / 1000) * 1000 + 3000).toUTCString() } });
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(sb.requests).toHaveLength(2);
    expect(sb.requests[1]!.startedAt - sb.requests[0]!.endedAt).toBeGreaterThanOrEqual(900);
  });

  for (const style of ['413', '400'] as const) {
    it(`a batch refused as too large (${style}) is split; every item validated once`, async ({ onTestFinished }) => {
      const xs = items(20);
      const { sb, env, file } = await setup(onTestFinished, {}, xs);
      sb.setMaxBatch(4, style);
      const r = await run(['emails', file, '--batch-size', '10', '--concurrency', '1', '--retries', '2'], env);
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(r.stdout).toBe(csv(xs));
      const reqs = sb.requests;
      for (const q of reqs) {
        if (q.status === 200) expect(q.items!.length).toBeLessThanOrEqual(4);
        else expect(q.status).toBe(Number(style));
      }
      const firstOk = reqs.findIndex((q) => q.status === 200);
      expect(reqs.slice(firstOk).every((q) => q.items!.length <= 4)).toBe(true);
      const validated = reqs.filter((q) => q.status === 200).flatMap((q) => q.items!);
      expect(validated.sort()).toEqual(xs.map(([e]) => e).sort());
    });
  }

  it('a quota stop with some error items exits 4 (4 wins over 1)', async ({ onTestFinished }) => {
    const xs = items(20);
    const { sb, env, file } = await setup(onTestFinished, { quota: 7 }, xs);
    sb.inject({ kind: 'status', status: 503 }, 3);
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(r.stdout).toBe(csv(xs.map(([e, st], i) => [e, i < 5 ? 'error' : i < 12 ? st : 'quota_exceeded'])));
    expect(sentBatches(sb).map((b) => b.length)).toEqual([5, 5, 5, 5, 2]);
  });

  it('a 401 after the quota stop exits 3 (3 wins over 4): the key is what needs fixing first', async ({ onTestFinished }) => {
    // Two batches in flight: the first is answered 429 once the second has arrived, the second 401 just after.
    const home = await makeHome();
    const held: http.ServerResponse[] = [];
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        held.push(res);
        if (held.length < 2) return;
        held[0]!.writeHead(429, { 'Content-Type': 'application/json', RateLimit: '"validations";r=0;t=600' }).end('{"message":"Quota exceeded."}');
        setTimeout(() => held[1]!.writeHead(401, { 'Content-Type': 'application/json' }).end('{"message":"Unauthorized."}'), 100);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    onTestFinished(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await home.cleanup();
    });
    const xs = items(10);
    const file = join(home.dir, 'list.txt');
    await writeFile(file, list(xs));
    const env = { ...home.env, IDV_API_KEY: KEY, IDV_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    const r = await run(['emails', file, '--batch-size', '5', '--concurrency', '2', '--retries', '0'], env);
    expect(held).toHaveLength(2);
    expect(r.stderr).toBe('idv: The service refused the API key (401 Unauthorized); check it, or store a new one with idv auth login.\n');
    expect(r.exitCode).toBe(3);
  });

  it('an item dropped from the answer → error, exit 1, not re-sent in that run', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'drop' }); // the last item of the first batch
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(1);
    expect(r.stdout).toBe(csv(xs.map(([e, s], i) => [e, i === 4 ? 'error' : s])));
    expect(sentItems(sb).filter((e) => e === xs[4]![0])).toHaveLength(1);
    expect(sentBatches(sb)).toHaveLength(2);
    // `error` is not cached: the rerun sends exactly that item
    const n = sb.requests.length;
    const r2 = await run(['emails', file, ...FAST], env);
    expect(r2.exitCode, String(r2.stderr)).toBe(0);
    expect(r2.stdout).toBe(csv(xs));
    expect(since(sb, n).flatMap((q) => q.items ?? [])).toEqual([xs[4]![0]]);
  });

  it('401 in the middle of a run → exit 3, no request after it', async ({ onTestFinished }) => {
    const xs = items(15);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'status-for', status: 'ok', item: 'no-such-item' }); // a no-op: first request answers normally
    sb.inject({ kind: 'status', status: 401, body: '{"message": "Unauthorized."}' });
    const r = await run(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(3);
    expect(sb.requests.map((q) => q.status)).toEqual([200, 401]);
    expect(r.stderr).toMatch(/401|key/i);
  });
});

// --- 5. signals, atomic output, closed stdout --------------------------------------------------

describe.concurrent('signals and output files', () => {
  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${sig} mid-run → exit ${code}, no stack, nothing more on stdout, answered results cached`, async ({ onTestFinished }) => {
      const xs = items(30);
      const { sb, env, file } = await setup(onTestFinished, { delayMs: 300 }, xs);
      const args = ['emails', file, '--batch-size', '5', '--concurrency', '1', '--retries', '2'];
      const proc = spawnIdv(args, env);
      const { p, chunks } = proc;
      await until(() => sb.requests.filter((r) => r.status === 200).length >= 1 && sb.requests.length >= 2, 15_000, 'one answer', proc);
      const killedAt = Date.now();
      const bytesBefore = chunks.reduce((a, c) => a + c.n, 0);
      p.kill(sig);
      const r1 = await p;
      hygiene(r1);
      expect(r1.exitCode, String(r1.stderr)).toBe(code);
      expect(r1.stderr).not.toMatch(/Error:|unexpected/);
      expect(chunks.filter((c) => c.t > killedAt + 20).reduce((a, c) => a + c.n, 0)).toBe(0);
      expect(Buffer.byteLength(String(r1.stdout))).toBe(bytesBefore);
      expect(sb.requests.length).toBeLessThan(6); // no new requests after the signal

      const answered = new Set(sb.requests.filter((q) => q.status === 200).flatMap((q) => q.items ?? []));
      const n = sb.requests.length;
      const r2 = await run(args, env);
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
    const args = ['emails', file, '--timeout', '30', ...FAST];
    const one = spawnIdv(args, env);
    await until(() => sb.requests.length >= 1, 15_000, 'a request', one);
    await sleep(100);
    let t0 = Date.now();
    one.p.kill('SIGINT');
    const r1 = await one.p;
    hygiene(r1);
    expect(r1.exitCode, String(r1.stderr)).toBe(130);
    expect(Date.now() - t0).toBeLessThan(15_000); // a few seconds of grace, not the 30 s time-out
    expect(r1.stdout).toBe('');

    const n = sb.requests.length;
    const two = spawnIdv(args, env);
    await until(() => sb.requests.length > n, 15_000, 'a request', two);
    await sleep(100);
    two.p.kill('SIGINT');
    await sleep(200);
    t0 = Date.now();
    two.p.kill('SIGINT');
    const r2 = await two.p;
    hygiene(r2);
    expect(r2.exitCode, String(r2.stderr)).toBe(130);
    expect(Date.now() - t0).toBeLessThan(2500); // before the grace period of the first one ends
  });

  it('-o out.csv: interrupted or failed runs leave it byte-identical; a successful one replaces it', async ({ onTestFinished }) => {
    const xs = items(20);
    const { sb, env, file, home } = await setup(onTestFinished, { delayMs: 150 }, xs);
    const outDir = join(home.dir, 'results');
    await mkdir(outDir);
    const out = join(outDir, 'out.csv');
    const old = Buffer.from('email,status\r\nold@example.com,ok\r\n\u00e9\u0000tail');
    await writeFile(out, old);
    const files = async () => (await readdir(outDir)).sort();
    const before = await files();

    // interrupted
    const proc = spawnIdv(['emails', file, '-o', out, ...FAST], env);
    const { p } = proc;
    await until(() => sb.requests.some((r) => r.status === 200), 15_000, 'an answer', proc);
    p.kill('SIGINT');
    const ri = await p;
    hygiene(ri);
    expect(ri.exitCode, String(ri.stderr)).toBe(130);
    expect(await readFile(out)).toEqual(old);
    expect(await files()).toEqual(before);

    // failed: key refused
    const rf = await run(['emails', file, '-o', out, ...FAST], { ...env, IDV_API_KEY: 'sk_test_wrong_key_0000' });
    expect(rf.exitCode, String(rf.stderr)).toBe(3);
    expect(await readFile(out)).toEqual(old);
    // failed: unreadable input
    const ru = await run(['emails', join(home.dir, 'missing.txt'), '-o', out], env);
    expect(ru.exitCode, String(ru.stderr)).toBe(2);
    expect(await readFile(out)).toEqual(old);
    expect(await files()).toEqual(before);

    // success
    const rs = await run(['emails', file, '-o', out, '--batch-size', '20'], env);
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
    const r = await run(['emails', file, '-o', out, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(r.stdout).toBe('');
    expect(await readFile(out, 'utf8')).toBe(csv(xs.map(([e, st], i) => [e, i < 5 ? st : 'quota_exceeded'])));
  });

  it('a closed stdout (| head -n 2) ends the run quietly', async ({ onTestFinished }) => {
    const home = await makeHome();
    onTestFinished(() => home.cleanup());
    const xs = items(5000);
    const file = join(home.dir, 'big.txt');
    await writeFile(file, list(xs));
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

// --- 6. hostile input ------------------------------------------------------------------------

/** A refusal: exit 2, one line on stderr (exactly `message`), nothing on stdout, nothing sent. */
function refused(r: FakeRun, message: string, sb?: Sandbox): void {
  hygiene(r);
  expect(r.exitCode, String(r.stderr)).toBe(2);
  expect(r.stderr).toBe(`idv: ${message}\n`);
  expect(r.stdout).toBe('');
  if (sb) expect(sentItems(sb)).toEqual([]);
}

describe.concurrent('hostile input', () => {
  it('a directory → one-line error, exit 2', async ({ onTestFinished }) => {
    const { env, home } = await setup(onTestFinished);
    refused(await run(['emails', home.dir, '-q'], env), `Cannot read ${home.dir}: it is a directory; give a file.`);
  });

  it('binary.bin (a PNG) is named for what it is: exit 2, nothing sent', async ({ onTestFinished }) => {
    const { sb, env } = await setup(onTestFinished);
    const f = fixture('broken/binary.bin');
    refused(await run(['emails', f, '-q'], env), `${f} is an image, not a list or CSV file; give a text list (one address a line) or a CSV export.`, sb);
  });

  it('a quoted cell that never closes, in a file read whole before anything is sent: exit 2 naming its line, nothing sent', async ({ onTestFinished }) => {
    const { sb, env } = await setup(onTestFinished);
    const f = fixture('broken/unterminated-quote.csv');
    refused(await run(['emails', f, '-q'], env), `${f} is not well-formed CSV: a quoted cell in the record that starts on line 3 is never closed; check the file.`, sb);
  });

  it('an empty file → no records, exit 0', async ({ onTestFinished }) => {
    const { sb, env, home } = await setup(onTestFinished);
    const empty = join(home.dir, 'empty.txt');
    await writeFile(empty, '');
    const r = await run(['emails', empty, '-q'], env);
    hygiene(r);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe('email,status\n');
    expect(sentItems(sb)).toEqual([]);
  });

  it('a 2 MB single line → one invalid record, exit 0, nothing sent', async ({ onTestFinished }) => {
    const { sb, env, home } = await setup(onTestFinished);
    const f = join(home.dir, 'long.txt');
    await writeFile(f, 'a'.repeat(2 * 1024 * 1024) + '\n');
    const r = await run(['emails', f, '-q'], env);
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
    const r = await run(['emails', f, '-q'], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe('email,status\na@gmail.com,ok\nb@mailinator.com,disposable\n');
    expect(sentBatches(sb)).toEqual([['a@gmail.com', 'b@mailinator.com']]);
  });

  it('NUL bytes (a file, standard input) → a binary file: exit 2, nothing sent', async ({ onTestFinished }) => {
    const { sb, env, home } = await setup(onTestFinished);
    const f = join(home.dir, 'nul.txt');
    await writeFile(f, 'a@gmail.com\n\u0000\u0000\u0000\nb\u0000c@gmail.com\n\u0000d@gmail.com\n');
    const binary = 'is a binary file (it holds NUL bytes), not a list or CSV file; give a text list (one address a line) or a CSV export.';
    refused(await run(['emails', f, '-q'], env), `${f} ${binary}`, sb);
    refused(await run(['emails', '-', '-q'], { ...env }, { input: Buffer.from('x@gmail.com\n\0\0\n') }), `standard input ${binary}`, sb);
  });

  it('NUL bytes past the first block of a text file: exit 2 naming the byte', async ({ onTestFinished }) => {
    const { env, home } = await setup(onTestFinished);
    const f = join(home.dir, 'late-nul.txt');
    const text = Array.from({ length: 10_000 }, (_, i) => `u${i}@gmail.com\n`).join('');
    await writeFile(f, text + '\0x@gmail.com\n');
    const r = await run(['emails', f, '-q', '--max-spend', '0'], env);
    hygiene(r);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(`idv: ${f} holds a NUL byte (at byte ${text.length.toLocaleString('en-US')}): it is not a text list or CSV file; check the file.\n`);
  });
});

// --- 7. key hygiene ----------------------------------------------------------------------------

describe.concurrent('key hygiene', () => {
  it('--verbose logs each request (endpoint, items, HTTP status, rate-limit headers) with the key masked', async ({ onTestFinished }) => {
    const xs = items(12);
    const { sb, env, file } = await setup(onTestFinished, { quota: 100 }, xs);
    sb.inject({ kind: 'status', status: 503 });
    const r = await run(['emails', file, '--verbose', ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    const lines = String(r.stderr).split('\n').filter((l) => l.includes('/emails/validate'));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/\b5\b/);
    expect(lines[0]).toMatch(/\b503\b/);
    expect(lines[1]).toMatch(/\b5\b/);
    expect(lines[1]).toMatch(/\b200\b/);
    expect(lines[2]).toMatch(/\b5\b/);
    expect(lines[3]).toMatch(/\b2\b/);
    expect(lines[3]).toMatch(/\b200\b/);
    expect(lines[3]).toMatch(/r=88/);
  });

  it('the key appears nowhere on a 401, a network failure or auth status', async ({ onTestFinished }) => {
    const xs = items(3);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    sb.inject({ kind: 'status', status: 401, body: `{"message": "Unauthorized: ${KEY}"}` });
    const r1 = await run(['emails', file, '--verbose', ...FAST], env);
    expect(r1.exitCode, String(r1.stderr)).toBe(3);
    const r2 = await run(['emails', file, '--verbose', '--retries', '1', '--timeout', '1'], {
      ...env,
      IDV_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(r2.exitCode, String(r2.stderr)).toBe(1);
    const r3 = await run(['auth', 'status'], env);
    expect(r3.exitCode, String(r3.stderr)).toBe(0);
    expect(r3.stdout).toMatch(/\*{2,}|…/);
  });

  it('a key from the config file never shows, even when the service echoes it in an error body', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    const { IDV_API_KEY: _k, ...noKeyEnv } = env;
    const login = await run(['auth', 'login'], noKeyEnv, { input: KEY + '\n' });
    expect(login.exitCode, String(login.stderr)).toBe(0);
    sb.inject({ kind: 'status', status: 400, body: JSON.stringify({ message: `Bad request for key ${KEY}` }) });
    sb.inject({ kind: 'status', status: 500, body: JSON.stringify({ message: `Internal error, key ${KEY}` }) }, 3);
    const r = await run(['emails', file, '--verbose', ...FAST], noKeyEnv);
    expect(r.exitCode, String(r.stderr)).toBe(1);
    expect(r.stdout).toBe(csv(xs.map(([e]) => [e, 'error'])));
    expect(String(r.stderr)).not.toContain(KEY); // test/redaction.test.ts covers each way the service may repeat it
    const st = await run(['auth', 'status'], noKeyEnv);
    expect(st.exitCode, String(st.stderr)).toBe(0);
  });
});

