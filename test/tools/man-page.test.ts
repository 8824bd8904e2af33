// The man page, dist/idv.1: the sections a man page has, in their order; every command, flag and example
// of the same tree as --help (dist/help/); every environment variable, file and exit code; and it renders
// without a warning (when groff is installed; skipped loudly when it is not).
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ROOT } from '../helpers.js';
import { ENVIRONMENT, EXIT_CODES, FILES } from '../../src/commands/help-text.js';
import { TOPICS } from '../../src/commands/help-topics.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const HELP = join(ROOT, 'dist', 'help');
const rendered = readdirSync(HELP).filter((f) => f.endsWith('.txt')); // the Linux forms: the man page is Unix's
const man = readFileSync(join(ROOT, 'dist', 'idv.1'), 'utf8');
/** roff text back to plain text, roughly: fonts dropped, escapes undone. */
const plain = (s: string) => s.replace(/\\f[BIRP]/g, '').replace(/\\-/g, '-').replace(/\\e/g, '\\').replace(/\\\[u([0-9A-F]{4})\]/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)));
/** Example commands as typed: lines continued with ` \` joined. */
const commands = (text: string) => [...text.replace(/ \\\n +/g, ' ').matchAll(/^ +\$ (.*?)(?: {2,}# .*)?$/gm)].map((m) => m[1]!.trim());

const GROFF = (process.env.PATH ?? '/usr/bin:/bin').split(delimiter).some((d) => d && existsSync(join(d, 'groff')));
if (!GROFF) console.warn('\n*** test/tools/man-page.test.ts: groff is not installed, so dist/idv.1 is NOT rendered (Debian: groff-base). ***\n');

describe('the man page, dist/idv.1', () => {
  it('names idv and its version', () => {
    expect(man).toContain(`.TH IDV 1 "" "idv ${pkg.version}" "User Commands"`);
    expect(man).toMatch(/^\.SH NAME\nidv \\- validate email addresses and domains in bulk/m);
  });

  it('has the sections of a man page, in their order', () => {
    const sections = [...man.matchAll(/^\.SH (.*)$/gm)].map((m) => m[1]!.replace(/"/g, ''));
    expect(sections).toEqual(['NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'ENVIRONMENT', 'FILES', 'EXIT STATUS', 'EXAMPLES', 'SEE ALSO']);
  });

  it('holds every help topic but those with a section of their own, as a subsection of DESCRIPTION', () => {
    const description = plain(man.split(/^\.SH DESCRIPTION$/m)[1]!.split(/^\.SH /m)[0]!);
    const subsections = [...description.matchAll(/^\.SS "(.*)"$/gm)].map((m) => m[1]);
    expect(subsections).toEqual(Object.keys(TOPICS).filter((t) => !['environment', 'files', 'exit-codes'].includes(t)));
  });

  it("lists every flag of emails and domains under OPTIONS, those --help leaves to idv help for room too", () => {
    const options = plain(man.split(/^\.SH OPTIONS$/m)[1]!.split(/^\.SH /m)[0]!);
    for (const command of ['emails', 'domains']) {
      const of = options.split(`.SS "idv ${command} `)[1]!.split('.SS ')[0]!;
      for (const flag of ['--format', '--only', '--bom', '--no-bom', '--max-row-size', '--max-unpacked']) expect(of, `${command} ${flag}`).toMatch(new RegExp(`^(-\\w, )?${flag}\\b`, 'm'));
    }
  });

  it('lists every environment variable, file and exit code in its section', () => {
    const section = (name: string) => plain(man.split(new RegExp(`^\\.SH "?${name}"?$`, 'm'))[1]!.split(/^\.SH /m)[0]!);
    for (const [name, about] of ENVIRONMENT) expect(section('ENVIRONMENT')).toContain(`.TP\n${name}\n${about}\n`);
    for (const [name, about] of FILES) expect(section('FILES')).toContain(`.TP\n${name}\n${about}\n`);
    for (const [code, about] of EXIT_CODES) expect(section('EXIT STATUS')).toContain(`.TP\n${code}\n${about}\n`);
    for (const name of ['IDV_API_KEY', 'IDV_BASE_URL', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'NO_COLOR', 'FORCE_COLOR']) {
      expect(section('ENVIRONMENT')).toContain(`\n${name}\n`);
    }
    expect(section('FILES')).toContain('config.json');
  });

  it.each(rendered)('holds the usage, every flag and every example of dist/help/%s', (file) => {
    const help = readFileSync(join(HELP, file), 'utf8');
    const text = plain(man);
    const usage = /^Usage: (.*)$/m.exec(help)![1]!;
    if (file !== 'idv.txt') expect(text).toContain(`.SS "${usage}"`);
    for (const [, flags] of help.matchAll(/^ {2}(?: {4})?(-[^ ].*?)(?: {2,}|$)/gm)) expect(text).toContain(`\n${flags}\n`);
    const examples = commands(text.split('.SH EXAMPLES')[1]!);
    for (const example of commands(help)) expect(examples).toContain(example);
  });

  it.skipIf(!GROFF)('renders with groff without a warning, flags as typed, no line past 80 columns', async () => {
    const r = await execa('groff', ['-man', '-Tutf8', '-ww', '-rLL=80n', join(ROOT, 'dist', 'idv.1')], { reject: false, env: { PATH: process.env.PATH!, LANG: 'C.UTF-8' } });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.replace(/.\x08/g, '').split('\n'); // overstrike bold and underline
    expect(lines.filter((l) => [...l].length > 80)).toEqual([]);
    const text = lines.join('\n').replace(/\s+/g, ' ').replace(/ \\ /g, ' '); // lines filled, commands not continued
    expect(text).toContain('idv emails [options] [FILE...]');
    expect(text).toContain('-f, --format <format>');
    expect(text).toContain('$ idv emails export.csv --keep-columns --exclude disposable,fake -o clean.csv');
    expect(text).toContain('A nightly job: at most 1,000 items paid for');
    expect(text).toContain('valid, good, deliverable: ok,alias');
    expect(text).toContain('EXIT STATUS 0 every record has a final status');
  });
});
