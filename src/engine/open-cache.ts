// The result cache of a run: the scope of its service and endpoint, loaded into the plan. A cache that cannot
// be used is a warning, never the run's end: the run goes on without it (and pays for what it would have held).
// Both faces open it here: the CLI in its cache folder, the library in that one or the folder it is given.
import { ENDPOINT, type Kind } from '../core/defaults.js';
import { fsReason } from '../core/errors.js';
import type { CacheScope } from '../cache/store.js';
import type { CacheTtl } from '../cache/ttl.js';
import type { Platform } from '../system/paths.js';
import type { Plan } from '../plan/plan.js';

export interface CacheChoice {
  /** The service and endpoint whose results it holds. */
  baseUrl: string;
  kind: Kind;
  ttl: CacheTtl;
  /** The folder; default idv's cache folder (paths.ts cacheDir), from `env`. */
  dir?: string;
  env: Record<string, string | undefined>;
  platform?: Platform;
}

/** The scope loaded into `plan`; null when it cannot be used (no home folder, a folder that cannot be used), after a warning. */
export async function openCache(choice: CacheChoice, plan: Plan, warning: (text: string) => void): Promise<CacheScope | null> {
  // Loaded only here: a run without a cache does not load it, nor node:crypto.
  const { cacheDir, openScope } = await import('../cache/store.js');
  let dir: string;
  try {
    dir = choice.dir ?? cacheDir(choice.env, choice.platform);
  } catch (err) {
    warning(`${(err as Error).message.replace(/\.$/, '')}; going on without it.`); // no home folder
    return null;
  }
  try {
    const scope = openScope(dir, choice.baseUrl, ENDPOINT[choice.kind], choice.ttl);
    const report = await plan.loadCache(scope);
    if (report.damaged > 0) {
      const lines = `${report.damaged} damaged line${report.damaged === 1 ? '' : 's'}`;
      warning(`the cache had ${lines} (${scope.path}); ${report.rebuilt ? 'rebuilt it without them' : 'ignored them'}.`);
    }
    return scope;
  } catch (err) {
    warning(`cannot use the cache in ${dir}: ${fsReason(err)}; going on without it.`);
    return null;
  }
}
