// `idv … --help` on a real terminal (a pty made by util-linux `script`, sized with stty): at 80 columns and
// wider, the help rendered at build time (dist/help/, the fast path); narrower, laid out for the terminal by
// commander; never a line past the terminal's edge but a word that cannot be broken (a path).
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { IDV, makeHome, ROOT } from '../helpers.js';

const SCRIPT = (process.env.PATH ?? '/usr/bin:/bin').split(delimiter).some((d) => d && existsSync(join(d, 'script')));
if (!SCRIPT) console.warn('\n*** test/e2e/help-on-a-terminal.test.ts: SKIPPED — util-linux `script` is not on PATH, so help on a terminal is NOT tested. ***\n');

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** What `idv …args` prints on a terminal of `cols` columns (the pty's \r\n back to \n). */
async function onTerminal(args: string[], cols: number): Promise<string> {
  const home = await makeHome();
  try {
    const line = `stty cols ${cols} rows 50; ${q(process.execPath)} ${q(IDV)} ${args.map(q).join(' ')}`;
    const r = await execa('script', ['-qfec', line, '/dev/null'], { env: home.env, extendEnv: false, reject: false, timeout: 30_000 });
    expect(r.exitCode).toBe(0);
    return r.stdout.replace(/\r\n/g, '\n');
  } finally {
    await home.cleanup();
  }
}

const rendered = (name: string) => readFileSync(join(ROOT, 'dist', 'help', `${name}.txt`), 'utf8').replace('@DOCS@', join(ROOT, 'docs', 'cli.md'));
/** Lines wider than the terminal, but for one that is a single word after its indent. */
const tooWide = (text: string, width: number) => text.split('\n').filter((l) => [...l].length > width && !/^ *(\$ |# )?\S+( \\)?$/.test(l));

describe.skipIf(!SCRIPT)('--help on a terminal', () => {
  it.each([
    [['--help'], 'idv'],
    [['emails', '--help'], 'emails'],
    [['auth', 'login', '--help'], 'auth-login'],
  ])('%j at 80 and 120 columns: the help rendered at build time, no line past 80', async (args, name) => {
    for (const cols of [80, 120]) {
      const text = await onTerminal(args, cols);
      expect(text.trimEnd()).toBe(rendered(name).trimEnd());
      expect(tooWide(text, 80)).toEqual([]);
    }
  });

  it.each([[['--help']], [['emails', '--help']], [['domains', '--help']], [['completion', '--help']]])('%j at 60 and 44 columns: laid out for the terminal', async (args) => {
    for (const cols of [60, 44]) {
      const text = await onTerminal(args, cols);
      expect(text).toContain('Usage: idv');
      expect(tooWide(text, cols), `${cols} columns`).toEqual([]);
    }
  });
});
