// How src/cli.cts loads the program: dist/program.cjs (bundled by scripts/bundle.mjs), compiled as require()
// would, with the V8 code cache the build made beside it (docs/performance.md). The cache's name carries the
// build's tag and the Node that made it, since V8 checks only the source's length: another Node or build does
// not read it, and a cache V8 turns down (V8 flags in NODE_OPTIONS, a damaged file) costs a read, never correctness.
// CommonJS, like cli.cts; the single executable carries its own (scripts/build-binary.mjs) and does not use this.
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

/** The build tag on the last line of the bundle (scripts/bundle.mjs), or null. */
export function buildTag(source: string): string | null {
  return /\/\/# idv-build=([0-9a-f]{16})\s*$/.exec(source.slice(-64))?.[1] ?? null;
}

/** The code cache's file name for a build and a Node (`node` is process.version, `arch` process.arch). */
export function cacheName(build: string, node: string, arch: string): string {
  return `program-${build}-${node}-${arch}.cache`;
}

export function loadProgram(dir: string, node: string, arch: string): LoadedProgram {
  const file = join(dir, 'program.cjs');
  // Latin-1: the bundle is ASCII (scripts/bundle.mjs), and read so it is one read and no UTF-8 decoding.
  const source = readFileSync(file, 'latin1');
  const build = buildTag(source);
  const cacheFile = build === null ? null : join(dir, cacheName(build, node, arch));
  let cachedData: Buffer | undefined;
  try {
    if (cacheFile !== null) cachedData = readFileSync(cacheFile);
  } catch {
    /* none: compiled without */
  }
  // The wrapper require() puts around a CommonJS module, on the source's first line (stack lines stay true).
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
  const mod = { exports: {} as typeof Program };
  // This file's own require: it sits in dist/ beside the program, so both resolve alike (createRequire would load
  // node:module and its source-map support at every start).
  (script.runInThisContext() as (...args: unknown[]) => void)(mod.exports, require, mod, file, dir);
  return {
    program: mod.exports,
    cacheRejected: cachedData ? script.cachedDataRejected : undefined,
    saveCache: () => {
      if (cacheFile !== null) writeFileSync(cacheFile, script.createCachedData());
    },
  };
}
