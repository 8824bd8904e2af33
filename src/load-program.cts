// How src/cli.cts loads the program: dist/program.cjs (everything it runs, bundled at build time by
// scripts/bundle.mjs), compiled as require() would compile it, with the V8 code cache that the build made
// beside it. V8 then skips compiling what a run uses: about a third of a short run's time. A cache is for
// the Node that made it (one V8 version and set of flags), so its name says which
// (dist/program-v20.20.2-x64.cache): another Node does not even read it, and compiles the source as usual;
// a cache V8 turns down all the same (other flags, a damaged file) costs a read, never correctness.
// CommonJS, like cli.cts; in the single executable the program is an asset with a code cache of its own
// (scripts/build-binary.mjs), and this file is not used.
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

/** The code cache's file name for a Node (`node` is process.version, `arch` process.arch). */
export function cacheName(node: string, arch: string): string {
  return `program-${node}-${arch}.cache`;
}

export function loadProgram(dir: string, node: string, arch: string): LoadedProgram {
  const file = join(dir, 'program.cjs');
  const cacheFile = join(dir, cacheName(node, arch));
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
