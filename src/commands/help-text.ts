// The text after a command's options in --help (prose, examples, lists of environment variables, files and
// exit codes), kept as blocks so that it is laid out for the width it is printed at, and so that the man page
// (tools/man-page.ts) puts each block in its section. What is true of every run (ENVIRONMENT, FILES,
// EXIT_CODES) is written here once.
import { Help, Option, type Command } from 'commander';
import type { Io } from '../system/io.js';
import { DOCS_MARK } from '../shipped.cjs';
import { PERSON_WIDTH } from '../system/terminal-size.cjs';
import { wrap } from '../system/wrap.js';
import { displayWidth, padEndTo } from '../system/display-width.js';

export interface Example {
  command: string;
  comment?: string;
}

/** A paragraph; examples (with the sentence before them); or a titled list of terms and what they mean. */
export type Block =
  | { prose: string }
  | { examples: Example[]; title?: string }
  | { list: string; items: readonly (readonly [term: string, about: string])[] };

/** The widest help: what dist/help/ is rendered at, and what a wider terminal gets too. */
export const HELP_WIDTH = PERSON_WIDTH;
/** A column of descriptions narrower than this goes below the terms instead. */
const MIN_BESIDE = 30;

export const ENVIRONMENT = [
  ['IDV_API_KEY', 'the API key; wins over the one idv auth login stores'],
  ['IDV_BASE_URL', "the service's address (--base-url wins); plain http:// only to this machine"],
  ['XDG_CONFIG_HOME', 'where idv/config.json is kept (default ~/.config)'],
  ['XDG_CACHE_HOME', 'where the result cache idv/ is kept (default ~/.cache)'],
  ['HTTPS_PROXY', 'a proxy for the requests to the service (also https_proxy)'],
  ['HTTP_PROXY', 'the proxy when HTTPS_PROXY is not set (also http_proxy)'],
  ['NO_PROXY', 'hosts reached without the proxy (also no_proxy)'],
  ['NO_COLOR', 'set and not empty: no colour'],
  ['FORCE_COLOR', 'colour even where not a terminal (0 or false: none); NO_COLOR wins'],
  ['IDV_DEBUG', '1: an unexpected error prints its stack trace'],
] as const;

export const FILES = [
  ['~/.config/idv/config.json', 'the key idv auth login stores, readable only by you ($XDG_CONFIG_HOME/idv/ when set)'],
  ['~/.cache/idv/', 'results kept for --cache-ttl, so that a rerun does not pay twice ($XDG_CACHE_HOME/idv/ when set); idv cache stats, idv cache clear'],
] as const;

export const EXIT_CODES = [
  ['0', 'every record has a final status'],
  ['1', 'some records ended "error", or idv failed'],
  ['2', 'usage error, unreadable input, refused base URL or output path'],
  ['3', 'no API key, or the service refused it'],
  ['4', 'quota used up (or --max-spend reached): results so far written; run again later to go on'],
  ['129, 130, 143', 'interrupted (SIGHUP, SIGINT, SIGTERM)'],
] as const;

/** The last lines of `idv --help`: where the docs are (filled in when printed: shipped.cts). */
export const DOCS: Block = { prose: `Docs (every command, flag, status and exit code):\n  ${DOCS_MARK}` };

/** The blocks after each command's options, for the man page. */
const BLOCKS = new WeakMap<Command, Block[]>();

export function blocksOf(command: Command): Block[] {
  return BLOCKS.get(command) ?? [];
}

/** Add the blocks after the command's options in its help, laid out for the width the help is printed at, in the user's system's forms. */
export function helpAfter(command: Command, io: Io | undefined, blocks: Block[]): Command {
  BLOCKS.set(command, blocks);
  return command.addHelpText('after', (context) => '\n' + layout(blocks, helpWidth(io, context.error), io?.platform));
}

/**
 * Shell lines and paths as the user's system has them: PowerShell's forms on Windows (the shell Windows
 * Terminal opens; cmd's are in docs/cli.md), its folders on Windows and macOS (paths.ts). Each is written once, in
 * its Unix form, and turned here.
 */
