// The command tree: each command's builder (in its own file under commands/) put together under `idv`, with
// what they all share: help and usage errors written through the run's Io, and no process.exit (main.ts
// ends every run). No `process` here.
import { Command } from 'commander';
import { validateCommand } from './commands/validate/flags.js';
import { forPerson, type Io } from './io.js';
import { DOCS_MARK, withDocs } from './shipped.cjs';

export interface ProgramDeps {
  version: () => string;
  /** The run's surroundings; commander's own output (help, usage errors) goes to its streams too. */
  io: Io;
}

/** The Io a command runs with: --no-color turns colour off on both streams. */
function ioFor(io: Io, noColor: boolean): Io {
  return noColor ? { ...io, color: false, colorErr: false } : io;
}

/** commander writes help to the run's stdout (the docs' location filled in, as cli.cts does for the help
 * pre-rendered at build time) and usage errors to its stderr, prefixed like idv's own. */
function output(io: Io) {
  return {
    writeOut: (str: string) => void io.stdout.write(withDocs(str)),
    writeErr: (str: string) => void io.stderr.write(str),
    // The width the pre-rendered help (dist/help/) has, so that both paths print the same text.
    getOutHelpWidth: () => 80,
    getErrHelpWidth: () => 80,
    outputError: (str: string, write: (s: string) => void) => write(forPerson(io, `idv: ${str.replace(/^error: /, '')}`)),
  };
}

/** What every command of the tree shares: it ends through main.ts and writes through the run's Io. */
function inherit(command: Command, io: Io): void {
  command.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput(output(io));
  for (const sub of command.commands) inherit(sub, io);
}

/**
 * The command tree. `first` is the first argument: a run of `emails` or `domains` gets that command alone
 * (the other one's options and the rest of the tree are not built, nor their modules loaded; start-up is
 * measured by npm run bench); anything else (a typo, a global flag first, completion, which is generated
 * from the tree) gets every command.
 */
export async function buildProgram(deps: ProgramDeps, first?: string): Promise<Command> {
  const { io } = deps;
  const program = new Command('idv')
    .description('Validate email addresses and domains in bulk with the Valid Identities API.')
    .version(deps.version(), '-V, --version')
    .addHelpText(
      'after',
      `
Examples:
  $ printf '%s\\n' ann@example.com bob@mailinator.com | idv emails --sandbox   # try it: no key
  $ idv emails list.csv --sandbox
  $ cat list.txt | idv emails --format json | jq .
  $ idv auth login
  $ idv sandbox --port 8080 --quota 50
  $ source <(idv completion bash)

Key: IDV_API_KEY, else the file written by idv auth login.
Docs (every command, flag, status and exit code): ${DOCS_MARK}`,
    );
  const only = first === 'emails' || first === 'domains' ? first : null;
  for (const kind of ['emails', 'domains'] as const) {
    if (only !== null && kind !== only) continue;
    program.addCommand(
      validateCommand(kind, async (o) => {
        const { run } = await import('./commands/validate/run.js');
        await run(o, ioFor(io, o.noColor));
      }),
    );
  }
  if (only === null) {
    const [auth, cache, sandbox, completion] = await Promise.all([
      import('./commands/auth.js'),
      import('./commands/cache.js'),
      import('./commands/sandbox.js'),
      import('./commands/completion.js'),
    ]);
    program.addCommand(auth.authCommand(io));
    program.addCommand(cache.cacheCommand(io));
    program.addCommand(sandbox.sandboxCommand(io));
    program.addCommand(completion.completionCommand(io, () => program));
  }
  inherit(program, io);
  return program;
}
