// Runs checked after every one: the key never shown, no stack trace ("hygiene"); a home, a sandbox and a list per
// test; items of known sandbox classes; a spawned idv watched as it runs. Shared by the end-to-end files of
// cron-grade runs (resume, quota waits, retries, signals, odd files).
import { expect } from 'vitest';
import { execa, type Result } from 'execa';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestSandbox, TestSandboxOptions } from '../sandbox/test-sandbox.js';
import { IDV, ROOT, idv, makeHome, sandbox, sentItems, type Home } from '../helpers.js';
import { run as runIn, type FakeOptions, type FakeRun } from '../fake-io.js';

export const KEY = 'sk_test_0123456789abcdef';
export const KEY_SECRET = '0123456789abcdef';

/** Key hygiene and "never a stack trace", checked after every run. */
export function hygiene(r: { stdout?: unknown; stderr?: unknown }): void {
  const text = `${String(r.stdout ?? '')}\n${String(r.stderr ?? '')}`;
  expect(text, 'the API key leaked').not.toContain(KEY);
  expect(text, 'the secret part of the API key leaked').not.toContain(KEY_SECRET);
  expect(String(r.stderr ?? ''), 'a stack trace on stderr').not.toMatch(/^\s+at\s.+/m);
}

/** Run idv in this process (test/fake-io.ts); a run that hangs fails at the test's time-out. */
export async function runChecked(args: string[], env: Record<string, string>, o: FakeOptions = {}): Promise<FakeRun> {
  const r = await runIn(args, { env, ...o });
  hygiene(r);
  return r;
}

/** Run the built idv as a process, for what needs one (two processes sharing the cache). */
export async function runProcess(args: string[], env: Record<string, string>): Promise<Result> {
  const r = await idv(args, { env, timeout: 25_000 });
  hygiene(r);
  expect(r.timedOut, `idv ${args.join(' ')} timed out`).toBe(false);
  return r;
}

/** Items with known sandbox classes, lower-case so the cache key is the item itself. */
export function items(n: number, p = 'u'): Array<[string, string]> {
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
export const listOf = (xs: Array<[string, string]>) => xs.map(([e]) => e).join('\n') + '\n';
export const csv = (rows: Array<[string, string]>) => 'email,status\n' + rows.map(([e, s]) => `${e},${s}\n`).join('');

export interface Ctx {
  home: Home;
  sb: TestSandbox;
  env: Record<string, string>;
  file: string;
}

/** A home, a sandbox and a list file in the home; closed when the test ends. */
export async function setup(
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
  await writeFile(file, listOf(xs));
  return { home, sb, env, file };
}

/** Validate requests received since index `from`. */
export const since = (sb: TestSandbox, from: number) =>
  sb.requests.slice(from).filter((r) => r.path.endsWith('/validate'));

export type Spawned = ReturnType<typeof spawnIdv>;

/** Poll `cond`; fail early (with idv's stderr) when the watched idv ended first. */
export async function until(cond: () => boolean, ms: number, what: string, proc?: Spawned): Promise<void> {
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
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function spawnIdv(args: string[], env: Record<string, string>) {
  const p = execa('node', [IDV, ...args], {
    env,
    extendEnv: false,
    reject: false,
    cwd: ROOT,
    stdin: 'ignore',
    timeout: 25_000,
    stripFinalNewline: false,
  });
  const chunks: Array<{ n: number }> = [];
  p.stdout?.on('data', (b: Buffer) => chunks.push({ n: b.length }));
  const ended = { done: false };
  void p.then(() => (ended.done = true));
  return { p, chunks, ended };
}

export async function cacheLogs(home: Home): Promise<string[]> {
  const dir = join(home.env.XDG_CACHE_HOME!, 'idv');
  return (await readdir(dir)).filter((n) => n.endsWith('.log')).map((n) => join(dir, n));
}

export const FAST = ['--retries', '2', '--batch-size', '5', '--concurrency', '1'];

/** A refusal: exit 2, one line on stderr (exactly `message`), nothing on stdout, nothing sent. */
export function refused(r: FakeRun, message: string, sb?: TestSandbox): void {
  hygiene(r);
  expect(r.exitCode, String(r.stderr)).toBe(2);
  expect(r.stderr).toBe(`idv: ${message}\n`);
  expect(r.stdout).toBe('');
  if (sb) expect(sentItems(sb)).toEqual([]);
}
