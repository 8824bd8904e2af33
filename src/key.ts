// Where the API key comes from, and how it is shown (never whole).
import { promises as fsp, readFile } from 'node:fs';
import { join } from 'node:path';
import { IdvError, fsReason } from './errors.js';
import { configDir } from './paths.js';
import { replaceFile } from './temp-files.js';

export const NO_KEY_MESSAGE = 'No API key found: set IDV_API_KEY, or store one with idv auth login.';

export interface FoundKey {
  key: string;
  source: string;
}

export { configDir };
/** The config file; throws an IdvError when there is no home folder (see paths.ts). */
export function configPath(env: Record<string, string | undefined>): string {
  return join(configDir(env), 'config.json');
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

/** `IDV_API_KEY`, then the config file. */
export async function findKey(env: Record<string, string | undefined>): Promise<FoundKey | null> {
  const fromEnv = env.IDV_API_KEY?.trim();
  if (fromEnv) return { key: fromEnv, source: 'the IDV_API_KEY environment variable' };
  const key = await storedKey(env);
  return key === null ? null : { key, source: configPath(env) };
}

/** The key in the config file (written by idv auth login), or null (none, or no home folder to hold one). */
export async function storedKey(env: Record<string, string | undefined>): Promise<string | null> {
  let text: string;
  try {
    // configPath throws without a home folder: no key (exit 3 with the hint). Every run reads it: through the
    // callback API, as fs.promises (a module of its own, loaded on first use) would add a millisecond to
    // each; not at once (readFileSync), which would leave a run whose config is a FIFO deaf to Ctrl-C.
    const path = configPath(env);
    text = await new Promise<string>((resolve, reject) => readFile(path, 'utf8', (err, t) => (err ? reject(err) : resolve(t))));
  } catch {
    return null;
  }
  try {
    const key = (JSON.parse(text) as { apiKey?: unknown }).apiKey;
    if (typeof key === 'string' && key.trim()) return key.trim();
  } catch {
    /* a damaged config holds no key */
  }
  return null;
}

/** Write the config file (0600 in a 0700 folder); a folder that cannot be written is one line naming it (exit 1). */
export async function saveKey(env: Record<string, string | undefined>, key: string): Promise<string> {
  const dir = configDir(env);
  const path = configPath(env);
  try {
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    await fsp.chmod(dir, 0o700);
    await replaceFile(path, async (tmp) => {
      await fsp.writeFile(tmp, JSON.stringify({ apiKey: key }, null, 2) + '\n', { mode: 0o600 });
      await fsp.chmod(tmp, 0o600);
    });
  } catch (err) {
    throw new IdvError(
      'failed',
      `Cannot save the key in ${dir}: ${fsReason(err)}; set XDG_CONFIG_HOME to a folder you can write, or give the key in IDV_API_KEY.`,
    );
  }
  return path;
}

export async function removeKey(env: Record<string, string | undefined>): Promise<boolean> {
  const path = configPath(env);
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
