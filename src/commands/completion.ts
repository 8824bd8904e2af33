// `idv completion bash|zsh|fish|powershell`: a completion script generated from the commander tree (program.ts), the
// one list of commands and flags that --help prints too. What a flag's value completes to comes from the
// tree: its choices (--format), or the name of its value — <file> and FILE complete file names, <dir>
// folders, <statuses> the command's statuses (statuses.ts) as a comma-separated list.
import { Argument, Command, type Option } from 'commander';
import type { Io } from '../system/io.js';
import { helpAfter } from './help-text.js';
import { everyOption } from './flag-table.js';
import { KNOWN_STATUSES, STATUSES_OF } from '../core/statuses.js';

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

/** What a flag's value or an operand completes to. */
export type Value =
  | { kind: 'none' } // a flag without a value; a command without operands
  | { kind: 'any' } // a value with nothing to offer (a number, a URL…)
  | { kind: 'file' }
  | { kind: 'dir' }
  | { kind: 'one'; of: string[] } // one of these words
  | { kind: 'list'; of: string[] }; // several of these words, comma-separated

export interface Flag {
  /** `-f`, `--format`. */
  names: string[];
  about: string;
  value: Value;
}

export interface Node {
  /** The words after `idv` that name this command ([] for idv itself). */
  path: string[];
  about: string;
  flags: Flag[];
  /** What its operands complete to, and whether it takes several. */
  operand: Value;
  variadic: boolean;
  commands: Node[];
}

/** The tree of commands as completion sees it, in --help's order (commander's Help, as --help uses). */
export function describe(command: Command, path: string[] = [], siblings: string[] = []): Node {
  const help = command.createHelp();
  const subcommands = help.visibleCommands(command);
  const names = subcommands.map((c) => c.name()).filter((n) => n !== 'help');
  const argument = command.registeredArguments[0];
  return {
    path,
    about: oneLine(help.subcommandDescription(command)),
    flags: everyOption(command, help).map((o) => flagOf(o, command)),
    operand: operandOf(argument, command, siblings),
    variadic: argument?.variadic ?? false,
    commands: subcommands.map((c) => describe(c, [...path, c.name()], names)),
  };
}

function flagOf(option: Option, command: Command): Flag {
  const placeholder = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1] ?? '';
  return {
    names: [option.short, option.long].filter((n): n is string => Boolean(n)),
    about: oneLine(option.description),
    value: option.required || option.optional ? valueOf(placeholder, option.argChoices, command) : { kind: 'none' },
  };
}

function operandOf(argument: Argument | undefined, command: Command, siblings: string[]): Value {
  if (!argument) return { kind: 'none' };
  // commander's implicit `help [command]`: the names of the commands beside it
  if (command.name() === 'help' && argument.name() === 'command') return { kind: 'one', of: siblings };
  return valueOf(argument.name(), argument.argChoices, command);
}

