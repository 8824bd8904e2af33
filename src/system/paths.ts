// Where idv keeps its own files (the config file, the cache), and how a path the user gave is found: the
// one place that reads HOME, the XDG variables and Windows' profile variables, and the one place a relative
// path meets the working directory (all from the Io, never `process`). Each system's own places, and the
// former ~/.config/idv and ~/.cache/idv still read where they differ: docs/choices.md ("Folders").
import { existsSync } from 'node:fs';
import { isAbsolute, posix, resolve, win32 } from 'node:path';
import { userInfo } from 'node:os';
import { IdvError, usageError } from '../core/errors.js';

type Env = Record<string, string | undefined>;
/** The system whose rules apply (Io.platform); undefined: Linux's. */
export type Platform = NodeJS.Platform | undefined;

/** The path functions of a system: Windows' on Windows (tests of its branch run anywhere), POSIX's elsewhere. */
export const pathsOf = (platform: Platform) => (platform === 'win32' ? win32 : posix);

/**
 * The home folder: USERPROFILE on Windows, else HOME, when it is an absolute path; else this user's entry in the
 * password database (what os.homedir() falls back to, but read from the Io's env and never throwing); null when
 * there is none (a container user with no passwd entry and no HOME).
 */
export function homeDir(env: Env, platform?: Platform): string | null {
  const p = pathsOf(platform);
  for (const given of platform === 'win32' ? [env.USERPROFILE, env.HOME] : [env.HOME]) if (given && p.isAbsolute(given)) return given;
  try {
    const home = userInfo().homedir;
    return home && p.isAbsolute(home) ? home : null;
  } catch {
    return null; // uv_os_get_passwd: no entry for this uid
  }
}

const FOLDERS = {
  config: {
    variable: 'XDG_CONFIG_HOME',
    linux: ['.config'],
    darwin: ['Library', 'Application Support'],
    win32: { variable: 'APPDATA', under: ['AppData', 'Roaming'] },
    what: 'the config file',
    instead: ', or give the key in IDV_API_KEY',
  },
  cache: {
    variable: 'XDG_CACHE_HOME',
    linux: ['.cache'],
    darwin: ['Library', 'Caches'],
    win32: { variable: 'LOCALAPPDATA', under: ['AppData', 'Local'] },
    what: 'the cache',
    instead: '',
  },
} as const;

type Kind = keyof typeof FOLDERS;

/**
 * idv's folder of one kind on this system: $XDG_<KIND>_HOME/idv when the variable holds an absolute path (the XDG
 * spec says a relative one is invalid and must be ignored); else the system's place. With no home folder to put
 * it in, an error (exit 1) saying which variable to set.
 */
function platformDir(env: Env, kind: Kind, platform: Platform): string {
  const folder = FOLDERS[kind];
  const p = pathsOf(platform);
  const given = env[folder.variable];
  if (given && p.isAbsolute(given)) return p.join(given, 'idv');
  if (platform === 'win32') {
    const profile = env[folder.win32.variable];
    if (profile && p.isAbsolute(profile)) return p.join(profile, 'idv');
  }
  const home = homeDir(env, platform);
  if (home === null) {
    const [home, other] = platform === 'win32' ? ['USERPROFILE', folder.win32.variable] : ['HOME', folder.variable];
    throw new IdvError('failed', `No folder for ${folder.what}: ${home} is not set and this user has no entry in the password database; set ${home} or ${other}${folder.instead}.`);
  }
  const under = platform === 'win32' ? folder.win32.under : platform === 'darwin' ? folder.darwin : folder.linux;
  return p.join(home, ...under, 'idv');
}

/** Where idv kept a kind before it followed each system's places (~/.config/idv, ~/.cache/idv), when that differs from now. */
function formerDir(env: Env, kind: Kind, platform: Platform, now: string): string | null {
  if (platform !== 'win32' && platform !== 'darwin') return null;
  const home = homeDir(env, platform);
  const former = home === null ? null : pathsOf(platform).join(home, ...FOLDERS[kind].linux, 'idv');
  return former === now ? null : former;
}

/** idv's config folder (`$XDG_CONFIG_HOME/idv`, `~/.config/idv` on Linux; see above). Throws an IdvError when there is no home folder. */
export function configDir(env: Env, platform?: Platform): string {
  return platformDir(env, 'config', platform);
}

/** The config folder idv used before on this system, when it differs from configDir (there a key may still be stored). */
export function formerConfigDir(env: Env, platform?: Platform): string | null {
  try {
    return formerDir(env, 'config', platform, configDir(env, platform));
  } catch {
    return null;
  }
}

/**
 * idv's cache folder (`$XDG_CACHE_HOME/idv`, `~/.cache/idv` on Linux; see above): the one used before on this
 * system while it exists and the new one does not (its results were paid for). Throws an IdvError when there is
 * no home folder.
 */
export function cacheDir(env: Env, platform?: Platform): string {
  const now = platformDir(env, 'cache', platform);
  const former = formerDir(env, 'cache', platform, now);
  return former !== null && !existsSync(now) && existsSync(former) ? former : now;
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
