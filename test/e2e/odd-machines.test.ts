// The environments a real install meets: each failure ends with one line and its
// documented exit code, never "unexpected error". Where the process itself matters (a user with no
// passwd entry, a deleted working directory, how the bin is found, a terminal) the built idv is spawned;
// the rest runs in-process.
//
// "A user with no passwd entry": a uid the machine does not know (12345), run as root with
// `setpriv --reuid`, or otherwise in a user namespace with `unshare --map-user` (util-linux). os.homedir()
// then throws uv_os_homedir when HOME is unset. Where neither can run, those tests say loudly that they skipped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa, type Result } from 'execa';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter as PATH_SEP, join } from 'node:path';
import { ELAPSED, IDV, makeHome, ROOT, sandbox, sentItems, type Home } from '../helpers.js';
import { run } from '../fake-io.js';
import { onlyOn } from '../platforms.js';

const KEY = 'sk_test_0123456789abcdef';
const NO_KEY = 'idv: No API key found: IDV_API_KEY is not set, and with no home folder no key can be stored; export IDV_API_KEY=<key>, or set HOME and run idv auth login.\n';
const LIST = 'ada@example.com\nbob@mailinator.com\n';
const LIST_CSV = 'email,status\nada@example.com,ok\nbob@mailinator.com,disposable\n';
/** The summary of a run that went on without a cache: no word of one. */
const SUMMARY = new RegExp(`^2 records in ${ELAPSED}\\n {2}ok {10}1 {3}50\\.0%\\n {2}disposable {2}1 {3}50\\.0%\\n2 items sent in 1 request`, 'm');

function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(PATH_SEP)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Running idv as a user with no passwd entry.
const STRANGER = 12345;
/** The words that run a command as STRANGER, or why that cannot be done here. */
async function strangerPrefix(): Promise<string[] | string> {
  const candidates: string[][] = [];
  // As root: setpriv, keeping only the right to read and search any folder (CAP_DAC_READ_SEARCH, never to
  // write), so that the stranger can run the Node under test where CI keeps it (under a 0700 /root).
  if (process.getuid?.() === 0 && findOnPath('setpriv')) {
    candidates.push(['setpriv', `--reuid=${STRANGER}`, `--regid=${STRANGER}`, '--clear-groups', '--inh-caps=+dac_read_search', '--ambient-caps=+dac_read_search']);
  }
  if (findOnPath('unshare')) candidates.push(['unshare', `--map-user=${STRANGER}`, `--map-group=${STRANGER}`]);
  if (!candidates.length) return 'neither setpriv (as root) nor unshare (util-linux) is here';
  const why: string[] = [];
  for (const words of candidates) {
    // The stranger must be unknown to the machine, and able to run the built idv where it lies.
    const r = await execa(words[0]!, [...words.slice(1), process.execPath, '-e', 'try{require("os").userInfo();console.log("known")}catch{require("fs").accessSync(process.argv[1]);console.log("ok")}', IDV], {
      reject: false,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      extendEnv: false,
    });
    if (r.stdout === 'ok') return words;
    why.push(`${words[0]}: ${r.stdout === 'known' ? `uid ${STRANGER} has a passwd entry` : String(r.stderr).split('\n')[0] || `exit ${r.exitCode}`}`);
  }
  return why.join('; ');
}
let stranger: string[] | string = 'not probed yet';

/** Run the built idv as STRANGER with the Node running this test, with exactly this env (no HOME unless given). */
function idvAsStranger(args: string[], env: Record<string, string>, input?: string): Promise<Result> {
  const words = stranger as string[];
  return execa(words[0]!, [...words.slice(1), process.execPath, IDV, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env },
    extendEnv: false,
    reject: false,
    cwd: '/',
    timeout: 30_000,
    stripFinalNewline: false,
    ...(input === undefined ? { stdin: 'ignore' as const } : { input }),
  }) as unknown as Promise<Result>;
}

/** A temporary folder STRANGER can read and enter (mkdtemp makes 0700 ones). */
async function openTmp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'idv-env-'));
  await chmod(dir, 0o755);
  return dir;
}

beforeAll(async () => {
  stranger = await strangerPrefix();
  if (typeof stranger === 'string') {
    console.warn(
      `\n*** test/e2e/odd-machines.test.ts: the "no home folder" and "read-only home" tests are SKIPPED — cannot run idv as a uid with no passwd entry (${stranger}). ***\n`,
    );
  }
});