/** A value by its choices, else by its name in the tree (`<file>`, `FILE`, `<dir>`, `<statuses>`). */
function valueOf(name: string, choices: readonly string[] | undefined, command: Command): Value {
  if (choices) return { kind: 'one', of: [...choices] };
  const word = name.replace(/\.\.\.$/, '').toLowerCase();
  if (word === 'file' || word === 'dir') return { kind: word };
  if (word !== 'statuses') return { kind: 'any' };
  const kind = command.name();
  return { kind: 'list', of: [...(kind === 'emails' || kind === 'domains' ? STATUSES_OF[kind] : KNOWN_STATUSES)] };
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Every node of the tree, the root first. */
function walk(node: Node): Node[] {
  return [node, ...node.commands.flatMap(walk)];
}

export function completionScript(shell: Shell, root: Node, name = 'idv'): string {
  return { bash, zsh, fish, powershell }[shell](root, name);
}

/** `idv completion <shell>`: its script is generated from the whole tree (the program `root` gives). */
export function completionCommand(io: Io, root: () => Command): Command {
  const command = new Command('completion')
    .description('print a shell completion script (bash, zsh, fish or powershell)')
    .addArgument(new Argument('<shell>', 'the shell to complete for').choices(SHELLS));
  return helpAfter(command, io, [
    {
      title: 'Examples:',
      examples: [
        { command: 'source <(idv completion bash)', comment: 'bash, in this shell' },
        { command: 'idv completion bash > ~/.local/share/bash-completion/completions/idv', comment: 'bash, every shell' },
        { command: 'idv completion zsh > "${fpath[1]}/_idv"', comment: 'zsh: any folder in $fpath, then a new shell' },
        { command: 'idv completion fish > ~/.config/fish/completions/idv.fish', comment: 'fish' },
        { command: 'idv completion powershell | Out-String | Invoke-Expression', comment: 'PowerShell (add it to $PROFILE for every shell)' },
      ],
    },
  ]).action((shell: Shell) => run({ shell, program: root() }, io));
}

export async function run(options: { shell: Shell; program: Command }, io: Io): Promise<void> {
  io.stdout.write(completionScript(options.shell, describe(options.program)));
}

// ── bash ──────────────────────────────────────────────────────────────────────────────────────────────

/** A word for a bash `case` pattern or value, single-quoted. */
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** How bash's part of the script names a value: '' none, any, file, dir, one:<words>, list:<words>. */
function bashValue(v: Value): string {
  if (v.kind === 'none') return '';
  return 'of' in v ? `${v.kind}:${v.of.join(' ')}` : v.kind;
}

/** A command's subcommands, and its flags, space-separated: what bash's and PowerShell's lookups hold. */
const subcommandsOf = (n: Node) => n.commands.map((c) => c.path.at(-1)!).join(' ');
const flagsOf = (n: Node) => n.flags.flatMap((f) => f.names).join(' ');

function bash(root: Node, name: string): string {
  const fn = `_${name}`;
  return `# bash completion for ${name}, generated by \`${name} completion bash\` from its commands and flags.
# Load it in this shell:  source <(${name} completion bash)
# Load it in every shell: ${name} completion bash > ~/.local/share/bash-completion/completions/${name}
#                         (or add the line above to ~/.bashrc). Needs bash 4 or newer.

${bashLookups(walk(root), name, fn)}

${bashOffer(fn)}

${bashComplete(fn)}

complete -F ${fn} ${name}
`;
}

/** bash: what the command tree holds, as functions that set REPLY: subcommands, flags, a flag's value, operands. */
function bashLookups(nodes: Node[], name: string, fn: string): string {
  /** A function that sets REPLY by a `case` of `subject`: each row's words (any of them) to its value. */
  const lookup = (about: string, what: string, cases: [string[], string][], subject = '$1') => `# ${about}
${fn}_${what}() {
  case ${subject} in
${cases
  .filter(([, value]) => value !== '')
  .map(([words, value]) => `    ${words.map(sq).join('|')}) REPLY=${sq(value)} ;;`)
  .join('\n')}
    *) REPLY='' ;;
  esac
}`;
  const rows = (of: (n: Node) => string) => nodes.map((n): [string[], string] => [[n.path.join(' ')], of(n)]);
  const values = nodes.flatMap((n) =>
    n.flags.map((f): [string[], string] => [f.names.map((flag) => `${n.path.join(' ')} ${flag}`), bashValue(f.value)]),
  );
  return [
    lookup(`The subcommands of a command (its words after ${name}, space-separated).`, 'commands', rows(subcommandsOf)),
    lookup('The flags of a command.', 'flags', rows(flagsOf)),
    lookup(
      "The value a flag of a command takes: '' (none), any, file, dir, one:WORDS, list:WORDS (comma-separated).",
      'value',
      values,
      '"$1 $2"',
    ),
    lookup('What the operands of a command are, as for a value.', 'operand', rows((n) => bashValue(n.operand))),
  ].join('\n\n');
}

/** bash: offer the values of a kind that start with the word being completed. */
function bashOffer(fn: string): string {
  return `# Offer the values of a kind (as ${fn}_value gives it) that start with the word being completed.
${fn}_offer() {
  local kind=$1 cur=$2 head=
  COMPREPLY=()
  case $kind in
    file) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    dir) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
    one:*) mapfile -t COMPREPLY < <(compgen -W "\${kind#one:}" -- "$cur") ;;
    list:*)
      if [[ $cur == *,* ]]; then head=\${cur%,*},; fi
      mapfile -t COMPREPLY < <(compgen -P "$head" -W "\${kind#list:}" -- "\${cur##*,}")
      compopt -o nospace 2>/dev/null ;;
  esac
  return 0
}`;
}

