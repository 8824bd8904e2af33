// The package as a user gets it: `npm pack` (its prepack cleans dist/ and builds it again), then
// `npm install -g` of the tarball into a temporary prefix with no dev dependencies, then the installed
// `idv` run as a user would. npm fetches the runtime dependencies from its cache when it has them (the
// project's own `npm ci` put them there), else from the npm registry; nothing else leaves the machine.
// The pack happens in a copy of the project, so the dist/ other tests are using is never touched.
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { execa, type Options } from 'execa';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { makeHome, ROOT, type Home } from '../helpers.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

let tmp: string;
let home: Home;
/** What `npm pack --json` says the tarball holds. */
let packed: string[];
let prefix: string;
/** The installed package's folder, and the idv on the prefix's PATH. */
let installed: string;
let env: Record<string, string>;

/** npm without the npm_* settings of the `npm test` that may be running this file. */
function npmEnv(): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k)) clean[k] = v;
  return clean;
}
const npm = (args: string[], o: Options = {}) =>
  execa('npm', args, { env: npmEnv(), extendEnv: false, reject: false, timeout: 240_000, ...o });

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'idv-package-'));
  home = await makeHome();
  // A copy of the project (its sources, not its build), with a stale build left in dist/ that the
  // prepack's clean build must drop.
  const src = join(tmp, 'src-copy');
  const skip = new Set(['node_modules', 'dist', '.git', 'bench']);
  await cp(ROOT, src, { recursive: true, filter: (from) => !skip.has(relative(ROOT, from).split('/')[0]!) });
  await symlink(join(ROOT, 'node_modules'), join(src, 'node_modules'));
  await mkdir(join(src, 'dist', 'tools'), { recursive: true });
  await writeFile(join(src, 'dist', 'deleted-module.js'), 'stale output of a deleted source file\n');
  const out = join(tmp, 'out');
  await mkdir(out);
  const p = await npm(['pack', '--json', '--pack-destination', out], { cwd: src });
  expect(p.exitCode, p.stderr).toBe(0);
  const info = JSON.parse(p.stdout) as { filename: string; files: { path: string }[] }[];
  packed = info[0]!.files.map((f) => f.path).sort();
  const tarball = join(out, info[0]!.filename);

  prefix = join(tmp, 'prefix');
  const i = await npm(['install', '-g', '--prefix', prefix, '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: tmp });
  expect(i.exitCode, i.stderr).toBe(0);
  installed = join(prefix, 'lib', 'node_modules', 'idv');
  // the node running this test first, so that the installed idv runs on the version under test
  env = { ...home.env, PATH: [join(prefix, 'bin'), dirname(process.execPath), home.env.PATH].join(delimiter) };
}, 300_000);

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
  await home.cleanup();
});

const idvInstalled = (args: string[], o: Options = {}) =>
  execa('idv', args, { env, extendEnv: false, reject: false, cwd: home.dir, timeout: 30_000, ...o });

