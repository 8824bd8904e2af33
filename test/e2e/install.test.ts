// The package as a user gets it: `npm pack` (its prepack cleans dist/ and builds it again), then
// `npm install -g` of the tarball into a temporary prefix with no dev dependencies, then the installed
// `idv` run as a user would; and `npm install` of it into a fresh project, used as a library from ESM, CommonJS,
// TypeScript, a worker thread and an esbuild bundle. npm fetches the runtime dependencies from its cache when it has them (the
// project's own `npm ci` put them there), else from the npm registry; nothing else leaves the machine.
// The pack happens in a copy of the project, so the dist/ other tests are using is never touched.
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { execa, type Options } from 'execa';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { fixture, makeHome, ROOT, type Home } from '../helpers.js';
import { onlyOn } from '../platforms.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

let tmp: string;
let home: Home;
/** What `npm pack --json` says the tarball holds. */
let packed: string[];
let tarball: string;
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
  tarball = join(out, info[0]!.filename);

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

onlyOn('npmGlobal').describe('npm pack', () => {
  it('ships the built program, its man page, docs, a sample list, LICENSE and README; no sources, tests, build tools or stale output', () => {
    const allowed = /^(LICENSE|README\.md|package\.json|bin\/idv\.js|bin\/package\.json|dist\/.+|docs\/(api|cli|report)\.md|examples\/(sample\.csv|[a-z-]+\.(mjs|ts)))$/;
    expect(packed.filter((f) => !allowed.test(f))).toEqual([]);
    for (const f of ['LICENSE', 'README.md', 'bin/idv.js', 'dist/cli.cjs', 'dist/main.js', 'dist/idv.1', 'dist/help/idv.txt', 'docs/cli.md', 'docs/api.md', 'examples/sample.csv']) {
      expect(packed).toContain(f);
    }
    // the library: its entry, the declarations of its public face (no other's), an example for each export
    for (const f of ['dist/index.js', 'dist/browser.js', 'dist/index.d.ts', 'dist/core/errors.d.ts', 'dist/library/types.d.ts']) expect(packed).toContain(f);
    expect(packed.filter((f) => f.startsWith('examples/'))).toEqual(
      ['examples/read-records.mjs', 'examples/sample.csv', 'examples/start-sandbox.mjs', 'examples/validate-domains.mjs', 'examples/validate-emails.mjs', 'examples/validate-emails.ts'],
    );
    expect(packed.filter((f) => f.endsWith('.d.ts'))).toEqual(['dist/core/errors.d.ts', 'dist/index.d.ts', 'dist/library/types.d.ts']);
    expect(packed.filter((f) => f.startsWith('dist/tools/') || f === 'dist/deleted-module.js' || (f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('examples/')))).toEqual([]);
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

onlyOn('npmGlobal').describe('npm install -g of the tarball, then the installed idv', () => {
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

onlyOn('npmGlobal').describe('npm install of the tarball into a fresh project, then idv as a library', () => {
  let project: string;
  const node = (args: string[], o: Options = {}) => execa(process.execPath, args, { cwd: project, env: home.env, extendEnv: false, reject: false, timeout: 60_000, ...o });
  const STATUSES = ['ann@example.com: ok', 'bob@mailinator.com: disposable', 'cy+news@example.org: alias', 'not-an-address: invalid', 'ANN@example.com: ok'].join('\n');

  beforeAll(async () => {
    project = join(tmp, 'app');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    const i = await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: project });
    expect(i.exitCode, i.stderr).toBe(0);
  }, 300_000);

  it('an ESM script of ten lines validates a list against startSandbox() and prints each status', async () => {
    await cp(join(ROOT, 'examples', 'validate-emails.mjs'), join(project, 'check.mjs'));
    expect((await readFile(join(project, 'check.mjs'), 'utf8')).trimEnd().split('\n')).toHaveLength(9);
    const r = await node(['check.mjs']);
    expect([r.exitCode, r.stderr, r.stdout]).toEqual([0, '', STATUSES]);
  });

  it('require() from CommonJS gives the same API (Node loads the ES module)', async () => {
    const script = [
      "const { startSandbox, validateEmails, IdvError } = require('idv');",
      '(async () => {',
      '  const sandbox = await startSandbox();',
      "  for await (const r of validateEmails(['ann@example.com', 'x'], { baseUrl: sandbox.url, apiKey: sandbox.apiKey, cache: false })) console.log(r.item, r.status);",
      '  console.log(typeof IdvError);',
      '  await sandbox.close();',
      '})();',
    ].join('\n');
    await writeFile(join(project, 'check.cjs'), script);
    const r = await node(['check.cjs']);
    expect([r.exitCode, r.stderr, r.stdout]).toEqual([0, '', 'ann@example.com ok\nx invalid\nfunction']);
  });

  it('the TypeScript example type-checks under --strict against the installed declarations', async () => {
    await cp(join(ROOT, 'examples', 'validate-emails.ts'), join(project, 'check.ts'));
    const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
    const args = ['--ignoreConfig', '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
    const typeRoots = ['--types', 'node', '--typeRoots', join(ROOT, 'node_modules', '@types')];
    const ok = await execa(tsc, [...args, ...typeRoots, 'check.ts'], { cwd: project, reject: false, timeout: 120_000 });
    expect([ok.exitCode, ok.stdout + ok.stderr]).toEqual([0, '']);
    // … and a misuse does not: the declarations say what a result holds
    await writeFile(join(project, 'wrong.ts'), "import { validateEmails } from 'idv';\nfor await (const r of validateEmails(['a@b.co'])) console.log(r.staus);\n");
    const wrong = await execa(tsc, [...args, ...typeRoots, 'wrong.ts'], { cwd: project, reject: false, timeout: 120_000 });
    expect(wrong.exitCode).not.toBe(0);
    expect(wrong.stdout).toContain("Property 'staus' does not exist");
  });

  it('runs in a worker thread', async () => {
    const script = [
      "import { Worker, isMainThread, parentPort } from 'node:worker_threads';",
      "import { startSandbox, validateEmails } from 'idv';",
      'if (isMainThread) {',
      '  const worker = new Worker(new URL(import.meta.url));',
      "  worker.on('message', (m) => console.log(m));",
      '} else {',
      '  const sandbox = await startSandbox();',
      "  for await (const r of validateEmails(['bob@mailinator.com'], { baseUrl: sandbox.url, apiKey: sandbox.apiKey, cache: false })) parentPort.postMessage(`${r.item} ${r.status}`);",
      '  await sandbox.close();',
      '}',
    ].join('\n');
    await writeFile(join(project, 'worker.mjs'), script);
    const r = await node(['worker.mjs']);
    expect([r.exitCode, r.stderr, r.stdout]).toEqual([0, '', 'bob@mailinator.com disposable']);
  });

  it('bundled by esbuild for Node it runs on its own (a list read in its code page too), and holds no terminal part (ora, chalk, commander)', async () => {
    const esbuild = await import('esbuild');
    const entry = join(project, 'bundled.mjs');
    await writeFile(
      entry,
      [
        "import { readRecords, startSandbox, validateEmails } from 'idv';",
        'const file = await readRecords(process.argv[2]);',
        'const items = [];',
        'for await (const r of file) items.push(r.item);',
        'const sandbox = await startSandbox();',
        'for await (const r of validateEmails(items.slice(0, 2), { baseUrl: sandbox.url, apiKey: sandbox.apiKey, cache: false })) console.log(r.item, r.status);',
        'console.log(file.layout.encoding);',
        'await sandbox.close();',
      ].join('\n'),
    );
    const outfile = join(tmp, 'bundled', 'check.mjs');
    // ES module output: the CommonJS packages idv loads for code pages (iconv-lite) need a require (docs/api.md)
    const banner = { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" };
    const built = await esbuild.build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile, metafile: true, logLevel: 'silent', banner });
    const inputs = Object.keys(built.metafile.inputs);
    expect(inputs.some((p) => p.includes('node_modules/idv/dist/index.js'))).toBe(true);
    expect(inputs.filter((p) => /node_modules\/(ora|chalk|commander)\//.test(p))).toEqual([]);
    const r = await execa(process.execPath, [outfile, fixture('spreadsheet-semicolon.csv')], { cwd: tmp, env: home.env, extendEnv: false, reject: false, timeout: 60_000 });
    expect([r.exitCode, r.stderr, r.stdout]).toEqual([0, '', 'camille.lefevre@orange.fr ok\nhelene.dubois@free.fr ok\nwindows-1252']);
  });

  it('bundled for a browser (its `browser` condition), it fails with one line saying idv is server-side only', async () => {
    const esbuild = await import('esbuild');
    const outfile = join(tmp, 'browser', 'check.mjs');
    await esbuild.build({ entryPoints: [join(project, 'check.mjs')], bundle: true, platform: 'browser', format: 'esm', outfile, logLevel: 'silent' });
    const r = await execa(process.execPath, [outfile], { cwd: tmp, env: home.env, extendEnv: false, reject: false, timeout: 60_000 });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("Error: idv is server-side only: call it from Node (a server, a worker, a script), never from a browser, where the API key would be anyone's.");
    expect(r.stdout).toBe('');
  });
});