onlyOn('unknownUser').describe.concurrent('no usable home folder (no HOME, and no passwd entry for the uid)', () => {
  it('idv emails with no key: exit 3 with the key hint (not "unexpected error … uv_os_homedir"), nothing sent', async (t) => {
    if (typeof stranger === 'string') return t.skip();
    const { sb, env } = await sandbox();
    try {
      const r = await idvAsStranger(['emails', '-'], { IDV_BASE_URL: env.IDV_BASE_URL! }, LIST);
      expect(r.stderr).toBe(NO_KEY);
      expect(r.exitCode).toBe(3);
      expect(r.stdout).toBe('');
      expect(sb.requests).toHaveLength(0);
    } finally {
      await sb.close();
    }
  });

  it('idv emails with IDV_API_KEY: runs without a cache after a one-line warning; exit 0', async (t) => {
    if (typeof stranger === 'string') return t.skip();
    const { sb, env } = await sandbox();
    try {
      const r = await idvAsStranger(['emails', '-'], { IDV_BASE_URL: env.IDV_BASE_URL!, IDV_API_KEY: KEY }, LIST);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(LIST_CSV);
      const [first, ...rest] = String(r.stderr).split('\n');
      expect(first).toBe(
        'idv: warning: No folder for the cache: HOME is not set and this user has no entry in the password database; set HOME or XDG_CACHE_HOME; going on without it.',
      );
      expect(rest.join('\n')).toMatch(SUMMARY);
      expect(sentItems(sb)).toEqual(['ada@example.com', 'bob@mailinator.com']);
    } finally {
      await sb.close();
    }
  });

  it('idv auth login: one line naming what to set, exit 1', async (t) => {
    if (typeof stranger === 'string') return t.skip();
    const r = await idvAsStranger(['auth', 'login', '--no-check'], {}, `${KEY}\n`);
    expect(r.stderr).toBe(
      'idv: No folder for the config file: HOME is not set and this user has no entry in the password database; set HOME or XDG_CONFIG_HOME, or give the key in IDV_API_KEY.\n',
    );
    expect(r.exitCode).toBe(1);
  });
});

