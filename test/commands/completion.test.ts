// `idv completion bash|zsh|fish`: each script is loaded in the real shell, and what the shell offers for a
// line is compared with what a user should get. bash is always run; zsh and fish when installed — when one
// is missing, its tests are skipped and a warning says so. The scripts come from the commander tree: a
// flag added to the tree is completed without any other change (tested below).
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Command } from 'commander';
import { run } from '../fake-io.js';
import { ROOT } from '../helpers.js';
import { buildProgram } from '../../src/program.js';
import { completionScript, describe as describeTree, type Shell } from '../../src/commands/completion.js';
import { STATUSES_OF } from '../../src/core/statuses.js';
import type { Io } from '../../src/system/io.js';
import { TOPICS } from '../../src/commands/help-topics.js';
import { onlyOn } from '../platforms.js';

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}
const SHELL_PATHS: Record<Shell, string | null> = { bash: onPath('bash'), zsh: onPath('zsh'), fish: onPath('fish') };
for (const shell of ['zsh', 'fish'] as const) {
  if (!SHELL_PATHS[shell]) {
    console.warn(
      `\n*** test/commands/completion.test.ts: ${shell} is not installed, so its completion script is NOT tested ` +
        `(Debian: apt-get install ${shell}). ***\n`,
    );
  }
}

// The words a user has typed (the last one being completed) and what the shell should offer, as names:
// a folder without its trailing '/', a list value without the items before its last ',', a --flag=value
// without its --flag=.
const COMMANDS = ['auth', 'cache', 'completion', 'domains', 'emails', 'help', 'sandbox'];
const CASES: [line: string, offered: string[]][] = [
  ['idv ', COMMANDS],
  ['idv e', ['emails']],
  ['idv emails --f', ['--format']],
  ['idv emails --format ', ['csv', 'json', 'ndjson', 'table', 'xlsx']],
  ['idv emails --format=j', ['json']],
  ['idv domains -f n', ['ndjson']],
  ['idv emails -o ', ['list.csv', 'my list.csv', 'outdir']],
  ['idv emails --report my', ['my list.csv']],
  ['idv emails --split ', ['outdir']],
  ['idv emails --only ', [...STATUSES_OF.emails].sort()],
  ['idv emails --only ok,d', ['disposable']],
  ['idv domains --exclude ', [...STATUSES_OF.domains].sort()], // no alias for domains
  ['idv emails ', ['list.csv', 'my list.csv', 'outdir']],
  ['idv emails -q --batch-size 5 --column email my', ['my list.csv']],
  ['idv emails --batch-size ', []], // a number: nothing to offer, and no file names
  ['idv sandbox --port ', []],
  ['idv auth ', ['help', 'login', 'logout', 'status']],
  ['idv cache ', ['clear', 'help', 'stats']],
  ['idv cache stats --format ', ['json', 'table']],
  ['idv help ', [...COMMANDS.filter((c) => c !== 'help'), ...Object.keys(TOPICS)].sort()],
  ['idv completion ', ['bash', 'fish', 'powershell', 'zsh']],
  ['idv sandbox --', ['--faults', '--help', '--key', '--latency', '--no-color', '--port', '--quiet', '--quota', '--seed', '--window']],
];

let tmp: string;
/** The folder the shells run in: the files a user's folder holds, for file-name completion. */
let dir: string;
/** The shells' HOME (fish writes its own files there), and where the scripts are kept. */
let home: string;
const scripts = {} as Record<Shell, string>;
let zshDump = '';

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'idv-completion-'));
  dir = join(tmp, 'work');
  home = join(tmp, 'home');
  await mkdir(join(dir, 'outdir'), { recursive: true });
  await mkdir(home);
  await writeFile(join(dir, 'list.csv'), 'email\n');
  await writeFile(join(dir, 'my list.csv'), 'email\n');
  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    const r = await run(['completion', shell]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    scripts[shell] = join(home, `idv.${shell}`);
    await writeFile(scripts[shell], r.stdout);
  }
  if (SHELL_PATHS.zsh) {
    // compinit's dump, made once as a user's ~/.zcompdump is: each zsh below then loads it instead of reading $fpath anew.
    zshDump = join(home, '.zcompdump');
    const made = await execa(SHELL_PATHS.zsh, ['-f', '-c', 'autoload -Uz compinit && compinit -u -d "$1"', 'zsh', zshDump], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' },
      extendEnv: false,
    });
    expect([made.exitCode, made.stderr, existsSync(zshDump)]).toEqual([0, '', true]);
  }
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

/** bash splits a --flag=value word at '=' (COMP_WORDBREAKS): --flag, =, value. */
function bashWords(line: string): string[] {
  return line.split(' ').flatMap((w) => {
    const m = /^(--[^=]+)=(.*)$/.exec(w);
    return m ? [m[1]!, '=', ...(m[2] ? [m[2]] : [])] : [w];
  });
}

