// The key and the config file (src/system/api-key.ts, and idv auth through it): the config is trusted as ssh trusts its
// files (the user's own, not writable by others; a warning when others can read it), and every read of it or
// of a key given on standard input is bounded: never a FIFO's wait, never /dev/zero read until memory is gone.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Readable } from 'node:stream';
import { promises as fsp } from 'node:fs';
import { chmod, chown, mkdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeHome, sandbox, sentItems, writeList, type Home } from '../helpers.js';
import { run } from '../fake-io.js';
import { findKey, keyInConfig, maskKey, readConfigFile } from '../../src/system/api-key.js';
import { onlyOn } from '../platforms.js';

const KEY = 'sk_test_0123456789abcdef';

let home: Home;
let config: string;
beforeEach(async () => {
  home = await makeHome();
  await mkdir(join(home.env.XDG_CONFIG_HOME!, 'idv'), { recursive: true, mode: 0o700 });
  config = join(home.env.XDG_CONFIG_HOME!, 'idv', 'config.json');
});
afterEach(async () => {
  await home.cleanup();
});

/** The config file holding KEY, with this mode (chmod: the umask must not change it). */
async function storeKey(mode: number): Promise<void> {
  await writeFile(config, JSON.stringify({ apiKey: KEY }) + '\n');
  await chmod(config, mode);
}

/** `idv emails` on one address against a sandbox, with the key only in the config file. */
async function validate(o: { uid?: number } = {}) {
  const { sb, env } = await sandbox({ key: KEY }, home);
  try {
    const { IDV_API_KEY: _none, ...noKey } = env;
    const r = await run(['emails', await writeList(home, ['ada@example.com'])], { env: noKey, uid: o.uid });
    return { ...r, sent: sentItems(sb) };
  } finally {
    await sb.close();
  }
}

describe('a key as it is shown (maskKey)', () => {
  it('a key of 8 to 11 characters shows none of them: its last four would be half of it or more', () => {
    for (const key of ['12345678', 'sk_abcdef', 'sk_abcdefg', 'sk_abcdefgh']) expect(maskKey(key), key).toBe('****');
  });
  it('a key of 12 characters or more shows its last four, its length hidden; a shorter one nothing', () => {
    expect(maskKey('sk_abcdefghi')).toBe('****fghi');
    expect(maskKey('sk_test_0123456789abcdef')).toBe('****cdef');
    expect(maskKey('abc')).toBe('****');
    expect(maskKey('')).toBe('****');
  });
  it('idv auth login and status with a key of 10 characters: none of it on the screen', async () => {
    const key = 'sk_9f8e7d6';
    const login = await run(['auth', 'login', '--no-check'], { env: home.env, input: `${key}\n` });
    expect(login.exitCode).toBe(0);
    expect(login.stderr).toMatch(/^Key \*{4} saved to /);
    const status = await run(['auth', 'status', '--no-check'], { env: home.env });
    expect(status.exitCode).toBe(0);
    for (const text of [login.stdout, login.stderr, status.stdout, status.stderr]) expect(text).not.toMatch(/7d6|e7d|8e7|f8e/);
  });
});

onlyOn('owners').describe('trusting the config file', () => {
  it('0600, the user\'s own: used without a word', async () => {
    await storeKey(0o600);
    expect(await validate()).toEqual({ exitCode: 0, stdout: 'email,status\nada@example.com,ok\n', stderr: expect.stringMatching(/^1 record in /), sent: ['ada@example.com'] });
  });

  it('readable by others (0644): used, with a one-line warning naming the fix', async () => {
    await storeKey(0o644);
    const r = await validate();
    expect(r.exitCode).toBe(0);
    expect(r.sent).toEqual(['ada@example.com']);
    expect(r.stderr.split('\n')[0]).toBe(`idv: warning: the config file ${config} is readable by others (mode 0644), and it holds your API key; run chmod 600 ${config}.`);
  });

  for (const mode of [0o666, 0o620, 0o602]) {
    it(`writable by others (${mode.toString(8)}): refused, exit 3, one line naming chmod 600; nothing sent`, async () => {
      await storeKey(mode);
      expect(await validate()).toEqual({
        exitCode: 3,
        stdout: '',
        stderr: `idv: Refusing the config file ${config}: others can write to it (mode 0${mode.toString(8)}), so any key could be in it; run chmod 600 ${config}.\n`,
        sent: [],
      });
    });
  }

  it('another user\'s: refused, exit 3; nothing sent', async () => {
    await storeKey(0o600);
    // As root, the file is given to another uid; else idv runs as a uid that is not this process's. (A file of
    // root's is trusted: only root could have put it there.)
    const isRoot = process.getuid?.() === 0;
    if (isRoot) await chown(config, 4242, 4242);
    const owner = (await stat(config)).uid;
    expect(await validate(isRoot ? {} : { uid: owner + 4242 })).toEqual({
      exitCode: 3,
      stdout: '',
      stderr: `idv: Refusing the config file ${config}: it belongs to another user (uid ${owner}), who could have put any key in it; remove it and store your key with idv auth login, or set IDV_API_KEY.\n`,
      sent: [],
    });
  });

  it('idv auth status says the same; idv auth login replaces it with a 0600 file of the user\'s, and then it is used', async () => {
    await storeKey(0o666);
    const status = await run(['auth', 'status', '--no-check'], { env: home.env });
    expect([status.exitCode, status.stdout]).toEqual([3, '']);
    expect(status.stderr).toMatch(/^idv: Refusing the config file .*: others can write to it \(mode 0666\)/);
    const login = await run(['auth', 'login', '--no-check'], { env: home.env, input: KEY + '\n' });
    expect(login.exitCode).toBe(0);
    expect(((await stat(config)).mode & 0o777).toString(8)).toBe('600');
    const again = await run(['auth', 'status', '--no-check'], { env: home.env });
    expect(again).toEqual({ exitCode: 0, stdout: `Key ****cdef from ${config}\n`, stderr: '' });
  });

  it('IDV_API_KEY comes first: a config nobody should trust is not even read', async () => {
    await storeKey(0o666);
    const { sb, env } = await sandbox({ key: KEY }, home);
    try {
      const r = await run(['emails', '-q', await writeList(home, ['ada@example.com'])], { env });
      expect(r).toEqual({ exitCode: 0, stdout: 'email,status\nada@example.com,ok\n', stderr: '' });
    } finally {
      await sb.close();
    }
  });
});

