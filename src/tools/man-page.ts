// The man page idv(1), from the same commander tree and the same Help as `--help` (render-help.ts writes
// it to dist/idv.1 at build time): every command's usage, description, arguments, options (with their
// choices and defaults) and the text after its options (examples, exit codes), in man(7) roff.
import type { Command, Help } from 'commander';
import { DOCS_MARK } from '../shipped.cjs';

/** Text for roff: backslashes, hyphens (so that flags copy as typed), non-ASCII as \[uXXXX]. */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/[^\x20-\x7e]/gu, (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
}

/** A line of text that roff must not read as a request (one that starts with . or '). */
const line = (text: string) => (/^[.']/.test(text) ? `\\&${text}` : text);

/** The help text commander prints for a command, and the part that comes after its generated body. */
function helpOf(cmd: Command, helper: Help): { after: string } {
  let full = '';
  cmd.configureOutput({ writeOut: (s) => (full += s), getOutHelpWidth: () => 80 });
  cmd.outputHelp();
  const body = helper.formatHelp(cmd, helper);
  if (!full.startsWith(body)) throw new Error(`man page: the help of "${helper.commandUsage(cmd)}" does not start with its usage`);
  return { after: full.slice(body.length) };
}

/** The text after the options: prose is filled, indented lines (examples) are kept as they are. */
function afterText(text: string): string[] {
  const out: string[] = [];
  for (const block of text.trim().split(/\n\s*\n/)) {
    const lines = block.split('\n');
    let i = 0;
    const prose: string[] = [];
    while (i < lines.length && !/^\s/.test(lines[i]!)) prose.push(lines[i++]!);
    if (prose.length === 1 && prose[0]!.endsWith(':') && i < lines.length) out.push('.PP', `\\fB${roff(prose[0]!)}\\fR`);
    else if (prose.length) out.push('.PP', ...prose.map((l) => line(roff(l))));
    if (i < lines.length) out.push('.PP', '.nf', ...lines.slice(i).map((l) => line(roff(l))), '.fi');
  }
  return out;
}

/** .TP items: the names in bold, a <value> in italics, and the description. */
function items(list: [term: string, description: string][]): string[] {
  return list.flatMap(([term, description]) => {
    const [, names = term, value] = /^(.*?)(?: ([<[].*))?$/.exec(term) ?? [];
    const bold = names
      .split(', ')
      .map((n) => `\\fB${roff(n)}\\fR`)
      .join(', ');
    return ['.TP', value ? `${bold} \\fI${roff(value)}\\fR` : bold, line(roff(description))];
  });
}

function section(cmd: Command, helper: Help, root: boolean): string[] {
  const out: string[] = [];
  if (!root) out.push(`.SS "${roff(helper.commandUsage(cmd))}"`, line(roff(helper.commandDescription(cmd))));
  const args = helper.visibleArguments(cmd).map((a): [string, string] => [helper.argumentTerm(a), helper.argumentDescription(a)]);
  if (args.length) out.push('.PP', 'Arguments:', ...items(args));
  const options = helper.visibleOptions(cmd).map((o): [string, string] => [helper.optionTerm(o), helper.optionDescription(o)]);
  if (options.length) out.push('.PP', 'Options:', ...items(options));
  return out;
}

/** The commands below `cmd`, depth first, without commander's implicit `help` command. */
function commandsOf(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...commandsOf(c)]);
}

/** The words that run a command: idv auth login. */
function pathOf(cmd: Command): string[] {
  return cmd.parent ? [...pathOf(cmd.parent), cmd.name()] : [cmd.name()];
}

export function manPage(program: Command, version: string): string {
  const helper = program.createHelp();
  helper.prepareContext({ helpWidth: 80 });
  const name = program.name();
  const description = helper.commandDescription(program).replace(/\.$/, '');
  const rootAfter = helpOf(program, helper).after.split(DOCS_MARK).join('docs/cli.md in the idv package');
  const commands = commandsOf(program);
  return [
    `.\\" ${name}(1), generated at build time by src/tools/render-help.ts from the commands and flags behind --help.`,
    `.TH ${name.toUpperCase()} 1 "" "${name} ${version}" "User Commands"`,
    '.SH NAME',
    `${name} \\- ${roff(description.charAt(0).toLowerCase() + description.slice(1))}`,
    '.SH SYNOPSIS',
    ...commands
      .filter((c) => c.commands.length === 0)
      .flatMap((c) => ['.br', `.B ${roff(pathOf(c).join(' '))}`, roff(c.usage())]),
    '.br',
    `.B ${name}`,
    '[\\fIcommand\\fR] \\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR',
    '.SH DESCRIPTION',
    line(roff(helper.commandDescription(program))),
    ...section(program, helper, true),
    ...afterText(rootAfter),
    '.SH COMMANDS',
    ...commands.flatMap((c) => {
      const h = c.createHelp();
      h.prepareContext({ helpWidth: 80 });
      return [...section(c, h, false), ...afterText(helpOf(c, h).after)];
    }),
    '.SH SEE ALSO',
    `The whole interface for users, in more detail: docs/cli.md in the ${name} package (the folder \\fBnpm root \\-g\\fR shows, for a global install), and its README.md.`,
    '',
  ].join('\n');
}
