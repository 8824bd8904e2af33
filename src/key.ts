// Where the API key comes from, and how it is shown (never whole).
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { IdvError, fsReason } from './errors.js';
import { configDir } from './paths.js';

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

/** `IDV_API_KEY`, then the config file. */
export async function findKey(env: Record<string, string | undefined>): Promise<FoundKey | null> {
  const fromEnv = env.IDV_API_KEY?.trim();
  if (fromEnv) return { key: fromEnv, source: 'the IDV_API_KEY environment variable' };
  let path: string;
  let text: string;
  try {
    path = configPath(env); // no home folder: no config file, so no key (exit 3 with the hint)
    text = await readFile(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const key = (JSON.parse(text) as { apiKey?: unknown }).apiKey;
    if (typeof key === 'string' && key.trim()) return { key: key.trim(), source: path };
  } catch {
    /* a damaged config holds no key */
  }
  return null;
}

/** Write the config file (0600 in a 0700 folder); a folder that cannot be written is one line naming it (exit 1). */
export async function saveKey(env: Record<string, string | undefined>, key: string): Promise<string> {
  const dir = configDir(env);
  const path = configPath(env);
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    await writeFile(tmp, JSON.stringify({ apiKey: key }, null, 2) + '\n', { mode: 0o600 });
    await chmod(tmp, 0o600);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
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
    await rm(path);
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
