// The API key: from IDV_API_KEY or the config file (idv auth login/status/logout), a wrong or missing key (exit 3),
// a key too short to mask refused, and the key never shown (masked in --verbose, errors and echoed bodies).
import { describe, expect, it } from 'vitest';
import http from 'node:http';
import { mkdir, readFile, stat, writeFile, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { idv, sandbox, homeForEachTest } from '../helpers.js';
import { run } from '../fake-io.js';
import { withSandbox } from './helpers.js';
import { KEY, hygiene, runChecked, items, csv, setup, FAST, refused } from './checked-run.js';

// ---------------------------------------------------------------------------------------------
describe.concurrent('key', () => {
  it('no key: exit 3, hint names IDV_API_KEY and idv auth login, no request', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const { IDV_API_KEY: _k, ...noKey } = env;
      const r = await run(['emails', '-'], { env: noKey, input: 'a@gmail.com\n' });
      expect(r.exitCode).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('IDV_API_KEY');
      expect(r.stderr).toContain('idv auth login');
      expect(sb.requests).toHaveLength(0);
    });
  });

  it('a key that cannot travel in a header (non-ASCII, a space inside): exit 3 at once, one line, no request', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      for (const bad of ['sk_test_0123€456789', 'sk_test 0123456789']) {
        const r = await run(['emails', '-'], { env: { ...env, IDV_API_KEY: bad }, input: 'a@gmail.com\n' });
        expect(r.exitCode).toBe(3);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(
          'idv: The API key from the IDV_API_KEY environment variable holds white space or characters other than ASCII, so it cannot be sent; export the right key in IDV_API_KEY, or unset it and store the right one with idv auth login (a stored key is not used while IDV_API_KEY is set).\n',
        );
      }
      expect(sb.requests).toHaveLength(0);
    });
  });

  it('a wrong key: 401 → exit 3, the wrong key not printed', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const wrong = 'sk_wrong_ZZZZ9999YYYY8888';
      const r = await run(['emails', '-', '--verbose'], { env: { ...env, IDV_API_KEY: wrong }, input: 'a@gmail.com\n' });
      expect(r.exitCode).toBe(3);
      expect(sb.requests[0]!.status).toBe(401);
      expect(r.stderr).toMatch(/401|unauthori[sz]ed|refused/i);
      expect(r.stdout + r.stderr).not.toContain(wrong);
    });
  });

  it('auth login (stdin) / status / emails with the stored key / logout; the key is never printed', async () => {
    const KEY = 'sk_live_SECRETabcdef0123456789';
    await withSandbox({ key: KEY }, async ({ sb, env, home }) => {
      const { IDV_API_KEY: _k, ...noKey } = env;
      const outputs: string[] = [];
      const step = async (args: string[], input?: string) => {
        const r = await run(args, { env: noKey, input });
        outputs.push(r.stdout, r.stderr);
        return r;
      };

      const login = await step(['auth', 'login'], KEY + '\n');
      expect(login.exitCode).toBe(0);
      const dir = join(home.env.XDG_CONFIG_HOME!, 'idv');
      const file = join(dir, 'config.json');
      expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
      expect(((await stat(dir)).mode & 0o777).toString(8)).toBe('700');
      expect(await readFile(file, 'utf8')).toContain(KEY);

      const status = await step(['auth', 'status']);
      expect(status.exitCode).toBe(0);
      expect(status.stdout + status.stderr).toContain(file);
      expect(status.stdout + status.stderr).toContain(KEY.slice(-4));

      const envStatus = await run(['auth', 'status'], { env: { ...noKey, IDV_API_KEY: 'sk_env_other_key_7777' } });
      outputs.push(envStatus.stdout, envStatus.stderr);
      expect(envStatus.stdout + envStatus.stderr).toContain('IDV_API_KEY');
      expect(envStatus.stdout + envStatus.stderr).not.toContain('sk_env_other_key_7777');

      const e = await step(['emails', '-', '--verbose'], 'a@gmail.com\nb+x@gmail.com\n');
      expect(e.exitCode).toBe(0);
      expect(e.stdout).toBe('email,status\na@gmail.com,ok\nb+x@gmail.com,alias\n');
      // login and status ask with an empty list (no quota spent); the run sends its two items
      const paid = () => sb.requests.filter((q) => (q.items ?? []).length > 0);
      expect(paid().map((q) => q.authorization)).toEqual([`Bearer ${KEY}`]);

      const logout = await step(['auth', 'logout']);
      expect(logout.exitCode).toBe(0);
      expect(existsSync(file)).toBe(false);
      const after = await step(['emails', '-'], 'a@gmail.com\n');
      expect(after.exitCode).toBe(3);
      expect(paid()).toHaveLength(1);

      for (const o of outputs) expect(o).not.toContain(KEY);
    });
  });

  it('an empty config file is no key: exit 3', async () => {
    await withSandbox({}, async ({ sb, env, home }) => {
      const { IDV_API_KEY: _k, ...noKey } = env;
      await mkdir(join(home.env.XDG_CONFIG_HOME!, 'idv'), { recursive: true, mode: 0o700 });
      await writeFile(join(home.env.XDG_CONFIG_HOME!, 'idv', 'config.json'), '{}\n', { mode: 0o600 });
      const r = await run(['emails', '-'], { env: noKey, input: 'a@gmail.com\n' });
      expect(r.exitCode).toBe(3);
      expect(r.stderr).toContain('IDV_API_KEY');
      expect(sb.requests).toHaveLength(0);
    });
  });
});

// --- key hygiene ---------------------------------------------------------------------------------

