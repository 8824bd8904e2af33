// idv auth login / status: the key checked with the service by a request that validates nothing (an empty
// list: no quota spent), the quota shown from its rate-limit headers; a refused key not saved (exit 3); no
// answer: saved with a note; and idv's own words never masked as if they were the key.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../fake-io.js';
import { sandbox, sentItems, withHome, type Home } from '../helpers.js';
import type { TestSandbox as Sandbox } from '../sandbox/test-sandbox.js';

const KEY = 'sk_test_0123456789abcdef';
/** A loopback port nothing listens on: the service cannot be asked. */
const NOBODY = 'http://127.0.0.1:9';
/** "59m 59s (at 13:59 UTC)": the reset an hour away, in local time with its zone. */
const RESET = 'resets in (?:59m \\d\\ds|1h) \\(at \\d\\d:\\d\\d \\S+\\)';

async function withService(fn: (h: Home, sb: Sandbox, env: Record<string, string>, config: string) => Promise<void>, quota = 50): Promise<void> {
  await withHome(async (home) => {
    const { sb, env } = await sandbox({ quota }, home);
    const { IDV_API_KEY: _key, ...noKey } = env;
    try {
      await fn(home, sb, noKey, join(home.env.XDG_CONFIG_HOME!, 'idv', 'config.json'));
    } finally {
      await sb.close();
    }
  });
}

describe('idv auth login', () => {
  it('asks the service with an empty list (nothing validated, nothing spent), then saves the key and says the quota', async () => {
    await withService(async (_home, sb, env, config) => {
      const r = await run(['auth', 'login'], { env, input: `${KEY}\n` });
      expect(r.stderr).toMatch(new RegExp(`^Key \\*{4}cdef saved to ${config} \\(readable only by you\\)\\.\\nThe service accepts the key: quota left 50 of 50, ${RESET}\\.\\n$`));
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(await readFile(config, 'utf8'))).toEqual({ apiKey: KEY });
      expect(sb.requests.map((q) => [q.method, q.path, q.items, q.authorization])).toEqual([['POST', '/emails/validate', [], `Bearer ${KEY}`]]);
      expect(sentItems(sb)).toEqual([]);
    });
  });

  it('a key the service refuses (401) is not saved: exit 3', async () => {
    await withService(async (_home, _sb, env, config) => {
      const r = await run(['auth', 'login'], { env, input: 'sk_wrong_key_0000\n' });
      expect(r.stderr).toBe(
        `idv: The service refused this key (${env.IDV_BASE_URL} answered HTTP 401); it was not saved. Copy it again from the dashboard ("API keys") and run idv auth login.\n`,
      );
      expect(r.exitCode).toBe(3);
      expect(existsSync(config)).toBe(false);
    });
  });

  it('when the service cannot be asked, the key is saved with a one-line note', async () => {
    await withService(async (_home, _sb, env, config) => {
      const r = await run(['auth', 'login'], { env: { ...env, IDV_BASE_URL: NOBODY }, input: `${KEY}\n` });
      expect(r.stderr).toBe(
        `Key ****cdef saved to ${config} (readable only by you).\nidv: note: could not check the key with the service (network error (ECONNREFUSED), from ${NOBODY}); it is saved all the same.\n`,
      );
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(await readFile(config, 'utf8'))).toEqual({ apiKey: KEY });
    });
  });

  it('--no-check saves without asking', async () => {
    await withService(async (_home, sb, env, config) => {
      const r = await run(['auth', 'login', '--no-check'], { env, input: `${KEY}\n` });
      expect(r.stderr).toBe(`Key ****cdef saved to ${config} (readable only by you).\n`);
      expect(sb.requests).toEqual([]);
    });
  });

  it('on a terminal: the key is asked for without echo, a backspace taken back, and saved', async () => {
    await withService(async (_home, sb, env, config) => {
      const r = await run(['auth', 'login', '--no-check'], { env, stdinIsTTY: true, input: `${KEY}x\x7f\r` });
      expect(r.stderr).toBe(`Paste your API key (input is hidden): \nKey ****cdef saved to ${config} (readable only by you).\n`);
      expect(JSON.parse(await readFile(config, 'utf8'))).toMatchObject({ apiKey: KEY });
      expect(sb.requests).toEqual([]);
    });
  });

  it('on a terminal: a paste far longer than any key is refused, not read to its end', async () => {
    await withService(async (_home, _sb, env, config) => {
      const r = await run(['auth', 'login', '--no-check'], { env, stdinIsTTY: true, input: 'k'.repeat(70 * 1024) });
      expect(r.stderr).toBe('Paste your API key (input is hidden): \nidv: No key in the first 64 KiB given; give the key alone (idv auth login < key.txt).\n');
      expect(r.exitCode).toBe(2);
      expect(existsSync(config)).toBe(false);
    });
  });

  it.each([
    ['short', 'idv: That is too short to be an API key (5 characters; keys have at least 8); paste the whole key again.\n'],
    ['paste', 'idv: That is too short to be an API key (5 characters; keys have at least 8); paste the whole key again.\n'],
    ['ey', 'idv: That is too short to be an API key (2 characters; keys have at least 8); paste the whole key again.\n'],
  ])('a key too short to be one ("%s") does not mask idv\'s own words', async (key, says) => {
    await withService(async (_home, sb, env) => {
      const r = await run(['auth', 'login'], { env, input: key });
      expect(r.stderr).toBe(says);
      expect(r.exitCode).toBe(2);
      expect(sb.requests).toEqual([]);
    });
  });
});

