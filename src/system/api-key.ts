// Where the API key comes from, and how it is shown (never whole).
import { promises as fsp, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { IdvError, fsReason } from '../core/errors.js';
import { configDir, formerConfigDir, pathsOf, type Platform } from './paths.js';
import { replaceFile } from './temp-files.js';
import { fsError, readSmallFile } from './open-file.js';

export interface FoundKey {
  key: string;
  /** Where it came from, for a person: `the IDV_API_KEY environment variable`, or the config file's path. */
  source: string;
  from: 'env' | 'config';
  /** The config file when it holds a key too (not used while IDV_API_KEY is set), else null. */
  alsoStored: string | null;
}

/** No key anywhere: where idv looked, and the two ways to give one. */
export function noKeyMessage(env: Record<string, string | undefined>): string {
  let path: string;
  try {
    path = configPath(env);
  } catch {
    return 'No API key found: IDV_API_KEY is not set, and with no home folder no key can be stored; export IDV_API_KEY=<key>, or set HOME and run idv auth login.';
  }
  return `No API key found: IDV_API_KEY is not set and no key is stored in ${path}; store one with idv auth login, or export IDV_API_KEY=<key>.`;
}

/**
 * What to do about the key in use when the service refuses it or it cannot be one, for where it came from:
 * a key in IDV_API_KEY wins over a stored one, so storing another changes nothing while it is set.
 */
export function keyFix(found: FoundKey): string {
  if (found.from === 'config') return `store the right one with idv auth login (it replaces the key in ${found.source}), or export IDV_API_KEY=<key>`;
  const unset = found.alsoStored ? `unset it to use the key stored in ${found.alsoStored}` : 'unset it and store the right one with idv auth login';
  return `export the right key in IDV_API_KEY, or ${unset} (a stored key is not used while IDV_API_KEY is set)`;
}

/** The service refused the key in use: where it came from, and the fix for that place. */
export function keyRefusedMessage(found: FoundKey, why: string): string {
  return `The service refused the API key from ${found.source} (${why}); ${keyFix(found)}.`;
}

/** The config file; throws an IdvError when there is no home folder (see paths.ts). */
export function configPath(env: Record<string, string | undefined>, platform?: Platform): string {
  return pathsOf(platform).join(configDir(env, platform), 'config.json');
}

/** The config file idv used before on this system (~/.config/idv/config.json on Windows and macOS), or null. */
function formerConfigPath(env: Record<string, string | undefined>, platform: Platform): string | null {
  const dir = formerConfigDir(env, platform);
  return dir === null ? null : pathsOf(platform).join(dir, 'config.json');
}

/** A key must travel in an HTTP header: printable ASCII, no white space. */
export function keyLooksSendable(key: string): boolean {
  return /^[\x21-\x7e]+$/.test(key);
}

/**
 * The shortest key idv sends. A shorter one could not be masked where a server repeats it (masking "abc" would
 * rewrite every "abc" of every message), so it would be printed; no real key is that short anyway.
 */
export const MIN_KEY_LENGTH = 8;

/** Why a key is too short to be one, or null. */
export function keyTooShort(key: string): string | null {
  return key.length < MIN_KEY_LENGTH ? `${key.length} character${key.length === 1 ? '' : 's'}; keys have at least ${MIN_KEY_LENGTH}` : null;
}

/** The largest config file idv reads: far above any it writes, so that /dev/zero or a huge file is refused, not read. */
export const MAX_CONFIG_BYTES = 64 * 1024;

/** Who is asking: the user's uid (null where there is none, on Windows), the system, and where a warning goes. */
export interface KeyReader {
  uid: number | null;
  platform?: Platform;
  warn(line: string): void;
  /** The config file as this run already read it (Io.configFile); read now when absent. */
  config?: ConfigRead;
}

/**
 * The config file as read once at the start of a run (main.ts), for masking its key from the first message
 * and then for using it: its text and status, the error reading it, or no path (there is no home folder).
 */
export type ConfigRead = { path: null } | { path: string; text: string; stat: Stats } | { path: string; error: NodeJS.ErrnoException };

/**
 * Read the config file: never a FIFO's wait, never more than MAX_CONFIG_BYTES; silent. Where there is none in
 * the system's place, the one idv kept before on this system, if it is there.
 */
export async function readConfigFile(env: Record<string, string | undefined>, platform?: Platform): Promise<ConfigRead> {
  let path: string;
  try {
    path = configPath(env, platform);
  } catch {
    return { path: null }; // no home folder: no key (exit 3 with the hint)
  }
  const former = formerConfigPath(env, platform);
  const read = await readConfigAt(path);
  if (former === null || !('error' in read) || read.error.code !== 'ENOENT') return read;
  const old = await readConfigAt(former);
  return 'error' in old && old.error.code === 'ENOENT' ? read : old;
}

async function readConfigAt(path: string): Promise<ConfigRead> {
  try {
    // Most runs have none (a key in IDV_API_KEY): told without a failed open, whose error costs every start.
    if (missing(path)) return { path, error: fsError('ENOENT', `${path} does not exist`) };
    return { path, ...(await readSmallFile(path, MAX_CONFIG_BYTES)) };
  } catch (err) {
    return { path, error: err as NodeJS.ErrnoException };
  }
}

/**
 * Whether nothing is at `path` although its folders could hold it: its nearest existing ancestor is a folder.
 * Anything else (a file where a folder should be, a folder it may not look into) is left to open() to say, as
 * Node 22 and later answer statSync's throwIfNoEntry with undefined for ENOTDIR too.
 */
function missing(path: string): boolean {
  try {
    for (let p = path; ; p = dirname(p)) {
      const st = statSync(p, { throwIfNoEntry: false });
      if (st !== undefined) return p !== path && st.isDirectory();
      if (dirname(p) === p) return false;
    }
  } catch {
    return false;
  }
}

/** The key in the config file as read, trusted or not, or null: for masking it in every message from the start. */
export function keyInConfig(config: ConfigRead): string | null {
  return 'text' in config ? keyOf(config.text) : null;
}

/**
 * `IDV_API_KEY`, then the config file. The config is trusted as ssh trusts its files: it must belong to the
 * user (or root) and not be writable by others, else it is refused (exit 3, one line naming the fix); one
 * readable by others is used with a warning (it holds the key).
 */
export async function findKey(env: Record<string, string | undefined>, reader: KeyReader): Promise<FoundKey | null> {
  const fromEnv = env.IDV_API_KEY?.trim();
  if (fromEnv) {
    const stored = reader.config && keyInConfig(reader.config) !== null ? reader.config.path : null;
    return { key: fromEnv, source: 'the IDV_API_KEY environment variable', from: 'env', alsoStored: stored };
  }
  const config = reader.config ?? (await readConfigFile(env, reader.platform));
  const { path } = config;
  if (path === null) return null;
  if ('error' in config) {
    if (config.error.code === 'ENOENT') return null;
    if (config.error.code !== 'ENOTREG' && config.error.code !== 'EFBIG') {
      reader.warn(`idv: warning: cannot read the config file ${path}: ${fsReason(config.error)}.`);
      return null;
    }
    const what = config.error.code === 'EFBIG' ? `it is larger than ${MAX_CONFIG_BYTES / 1024} KiB` : 'it is not a regular file';
    throw new IdvError('auth', `Refusing the config file ${path}: ${what}; remove it and store the key with idv auth login, or set IDV_API_KEY.`);
  }
  checkTrust(path, config.stat, reader);
  const key = keyOf(config.text);
  return key === null ? null : { key, source: path, from: 'config', alsoStored: null };
}

/** Refuse a config another user could have written; warn of one others can read. */
function checkTrust(path: string, stat: Stats, reader: KeyReader): void {
  if (reader.uid === null) return;
  const mode = (stat.mode & 0o7777).toString(8).padStart(4, '0');
  if (stat.uid !== reader.uid && stat.uid !== 0) {
    throw new IdvError(
      'auth',
      `Refusing the config file ${path}: it belongs to another user (uid ${stat.uid}), who could have put any key in it; remove it and store your key with idv auth login, or set IDV_API_KEY.`,
    );
  }
  if (stat.mode & 0o022) {
    throw new IdvError('auth', `Refusing the config file ${path}: others can write to it (mode ${mode}), so any key could be in it; run chmod 600 ${path}.`);
  }
  if (stat.mode & 0o044) reader.warn(`idv: warning: the config file ${path} is readable by others (mode ${mode}), and it holds your API key; run chmod 600 ${path}.`);
}

function keyOf(text: string): string | null {
  try {
    const key = (JSON.parse(text) as { apiKey?: unknown }).apiKey;
    if (typeof key === 'string' && key.trim()) return key.trim();
  } catch {
    /* a damaged config holds no key */
  }
  return null;
}

/**
 * Write the config file (0600 in a 0700 folder: on Windows, where modes mean nothing, the profile folder's
 * permissions protect it); a folder that cannot be written is one line naming it (exit 1). The file idv kept
 * before on this system, if any, is removed (the new one is read first from now on): its path is given.
 */
export async function saveKey(env: Record<string, string | undefined>, key: string, platform?: Platform): Promise<{ path: string; removed: string | null }> {
  const dir = configDir(env, platform);
  const path = configPath(env, platform);
  try {
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    await fsp.chmod(dir, 0o700);
    await replaceFile(path, async (tmp) => {
      await fsp.writeFile(tmp, JSON.stringify({ apiKey: key }, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
      await fsp.chmod(tmp, 0o600);
    });
  } catch (err) {
    throw new IdvError(
      'failed',
      `Cannot save the key in ${dir}: ${fsReason(err)}; set XDG_CONFIG_HOME to a folder you can write, or give the key in IDV_API_KEY.`,
    );
  }
  const former = formerConfigPath(env, platform);
  return { path, removed: former !== null && (await removed(former)) ? former : null };
}

/** Remove the stored key: the config file, and the one idv kept before on this system; the paths removed. */
export async function removeKey(env: Record<string, string | undefined>, platform?: Platform): Promise<string[]> {
  const paths = [configPath(env, platform), formerConfigPath(env, platform)].filter((p): p is string => p !== null);
  const gone: string[] = [];
  for (const path of paths) if (await removed(path)) gone.push(path);
  return gone;
}

async function removed(path: string): Promise<boolean> {
  try {
    await fsp.rm(path);
    return true;
  } catch {
    return false;
  }
}

/** `sk_live_abcd…wxyz` → `…wxyz` with the length hidden; short keys show nothing. */
export function maskKey(key: string): string {
  if (key.length < 12) return '****';
  return `****${key.slice(-4)}`;
}