describe('reads of the config and of a key are bounded', () => {
  onlyOn('devFiles').it('a config that is a link to /dev/zero: refused at once (exit 3), not read', async () => {
    await symlink('/dev/zero', config);
    const r = await run(['auth', 'status', '--no-check'], { env: home.env });
    expect(r).toEqual({
      exitCode: 3,
      stdout: '',
      stderr: `idv: Refusing the config file ${config}: it is not a regular file; remove it and store the key with idv auth login, or set IDV_API_KEY.\n`,
    });
  });

  it('a config file larger than 64 KiB: refused (exit 3)', async () => {
    await writeFile(config, JSON.stringify({ apiKey: KEY, pad: 'x'.repeat(70 * 1024) }), { mode: 0o600 });
    const r = await run(['auth', 'status', '--no-check'], { env: home.env });
    expect(r).toEqual({
      exitCode: 3,
      stdout: '',
      stderr: `idv: Refusing the config file ${config}: it is larger than 64 KiB; remove it and store the key with idv auth login, or set IDV_API_KEY.\n`,
    });
  });

  it('idv auth login reading an endless standard input with no line break (/dev/zero): exit 2 after 64 KiB', async () => {
    const zeros = Readable.from((function* () {
      for (;;) yield Buffer.alloc(16 * 1024);
    })());
    const r = await run(['auth', 'login'], { env: home.env, input: zeros });
    expect(r).toEqual({ exitCode: 2, stdout: '', stderr: 'idv: No key in the first 64 KiB given; give the key alone (idv auth login < key.txt).\n' });
  });

  it('idv auth login reading an endless stream of lines takes the first and stops reading', async () => {
    const lines = Readable.from((function* () {
      for (;;) yield KEY + '\n';
    })());
    const r = await run(['auth', 'login', '--no-check'], { env: home.env, input: lines });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(`Key ****cdef saved to ${config} (readable only by you).\n`);
  });

  it('idv auth login waiting on standard input: a signal ends the wait (exit 130)', async () => {
    const stop = new AbortController();
    let reading = false;
    const never = new Readable({ read: () => void (reading = true) });
    const pending = run(['auth', 'login'], { env: home.env, input: never, signal: stop.signal });
    await vi.waitFor(() => expect(reading).toBe(true), { timeout: 20_000 }); // waiting on it
    stop.abort('SIGINT');
    const r = await pending;
    expect(r.exitCode).toBe(130);
  });
});

describe('the config file is read once a run', () => {
  it('a run with the key in the config opens the file once: masked from the first message, then used', async () => {
    await storeKey(0o600);
    const open = vi.spyOn(fsp, 'open');
    try {
      const r = await validate();
      expect(r.exitCode).toBe(0);
      expect(r.sent).toEqual(['ada@example.com']);
      expect(open.mock.calls.filter(([path]) => path === config)).toHaveLength(1);
    } finally {
      open.mockRestore();
    }
  });

  it('no config file: said without opening one (a failed open costs every start), in a folder that is there or not', async () => {
    const open = vi.spyOn(fsp, 'open');
    try {
      expect(await readConfigFile(home.env)).toMatchObject({ path: config, error: { code: 'ENOENT' } });
      const env = { ...home.env, XDG_CONFIG_HOME: join(home.dir, 'no', 'such', 'folder') };
      expect(await readConfigFile(env)).toMatchObject({ error: { code: 'ENOENT' } });
      expect(open).not.toHaveBeenCalled();
    } finally {
      open.mockRestore();
    }
  });

  it('a config path that cannot be (a part of it is a file) draws a warning, not silence', async () => {
    // Held on Node 22 and later only: there statSync answers ENOTDIR with undefined, and missing() (src/system/api-key.ts)
    // walks up to the file and must see it is no folder. On Node 20 statSync throws before that line, and the
    // warning comes either way. CI runs this file on Node 22, 24 and 26 too (.ci/run).
    const blocked = join(home.dir, 'a-file');
    await writeFile(blocked, '');
    const warned: string[] = [];
    const env = { ...home.env, XDG_CONFIG_HOME: blocked };
    expect(await findKey(env, { uid: null, warn: (line) => warned.push(line) })).toBeNull();
    expect(warned).toEqual([`idv: warning: cannot read the config file ${join(blocked, 'idv', 'config.json')}: a part of the path is not a folder (ENOTDIR).`]);
  });

  it('findKey takes the config as already read, and does not read it again', async () => {
    await storeKey(0o600);
    const read = await readConfigFile(home.env);
    expect(keyInConfig(read)).toBe(KEY);
    await rm(config);
    const reader = { uid: process.geteuid?.() ?? null, warn: () => undefined };
    expect(await findKey(home.env, { ...reader, config: read })).toEqual({ key: KEY, source: config, from: 'config', alsoStored: null });
    expect(await findKey(home.env, reader)).toBeNull();
  });
});
