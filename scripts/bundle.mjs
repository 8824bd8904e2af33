// Part of `npm run build`: dist/run-entry.js (tsc's output) and everything it imports, dependencies
// included, bundled by esbuild into one CommonJS file, dist/program.cjs, which dist/cli.cjs loads when a
// command runs. Why: Node resolves and loads each ES module on its own (~1 ms each here), and a 3-item run
// loaded about sixty of them: more than half its time before any work. One file is read and compiled
// lazily (V8 compiles a function when it first runs). `import()` of a bundled module becomes a lazy
// require() of its part of the bundle, so what a run does not use (the CSV parser for a plain list, the
// spinner without a terminal) is still never run. What only some runs need and is large stays a file of
// its own, required when needed: undici (through a proxy: a package of its own), iconv-lite and jschardet
// (text that is not UTF-8: ~1.5 MB of code pages and language models a UTF-8 run must not parse), and ora and chalk with the
// ~100 KB of spinners and terminal helpers they bring (a terminal only: dist/terminal.cjs, made here from
// their ES modules), so a run in a pipe or from cron does not even parse them.
//
// No import() is left in dist/program.cjs: cli.cjs compiles it with a V8 code cache (made last, below),
// and Node 20 loses a script's import() callback when the script comes from a cache.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
// Every bundle: one CommonJS file for the oldest Node idv supports.
const CJS = { bundle: true, platform: 'node', format: 'cjs', target: 'node20.19', legalComments: 'none', logLevel: 'warning' };
// The code caches of an earlier build go first: a build that stops half-way leaves none.
for (const old of readdirSync(DIST)) if (/^program.*\.cache$/.test(old)) rmSync(join(DIST, old));

// ora and chalk are ES modules only: a CommonJS file of their own, which the program require()s (an ES
// module would need import(), or require(esm), which Node 22 before 22.12 does not have).
await esbuild.build({
  stdin: { contents: "export { default as ora } from 'ora';\nexport { Chalk } from 'chalk';\n", resolveDir: ROOT, loader: 'js' },
  outfile: join(DIST, 'terminal.cjs'),
  ...CJS,
});

// Workbooks (.xlsx in and out: dist/xlsx/reader.js, dist/xlsx/writer.js, the modules they import, saxes and yauzl) are
// a CommonJS file of their own, dist/xlsx.cjs, which the program requires when a run first reads or writes a
// workbook (`import('./xlsx.js')` where it does: see the 'workbook-modules' plugin below). They share no module
// with the program, so nothing is loaded twice.
const WORKBOOK = { input: join(DIST, 'xlsx', 'reader.js'), output: join(DIST, 'xlsx', 'writer.js') };
await esbuild.build({
  stdin: { contents: `export * as input from ${JSON.stringify(WORKBOOK.input)};\nexport * as output from ${JSON.stringify(WORKBOOK.output)};\n`, resolveDir: ROOT, loader: 'js' },
  outfile: join(DIST, 'xlsx.cjs'),
  ...CJS,
});

const result = await esbuild.build({
  entryPoints: [join(DIST, 'run-entry.js')],
  outfile: join(DIST, 'program.cjs'),
  ...CJS,
  // Every import() becomes a require(), lazy as before (see above).
  supported: { 'dynamic-import': false },
  external: ['undici', 'iconv-lite', 'jschardet', './terminal.cjs', './xlsx.cjs'],
  // The version goes in at build time (src/core/version.ts): no package.json read, and no import.meta.url, at a start.
  define: { IDV_PACKAGE_VERSION: JSON.stringify(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version) },
  // Warnings are printed below: one is expected (src/core/version.ts's import.meta.url, for the unbundled modules only).
  logLevel: 'error',
  metafile: true,
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
    {
      // string-width builds an Intl.Segmenter (ICU's data: milliseconds) as it loads; src/system/display-width.ts asks it
      // only for text that is not plain ASCII, so it loads then, on its first call, not at every start.
      name: 'lazy-string-width',
      setup(b) {
        const importer = join(DIST, 'system', 'display-width.js');
        b.onResolve({ filter: /^string-width$/ }, (a) => (a.importer === importer ? { path: a.path, namespace: 'lazy-width' } : undefined));
        b.onLoad({ filter: /.*/, namespace: 'lazy-width' }, () => ({
          contents: "let m;\nexport default function stringWidth(text, options) {\n  return (m ??= require('string-width')).default(text, options);\n}\n",
          resolveDir: ROOT,
          loader: 'js',
        }));
      },
    },
    {
      // `import('ora')` in src/system/progress.ts and `import('chalk')` in src/output/colors.ts take their
      // module from dist/terminal.cjs: ora's default export, chalk's `Chalk`, what those two files use (a
      // module of another importer is bundled as usual). Another name from either needs a line here.
      name: 'terminal-packages',
      setup(b) {
        const exportOf = { ora: 'module.exports = require("./terminal.cjs").ora;', chalk: 'module.exports = { Chalk: require("./terminal.cjs").Chalk };' };
        const importers = { ora: join(DIST, 'system', 'progress.js'), chalk: join(DIST, 'output', 'colors.js') };
        b.onResolve({ filter: /^(ora|chalk)$/ }, (a) => (a.importer === importers[a.path] ? { path: a.path, namespace: 'terminal' } : undefined));
        b.onLoad({ filter: /.*/, namespace: 'terminal' }, (a) => ({ contents: exportOf[a.path], loader: 'js' }));
      },
    },
    {
      // `import('…/xlsx/reader.js')` and `import('…/xlsx/writer.js')` take their module from dist/xlsx.cjs (see
      // above). Only import(): a static import would load every workbook module at every start.
      name: 'workbook-modules',
      setup(b) {
        b.onResolve({ filter: /[\\/]xlsx[\\/](reader|writer)\.js$/ }, (a) => {
          const part = Object.keys(WORKBOOK).find((k) => WORKBOOK[k] === resolve(a.resolveDir, a.path));
          if (part === undefined) return undefined;
          if (a.kind !== 'dynamic-import') return { errors: [{ text: `${a.importer} imports ${a.path} statically: import() it where a workbook is read or written` }] };
          return { path: part, namespace: 'workbook' };
        });
        b.onLoad({ filter: /.*/, namespace: 'workbook' }, (a) => ({ contents: `module.exports = require("./xlsx.cjs").${a.path};`, loader: 'js' }));
      },
    },
  ],
});
for (const w of result.warnings) {
  if (w.id === 'empty-import-meta' && w.location?.file === 'dist/core/version.js') continue; // its fallback, never reached in the bundle
  const [text] = await esbuild.formatMessages([w], { kind: 'warning' });
  process.stderr.write(text);
  if (w.id === 'empty-import-meta') throw new Error('dist/program.cjs would run import.meta.url as undefined: see src/core/version.ts for how to do without it');
}
const workbookInside = Object.keys(result.metafile.inputs).filter((p) => /(^|\/)(dist\/xlsx\/|node_modules\/(saxes|xmlchars|yauzl|pend)\/)/.test(p));
if (workbookInside.length) throw new Error(`dist/program.cjs holds ${workbookInside.join(', ')}: import() dist/xlsx/reader.js or dist/xlsx/writer.js instead (see scripts/bundle.mjs)`);
const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports);
const dynamic = imports.filter((i) => i.kind === 'dynamic-import');
if (dynamic.length) throw new Error(`dist/program.cjs still has import() of ${dynamic.map((i) => i.path).join(', ')}: see the comment at the top of scripts/bundle.mjs`);