/** bash: the completion function, which walks the words typed so far down the command tree. */
function bashComplete(fn: string): string {
  return `${fn}() {
  local cur=\${COMP_WORDS[COMP_CWORD]} flag= path= word i operands=0 REPLY
  if (( COMP_CWORD > 0 )); then flag=\${COMP_WORDS[COMP_CWORD-1]}; fi
  # bash splits --flag=value at '=' (COMP_WORDBREAKS): the words are --flag, =, value.
  if [[ $cur == = ]]; then
    cur=
  elif [[ $flag == = ]] && (( COMP_CWORD > 1 )); then
    flag=\${COMP_WORDS[COMP_CWORD-2]}
  fi
  # Walk the words before this one: subcommands lead down the tree; flags' values are skipped.
  for (( i = 1; i < COMP_CWORD; i++ )); do
    word=\${COMP_WORDS[i]}
    case $word in
      --) operands=1 ;;
      -*)
        ${fn}_value "$path" "$word"
        if [[ -n $REPLY ]]; then
          if [[ \${COMP_WORDS[i+1]-} == = ]]; then (( i += 2 )); else (( i += 1 )); fi
        fi ;;
      *)
        ${fn}_commands "$path"
        if (( operands == 0 )) && [[ " $REPLY " == *" $word "* ]]; then
          path=\${path:+$path }$word
        else
          operands=1
        fi ;;
    esac
  done
  if [[ $flag == -* ]]; then
    ${fn}_value "$path" "$flag"
    if [[ -n $REPLY ]]; then ${fn}_offer "$REPLY" "$cur"; return 0; fi
  fi
  if [[ $cur == -* ]]; then
    ${fn}_flags "$path"
    ${fn}_offer "one:$REPLY" "$cur"
    return 0
  fi
  ${fn}_commands "$path"
  if [[ -n $REPLY ]] && (( operands == 0 )); then
    ${fn}_offer "one:$REPLY" "$cur"
    return 0
  fi
  ${fn}_operand "$path"
  ${fn}_offer "$REPLY" "$cur"
}`;
}

// ── zsh ───────────────────────────────────────────────────────────────────────────────────────────────

/** Text inside an _arguments description `[…]` or a _describe entry, and single-quoted. */
const zdesc = (s: string) => s.replace(/\\/g, '\\\\').replace(/\[/g, '\\[').replace(/]/g, '\\]').replace(/:/g, '\\:').replace(/'/g, `'\\''`);

function zshAction(v: Value, what: string): string {
  if (v.kind === 'none') return '';
  const words = 'of' in v ? v.of.join(' ') : '';
  const action = {
    any: ' ',
    file: '_files',
    dir: '_files -/',
    one: `(${words})`,
    list: `_sequence compadd - ${words}`,
  }[v.kind];
  return `:${what}:${action}`;
}

const zfn = (name: string, n: Node) => ['_' + name, ...n.path].join('_').replace(/[^A-Za-z0-9_]/g, '_');

function zshFlag(f: Flag): string {
  const takesValue = f.value.kind !== 'none';
  const what = f.names.at(-1)!.replace(/^-+/, '');
  const forms = f.names.map((n) => (takesValue ? (n.startsWith('--') ? `${n}=` : `${n}+`) : n));
  const exclusive = f.names.includes('--help') || f.names.includes('--version') ? '(- *)' : f.names.length > 1 ? `(${f.names.join(' ')})` : '';
  const spec = `[${zdesc(f.about)}]${zshAction(f.value, what)}`;
  // A flag given twice keeps one value; --only/--exclude lists are the exception users expect to repeat
  const body = forms.length > 1 ? `{${forms.join(',')}}'${spec}'` : `'${forms[0]}${spec}'`;
  return exclusive ? `'${exclusive}'${body}` : body;
}

function zshFunction(name: string, n: Node): string {
  const specs = n.flags.map(zshFlag);
  const fn = zfn(name, n);
  if (n.commands.length === 0) {
    if (n.operand.kind !== 'none') specs.push(`'${n.variadic ? '*' : '1'}${zshAction(n.operand, n.operand.kind === 'file' ? 'file' : 'argument')}'`);
    return `${fn}() {
  _arguments -s -S \\
    ${specs.join(' \\\n    ')}
}`;
  }
  const entries = n.commands.map((c) => `'${zdesc(c.path.at(-1)!)}:${zdesc(c.about)}'`);
  const branches = n.commands.map((c) => `      ${c.path.at(-1)}) ${zfn(name, c)} && ret=0 ;;`);
  return `${fn}() {
  local curcontext=$curcontext state line ret=1
  _arguments -C \\
    ${[...specs, `'1:command:->command'`, `'*::argument:->argument'`].join(' \\\n    ')} && ret=0
  case $state in
    command)
      local -a commands=(
        ${entries.join('\n        ')}
      )
      _describe -t commands '${[name, ...n.path].join(' ')} command' commands && ret=0 ;;
    argument)
      curcontext=\${curcontext%:*:*}:${[name, ...n.path].join('-')}-$words[1]:
      case $words[1] in