type Replacement = string | ((match: string, ...groups: string[]) => string);
const SYSTEM_FORMS: Partial<Record<NodeJS.Platform, Array<[RegExp, Replacement]>>> = {
  win32: [
    // Variables for one command: PowerShell sets them first, for the session.
    [/^(.*?)((?:[A-Z_]+=(?:<[^>]*>|\S+) )+)idv /, (_m, before, vars) => [...vars!.matchAll(/([A-Z_]+)=(<[^>]*>|\S+) /g)].map(([, name, value]) => `$env:${name}='${value}'; `).join('') + before + 'idv '],
    [/printf '%s\\n' (\S+) (\S+) \| /, "'$1', '$2' | "],
    [/printf %s "\$(\w+)" \| /, '$env:$1 | '],
    [/(^|; )cat (\S+) \| /, '$1Get-Content $2 | '],
    [/(^|; )tail -f (\S+) \| /, '$1Get-Content $2 -Wait | '],
    [/^source <\(idv completion bash\)$/, 'idv completion powershell | Out-String | Invoke-Expression'],
    [/~\/\.config\/idv\/config\.json/g, '%APPDATA%\\idv\\config.json'],
    [/~\/\.cache\/idv\//g, '%LOCALAPPDATA%\\idv\\'],
    [/\(default ~\/\.config\)/g, '(default %APPDATA%)'],
    [/\(default ~\/\.cache\)/g, '(default %LOCALAPPDATA%)'],
    [/, readable only by you/g, ", protected by your profile folder's permissions"],
  ],
  darwin: [
    [/~\/\.config\/idv\/config\.json/g, '~/Library/Application Support/idv/config.json'],
    [/~\/\.cache\/idv\//g, '~/Library/Caches/idv/'],
    [/\(default ~\/\.config\)/g, '(default ~/Library/Application Support)'],
    [/\(default ~\/\.cache\)/g, '(default ~/Library/Caches)'],
  ],
};

/** A line of help in the forms of `platform` (undefined: Linux's, as written). */
export function forSystem(text: string, platform: NodeJS.Platform | undefined): string {
  const forms = (platform && SYSTEM_FORMS[platform]) || [];
  return forms.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement as string), text);
}

/** The blocks with their text in the forms of `platform`. */
function inSystemForms(blocks: Block[], platform: NodeJS.Platform | undefined): Block[] {
  if (!platform || !SYSTEM_FORMS[platform]) return blocks;
  const f = (t: string) => forSystem(t, platform);
  return blocks.map((b) => {
    if ('prose' in b) return { prose: f(b.prose) };
    if ('examples' in b) return { ...b, examples: b.examples.map((e) => ({ command: f(e.command), ...(e.comment ? { comment: e.comment } : {}) })) };
    return { ...b, items: b.items.map(([term, about]) => [f(term), f(about)] as const) };
  });
}

/** The width help is laid out for: the terminal's when narrower than HELP_WIDTH (none at build time). */
export function helpWidth(io: Io | undefined, toStderr = false): number {
  if (io?.term === undefined) return HELP_WIDTH; // at build time: no Io, or one that only names the system
  return Math.min(HELP_WIDTH, io.term.width(toStderr ? 'stderr' : 'stdout') ?? HELP_WIDTH);
}

/** The blocks as text at `width` in `platform`'s forms, a blank line between two (commander ends the text with a line break). */
export function layout(blocks: Block[], width: number, platform?: NodeJS.Platform): string {
  const shell = platform === 'win32' ? POWERSHELL : POSIX_SHELL;
  return inSystemForms(blocks, platform).map((b) => layoutBlock(b, width, shell)).join('\n\n');
}

/** How a shell shows a command line: its prompt, and the end of a line continued on the next. */
interface Shell {
  prompt: string;
  continued: string;
}
const POSIX_SHELL: Shell = { prompt: '$', continued: '\\' };
const POWERSHELL: Shell = { prompt: 'PS>', continued: '`' };

function layoutBlock(block: Block, width: number, shell: Shell): string {
  if ('prose' in block) return block.prose.split('\n').map((line) => wrapIndented(line, width)).join('\n');
  if ('examples' in block) return [...(block.title ? [wrap(block.title, width)] : []), ...examples(block.examples, width, shell)].join('\n');
  return [`${block.list}:`, ...items(block.items, width)].join('\n');
}

/** A line of prose wrapped at `width`; its leading spaces (a path on a line of its own) kept on each line. */
function wrapIndented(line: string, width: number): string {
  const indent = /^ */.exec(line)![0];
  return wrap(line.slice(indent.length), width - indent.length)
    .split('\n')
    .map((l) => indent + l)
    .join('\n');
}

/**
 * `  $ command  # comment`, the comments lined up, when every example fits so; else each comment on the line
 * above its command and a blank line between them (as gh's help does). A command longer than the line is
 * continued with ` \`.
 */
function examples(list: Example[], width: number, shell: Shell): string[] {
  const { prompt } = shell;
  const extra = prompt.length - 1;
  const column = Math.max(...list.filter((e) => e.comment).map((e) => displayWidth(e.command) + 6 + extra), 0);
  const aligned = list.every((e) => (e.comment ? column + 2 + displayWidth(e.comment) <= width : displayWidth(e.command) + 4 + extra <= width));
  if (aligned) return list.map((e) => (e.comment ? padEndTo(`  ${prompt} ${e.command}`, column) + `# ${e.comment}` : `  ${prompt} ${e.command}`));
  return list.flatMap((e, i) => [
    ...(i > 0 && (e.comment || list[i - 1]!.comment) ? [''] : []),
    ...(e.comment ? wrap(e.comment, width - 4).split('\n').map((l) => `  # ${l}`) : []),
    ...command(e.command, width, shell),
  ]);
}

