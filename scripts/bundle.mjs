#!/usr/bin/env node
// Part of `npm run build`: dist/run-entry.js (tsc's output) and everything it imports, dependencies
// included, bundled by esbuild into one CommonJS file, dist/program.cjs, which dist/cli.cjs require()s when
// a command runs. Why: Node resolves and loads each ES module on its own (~1 ms each here), and a 3-item run
// loaded about sixty of them: more than half its time before any work. One file is read and compiled
// lazily (V8 compiles a function when it first runs). `import()` of a bundled module becomes a lazy
// require() of its part of the bundle, so what a run does not use (the CSV parser for a plain list, the
// spinner without a terminal) is still never run. What only some runs need and is large stays a package
// of its own, loaded with import() when needed: undici (through a proxy), ora and chalk with the ~100 KB of
// spinners and terminal helpers they bring (a terminal only), so a run in a pipe or from cron does not even
// parse them.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
await esbuild.build({
  entryPoints: [join(ROOT, 'dist', 'run-entry.js')],
  outfile: join(ROOT, 'dist', 'program.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20.19',
  external: ['undici', 'ora', 'chalk'],
  // dist/version.js finds package.json from its own URL; in the bundle that is dist/program.cjs's.
  define: { 'import.meta.url': '__idvModuleUrl' },
  banner: { js: "const __idvModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [
    {
      // commander requires node:child_process at load time, for subcommands that are separate programs,
      // which idv has none of; loading it (and what it pulls in) costs every run a few per cent of its start.
      // commander gets it on first use instead.
      name: 'lazy-child-process',
      setup(b) {
        b.onResolve({ filter: /^(node:)?child_process$/ }, (a) => (/[\\/]commander[\\/]/.test(a.importer) ? { path: 'child_process', namespace: 'lazy' } : undefined));
        b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
          contents: "let m; module.exports = new Proxy({}, { get: (_, k) => (m ??= require('node:child_process'))[k] });",
          loader: 'js',
        }));
      },
    },
  ],
});