${branches.join('\n')}
      esac ;;
  esac
  return ret
}`;
}

function zsh(root: Node, name: string): string {
  return `#compdef ${name}
# zsh completion for ${name}, generated by \`${name} completion zsh\` from its commands and flags.
# Load it in this shell:  source <(${name} completion zsh)       (after compinit)
# Load it in every shell: ${name} completion zsh > "\${fpath[1]}/_${name}"
#                         (any folder in $fpath; then start a new shell)

${walk(root)
  .map((n) => zshFunction(name, n))
  .join('\n\n')}

if [[ $funcstack[1] == _${name} ]]; then
  _${name} "$@" # autoloaded from $fpath: complete now
else
  compdef _${name} ${name} # sourced
fi
`;
}

// ── fish ──────────────────────────────────────────────────────────────────────────────────────────────

const fq = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function fish(root: Node, name: string): string {
  const lines: string[] = [];
  for (const n of walk(root)) {
    // The words typed so far name this command and no subcommand of it.
    const cond = fq(`__fish_${name}_at ${n.path.join(' ')}`.trim());
    for (const c of n.commands) {
      lines.push(`complete -c ${name} -n ${cond} -a ${fq(c.path.at(-1)!)} -d ${fq(c.about)}`);
    }
    for (const f of n.flags) {
      const names = f.names.map((flag) => (flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`)).join(' ');
      lines.push(`complete -c ${name} -n ${cond} ${names}${fishValue(f.value)} -d ${fq(f.about)}`);
    }
    if (n.operand.kind !== 'none') lines.push(`complete -c ${name} -n ${cond}${fishValue(n.operand, true)}`);
  }
  return `# fish completion for ${name}, generated by \`${name} completion fish\` from its commands and flags.
# Load it in this shell:  ${name} completion fish | source
# Load it in every shell: ${name} completion fish > ~/.config/fish/completions/${name}.fish

${fishAt(root, name)}

# Nothing but what is listed below: no file names unless a flag or operand takes files.
complete -c ${name} -f
${lines.join('\n')}
`;
}

/** fish: the function that tells where in the command tree the words typed so far are. */
function fishAt(root: Node, name: string): string {
  const tree = walk(root)
    .filter((n) => n.commands.length > 0)
    .map((n) => `            case ${fq(n.path.join(' '))}\n                set subcommands ${n.commands.map((c) => fq(c.path.at(-1)!)).join(' ')}`)
    .join('\n');
  return `# True when the words typed so far name the command given (its words after ${name}) and no subcommand of
# it: subcommands lead down the tree; the first word that is no subcommand ends the walk.
function __fish_${name}_at
    set -l want (string join ' ' -- $argv)
    set -l path ''
    for word in (commandline -opc)[2..-1]
        if string match -q -- '-*' $word
            continue
        end
        set -l subcommands
        switch $path
${tree}
        end
        if contains -- $word $subcommands
            set path (string trim -- "$path $word")
        else
            break
        end
    end
    test "$path" = "$want"
end`;
}