describe('npm pack', () => {
  it('ships the built program, its man page, docs, a sample list, LICENSE and README; no sources, tests, build tools or stale output', () => {
    const allowed = /^(LICENSE|README\.md|package\.json|bin\/idv\.js|bin\/package\.json|dist\/.+|docs\/cli\.md|docs\/report\.md|examples\/sample\.csv)$/;
    expect(packed.filter((f) => !allowed.test(f))).toEqual([]);
    for (const f of ['LICENSE', 'README.md', 'bin/idv.js', 'dist/cli.cjs', 'dist/main.js', 'dist/idv.1', 'dist/help/idv.txt', 'docs/cli.md', 'examples/sample.csv']) {
      expect(packed).toContain(f);
    }
    expect(packed.filter((f) => f.startsWith('dist/tools/') || f === 'dist/deleted-module.js' || f.endsWith('.ts'))).toEqual([]);
    // every built module of the tree is there: dist/ holds exactly what src/ compiles to
    const compiled = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory()
          ? compiled(join(dir, e.name))
          : e.name.endsWith('.d.ts') // a declaration compiles to nothing
            ? []
            : [join(dir, e.name).replace(/^src\//, 'dist/').replace(/\.cts$/, '.cjs').replace(/\.ts$/, '.js')],
      );
    // … and the bundles of the program that dist/cli.cjs loads, of ora and chalk, and of the workbook modules (scripts/bundle.mjs)
    expect(packed.filter((f) => /^dist\/.*\.c?js$/.test(f))).toEqual(
      [...compiled('src').filter((f) => !f.startsWith('dist/tools/')), 'dist/program.cjs', 'dist/terminal.cjs', 'dist/xlsx.cjs'].sort(),
    );
    // … and the program's code cache, made for the Node that packed (src/load-program.cts)
    expect(packed.filter((f) => f.endsWith('.cache'))).toEqual([expect.stringMatching(new RegExp(`^dist/program-[0-9a-f]{16}-${process.version}-${process.arch}\\.cache$`))]);
  });
});

describe('npm install -g of the tarball, then the installed idv', () => {
  it('installed the runtime dependencies only, and linked the bin and the man page', () => {
    const deps = readdirSync(join(installed, 'node_modules'));
    for (const d of Object.keys(pkg.dependencies)) expect(deps).toContain(d);
    for (const d of Object.keys(pkg.devDependencies)) expect(deps).not.toContain(d.split('/')[0]);
    expect(existsSync(join(prefix, 'bin', 'idv'))).toBe(true);
    expect(readFileSync(join(prefix, 'share', 'man', 'man1', 'idv.1'), 'utf8')).toBe(readFileSync(join(installed, 'dist', 'idv.1'), 'utf8'));
  });

  it('idv --version', async () => {
    const r = await idvInstalled(['--version']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(pkg.version);
  });

  it('idv --help names the installed docs, which are there', async () => {
    const r = await idvInstalled(['--help']);
    expect(r.exitCode).toBe(0);
    const docs = join(installed, 'docs', 'cli.md');
    expect(r.stdout.split('\n').slice(-2)).toEqual(['Docs (every command, flag, status and exit code):', `  ${docs}`]);
    expect(existsSync(docs)).toBe(true);
  });

  it('no placeholder in any help: bare idv (on stderr), idv help, every command\'s --help', async () => {
    const bare = await idvInstalled([]);
    expect(bare.exitCode).toBe(2);
    expect(bare.stderr).toContain(`\n  ${join(installed, 'docs', 'cli.md')}`);
    for (const args of [[], ['help'], ['--help'], ['help', 'emails'], ['emails', '--help'], ['auth', 'login', '--help'], ['cache', '--help']]) {
      const r = await idvInstalled(args);
      expect(r.stdout + r.stderr, args.join(' ')).not.toMatch(/@[A-Z]+@/);
    }
  });

  it('idv emails <the shipped sample> --sandbox', async () => {
    const r = await idvInstalled(['emails', join(installed, 'examples', 'sample.csv'), '--sandbox', '-q']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      [
        'email,status',
        'ada@example.com,ok',
        'alan.turing+news@example.org,alias',
        'grace@mailinator.com,disposable',
        'qa@fake.com,fake',
        'not-an-address,invalid',
        'ada@EXAMPLE.com,ok',
      ].join('\n'),
    );
  });

  it('idv emails --sandbox on standard input (the README\'s here-document)', async () => {
    const r = await idvInstalled(['emails', '--sandbox', '-q'], { input: 'ann@example.com\nbob+news@example.org\ntemp@mailinator.com\n' });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('email,status\nann@example.com,ok\nbob+news@example.org,alias\ntemp@mailinator.com,disposable');
  });

  it('idv sandbox --port 0: its "Try:" command, run as printed, validates the shipped sample; Ctrl-C ends it', async () => {
    const sb = idvInstalled(['sandbox', '--port', '0'], { timeout: 60_000 });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "Try:" line from idv sandbox: ${out}`)), 20_000);
      sb.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (/^Try: .*\n/m.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    try {
      const url = /^idv sandbox listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)![1]!;
      const key = /^key: (\S+)$/m.exec(out)![1]!;
      const tryLine = /^Try: (.*)$/m.exec(out)![1]!;
      expect(tryLine).toBe(`IDV_BASE_URL=${url} IDV_API_KEY=${key} idv emails ${join(installed, 'examples', 'sample.csv')}`);
      const r = await execa('sh', ['-c', `${tryLine} -q`], { env, extendEnv: false, reject: false, cwd: home.dir });
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.stdout.split('\n')).toHaveLength(7);
      expect(r.stdout).toContain('grace@mailinator.com,disposable');
    } finally {
      sb.kill('SIGINT');
    }
    const end = await sb;
    expect(end.exitCode).toBe(130);
  });

  it('idv completion bash', async () => {
    const r = await idvInstalled(['completion', 'bash']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('complete -F _idv idv');
  });
});
