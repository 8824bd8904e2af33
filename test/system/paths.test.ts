// Where idv keeps its config file and cache on each system (the system is given, as the Io gives it, so that
// every branch is tested here): XDG on Linux, the profile's AppData on Windows, ~/Library on macOS, an absolute
// XDG variable honoured everywhere, and the places idv used before still read while they exist.
import { describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheDir, configDir, formerConfigDir, homeDir } from '../../src/system/paths.js';
import { run } from '../fake-io.js';

describe('config and cache folders', () => {
  it('Linux: $XDG_*_HOME/idv when absolute, else ~/.config/idv and ~/.cache/idv (a relative XDG variable is ignored)', () => {
    expect(configDir({ HOME: '/home/ann' }, 'linux')).toBe('/home/ann/.config/idv');
    expect(cacheDir({ HOME: '/home/ann' }, 'linux')).toBe('/home/ann/.cache/idv');
    expect(configDir({ HOME: '/home/ann', XDG_CONFIG_HOME: '/cfg' }, 'linux')).toBe('/cfg/idv');
    expect(cacheDir({ HOME: '/home/ann', XDG_CACHE_HOME: 'rel' }, 'linux')).toBe('/home/ann/.cache/idv');
    expect(configDir({ HOME: '/home/ann' }, undefined)).toBe('/home/ann/.config/idv'); // no system given: Linux's ways
  });

  it('Windows: %APPDATA%\\idv for the config (it roams with its user), %LOCALAPPDATA%\\idv for the cache (it stays on the machine)', () => {
    const env = { USERPROFILE: 'C:\\Users\\Ann', APPDATA: 'C:\\Users\\Ann\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\Ann\\AppData\\Local' };
    expect(configDir(env, 'win32')).toBe('C:\\Users\\Ann\\AppData\\Roaming\\idv');
    expect(cacheDir(env, 'win32')).toBe('C:\\Users\\Ann\\AppData\\Local\\idv');
    expect(configDir({ USERPROFILE: 'C:\\Users\\Ann' }, 'win32')).toBe('C:\\Users\\Ann\\AppData\\Roaming\\idv');
    expect(cacheDir({ USERPROFILE: 'C:\\Users\\Ann' }, 'win32')).toBe('C:\\Users\\Ann\\AppData\\Local\\idv');
    expect(homeDir({ USERPROFILE: 'C:\\Users\\Ann', HOME: 'C:\\msys\\home\\ann' }, 'win32')).toBe('C:\\Users\\Ann');
    expect(configDir({ ...env, XDG_CONFIG_HOME: 'D:\\cfg' }, 'win32')).toBe('D:\\cfg\\idv'); // set on purpose: honoured
  });

  it('macOS: ~/Library/Application Support/idv and ~/Library/Caches/idv, or XDG when set', () => {
    expect(configDir({ HOME: '/Users/ann' }, 'darwin')).toBe('/Users/ann/Library/Application Support/idv');
    expect(cacheDir({ HOME: '/Users/ann' }, 'darwin')).toBe('/Users/ann/Library/Caches/idv');
    expect(cacheDir({ HOME: '/Users/ann', XDG_CACHE_HOME: '/Users/ann/.cache' }, 'darwin')).toBe('/Users/ann/.cache/idv');
    expect(formerConfigDir({ HOME: '/Users/ann' }, 'darwin')).toBe('/Users/ann/.config/idv');
    expect(formerConfigDir({ HOME: '/home/ann' }, 'linux')).toBeNull(); // nothing moved there
  });
});

describe('upgrading to the system folders: nothing stored before is lost', () => {
  it('macOS: the cache in ~/.cache/idv stays in use while ~/Library/Caches/idv does not exist', async () => {
    const home = await mkdtemp(join(tmpdir(), 'idv-home-'));
    try {
      expect(cacheDir({ HOME: home }, 'darwin')).toBe(join(home, 'Library', 'Caches', 'idv'));
      await mkdir(join(home, '.cache', 'idv'), { recursive: true });
      expect(cacheDir({ HOME: home }, 'darwin')).toBe(join(home, '.cache', 'idv'));
      await mkdir(join(home, 'Library', 'Caches', 'idv'), { recursive: true });
      expect(cacheDir({ HOME: home }, 'darwin')).toBe(join(home, 'Library', 'Caches', 'idv'));
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('macOS: a key stored in ~/.config/idv is used; auth login moves it to Application Support, auth logout removes both', async () => {
    const home = await mkdtemp(join(tmpdir(), 'idv-home-'));
    const env = { HOME: home };
    const former = join(home, '.config', 'idv', 'config.json');
    const now = join(home, 'Library', 'Application Support', 'idv', 'config.json');
    try {
      await mkdir(join(home, '.config', 'idv'), { recursive: true, mode: 0o700 });
      await writeFile(former, JSON.stringify({ apiKey: 'sk_test_former_key_1234' }), { mode: 0o600 });
      const status = await run(['auth', 'status', '--no-check'], { env, platform: 'darwin' });
      expect(status).toMatchObject({ exitCode: 0, stdout: `Key ****1234 from ${former}\n` });
      const login = await run(['auth', 'login', '--no-check'], { env, platform: 'darwin', input: 'sk_test_new_key_98765\n' });
      expect(login.stderr).toBe(`Key ****8765 saved to ${now} (readable only by you); the copy idv kept before in ${former} was removed.\n`);
      expect((await run(['auth', 'status', '--no-check'], { env, platform: 'darwin' })).stdout).toBe(`Key ****8765 from ${now}\n`);
      await writeFile(former, JSON.stringify({ apiKey: 'sk_test_former_key_1234' }), { mode: 0o600 });
      expect((await run(['auth', 'logout'], { env, platform: 'darwin' })).stderr).toBe(`Removed the key from ${now} and ${former}.\n`);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
