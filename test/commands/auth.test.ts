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
      expect(r.stderr).toBe(`idv: The service refuses the key from the IDV_API_KEY environment variable (${env.IDV_BASE_URL} answered HTTP 401); store the right one with idv auth login.\n`);
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
