// Shared by the end-to-end tests: run the built `idv` (bin/idv.js → dist/) with execa, in a clean
// environment with its own HOME, config and cache folders, against a sandbox started in this process.
import { execa, type Options, type Result } from 'execa';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestSandbox, type TestSandbox, type TestSandboxOptions } from './sandbox/test-sandbox.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const IDV = join(ROOT, 'bin', 'idv.js');
export const fixture = (name: string) => join(ROOT, 'fixtures', name);

export interface Home {
  dir: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** A fresh HOME with its own XDG config and cache folders. */
export async function makeHome(): Promise<Home> {
  const dir = await mkdtemp(join(tmpdir(), 'idv-test-'));
  return {
    dir,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'config'),
      XDG_CACHE_HOME: join(dir, 'cache'),
      LANG: 'C.UTF-8',
      // A closed port on loopback: a test that forgets its sandbox fails at once, and never looks up the real service.
      IDV_BASE_URL: 'http://127.0.0.1:9',
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Run fn with a fresh HOME, always removing it. */
export async function withHome<T>(fn: (home: Home) => Promise<T>): Promise<T> {
  const home = await makeHome();
  try {
    return await fn(home);
  } finally {
    await home.cleanup();
  }
}

export interface TestHome extends Home {
  /** Write `content` as the file `name` in the home's folder; its path. */
  file(name: string, content: string | Buffer): Promise<string>;
  /** Write `lines` as a list file in the home's folder; its path. */
  list(lines: string[], name?: string): Promise<string>;
}

/** A fresh HOME for each test of the file (or describe) that calls this, removed after the test; read it inside tests. */
export function homeForEachTest(): TestHome {
  // Each test's own home, by test: a concurrent test beside these never shares or leaks one.
  const homes = new Map<string, Home>();
  let current: Home | undefined;
  beforeEach(async ({ task }) => {
    current = await makeHome();
    homes.set(task.id, current);
  });
  afterEach(async ({ task }) => {
    await homes.get(task.id)?.cleanup();
    homes.delete(task.id);
  });
  const now = (): Home => {
    if (!current) throw new Error('homeForEachTest(): the home exists only while a test runs');
    return current;
  };
  return {
    get dir() {
      return now().dir;
    },
    get env() {
      return now().env;
    },
    cleanup: () => now().cleanup(),
    file: async (name, content) => {
      const p = join(now().dir, name);
      await writeFile(p, content);
      return p;
    },
    list: (lines, name) => writeList(now(), lines, name),
  };
}

/** Write `lines` as a list file in the home's folder; its path. */
export async function writeList(home: Home, lines: string[], name = 'list.txt'): Promise<string> {
  const p = join(home.dir, name);
  await writeFile(p, lines.join('\n') + '\n');
  return p;
}

/** A run's elapsed time in its summary, as a pattern: `2.4 s` under ten seconds, `12s`, `1m 5s` from there (a busy machine). */
export const ELAPSED = '(?:\\d+\\.\\d s|\\d+m \\d+s|\\d+[ms])';

/** `n` distinct addresses of the sandbox's `ok` class, in order: user00@example.com, user01@… */
export const addresses = (n: number) => Array.from({ length: n }, (_, i) => `user${String(i).padStart(2, '0')}@example.com`);

/** A JSON file (a --report) as an object. */
export const readJson = async (p: string) => JSON.parse(await readFile(p, 'utf8')) as Record<string, unknown>;

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  cwd?: string;
  timeout?: number;
  /** After a kill(), the SIGKILL execa sends if the process has not ended (default 5 s; false: none, for a test that waits out a grace itself). */
  forceKillAfterDelay?: number | false;
}

/** Run the built idv; never rejects: look at exitCode, stdout, stderr. */
export function idv(args: string[], o: RunOptions = {}): Promise<Result> {
  const options: Record<string, unknown> = {
    env: o.env as Record<string, string>,
    extendEnv: false,
    reject: false,
    cwd: o.cwd ?? ROOT,
    timeout: o.timeout ?? 30_000,
    stripFinalNewline: false,
  };
  if (o.forceKillAfterDelay !== undefined) options.forceKillAfterDelay = o.forceKillAfterDelay;
  if (o.input !== undefined) options.input = o.input;
  else options.stdin = 'ignore';
  return execa('node', [IDV, ...args], options as Options) as unknown as Promise<Result>;
}

/** Start a sandbox and give the env that points idv at it with its key. */
export async function sandbox(opts: TestSandboxOptions = {}, home?: Home): Promise<{ sb: TestSandbox; env: Record<string, string> }> {
  const sb = await startTestSandbox({ key: 'sk_test_0123456789abcdef', ...opts });
  return { sb, env: { ...(home?.env ?? {}), IDV_BASE_URL: sb.url, IDV_API_KEY: sb.key } };
}

/** One home and one sandbox for a whole test file: made before its first test, given to `ready`, removed after its last. */
export function sandboxForFile(opts: TestSandboxOptions, ready: (made: { home: Home; sb: TestSandbox; env: Record<string, string> }) => void): void {
  let made: { home: Home; sb: TestSandbox } | undefined;
  beforeAll(async () => {
    const home = await makeHome();
    const { sb, env } = await sandbox(opts, home);
    made = { home, sb };
    ready({ home, sb, env });
  });
  afterAll(async () => {
    await made?.sb.close();
    await made?.home.cleanup();
  });
}

/** The items of every validate request the sandbox received, in order. */
export function sentBatches(sb: TestSandbox): string[][] {
  return sb.requests.filter((r) => r.path.endsWith('/validate')).map((r) => r.items ?? []);
}
export function sentItems(sb: TestSandbox): string[] {
  return sentBatches(sb).flat();
}

/**
 * The line of an interrupted `emails`/`domains` run (exit 130, 143, 129): how far it got and the command that goes
 * on (its counts depend on when the signal came).
 */
export function interruptedLine(signal: string, end = '\n'): RegExp {
  return new RegExp(`^idv: Interrupted \\(${signal}\\): [^\\n]*\\. To (go on without paying for them again|run it again): idv [^\\n]*${end}$`);
}