// The build's tag on the bundle's last line: a code cache is for this build only (src/load-program.cts).
const program = join(DIST, 'program.cjs');
// ASCII only: one character beyond it (a regex's €, left as written by esbuild) makes V8 hold the whole
// program as a two-byte string, which costs every run's start-up time to read, hash and compile it.
const nonAscii = /[^\x00-\x7f]/.exec(readFileSync(program, 'utf8'));
if (nonAscii) throw new Error(`dist/program.cjs holds "${nonAscii[0]}" (U+${nonAscii[0].codePointAt(0).toString(16).toUpperCase()}): write it as a \\u escape in src/`);
const build = createHash('sha256').update(readFileSync(program)).digest('hex').slice(0, 16);
appendFileSync(program, `//# idv-build=${build}\n`);

// The code cache: V8's compiled code for the program as a real run uses it (a 3-item run spends a third of
// its time compiling otherwise). Made by the Node that builds, for that Node only (another one compiles the
// program as usual). The runs: the shipped sample and a plain list against a sandbox in a process of its own,
// with a key, a cache and its claims, as a user's run goes (the in-process sandbox would fill the cache with its own code
// and leave out the cache's and the transport's); nothing written outside a throw-away HOME.
const cache = join(DIST, `program-${build}-${process.version}-${process.arch}.cache`);
const home = mkdtempSync(join(tmpdir(), 'idv-code-cache-'));
const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_CACHE_HOME: join(home, 'cache'), XDG_CONFIG_HOME: join(home, 'config') };
const KEY = 'sk_build_0123456789abcdef';
const sandbox = spawn(process.execPath, [join(DIST, 'cli.cjs'), 'sandbox', '--port', '0', '--key', KEY], { env, stdio: ['ignore', 'pipe', 'ignore'] });
const url = await new Promise((found, failed) => {
  sandbox.on('error', failed);
  let out = '';
  const timer = setTimeout(() => failed(new Error('making the code cache: the sandbox did not start within 30 s')), 30_000);
  sandbox.stdout.on('data', (b) => {
    out += b;
    const m = /listening on (http:\/\/\S+)/.exec(out);
    if (m) {
      clearTimeout(timer);
      found(m[1]);
    }
  });
  sandbox.on('exit', (code) => failed(new Error(`making the code cache: the sandbox ended (${code}) before it listened`)));
}).catch((err) => {
  sandbox.kill();
  throw err;
});
// Two runs, the second adding to the cache the first made (each starts from it): a CSV export, then a plain list,
// the two shapes most lists come in (what only one of them compiles, the other would compile at every start).
const plainList = join(home, 'list.txt');
writeFileSync(plainList, 'ann@example.com\nbob@example.org\ncy@example.net\n');
let run = { status: 0, signal: null, stderr: '' };
for (const input of [[join(ROOT, 'examples', 'sample.csv'), '-f', 'csv'], [plainList]]) {
  if (run.status !== 0) break;
  run = await new Promise((done) => {
    const child = spawn(process.execPath, [join(DIST, 'cli.cjs'), 'emails', ...input, '-q'], {
      env: { ...env, IDV_BASE_URL: url, IDV_API_KEY: KEY, IDV_MAKE_CODE_CACHE: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b) => (stderr += b));
    child.on('close', (status, signal) => done({ status, signal, stderr }));
  });
}
sandbox.kill();
rmSync(home, { recursive: true, force: true });
if (run.status !== 0 || !existsSync(cache) || readFileSync(cache).length === 0) {
  throw new Error(`making ${cache}: the sample run ended ${run.status ?? run.signal}: ${run.stderr.trim()}`);
}
