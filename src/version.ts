// idv's version, from package.json (read once; the single executable carries it in IDV_EMBEDDED).
import { readFileSync } from 'node:fs';

let cached: string | undefined;
export function version(): string {
  if (typeof IDV_EMBEDDED !== 'undefined') return IDV_EMBEDDED.version;
  cached ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}