describe('idv auth status', () => {
  it('where the key comes from, masked, and the quota left, from the headers of a request that spends none', async () => {
    await withService(async (_home, sb, env, config) => {
      await run(['auth', 'login', '--no-check'], { env, input: `${KEY}\n` });
      await run(['emails', '-', '-q'], { env, input: 'a@example.com\nb@example.com\n' });
      const r = await run(['auth', 'status'], { env });
      expect(r.stdout).toMatch(new RegExp(`^Key \\*{4}cdef from ${config}\\nThe service accepts the key: quota left 48 of 50, ${RESET}\\.\\n$`));
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(sentItems(sb)).toEqual(['a@example.com', 'b@example.com']);
    });
  });

  it('a quota used up is said, and the key still works', async () => {
    await withService(async (_home, _sb, env) => {
      await run(['emails', '-', '-q'], { env: { ...env, IDV_API_KEY: KEY }, input: 'a@example.com\n' });
      const r = await run(['auth', 'status'], { env: { ...env, IDV_API_KEY: KEY } });
      expect(r.stdout).toMatch(new RegExp(`^Key \\*{4}cdef from the IDV_API_KEY environment variable\\nThe service accepts the key; its quota is used up \\(0 of 1\\), ${RESET}\\.\\n$`));
      expect(r.exitCode).toBe(0);
    }, 1);
  });

  it('a key the service refuses: exit 3, after saying where it comes from', async () => {
    await withService(async (_home, _sb, env) => {
      const r = await run(['auth', 'status'], { env: { ...env, IDV_API_KEY: 'sk_other_key_0000' } });
      expect(r.stdout).toBe('Key ****0000 from the IDV_API_KEY environment variable\n');
      expect(r.stderr).toBe(`idv: The service refused the API key from the IDV_API_KEY environment variable (${env.IDV_BASE_URL} answered HTTP 401); export the right key in IDV_API_KEY, or unset it and store the right one with idv auth login (a stored key is not used while IDV_API_KEY is set).\n`);
      expect(r.exitCode).toBe(3);
    });
  });

  it('no answer: the key line and a note, exit 0; --no-check asks nothing', async () => {
    await withService(async (_home, sb, env) => {
      const r = await run(['auth', 'status'], { env: { ...env, IDV_API_KEY: KEY, IDV_BASE_URL: NOBODY } });
      expect(r.stdout).toBe('Key ****cdef from the IDV_API_KEY environment variable\n');
      expect(r.stderr).toBe(`idv: note: could not check the key with the service (network error (ECONNREFUSED), from ${NOBODY}).\n`);
      expect(r.exitCode).toBe(0);
      const quiet = await run(['auth', 'status', '--no-check'], { env: { ...env, IDV_API_KEY: KEY } });
      expect(quiet.stdout).toBe('Key ****cdef from the IDV_API_KEY environment variable\n');
      expect(sb.requests).toEqual([]);
    });
  });
});