describe.concurrent('key hygiene', () => {
  it('--verbose logs each request (endpoint, items, HTTP status, rate-limit headers) with the key masked', async ({ onTestFinished }) => {
    const xs = items(12);
    const { sb, env, file } = await setup(onTestFinished, { quota: 100 }, xs);
    sb.inject({ kind: 'status', status: 503 });
    const r = await runChecked(['emails', file, '--verbose', ...FAST], env);
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
    const r1 = await runChecked(['emails', file, '--verbose', ...FAST], env);
    expect(r1.exitCode, String(r1.stderr)).toBe(3);
    const r2 = await runChecked(['emails', file, '--verbose', '--retries', '1', '--timeout', '1'], {
      ...env,
      IDV_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(r2.exitCode, String(r2.stderr)).toBe(1);
    const r3 = await runChecked(['auth', 'status'], env);
    expect(r3.exitCode, String(r3.stderr)).toBe(0);
    expect(r3.stdout).toMatch(/\*{2,}|…/);
  });

  it('a key from the config file never shows, even when the service echoes it in an error body', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    const { IDV_API_KEY: _k, ...noKeyEnv } = env;
    const login = await runChecked(['auth', 'login'], noKeyEnv, { input: KEY + '\n' });
    expect(login.exitCode, String(login.stderr)).toBe(0);
    sb.inject({ kind: 'status', status: 400, body: JSON.stringify({ message: `Bad request for key ${KEY}` }) });
    sb.inject({ kind: 'status', status: 500, body: JSON.stringify({ message: `Internal error, key ${KEY}` }) }, 3);
    const r = await runChecked(['emails', file, '--verbose', ...FAST], noKeyEnv);
    expect(r.exitCode, String(r.stderr)).toBe(1);
    expect(r.stdout).toBe(csv(xs.map(([e]) => [e, 'error'])));
    expect(String(r.stderr)).not.toContain(KEY); // test/e2e/key-never-shown.test.ts covers each way the service may repeat it
    const st = await runChecked(['auth', 'status'], noKeyEnv);
    expect(st.exitCode, String(st.stderr)).toBe(0);
  });
});

describe('a key too short to be masked is never sent, so never echoed', () => {
  const home = homeForEachTest();
  const list = home.list;
  // Masking a 3-character key would have to rewrite every "abc" in every message (a 1-character one, every "e"),
  // so such a key is not masked at all, and a server that repeats it printed it in full: "Bearer abc".
  for (const source of ['IDV_API_KEY', 'the config file'] as const) {
    it(`a 3-character key from ${source}: exit 3 before any request, not printed`, async () => {
      const { sb, env: sbEnv } = await sandbox({ key: 'abc' }, home);
      try {
        sb.inject({ kind: 'status', status: 400, body: JSON.stringify({ message: 'Bad request for Bearer abc' }) });
        let env: Record<string, string | undefined> = sbEnv;
        if (source === 'the config file') {
          const { IDV_API_KEY: _unset, ...rest } = sbEnv;
          env = rest;
          const { mkdir } = await import('node:fs/promises');
          await mkdir(join(home.dir, 'config', 'idv'), { recursive: true });
          await writeFile(join(home.dir, 'config', 'idv', 'config.json'), '{"apiKey": "abc"}\n', { mode: 0o600 });
        }
        const r = await run(['emails', await list(['a@example.com'])], { env });
        const config = join(home.dir, 'config', 'idv', 'config.json');
        const [from, fix] =
          source === 'IDV_API_KEY'
            ? ['the IDV_API_KEY environment variable', 'export the right key in IDV_API_KEY, or unset it and store the right one with idv auth login (a stored key is not used while IDV_API_KEY is set)']
            : [config, `store the right one with idv auth login (it replaces the key in ${config}), or export IDV_API_KEY=<key>`];
        expect(r.stderr).toBe(`idv: The API key from ${from} is too short to be one (3 characters; keys have at least 8); ${fix}.\n`);
        expect(r.exitCode).toBe(3);
        expect(r.stdout).toBe('');
        expect(sb.requests).toEqual([]);
      } finally {
        await sb.close();
      }
    });
  }

  it('idv auth login refuses it (exit 2, nothing stored); idv sandbox --key refuses it too', async () => {
    const login = await run(['auth', 'login'], { env: home.env, input: 'abc\n' });
    expect(login.stderr).toBe('idv: That is too short to be an API key (3 characters; keys have at least 8); paste the whole key again.\n');
    expect(login.exitCode).toBe(2);
    expect(await readdir(join(home.dir, 'config', 'idv')).catch(() => [])).toEqual([]);
    const sb = await run(['sandbox', '--port', '0', '--key', 'abc'], { env: home.env, signal: AbortSignal.abort('SIGINT') });
    expect(sb.stderr).toBe('idv: --key must have at least 8 characters and no white space.\n');
    expect(sb.exitCode).toBe(2);
  });
});

describe('the stored key is masked from the first message on, as the environment\'s is', () => {
  const home = homeForEachTest();
  const list = home.list;
  it('a key from the config file given by mistake as a flag value: masked in the usage error, like IDV_API_KEY', async () => {
    const KEY = 'sk_live_CONFIGKEY12345';
    const env = { ...home.env };
    expect((await run(['auth', 'login', '--no-check'], { env, input: KEY + '\n' })).exitCode).toBe(0);
    const file = await list(['a@example.com']);
    const url = await run(['emails', file, '--base-url', KEY], { env });
    expect(url.stderr).toBe('idv: The base URL "****" is not a URL; give one like https://api.valididentities.com.\n'); // not the key
    expect(url.exitCode).toBe(2);
    const flag = await run(['emails', file, '--max-spend', KEY], { env });
    expect(flag.stderr).toBe('idv: --max-spend "****": give a whole number of at least 0.\n');
    expect(flag.exitCode).toBe(2);
  });
});
