// Usage errors in idv's voice: commander's refusals (an unknown flag or command, a missing value) become one
// line, like idv's own, with the "did you mean" commander found; and a name given among a few (a format, a
// shell) is matched whatever its case, or refused with the one it is closest to.
import { closest } from './parsers.js';
import { usageError } from '../core/errors.js';

interface Refusal {
  code: string;
  message: string;
}

/** One line for a refusal of commander's (its message is `error: …`, and `(Did you mean …?)` on a line of its own). */
export function usageLine(err: Refusal, argv: readonly string[]): string {
  const [first = '', ...rest] = err.message.replace(/^error: /, '').split('\n');
  const meant = /\(Did you mean (?:one of )?(.+)\?\)/.exec(rest.join(' '))?.[1];
  const quoted = /'([^']*)'/.exec(first)?.[1] ?? '';
  const path = commandPath(argv, err.code === 'commander.unknownCommand' ? quoted : undefined);
  const command = ['idv', ...path].join(' ');
  const hint = meant ? `; did you mean ${meant}?` : ` (${command} --help lists them)`;
  switch (err.code) {
    case 'commander.unknownOption':
      return `unknown option ${quoted}${hint}`;
    case 'commander.unknownCommand':
      return `unknown command "${quoted}"${hint}`;
    case 'commander.optionMissingArgument':
      return `${longName(quoted)} needs a value: ${quoted.replace(/^.*?([<[])/, '$1')}`;
    case 'commander.missingArgument':
      return `${command} needs ${quoted.toUpperCase()} (${command} --help says what it takes)`;
    case 'commander.excessArguments': {
      const extra = argv.filter((a) => !a.startsWith('-')).slice(path.length);
      return `${command} takes no ${/Expected 0 /.test(first) ? '' : 'more '}arguments, not "${extra.join(' ')}" (${command} --help)`;
    }
    case 'commander.invalidArgument': {
      const m = /^option '([^']*)' argument '(.*)' is invalid\. (.*)$/s.exec(first);
      if (m) return `${longName(m[1]!)} "${m[2]}": ${lowerFirst(m[3]!)}`;
      const a = /^command-argument value '(.*)' is invalid for argument '([^']*)'\. (.*)$/s.exec(first);
      return a ? `${command} ${a[2]!.toUpperCase()} "${a[1]}": ${lowerFirst(a[3]!)}` : first;
    }
    default:
      return first;
  }
}

/** `-f, --format <format>` → `--format`. */
function longName(flags: string): string {
  return /--[\w-]+/.exec(flags)?.[0] ?? flags.split(/[ ,]/)[0]!;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/** The command the arguments name (`emails`, `auth login`), up to `unknown` (a command name refused). */
function commandPath(argv: readonly string[], unknown?: string): string[] {
  const words: string[] = [];
  for (const a of argv) {
    if (a === unknown || !/^[a-z]+$/.test(a)) break;
    words.push(a);
    // Only auth and cache have subcommands; after emails, domains, sandbox or completion come operands.
    if (words.length === 2 || !(a === 'auth' || a === 'cache')) break;
  }
  return words;
}

/**
 * A parser for a flag that takes one of a few names (a format, a shell): the name whatever its case, or a usage
 * error naming the closest (`-f jsn`: did you mean json?) and every one.
 */
export function oneOf<T extends string>(flag: string, what: string, names: readonly T[]): (text: string) => T {
  return (text) => {
    const name = text.trim().toLowerCase();
    const found = names.find((n) => n === name);
    if (found !== undefined) return found;
    const meant = closest(name, names);
    throw usageError(`${flag} "${text}" is no ${what}${meant ? `; did you mean ${meant}?` : ''} (${names.join(', ')})`);
  };
}
