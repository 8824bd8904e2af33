// The man page idv(1) in man(7) roff, from the same commander tree, Help and help blocks (commands/help-text.ts)
// as --help: render-help.ts writes it to dist/idv.1 at build time. The help topics are DESCRIPTION's subsections.
import type { Command, Help } from 'commander';
import { DOCS_MARK } from '../shipped.cjs';
import { blocksOf, ENVIRONMENT, EXIT_CODES, FILES, HELP_WIDTH, layout, type Block } from '../commands/help-text.js';
import { TOPICS } from '../commands/help-topics.js';
import { everyOption } from '../commands/flag-table.js';

/** Text for roff: backslashes, hyphens (so that flags copy as typed), non-ASCII as \[uXXXX]. */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/[^\x20-\x7e]/gu, (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
}

/** A line of text that roff must not read as a request (one that starts with . or '). */
const line = (text: string) => (/^[.']/.test(text) ? `\\&${text}` : text);

/** .TP items: the names in bold, a <value> in italics, and the description. */
function items(list: readonly (readonly [term: string, description: string])[]): string[] {
  return list.flatMap(([term, description]) => {
    const [, names = term, value] = /^(.*?)(?: ([<[].*))?$/.exec(term.trim()) ?? [];
    const bold = names
      .split(', ')
      .map((n) => `\\fB${roff(n)}\\fR`)
      .join(', ');
    return ['.TP', value ? `${bold} \\fI${roff(value)}\\fR` : bold, line(roff(description))];
  });
}

/** The commands below `cmd`, depth first, without commander's implicit `help` command. */
function commandsOf(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...commandsOf(c)]);
}

/** The words that run a command: idv auth login. */
function pathOf(cmd: Command): string[] {
  return cmd.parent ? [...pathOf(cmd.parent), cmd.name()] : [cmd.name()];
}

function helpOf(cmd: Command): Help {
  const helper = cmd.createHelp();
  helper.prepareContext({ helpWidth: HELP_WIDTH });
  return helper;
}

/** A command's paragraphs (not its examples nor its lists), the docs' line aside (SEE ALSO says it). */
function prose(cmd: Command): string[] {
  return blocksOf(cmd)
    .filter((b): b is { prose: string } => 'prose' in b && !b.prose.includes(DOCS_MARK))
    .flatMap((b) => ['.PP', line(roff(b.prose))]);
}

/** DESCRIPTION: what idv is, then each command, what it does and its notes. */
function description(program: Command): string[] {
  return [
    line(roff(helpOf(program).commandDescription(program))),
    ...prose(program),
    ...commandsOf(program).flatMap((c) => [
      '.TP',
      `\\fB${roff(pathOf(c).join(' '))}\\fR`,
      line(roff(helpOf(c).commandDescription(c))),
      ...prose(c).map((l) => (l === '.PP' ? '.IP' : l)),
    ]),
  ];
}

/** The help topics (idv help TOPIC) but those with a section of their own (ENVIRONMENT, FILES, EXIT STATUS). */
function topics(): string[] {
  const own = new Set(['environment', 'files', 'exit-codes']);
  return Object.entries(TOPICS)
    .filter(([name]) => !own.has(name))
    .flatMap(([name, topic]) => [
      `.SS "${roff(name)}"`,
      ...topic.blocks.flatMap((b) => {
        if ('prose' in b) return ['.PP', line(roff(b.prose))];
        return 'list' in b ? items(b.items) : exampleLines(b);
      }),
    ]);
}

/** OPTIONS: idv's own, then each command's usage, arguments and options. */
function options(program: Command): string[] {
  const of = (c: Command, root: boolean) => {
    const h = helpOf(c);
    const args = h.visibleArguments(c).map((a): [string, string] => [h.argumentTerm(a), h.argumentDescription(a)]);
    const opts = everyOption(c, h).map((o): [string, string] => [h.optionTerm(o), h.optionDescription(o)]);
    return [
      ...(root ? [] : [`.SS "${roff(h.commandUsage(c))}"`]),
      ...(args.length ? ['.PP', 'Arguments:', ...items(args)] : []),
      ...(opts.length ? ['.PP', 'Options:', ...items(opts)] : []),
    ];
  };
  return [...of(program, true), ...commandsOf(program).flatMap((c) => of(c, false))];
}

/** man indents a section's text by this much: examples are laid out to fit beside it. */
const MAN_INDENT = 8;

type Examples = Extract<Block, { examples: unknown }>;
const examplesOf = (c: Command) => blocksOf(c).filter((b): b is Examples => 'examples' in b);

/** Examples laid out as --help does, to fit beside man's indent; after their title, unless it is only `Examples:`. */
function exampleLines(b: Examples): string[] {
  const shown = layout([{ examples: b.examples }], HELP_WIDTH - MAN_INDENT).split('\n');
  const title = b.title && b.title !== 'Examples:' ? ['.PP', line(roff(b.title))] : [];
  return [...title, '.PP', '.nf', ...shown.map((l) => line(roff(l))), '.fi'];
}

/** EXAMPLES: each command's (those its group, `idv auth`, shows already left out), laid out as --help does. */
function examples(program: Command): string[] {
  return [program, ...commandsOf(program)].flatMap((c) => {
    const group = c.parent && c.parent !== program ? new Set(examplesOf(c.parent).flatMap((b) => b.examples.map((e) => e.command))) : new Set();
    const blocks = examplesOf(c)
      .map((b) => ({ ...b, examples: b.examples.filter((e) => !group.has(e.command)) }))
      .filter((b) => b.examples.length > 0);
    if (blocks.length === 0) return [];
    return [`.SS "${roff(pathOf(c).join(' '))}"`, ...blocks.flatMap(exampleLines)];
  });
}

export function manPage(program: Command, version: string): string {
  const name = program.name();
  const about = helpOf(program).commandDescription(program).replace(/\.$/, '');
  return [
    `.\\" ${name}(1), generated at build time by src/tools/render-help.ts from the commands and flags behind --help.`,
    `.TH ${name.toUpperCase()} 1 "" "${name} ${version}" "User Commands"`,
    '.nh',
    '.SH NAME',
    `${name} \\- ${roff(about.charAt(0).toLowerCase() + about.slice(1))}`,
    '.SH SYNOPSIS',
    ...commandsOf(program)
      .filter((c) => c.commands.length === 0)
      .flatMap((c) => ['.br', `.B ${roff(pathOf(c).join(' '))}`, roff(c.usage())]),
    '.br',
    `.B ${name}`,
    '[\\fIcommand\\fR] \\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR',
    '.SH DESCRIPTION',
    ...description(program),
    ...topics(),
    '.SH OPTIONS',
    ...options(program),
    '.SH ENVIRONMENT',
    ...items(ENVIRONMENT),
    '.SH FILES',
    ...items(FILES),
    '.SH "EXIT STATUS"',
    ...items(EXIT_CODES),
    '.PP',
    'When several apply, the first of 3, 4, 1 wins.',
    '.SH EXAMPLES',
    ...examples(program),
    '.SH "SEE ALSO"',
    `The whole interface for users, in more detail: docs/cli.md in the ${name} package (the folder \\fBnpm root \\-g\\fR shows, for a global install), and its README.md.`,
    '',
  ].join('\n');
}
