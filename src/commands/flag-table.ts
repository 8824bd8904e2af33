// A command's flags as one typed table: each row is the option field it fills, keyed by that field's name,
// and knows how commander declares it and how commander's parsed value becomes the field's. The options
// type, commander's options (and so --help, the completion scripts and the man page, all read from the
// commander tree) come from the same rows: a flag is written once.
import { Option, type Command, type Help } from 'commander';
import { oneOf } from './usage.js';

/** One row: commander's option, and the field's value from what commander parsed (its attribute). */
export interface Flag<T> {
  option(): Option;
  /** The heading it is listed under in --help (`Input flags:`), as gh groups its flags. */
  readonly group?: string;
  /** commander's name for the parsed value (`--no-header` → `header`, `--max-wait` → `maxWait`). */
  readonly attribute: string;
  read(parsed: unknown): T;
}

export type FlagTable = Readonly<Record<string, Flag<unknown>>>;

/** The options a table gives: one field per row, typed by the row. */
export type OptionsOf<F extends FlagTable> = { -readonly [K in keyof F]: F[K] extends Flag<infer T> ? T : never };

function row<T>(make: () => Option, read: (parsed: unknown) => T): Flag<T> {
  return { option: make, attribute: make().attributeName(), read };
}

/** A switch: true when given. `--no-header` too: true when given (the field is `noHeader`). */
export function given(flags: string, about: string): Flag<boolean> {
  const negated = /(^|[ ,])--no-/.test(flags);
  return row(() => new Option(flags, about), (v) => (negated ? v === false : v === true));
}

/** A row left out of --help, said in a help topic instead: its line would not fit the screen (completion and the man page still list it). */
export function unlisted<T>(flag: Flag<T>): Flag<T> {
  return { ...flag, option: () => flag.option().hideHelp() };
}

/** Every option of a command in --help's order, the unlisted ones too: where room is no matter (completion, the man page). */
export function everyOption(command: Command, help: Help): Option[] {
  const visible = help.visibleOptions(command);
  return [...command.options.filter((o) => o.hidden || visible.includes(o)), ...visible.filter((o) => !command.options.includes(o))];
}

/** A `--no-…` switch for a field that is on unless it is given (`--no-cache` → `cache`). */
export function onUnless(flags: `--no-${string}`, about: string): Flag<boolean> {
  return row(() => new Option(flags, about), (v) => v !== false);
}

interface ValueHow<T> {
  /** commander's argParser: the typed value, or an InvalidArgumentError (usage error, exit 2). */
  parse?: (text: string) => T;
  /** The names it takes (matched whatever their case; a slip is refused with the closest), and what they are. */
  choices?: readonly string[];
  what?: string;
}

/** A flag that takes a value; undefined when not given. */
export function value<T = string>(flags: string, about: string, how: ValueHow<T> = {}): Flag<T | undefined> {
  return row(() => declare(flags, about, how), (v) => v as T | undefined);
}

/** A flag that takes a value, with a default (shown in --help as `shown`, else as the value). */
export function valueOr<T>(flags: string, about: string, how: ValueHow<T> & { fallback: T; shown?: string }): Flag<T> {
  return row(() => declare(flags, about, how).default(how.fallback, how.shown), (v) => v as T);
}

function declare<T>(flags: string, about: string, how: ValueHow<T>): Option {
  const option = new Option(flags, about);
  if (how.choices) {
    option.argChoices = [...how.choices]; // for --help and the completion scripts
    option.argParser(how.parse ?? (oneOf(option.long ?? flags, how.what ?? 'choice', how.choices) as (text: string) => T));
  } else if (how.parse) option.argParser(how.parse);
  return option;
}

/** The rows, listed in --help under `heading`. */
export function group<F>(heading: string, rows: F): F {
  // F is left unconstrained: a constraint would type each row's value as unknown (its inference context).
  const table = rows as FlagTable;
  return Object.fromEntries(Object.entries(table).map(([field, flag]) => [field, { ...flag, group: heading }])) as F;
}

/** Declare every row's option on the command, in the table's order (--help's order), each under its group. */
export function addFlags(command: Command, table: FlagTable): Command {
  for (const flag of Object.values(table)) {
    const option = flag.option();
    if (flag.group) option.helpGroup(flag.group);
    command.addOption(option);
  }
  return command;
}

/** The options from what commander parsed (its `opts()`, keyed by attribute). */
export function readFlags<F extends FlagTable>(table: F, parsed: Record<string, unknown>): OptionsOf<F> {
  const out: Record<string, unknown> = {};
  for (const [field, flag] of Object.entries(table)) out[field] = flag.read(parsed[flag.attribute]);
  return out as OptionsOf<F>;
}
