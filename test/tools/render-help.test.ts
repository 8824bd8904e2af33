// --help: the help rendered at build time (dist/help/) is what commander prints, and the last line of
// `idv --help` says where the docs really are (the man page: test/tools/man-page.test.ts).
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../fake-io.js';
import { idv, makeHome, ROOT } from '../helpers.js';
import { displayWidth } from '../../src/system/display-width.js';
import { onlyOn } from '../platforms.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; homepage: string };
const HELP = join(ROOT, 'dist', 'help');
/** Every pre-rendered help file and the arguments that print it (`auth-login.txt` → auth login --help). */
const rendered = readdirSync(HELP).filter((f) => f.endsWith('.txt')).map((f) => [f, f === 'idv.txt' ? [] : f.replace(/\.txt$/, '').split('-')] as const);
const DOCS_LINE = `Docs (every command, flag, status and exit code):\n  ${join(ROOT, 'docs', 'cli.md')}\n`;


describe('--help', () => {
  it('is rendered at build time for every command', () => {
    expect(rendered.map(([f]) => f).sort()).toEqual(
      ['auth-login', 'auth-logout', 'auth-status', 'auth', 'cache-clear', 'cache-stats', 'cache', 'completion', 'domains', 'emails', 'help', 'idv', 'sandbox']
        .map((n) => `${n}.txt`)
        .sort(),
    );
  });

  it("is rendered in Windows' and macOS' forms too, command for command", () => {
    for (const system of ['win32', 'darwin']) expect(readdirSync(join(HELP, system)).sort(), system).toEqual(rendered.map(([f]) => f).sort());
    for (const system of ['win32', 'darwin']) {
      for (const [file] of rendered) {
        const lines = readFileSync(join(HELP, system, file), 'utf8').replace('@DOCS@', '/docs/cli.md').split('\n');
        expect(lines.filter((l) => displayWidth(l) > 80), `${system}/${file}`).toEqual([]);
      }
    }
  });

  it.each(rendered)('dist/help/%s: no line wider than 80 display columns (wide characters count two)', (file) => {
    const lines = readFileSync(join(HELP, file), 'utf8').replace('@DOCS@', '/docs/cli.md').split('\n');
    expect(lines.filter((l) => displayWidth(l) > 80)).toEqual([]);
  });

  it.each(rendered)('dist/help/%s, as the bin prints it, is what commander prints', async (_file, args) => {
    const home = await makeHome();
    try {
      const fast = await idv([...args, '--help'], { env: home.env });
      const slow = await run([...args, '--help']);
      expect(fast.exitCode).toBe(0);
      expect(slow.exitCode).toBe(0);
      expect(fast.stdout).toBe(slow.stdout);
      expect(fast.stdout).not.toContain('@DOCS@');
    } finally {
      await home.cleanup();
    }
  });

  it('idv --help ends with where the docs are: docs/cli.md beside the program', async () => {
    const r = await run(['--help']);
    expect(r.stdout.endsWith(DOCS_LINE)).toBe(true);
    expect(r.stdout).not.toContain('fixtures/');
    expect(existsSync(join(ROOT, 'docs', 'cli.md'))).toBe(true);
  });

  onlyOn('symlinks').it('a copy without docs/ and examples/ (a single executable) points at the home page and types its sample in', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'idv-bare-'));
    const home = await makeHome();
    try {
      for (const d of ['bin', 'dist']) await cp(join(ROOT, d), join(tmp, d), { recursive: true });
      await cp(join(ROOT, 'package.json'), join(tmp, 'package.json'));
      await symlink(join(ROOT, 'node_modules'), join(tmp, 'node_modules'));
      const bin = join(tmp, 'bin', 'idv.js');
      const help = await execa(process.execPath, [bin, '--help'], { env: home.env, extendEnv: false, reject: false });
      expect(help.stdout.endsWith(`\nDocs (every command, flag, status and exit code):\n  ${pkg.homepage}`)).toBe(true);
      const sb = execa(process.execPath, [bin, 'sandbox', '--port', '0', '--key', 'sk_bare_12345'], { env: home.env, extendEnv: false, reject: false });
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no Try: line: ${out}`)), 15_000);
        sb.stdout!.on('data', (c: Buffer) => {
          out += c.toString();
          if (/^Try: .*\n/m.test(out)) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      sb.kill('SIGINT');
      await sb;
      const url = /listening on (\S+)/.exec(out)![1]!;
      const tryLine = /^Try: (.*)$/m.exec(out)![1]!;
      expect(tryLine).toBe(`printf '%s\\n' ann@example.com bob@mailinator.com | IDV_BASE_URL=${url} IDV_API_KEY=sk_bare_12345 idv emails`);
    } finally {
      await rm(tmp, { recursive: true, force: true });
      await home.cleanup();
    }
  });
});
