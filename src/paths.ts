// Where idv keeps its own files (the config file, the cache), and how a path the user gave is found: the
// one place that reads HOME and the XDG variables, and the one place a relative path meets the working
// directory. Nothing here touches `process`: the environment and the working directory come from the Io.
import { isAbsolute, join, resolve } from 'node:path';
import { userInfo } from 'node:os';
import { IdvError, usageError } from './errors.js';

type Env = Record<string, string | undefined>;

/**
 * The home folder: HOME when it is an absolute path, else this user's entry in the password database
 * (what os.homedir() falls back to, but read from the Io's env and never throwing); null when there is
 * neither (a container user with no passwd entry and no HOME).
 */
export function homeDir(env: Env): string | null {
  if (env.HOME && isAbsolute(env.HOME)) return env.HOME;
  try {
    const home = userInfo().homedir;
    return home && isAbsolute(home) ? home : null;
  } catch {
    return null; // uv_os_get_passwd: no entry for this uid
  }
}

const FOLDERS = {
  config: { variable: 'XDG_CONFIG_HOME', fallback: '.config', what: 'the config file', instead: ', or give the key in IDV_API_KEY' },
  cache: { variable: 'XDG_CACHE_HOME', fallback: '.cache', what: 'the cache', instead: '' },
} as const;

/**
 * idv's folder of one XDG kind: $XDG_<KIND>_HOME/idv when the variable holds an absolute path (the XDG Base
 * Directory spec says a relative one is invalid and must be ignored), else <home>/.<kind>/idv.
 * With neither, an error (exit 1) saying which variable to set.
 */
function xdgDir(env: Env, kind: keyof typeof FOLDERS): string {
  const folder = FOLDERS[kind];
  const given = env[folder.variable];
  if (given && isAbsolute(given)) return join(given, 'idv');
  const home = homeDir(env);
  if (home === null) {
    throw new IdvError(
      'failed',
      `No folder for ${folder.what}: HOME is not set and this user has no entry in the password database; set HOME or ${folder.variable}${folder.instead}.`,
    );
  }
  return join(home, folder.fallback, 'idv');
}

/** `$XDG_CONFIG_HOME/idv` (default `~/.config/idv`). Throws an IdvError when there is no home folder. */
export function configDir(env: Env): string {
  return xdgDir(env, 'config');
}

/** `$XDG_CACHE_HOME/idv` (default `~/.cache/idv`). Throws an IdvError when there is no home folder. */
export function cacheDir(env: Env): string {
  return xdgDir(env, 'cache');
}

/**
 * A path the user gave (an input file, -o, --split, --report), made absolute against the working
 * directory. `cwd` is null when the working directory no longer exists (deleted under the run): an
 * absolute path still works, a relative one is a usage error (exit 2) saying so.
 */
export function resolvePath(cwd: string | null, path: string): string {
  if (isAbsolute(path)) return resolve(path); // never asks for the working directory
  if (cwd === null) {
    throw usageError(`Cannot find ${path}: the working directory no longer exists; cd to a folder that exists, or give an absolute path.`);
  }
  return resolve(cwd, path);
}