onlyOn('unknownUser').describe.concurrent('a read-only home folder', () => {
  it('idv auth login: one line naming the folder, exit 1, nothing left behind', async (t) => {
    if (typeof stranger === 'string') return t.skip();
    const home = await openTmp();
    try {
      await mkdir(join(home, '.config'), { mode: 0o555 });
      await chmod(home, 0o555);
      const r = await idvAsStranger(['auth', 'login', '--no-check'], { HOME: home }, `${KEY}\n`);
      expect(r.stderr).toBe(
        `idv: Cannot save the key in ${home}/.config/idv: permission denied (EACCES); set XDG_CONFIG_HOME to a folder you can write, or give the key in IDV_API_KEY.\n`,
      );
      expect(r.exitCode).toBe(1);
      expect(await readdir(join(home, '.config'))).toEqual([]);
    } finally {
      await chmod(home, 0o755);
      await rm(home, { recursive: true, force: true });
    }
  });

  it('idv emails: a one-line warning naming the cache folder, then the run; exit 0', async (t) => {
    if (typeof stranger === 'string') return t.skip();
    const home = await openTmp();
    const { sb, env } = await sandbox();
    try {
      await chmod(home, 0o555);
      const r = await idvAsStranger(['emails', '-'], { HOME: home, IDV_BASE_URL: env.IDV_BASE_URL!, IDV_API_KEY: KEY }, LIST);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(LIST_CSV);
      const [first, ...rest] = String(r.stderr).split('\n');
      expect(first).toBe(`idv: warning: cannot use the cache in ${home}/.cache/idv: permission denied (EACCES); going on without it.`);
      expect(rest.join('\n')).toMatch(SUMMARY);
    } finally {
      await sb.close();
      await chmod(home, 0o755);
      await rm(home, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------------------------
/** Run the built idv from inside a folder that is deleted just before node starts (process.cwd() throws uv_cwd). */
function idvInDeletedDir(dir: string, args: string[], env: Record<string, string>): Promise<Result> {
  return execa('sh', ['-c', 'cd "$1" && rmdir "$1" && shift && exec node "$@"', 'sh', dir, IDV, ...args], {
    env,
    extendEnv: false,
    reject: false,
    cwd: ROOT,
    stdin: 'ignore',
    timeout: 30_000,
    stripFinalNewline: false,
  }) as unknown as Promise<Result>;
}

onlyOn('sh').describe.concurrent('a deleted working directory', () => {
  let home: Home;
  beforeAll(async () => {
    home = await makeHome();
    await writeFile(join(home.dir, 'list.txt'), LIST);
  });
  afterAll(() => home.cleanup());

  it('absolute paths just work (input, -o, --report)', async () => {
    const gone = await mkdtemp(join(home.dir, 'gone-'));
    const out = join(home.dir, 'abs-out.csv');
    const report = join(home.dir, 'abs-report.json');
    const r = await idvInDeletedDir(gone, ['emails', join(home.dir, 'list.txt'), '--sandbox', '-o', out, '--report', report, '-q'], home.env);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(existsSync(gone)).toBe(false);
    expect(await readFile(out, 'utf8')).toBe(LIST_CSV);
    expect(JSON.parse(await readFile(report, 'utf8'))).toMatchObject({ exitCode: 0 });
  });

  it('a relative path: one line saying the working directory is gone, exit 2', async () => {
    const gone = await mkdtemp(join(home.dir, 'gone-'));
    const r = await idvInDeletedDir(gone, ['emails', 'list.txt', '--sandbox'], home.env);
    expect(r.stderr).toBe('idv: Cannot find list.txt: the working directory no longer exists; cd to a folder that exists, or give an absolute path.\n');
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    const o = await idvInDeletedDir(await mkdtemp(join(home.dir, 'gone-')), ['emails', join(home.dir, 'list.txt'), '--sandbox', '-o', 'out.csv'], home.env);
    expect(o.stderr).toBe('idv: Cannot find out.csv: the working directory no longer exists; cd to a folder that exists, or give an absolute path.\n');
    expect(o.exitCode).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------
onlyOn('symlinks').describe('how the bin is found', () => {
  it('NODE_OPTIONS=--preserve-symlinks-main through a symlink, as npm\'s global bin makes it: --version and a run work', async () => {
    const home = await makeHome();
    try {
      // <prefix>/bin/idv → <package>/bin/idv.js: with --preserve-symlinks-main the main module keeps the link's path.
      await mkdir(join(home.dir, 'prefix', 'bin'), { recursive: true });
      const link = join(home.dir, 'prefix', 'bin', 'idv');
      await symlink(IDV, link);
      const env = { ...home.env, NODE_OPTIONS: '--preserve-symlinks-main' };
      const opts = { env, extendEnv: false, reject: false, cwd: home.dir, stripFinalNewline: false, timeout: 30_000 } as const;
      const v = await execa('node', [link, '--version'], { ...opts, stdin: 'ignore' });
      const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
      expect(v.stderr).toBe('');
      expect(v.stdout).toBe(`${pkg.version}\n`);
      expect(v.exitCode).toBe(0);
      const r = await execa('node', [link, 'emails', '--sandbox', '-q'], { ...opts, input: LIST });
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(LIST_CSV);
      expect(r.exitCode).toBe(0);
    } finally {
      await home.cleanup();
    }
  });
});

// ---------------------------------------------------------------------------------------------
onlyOn('xdgHome').describe.concurrent('relative XDG_CONFIG_HOME / XDG_CACHE_HOME are ignored (the XDG spec: fall back to the default)', () => {
  it('the key goes to $HOME/.config/idv, the cache to $HOME/.cache/idv; nothing under the working directory', async () => {
    const home = await makeHome();
    const { sb, env } = await sandbox();
    try {
      const cwd = join(home.dir, 'work');
      await mkdir(cwd);
      const xdg = { HOME: home.dir, XDG_CONFIG_HOME: 'conf', XDG_CACHE_HOME: 'cache' };
      const login = await run(['auth', 'login', '--no-check'], { env: xdg, cwd, input: `${KEY}\n` });
      expect(login.exitCode).toBe(0);
      expect(login.stderr).toBe(`Key ****cdef saved to ${home.dir}/.config/idv/config.json (readable only by you).\n`);
      expect(JSON.parse(await readFile(join(home.dir, '.config', 'idv', 'config.json'), 'utf8'))).toEqual({ apiKey: KEY });

      const r = await run(['emails', '-', '-q'], { env: { ...xdg, IDV_BASE_URL: env.IDV_BASE_URL }, cwd, input: LIST });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(LIST_CSV);
      const stats = await run(['cache', 'stats', '--format', 'json'], { env: xdg, cwd });
      expect(JSON.parse(stats.stdout)).toMatchObject({ path: join(home.dir, '.cache', 'idv'), entries: 2 });
      expect(await readdir(cwd)).toEqual([]);
    } finally {
      await sb.close();
      await home.cleanup();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Terminals, through util-linux `script` (see test/e2e/terminal-harness.ts for the harness this follows).
const SCRIPT = findOnPath('script');
if (!SCRIPT) {
  console.warn('\n*** test/e2e/odd-machines.test.ts: the TERM=dumb and narrow-terminal tests are SKIPPED — util-linux `script` is not on PATH. ***\n');
}
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** 3,000 addresses: enough batches (of 10, one at a time) for a spinner to draw many frames. */
const BIG = Array.from({ length: 3000 }, (_, i) => `user${i}@example.com\n`).join('');

/** idv emails BIG on a pty of `cols` columns with this TERM; stdout to a file; the transcript is stderr's. */
async function onTerminal(cols: number, term: string): Promise<{ transcript: string; csv: string; exitCode: number }> {
  const home = await makeHome();
  const { sb, env } = await sandbox({ quota: 0 }, home); // 0: no quota
  try {
    const list = join(home.dir, 'big.txt');
    const out = join(home.dir, 'out.csv');
    await writeFile(list, BIG);
    const line = `stty cols ${cols} rows 40 && exec ${['node', IDV, 'emails', list, '--batch-size', '10', '--concurrency', '1'].map(q).join(' ')} >${q(out)}`;
    const r = await execa(SCRIPT!, ['-qfec', line, '/dev/null'], {
      env: { ...env, TERM: term },
      extendEnv: false,
      reject: false,
      cwd: ROOT,
      stdin: 'ignore',
      timeout: 60_000,
      stripFinalNewline: false,
      maxBuffer: 200_000_000,
    });
    return { transcript: String(r.stdout), csv: await readFile(out, 'utf8'), exitCode: r.exitCode ?? -1 };
  } finally {
    await sb.close();
    await home.cleanup();
  }
}

const BIG_CSV = 'email,status\n' + BIG.replace(/\n/g, ',ok\n');
/** The summary as a terminal shows it (bars; \r\n from the pty), and nothing else. */
const BIG_SUMMARY = new RegExp(
  `^3,000 records in ${ELAPSED}\\r\\n {2}ok {6}3,000 {2}100\\.0% {2}█{20}\\r\\n` +
    '0 items from the cache · 3,000 items sent in 300 requests\\r\\n$',
);

onlyOn('script').describe.concurrent.skipIf(!SCRIPT)('terminals that cannot show a spinner', () => {
  it('TERM=dumb: no escape sequence at all, only the summary; the CSV is whole', async () => {
    const r = await onTerminal(100, 'dumb');
    expect(r.exitCode).toBe(0);
    expect(r.transcript).not.toContain('\x1b');
    expect(r.transcript).toMatch(BIG_SUMMARY);
    expect(r.csv).toBe(BIG_CSV);
  });

  for (const cols of [1, 2]) {
    it(`a ${cols}-column terminal: no spinner, no "(content truncated…)", only the summary; the CSV is whole`, async () => {
      const r = await onTerminal(cols, 'xterm-256color');
      expect(r.exitCode).toBe(0);
      expect(r.transcript).not.toContain('truncated');
      expect(r.transcript.replace(/\x1b\[[0-9;]*m/g, '')).toMatch(BIG_SUMMARY); // colours only: no cursor moves
      expect(r.csv).toBe(BIG_CSV);
    });
  }
});

// A check of the harness itself: the same run on a wide terminal does draw the spinner (else the tests above prove nothing).
onlyOn('script').describe.skipIf(!SCRIPT)('the terminal harness', () => {
  it('on a 100-column xterm the same run shows spinner frames', async () => {
    const r = await onTerminal(100, 'xterm-256color');
    expect(r.exitCode).toBe(0);
    expect(r.transcript).toContain('\x1b[?25l');
    expect(r.transcript).toContain('Validating');
  });
});