function fishValue(v: Value, operand = false): string {
  const words = 'of' in v ? v.of : [];
  return {
    none: '',
    any: operand ? '' : ' -x',
    file: operand ? ' -F' : ' -r -F',
    dir: ` -x -a '(__fish_complete_directories)'`,
    one: ` -x -a ${fq(words.join(' '))}`,
    list: ` -x -a ${fq(`(__fish_complete_list , 'string split , ${words.join(',')}')`)}`,
  }[v.kind];
}

// ── PowerShell ────────────────────────────────────────────────────────────────────────────────────────

/** A PowerShell single-quoted string. */
const psq = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** A PowerShell hashtable from keys to strings, one entry a line. */
function psTable(rows: [string, string][]): string {
  return `@{\n${rows.filter(([, v]) => v !== '').map(([k, v]) => `    ${psq(k)} = ${psq(v)}`).join('\n')}\n  }`;
}

function powershell(root: Node, name: string): string {
  const nodes = walk(root);
  const key = (n: Node) => n.path.join(' ');
  return `# PowerShell completion for ${name}, generated by \`${name} completion powershell\` from its commands and flags.
# Load it in this shell:  ${name} completion powershell | Out-String | Invoke-Expression
# Load it in every shell: add that line to your profile (notepad $PROFILE). PowerShell 5.1 or 7.

Register-ArgumentCompleter -Native -CommandName ${psq(name)}, ${psq(`${name}.exe`)}, ${psq(`${name}.cmd`)} -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  # The subcommands and flags of each command (its words after ${name}), space-separated.
  $commands = ${psTable(nodes.map((n) => [key(n), subcommandsOf(n)]))}
  $flags = ${psTable(nodes.map((n) => [key(n), flagsOf(n)]))}
  # What a flag's value, or a command's operands, complete to: any, file, dir, one:WORDS, list:WORDS (comma-separated).
  $values = ${psTable(nodes.flatMap((n) => n.flags.flatMap((f) => f.names.map((flag): [string, string] => [`${key(n)}|${flag}`, bashValue(f.value)]))))}
  $operands = ${psTable(nodes.map((n) => [key(n), bashValue(n.operand)]))}
  # Walk the words before the cursor: subcommands lead down the tree; a flag's value is skipped.
  $words = @($commandAst.CommandElements | Where-Object { $_.Extent.EndOffset -lt $cursorPosition } | ForEach-Object { $_.ToString() })
  $path = ''
  $kind = $null
  for ($i = 1; $i -lt $words.Count; $i++) {
    $word = $words[$i]
    if ($word -like '-*') {
      $kind = $values["$path|$word"]
      if ($kind -and $i -eq $words.Count - 1) { break }
      if ($kind) { $i++ }
      $kind = $null
    } elseif ((' ' + $commands[$path] + ' ').Contains(" $word ")) {
      $path = ("$path $word").Trim()
    }
  }
  if (-not $kind) {
    if ($wordToComplete -like '-*') { $kind = 'one:' + $flags[$path] }
    elseif ($commands[$path]) { $kind = 'one:' + $commands[$path] }
    else { $kind = $operands[$path] }
  }
  $offer = {
    param($text)
    [System.Management.Automation.CompletionResult]::new($text, $text, 'ParameterValue', $text)
  }
  switch -Regex ($kind) {
    '^one:' { $kind.Substring(4) -split ' ' | Where-Object { $_ -and $_ -like "$wordToComplete*" } | ForEach-Object { & $offer $_ } }
    '^list:' {
      $head = if ($wordToComplete.Contains(',')) { $wordToComplete.Substring(0, $wordToComplete.LastIndexOf(',') + 1) } else { '' }
      $last = $wordToComplete.Substring($head.Length)
      $kind.Substring(5) -split ' ' | Where-Object { $_ -like "$last*" } | ForEach-Object { & $offer "$head$_" }
    }
    '^dir$' { Get-ChildItem -Directory -Path "$wordToComplete*" -ErrorAction SilentlyContinue | ForEach-Object { & $offer $_.Name } }
    # file: nothing offered here, so that PowerShell completes file names itself.
  }
}
`;
}
