// The result cache of a run: the scope of its service and endpoint, loaded into the plan. A cache that cannot
// be used is a warning, never the run's end: the run goes on without it (and pays for what it would have held).
import { ENDPOINT } from '../../defaults.js';
import { fsReason } from '../../errors.js';
import type { Io } from '../../io.js';
import type { CacheScope } from '../../cache/store.js';
import type { Plan } from '../../plan/plan.js';
import type { ValidateOptions } from './flags.js';
import type { Target } from './target.js';
import type { RunLog } from './run-log.js';

/** Null without a cache (--no-cache, --sandbox, no home folder, a cache folder that cannot be used). */
export async function openCache(options: ValidateOptions, io: Io, target: Target, plan: Plan, log: RunLog): Promise<CacheScope | null> {
  if (!options.cache || target.sandbox) return null;
  // Loaded only here: a run without a cache does not load it, nor node:crypto.
  const { cacheDir, openScope } = await import('../../cache/store.js');
  let dir: string;
  try {
    dir = cacheDir(io.env, io.platform);
  } catch (err) {
    log.warning(`${(err as Error).message.replace(/\.$/, '')}; going on without it.`); // no home folder
    return null;
  }
  try {
    const scope = openScope(dir, target.baseUrl, ENDPOINT[options.kind], options.cacheTtl);
    const report = await plan.loadCache(scope);
    if (report.damaged > 0) {
      const lines = `${report.damaged} damaged line${report.damaged === 1 ? '' : 's'}`;
      log.warning(`the cache had ${lines} (${scope.path}); ${report.rebuilt ? 'rebuilt it without them' : 'ignored them'}.`);
    }
    return scope;
  } catch (err) {
    log.warning(`cannot use the cache in ${dir}: ${fsReason(err)}; going on without it.`);
    return null;
  }
}