describe('every message about the key names where it came from and the fix for that place', () => {
  it('IDV_API_KEY wrong, a right key stored: the run and auth status say the variable wins, and to unset it', async () => {
    await withService(async (_home, sb, env, config) => {
      expect((await run(['auth', 'login', '--no-check'], { env, input: `${KEY}\n` })).exitCode).toBe(0);
      const wrong = { ...env, IDV_API_KEY: 'sk_wrong_key_0000' };
      const fix = `export the right key in IDV_API_KEY, or unset it to use the key stored in ${config} (a stored key is not used while IDV_API_KEY is set)`;
      const emails = await run(['emails', '-', '-q'], { env: wrong, input: 'a@example.com\n' });
      expect(emails.stderr).toBe(`idv: The service refused the API key from the IDV_API_KEY environment variable (401 Unauthorized); ${fix}.\n`);
      expect(emails.exitCode).toBe(3);
      const status = await run(['auth', 'status'], { env: wrong });
      expect(status.stdout).toBe(`Key ****0000 from the IDV_API_KEY environment variable (the key stored in ${config} is not used while it is set)\n`);
      expect(status.stderr).toBe(`idv: The service refused the API key from the IDV_API_KEY environment variable (${env.IDV_BASE_URL} answered HTTP 401); ${fix}.\n`);
      expect(status.exitCode).toBe(3);
      expect(sb.requests.map((q) => q.status)).toEqual([401, 401]);
    });
  });

  it('a stored key the service refuses: the config file named, and idv auth login to replace it', async () => {
    await withService(async (_home, _sb, env, config) => {
      await run(['auth', 'login', '--no-check'], { env, input: 'sk_wrong_key_0000\n' });
      const r = await run(['emails', '-', '-q'], { env, input: 'a@example.com\n' });
      expect(r.stderr).toBe(`idv: The service refused the API key from ${config} (401 Unauthorized); store the right one with idv auth login (it replaces the key in ${config}), or export IDV_API_KEY=<key>.\n`);
      expect(r.exitCode).toBe(3);
    });
  });

  it('no key at all: where idv looked, and both ways to give one', async () => {
    await withService(async (_home, _sb, env, config) => {
      for (const args of [['emails', '-'], ['auth', 'status']]) {
        const r = await run(args, { env, input: 'a@example.com\n' });
        expect(r.stderr).toBe(`idv: No API key found: IDV_API_KEY is not set and no key is stored in ${config}; store one with idv auth login, or export IDV_API_KEY=<key>.\n`);
        expect(r.exitCode).toBe(3);
      }
    });
  });

  it('auth login while IDV_API_KEY is set: saved, and told that the variable is what runs use (even with -q)', async () => {
    await withService(async (_home, _sb, env, config) => {
      const r = await run(['auth', 'login', '--no-check', '-q'], { env: { ...env, IDV_API_KEY: 'sk_other_key_0000' }, input: `${KEY}\n` });
      expect(r.stderr).toBe('Note: IDV_API_KEY is set in this environment, and its key is used instead of the one saved; unset IDV_API_KEY to use the saved key.\n');
      expect(JSON.parse(await readFile(config, 'utf8'))).toEqual({ apiKey: KEY });
      expect(r.exitCode).toBe(0);
    });
  });
});

describe('auth login and status take --base-url: the key is checked with that service', () => {
  it('--base-url wins over IDV_BASE_URL; a refused URL is a usage error before the key is read', async () => {
    await withService(async (_home, sb, env) => {
      const r = await run(['auth', 'status', '--base-url', env.IDV_BASE_URL!], { env: { ...env, IDV_API_KEY: KEY, IDV_BASE_URL: NOBODY } });
      expect(r.stdout).toMatch(new RegExp(`^Key \\*{4}cdef from the IDV_API_KEY environment variable\\nThe service accepts the key: quota left 50 of 50, ${RESET}\\.\\n$`));
      expect(sb.requests).toHaveLength(1);
      const login = await run(['auth', 'login', '--base-url', 'http://example.com'], { env, input: `${KEY}\n` });
      expect(login.stderr).toBe('idv: Refusing plain http:// to example.com: the API key would cross the network unencrypted; use https://.\n');
      expect(login.exitCode).toBe(2);
    });
  });

  it('logout takes no --base-url (it asks no service) and -q says nothing once the key is removed', async () => {
    await withService(async (_home, _sb, env) => {
      await run(['auth', 'login', '--no-check'], { env, input: `${KEY}\n` });
      expect((await run(['auth', 'logout', '-q'], { env })).stderr).toBe('');
      const r = await run(['auth', 'logout', '--base-url', NOBODY], { env });
      expect(r.stderr).toBe('idv: unknown option --base-url (idv auth logout --help lists them)\n');
      expect(r.exitCode).toBe(2);
    });
  });
});
