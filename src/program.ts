// The command tree: each command's builder (in its own file under commands/) put together under `idv`, with
// what they all share: help and usage errors written through the run's Io, and no process.exit (main.ts
// ends every run). No `process` here.
import { Command } from 'commander';
import { validateCommand } from './commands/validate/flags.js';
import { withIo, type Io } from './system/io.js';
import { withDocs } from './shipped.cjs';
import { DOCS, HELP_LAYOUT, helpAfter, helpFlag, helpWidth, type Block } from './commands/help-text.js';

export interface ProgramDeps {
  version: () => string;
  /** The run's surroundings; commander's own output (help, usage errors) goes to its streams too. */
  io: Io;
}

const ROOT_EXAMPLES: Block = {
  title: 'Examples:',
  examples: [
    { command: "printf '%s\\n' ann@example.com bob@mailinator.com | idv emails --sandbox", comment: 'try it: no key needed' },
    { command: 'idv emails list.csv --sandbox' },
    { command: 'cat list.txt | idv emails --format json | jq .' },
    { command: 'idv auth login' },
    { command: 'idv sandbox --port 8080 --quota 50' },
    { command: 'source <(idv completion bash)' },
  ],
};

/** The Io a command runs with: --no-color turns colour off on both streams. */
function ioFor(io: Io, noColor: boolean): Io {
  return noColor ? withIo(io, { term: io.term.withoutColor() }) : io;
}

/** commander writes help to the run's stdout (the docs' location filled in, as cli.cts does for the help
 * pre-rendered at build time); its usage errors are thrown to main.ts, which says them in one line. */
function output(io: Io) {
  return {
    writeOut: (str: string) => void io.stdout.write(withDocs(str)),
    writeErr: (str: string) => void io.stderr.write(withDocs(str)),
    // The terminal's width when narrower than the help rendered at build time (dist/help/), else that one's.
    getOutHelpWidth: () => helpWidth(io),
    getErrHelpWidth: () => helpWidth(io, true),
    // A refusal is said by main.ts, in one line (commands/usage.ts).
    outputError: () => {},
  };
}

/** What every command of the tree shares: it ends through main.ts and writes through the run's Io. */
function inherit(command: Command, io: Io): void {
  command
    .exitOverride()
    .configureOutput(output(io))
    .configureHelp(HELP_LAYOUT);
  // A command whose flags are grouped lists -h with its terminal flags (validate/flags.ts).
  if (!command.options.some((o) => o.helpGroupHeading)) command.addHelpOption(helpFlag());
  for (const sub of command.commands) inherit(sub, io);
}

/**
 * The command tree. A run of `emails` or `domains` (`first`, the first argument) gets that command alone, so that
 * start-up builds and loads nothing else; anything else (a typo, a global flag, completion) gets every command.
 */
export async function buildProgram(deps: ProgramDeps, first?: string): Promise<Command> {
  const { io } = deps;
  const program = new Command('idv')
    .description('Validate email addresses and domains in bulk with the Valid Identities API.')
    .version(deps.version(), '-V, --version', 'show the version');
  const only = first === 'emails' || first === 'domains' ? first : null;
  for (const kind of ['emails', 'domains'] as const) {
    if (only !== null && kind !== only) continue;
    program.addCommand(
      validateCommand(kind, io, async (o) => {
        const { run } = await import('./commands/validate/run.js');
        await run(o, ioFor(io, o.noColor));
      }),
    );
  }
  if (only === null) {
    const [auth, cache, sandbox, completion, topics] = await Promise.all([
      import('./commands/auth.js'),
      import('./commands/cache.js'),
      import('./commands/sandbox.js'),
      import('./commands/completion.js'),
      import('./commands/help-topics.js'),
    ]);
    program.addCommand(auth.authCommand(io));
    program.addCommand(cache.cacheCommand(io));
    program.addCommand(sandbox.sandboxCommand(io));
    program.addCommand(completion.completionCommand(io, () => program));
    program.addCommand(topics.helpCommand(io, program));
    helpAfter(program, io, [ROOT_EXAMPLES, topics.topicList(), DOCS]);
  }
  inherit(program, io);
  return program;
}
