// Usage errors in idv's voice (src/commands/usage.ts): each refusal of commander's as one line naming the command
// and what to do, with the "did you mean" commander found; a name among a few taken in any case or refused with the
// closest; a slip's closest name within two edits.
import { describe, expect, it } from 'vitest';
import { Command, InvalidArgumentError } from 'commander';
import { oneOf, usageLine } from '../../src/commands/usage.js';
import { closest } from '../../src/commands/parsers.js';

/** commander's refusal of `argv` by a small idv: emails [FILE...], auth login, cache clear, completion SHELL. */
function refusal(argv: string[]): { code: string; message: string } {
  const idv = new Command('idv').exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  idv.command('emails').argument('[file...]').option('-f, --format <format>').option('--batch-size <n>', 'items', (t) => {
    if (!/^\d+$/.test(t)) throw new InvalidArgumentError('Give a whole number from 1 to 1000.');
    return Number(t);
  }).action(() => undefined);
  const auth = idv.command('auth');
  auth.command('login').option('--no-check').action(() => undefined);
  idv.command('completion').argument('<shell>').action(() => undefined);
  idv.command('sandbox').action(() => undefined);
  try {
    idv.parse(argv, { from: 'user' });
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error(`commander took ${argv.join(' ')}`);
}
const line = (argv: string[]) => usageLine(refusal(argv), argv);

describe('usageLine', () => {
  it('an unknown option: named, with the one meant, or where the flags are listed', () => {
    expect(line(['emails', '--formt', 'json'])).toBe('unknown option --formt; did you mean --format?');
    expect(line(['emails', '--zzz'])).toBe('unknown option --zzz (idv emails --help lists them)');
    expect(line(['auth', 'login', '--no-chek'])).toBe('unknown option --no-chek; did you mean --no-check?');
  });

  it('an unknown command: named, with the one meant', () => {
    expect(line(['emials'])).toBe('unknown command "emials"; did you mean emails?');
  });

  it('a flag without its value, an argument missing, arguments too many', () => {
    expect(line(['emails', '--format'])).toBe('--format needs a value: <format>');
    expect(line(['completion'])).toBe('idv completion needs SHELL (idv completion --help says what it takes)');
    expect(line(['sandbox', 'extra'])).toBe('idv sandbox takes no arguments, not "extra" (idv sandbox --help)');
  });

  it("a value refused by the flag's parser: the flag, the value, and the parser's words", () => {
    expect(line(['emails', '--batch-size', 'ten'])).toBe('--batch-size "ten": give a whole number from 1 to 1000.');
  });
});

describe('oneOf', () => {
  const shell = oneOf('completion SHELL', 'shell', ['bash', 'zsh', 'fish', 'powershell'] as const);
  it('the name in any case, spaces around it aside', () => {
    expect(shell(' ZSH ')).toBe('zsh');
    expect(shell('PowerShell')).toBe('powershell');
  });
  it('a slip: refused (usage), with the closest and every one; no closest when none is near', () => {
    expect(() => shell('fissh')).toThrow(expect.objectContaining({ kind: 'usage', message: 'completion SHELL "fissh" is no shell; did you mean fish? (bash, zsh, fish, powershell)' }));
    expect(() => shell('cmd.exe')).toThrow(expect.objectContaining({ message: 'completion SHELL "cmd.exe" is no shell (bash, zsh, fish, powershell)' }));
  });
});

describe('closest', () => {
  it('within two edits and fewer than the shorter length; the nearest wins, the first on a tie', () => {
    expect(closest('jsn', ['csv', 'json', 'ndjson'])).toBe('json');
    expect(closest('cvs', ['csv', 'json'])).toBe('csv');
    expect(closest('xlsx', ['csv', 'json'])).toBeNull();
    expect(closest('js', ['csv', 'json'])).toBeNull(); // two edits for two letters: a guess, not a slip
    expect(closest('nd', ['ok', 'no'])).toBe('no');
  });
});
