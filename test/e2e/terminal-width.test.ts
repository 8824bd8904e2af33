// What idv prints on a real terminal (a pty made by util-linux `script`, sized with stty) fits its width.
// `--help`: at 80 columns and wider, the help rendered at build time (dist/help/, the fast path); narrower,
// laid out for the terminal by commander; never a line past the edge but a word that cannot be broken (a
// path). The table of a 22-column export: one line a record, the item and status shown.
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { IDV, makeHome, ROOT } from '../helpers.js';
import { displayWidth } from '../../src/system/display-width.js';
import { onlyOn } from '../platforms.js';

const SCRIPT = (process.env.PATH ?? '/usr/bin:/bin').split(delimiter).some((d) => d && existsSync(join(d, 'script')));
if (!SCRIPT) console.warn('\n*** test/e2e/terminal-width.test.ts: SKIPPED — util-linux `script` is not on PATH, so widths on a terminal are NOT tested. ***\n');

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** What `idv …args` prints on a terminal of `cols` columns (the pty's \r\n back to \n). */
async function onTerminal(args: string[], cols: number, files: Record<string, string> = {}): Promise<string> {
  const home = await makeHome();
  try {
    for (const [name, text] of Object.entries(files)) await writeFile(join(home.dir, name), text);
    args = args.map((a) => (Object.hasOwn(files, a) ? join(home.dir, a) : a));
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
const tooWide = (text: string, width: number) => text.split('\n').filter((l) => displayWidth(l) > width && !/^ *(\$ |# )?\S+( \\)?$/.test(l));

onlyOn('script').describe('--help on a terminal', () => {
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

const HEADER = 'First Name,Last Name,Email,Company,Job Title,Phone,Mobile,Street,City,State,Zip,Country,Website,LinkedIn,Twitter,Source,Owner,Created,Updated,Tags,Notes,Score';
const ROW = (i: number) =>
  `Ann${i},Smith,ann${i}@${i % 2 ? 'mailinator.com' : 'example.com'},Acme Corporation Ltd,Head of Marketing,+1 555 0100,+1 555 0199,12 Long Street Name,Springfield,IL,62701,United States,https://acme.example.com,linkedin.com/in/ann,@ann,Webinar,Bob,2024-01-02,2024-03-04,vip;newsletter,Met at conference,${80 + i}`;
const SGR = /\x1b\[[0-9;]*m/g;

onlyOn('script').describe('the table on a terminal', () => {
  it.each([80, 60, 120])('--keep-columns of a 22-column export at %i columns: a line a record, item and status shown', async (cols) => {
    const crm = [HEADER, ROW(0), ROW(1), ROW(2)].join('\n') + '\n';
    const text = (await onTerminal(['emails', 'crm.csv', '--sandbox', '--keep-columns', '-q'], cols, { 'crm.csv': crm })).replace(SGR, '');
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^FIRST NAME +LAST NAME +EMAIL +.*…  STATUS$/);
    expect(lines.slice(1).map((l) => /(ann\d@\S+).*  (\S+)$/.exec(l)!.slice(1))).toEqual([
      ['ann0@example.com', 'ok'],
      ['ann1@mailinator.com', 'disposable'],
      ['ann2@example.com', 'ok'],
    ]);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(cols);
  });
});