/** What a real bash offers: the script sourced, the completion function called as readline would. */
async function bashOffers(script: string, line: string): Promise<string[]> {
  const r = await execa(
    SHELL_PATHS.bash!,
    [
      '--norc',
      '--noprofile',
      '-c',
      'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; ' +
        'COMPREPLY=(); _idv idv "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; printf "%s\\n" "${COMPREPLY[@]}"',
      'bash',
      script,
      ...bashWords(line),
    ],
    { cwd: dir, reject: false, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' }, extendEnv: false },
  );
  expect(r.stderr).toBe('');
  return lines(r.stdout);
}

async function zshOffers(script: string, line: string): Promise<string[]> {
  const r = await execa(SHELL_PATHS.zsh!, ['-f', join(ROOT, 'test', 'zsh-complete.zsh'), script, line, zshDump], {
    cwd: dir,
    reject: false,
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', TERM: 'xterm' },
    extendEnv: false,
  });
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return lines(r.stdout.replace(/\\ /g, ' '));
}

async function fishOffers(script: string, line: string): Promise<string[]> {
  const r = await execa(SHELL_PATHS.fish!, ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', script, line], {
    cwd: dir,
    reject: false,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' },
    extendEnv: false,
  });
  expect(r.stderr).toBe('');
  return lines(r.stdout.split('\n').map((l) => l.split('\t')[0]).join('\n'));
}

const OFFERS: Record<Shell, (script: string, line: string) => Promise<string[]>> = { bash: bashOffers, zsh: zshOffers, fish: fishOffers };

/** The names offered, as in CASES: sorted, no duplicates, no folder '/', no list head, no --flag=. */
function lines(out: string): string[] {
  const names = out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.replace(/\/$/, '').replace(/^--[a-z-]+=/, '').replace(/^.*,/, ''));
  return [...new Set(names)].sort();
}

for (const shell of ['bash', 'zsh', 'fish'] as const) {
  onlyOn('shells').describe.skipIf(!SHELL_PATHS[shell])(`${shell}: idv completion ${shell}, loaded in ${shell}`, { concurrent: true }, () => {
    it.each(CASES)('%j offers %j', async (line, offered) => {
      expect(await OFFERS[shell](scripts[shell], line)).toEqual(offered);
    });

    it('offers every flag that `idv emails --help` lists, and those it leaves to idv help for room', async () => {
      const help = (await run(['emails', '--help'])).stdout;
      const listed = [...help.matchAll(/^ {2}(?:(-\w), | {4})?(--[\w-]+)/gm)].flatMap((m) => [m[2]!]);
      expect(listed.length).toBeGreaterThan(25);
      const flags = [...listed, '--bom', '--no-bom', '--max-row-size'].sort();
      expect(await OFFERS[shell](scripts[shell], 'idv emails --')).toEqual(flags);
    });
  });
}

describe('idv completion', () => {
  onlyOn('shells').it('bash: the script registers _idv for idv', async () => {
    const r = await execa(SHELL_PATHS.bash!, ['--norc', '--noprofile', '-c', 'source "$1"; complete -p idv', 'bash', scripts.bash], { reject: false });
    expect(r.stdout).toBe('complete -F _idv idv');
  });

  it('an unknown or missing shell is a usage error (exit 2), naming the choices', async () => {
    const r = await run(['completion', 'tcsh']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('idv: idv completion SHELL "tcsh": allowed choices are bash, zsh, fish, powershell.\n');
    const none = await run(['completion']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toBe('idv: idv completion needs SHELL (idv completion --help says what it takes)\n');
  });

  it('PowerShell: a native completer for idv holding every command, flag and flag value of the tree, one key each whatever its case', async () => {
    const program = await buildProgram({ version: () => '0.0.0', io: undefined as unknown as Io });
    const script = (await run(['completion', 'powershell'])).stdout;
    expect(script).toContain("Register-ArgumentCompleter -Native -CommandName 'idv', 'idv.exe', 'idv.cmd' -ScriptBlock {");
    expect(script).toContain("    'auth' = 'login status logout help'\n");
    expect(script).toContain("    'emails|--format' = 'one:table csv json ndjson xlsx'\n");
    expect(script).toContain("    'emails|--only' = 'list:" + STATUSES_OF.emails.join(' ') + "'\n");
    expect(script).toContain("    'completion' = 'one:bash zsh fish powershell'\n");
    expect(script).toContain(`    'emails' = '${describeTree(program).commands[0]!.flags.flatMap((f) => f.names).join(' ')}'\n`);
    // PowerShell's hashtables ignore case: two keys differing only by case would fail the whole script.
    const keys = [...script.matchAll(/^ {4}'([^']*)' = /gm)].map((m) => m[1]!.toLowerCase());
    const tables = script.split('@{').slice(1).map((t) => t.slice(0, t.indexOf('}')));
    for (const table of tables) {
      const inTable = [...table.matchAll(/^ {4}'([^']*)' = /gm)].map((m) => m[1]!.toLowerCase());
      expect(new Set(inTable).size).toBe(inTable.length);
    }
    expect(keys.length).toBeGreaterThan(50);
  });

  onlyOn('shells').it('is generated from the commander tree: a flag or command added to it is completed with no other change', async () => {
    const program = await buildProgram({ version: () => '0.0.0', io: undefined as unknown as Io });
    program.commands.find((c) => c.name() === 'emails')!.option('--archive <dir>', 'a folder for old results');
    program.addCommand(new Command('export').description('a new command').argument('[FILE...]', 'files'));
    const script = join(home, 'grown.bash');
    await writeFile(script, completionScript('bash', describeTree(program)));
    expect(await bashOffers(script, 'idv emails --arch')).toEqual(['--archive']);
    expect(await bashOffers(script, 'idv emails --archive ')).toEqual(['outdir']);
    expect(await bashOffers(script, 'idv ex')).toEqual(['export']);
    expect(await bashOffers(script, 'idv export my')).toEqual(['my list.csv']);
  });
});
