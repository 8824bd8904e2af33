// idv's version, from package.json: written into dist/program.cjs when it is bundled (IDV_PACKAGE_VERSION),
// carried by the single executable (IDV_EMBEDDED), else read once (the unbundled modules, as tests run them).
import { readFileSync } from 'node:fs';

let cached: string | undefined;
export function version(): string {
  if (typeof IDV_EMBEDDED !== 'undefined') return IDV_EMBEDDED.version;
  if (typeof IDV_PACKAGE_VERSION !== 'undefined') return IDV_PACKAGE_VERSION;
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}
