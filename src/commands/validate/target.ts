// Where results come from: the in-process sandbox, or the service at a base URL with a key.
import { DEFAULT_BASE_URL } from '../../core/defaults.js';
import { IdvError, usageError } from '../../core/errors.js';
import { warn, type Io } from '../../system/io.js';
import { isLoopback } from '../../system/loopback.js';
import { proxySettings } from '../../api/transport.js';
import { findKey, keyFix, keyLooksSendable, keyTooShort, MIN_KEY_LENGTH, noKeyMessage, type FoundKey } from '../../system/api-key.js';

export interface Target {
  baseUrl: string;
  key: string;
  /** The in-process sandbox: its results are never cached. */
  sandbox: boolean;
  /** Where the key came from (the environment, the config file), for every message about it. */
  keySource?: FoundKey;
  close(): Promise<void>;
}

/** `--base-url` or IDV_BASE_URL as an origin and path; plain http:// only to loopback. */
export function resolveBaseUrl(flag: string | undefined, env: Record<string, string | undefined>): string {
  const text = (flag ?? env.IDV_BASE_URL ?? DEFAULT_BASE_URL).trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`The base URL "${text}" is not a URL; give one like https://api.valididentities.com.`);
  }
  if (url.username || url.password) throw usageError('The base URL must not hold a user name or password; use idv auth login for the key.');
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw usageError(`Refusing plain http:// to ${url.hostname}: the API key would cross the network unencrypted; use https://.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`The base URL must start with https:// (or http:// to a loopback host), not ${url.protocol}//.`);
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** The target of a run. A dry run needs no key and starts no sandbox: it only reads the cache. */
export async function resolveTarget(options: { sandbox: boolean; dryRun: boolean; baseUrl?: string }, io: Io): Promise<Target> {
  if (options.sandbox) return options.dryRun ? { ...NOWHERE, baseUrl: 'sandbox', sandbox: true } : sandboxTarget();
  const baseUrl = resolveBaseUrl(options.baseUrl, io.env);
  if (options.dryRun) return { ...NOWHERE, baseUrl };
  proxySettings(io.env, new URL(baseUrl)); // a malformed proxy variable: a usage error before anything starts
  const found = await sendableKey(io);
  return { ...NOWHERE, baseUrl, key: found.key, keySource: found };
}

const NOWHERE: Target = { baseUrl: '', key: '', sandbox: false, close: async () => undefined };

/** The in-process sandbox, unlimited, with its own key. */
async function sandboxTarget(): Promise<Target> {
  const { startSandbox } = await import('../../sandbox/server.js');
  const sandbox = await startSandbox({ quota: 0 });
  return { baseUrl: sandbox.url, key: sandbox.key, sandbox: true, close: () => sandbox.close() };
}

/** The key the run sends (the config file as main.ts read it, or IDV_API_KEY), masked from here on; refused when it cannot be one. */
async function sendableKey(io: Io): Promise<FoundKey> {
  const found = await findKey(io.env, { uid: io.uid, platform: io.platform, warn: (line) => warn(io, line), config: io.configFile });
  if (!found) throw new IdvError('auth', noKeyMessage(io.env));
  io.secrets.add(found.key, MIN_KEY_LENGTH);
  return sendable(found, keyFix(found));
}

/** The key, refused (auth) when it cannot be one: it must travel in a header, and be long enough to be masked. `fix`: what to do about it. */
export function sendable<K extends { key: string; source: string }>(found: K, fix: string): K {
  if (!keyLooksSendable(found.key)) {
    throw new IdvError('auth', `The API key from ${found.source} holds white space or characters other than ASCII, so it cannot be sent; ${fix}.`);
  }
  const short = keyTooShort(found.key);
  if (short) throw new IdvError('auth', `The API key from ${found.source} is too short to be one (${short}); ${fix}.`);
  return found;
}
