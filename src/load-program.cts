// How src/cli.cts loads the program: dist/program.cjs (everything it runs, bundled at build time by
// scripts/bundle.mjs), compiled as require() would compile it, with the V8 code cache that the build made
// beside it (dist/program.cache). V8 then skips compiling what a run uses: about a third of a short run's
// time. A cache this Node cannot use (another version, other flags) is rejected by V8, and the source is
// compiled as usual. CommonJS, like cli.cts; in the single executable the program is an asset with a code
// cache of its own (scripts/build-binary.mjs), and this file is not used.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import type * as Program from './run-entry.js' with { 'resolution-mode': 'import' };

export interface LoadedProgram {
  program: typeof Program;
  /** Whether V8 turned the code cache down (undefined: there was none). */
  cacheRejected: boolean | undefined;
  /** Write the code cache of what has been compiled so far (the build does, after a sample run). */
  saveCache(): void;
}

export function loadProgram(dir: string = __dirname): LoadedProgram {
  const file = join(dir, 'program.cjs');
  const cacheFile = join(dir, 'program.cache');
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    /* none: compiled without */
  }
  // The wrapper require() puts around a CommonJS module, on the source's first line (stack lines stay true).
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`, {
    filename: file,
    cachedData,
  });
  const mod = { exports: {} as typeof Program };
  (script.runInThisContext() as (...args: unknown[]) => void)(mod.exports, require, mod, file, dir);
  return {
    program: mod.exports,
    cacheRejected: cachedData ? script.cachedDataRejected : undefined,
    saveCache: () => writeFileSync(cacheFile, script.createCachedData()),
  };
}