/**
 * A command line: `  $ words…`, continued on lines of `      words…` ending in ` \\` where it must, broken
 * before a flag (kept with its value) or a pipe (kept with its command), else between words.
 */
function command(text: string, width: number, shell: Shell): string[] {
  const lines: string[] = [];
  let line = `  ${shell.prompt}`;
  for (const unit of units(text)) {
    const words = displayWidth(line) + 1 + displayWidth(unit) + 2 > width && 6 + displayWidth(unit) + 2 > width ? unit.split(' ') : [unit];
    for (const word of words) {
      if (line.trim().length > 1 && displayWidth(line) + 1 + displayWidth(word) + 2 > width) {
        lines.push(`${line} ${shell.continued}`);
        line = '     ';
      }
      line += ` ${word}`;
    }
  }
  return [...lines, line];
}

/** The words of a command line grouped as they are read: a flag with its value, `| command …` together. */
function units(text: string): string[] {
  const out: string[] = [];
  let piped = false;
  for (const word of text.split(' ')) {
    const pipe = /^(\||\|\||&&|;)$/.test(word);
    if (out.length === 0 || pipe || (word.startsWith('-') && !piped)) out.push(word);
    else out[out.length - 1] += ` ${word}`;
    if (pipe) piped = true;
  }
  return out;
}

/**
 * `  term  about`, the abouts lined up and wrapped under themselves; a term longer than a third of the line
 * has its about below it, and so has every term when the column beside them is too narrow to read.
 */
function items(list: readonly (readonly [string, string])[], width: number): string[] {
  const widest = Math.min(Math.max(...list.map(([term]) => displayWidth(term))), Math.floor(width / 3));
  const at = width - (4 + widest) >= MIN_BESIDE ? 4 + widest : 6;
  return list.flatMap(([term, about]) => {
    const text = wrap(about, width - at).split('\n');
    const first = at > 6 && displayWidth(term) <= widest ? [`  ${padEndTo(term, widest)}  ${text[0]}`] : [`  ${term}`, ' '.repeat(at) + text[0]];
    return [...first, ...text.slice(1).map((l) => ' '.repeat(at) + l)];
  });
}

/**
 * commander's option and command items at a narrow width: the description under its term when the column
 * left beside it is too narrow to read (commander would leave it unwrapped, past the terminal's edge).
 */
function narrowItem(term: string, termWidth: number, description: string, helper: Help): string {
  const width = helper.helpWidth ?? HELP_WIDTH;
  const beside = width - termWidth - 4;
  if (!description) return `  ${term}`;
  if (beside >= MIN_BESIDE) return `  ${padEndTo(term, termWidth)}  ${helper.boxWrap(description, beside).replace(/\n/g, '\n' + ' '.repeat(termWidth + 4))}`;
  const below = wrap(description, width - 6).replace(/\n/g, '\n      ');
  // The term alone on its line: not indented like the long names beside short ones, or it would sit where the descriptions do.
  return `  ${term.trimStart()}\n      ${below}`;
}

/** `-h, --help`, listed under `heading` (a command whose flags are grouped lists it with the terminal's). */
export function helpFlag(heading?: string): Option {
  const option = new Option('-h, --help', 'show this help');
  return heading ? option.helpGroup(heading) : option;
}

/**
 * How every command's help is laid out, beside commander's own: widths in display columns; a flag without a
 * short form indented as if it had one (`    --column`, as gh does), so the long names line up; a flag's
 * choices not repeated after its description (which names them); groups of flags (`Input flags:`) one after
 * another, without a blank line between them, so that `idv emails --help` fits on two screens.
 */
export const HELP_LAYOUT: Partial<Help> = {
  formatItem: narrowItem,
  minWidthToWrap: 20,
  displayWidth,
  optionTerm: (option) => (option.short || !option.long ? option.flags : `    ${option.flags}`),
  optionDescription: (option) => {
    const shown = option.defaultValueDescription ?? (option.required && option.defaultValue !== undefined ? JSON.stringify(option.defaultValue) : undefined);
    return shown !== undefined ? `${option.description} (default: ${shown})` : option.description;
  },
  // An argument's choices (idv help's topics) are for the completion scripts; its description names them.
  argumentDescription: (argument) => argument.description,
  formatHelp(cmd, helper) {
    return Help.prototype.formatHelp.call(this, cmd, helper).replace(/(\n {2}[^\n]*)\n\n(?=[^\n]* flags:\n)/g, '$1\n');
  },
};
