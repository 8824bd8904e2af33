// commander wiring: flags → options objects → each command's run(options, io). No `process` here.
import { Argument, Command, Option } from 'commander';
import { validateCommand } from './commands/validate/flags.js';
import { wholeNumber } from './commands/parsers.js';
import { SHELLS, type Shell } from './commands/completion.js';
import { forPerson, type Io } from './io.js';
import { DOCS_MARK, withDocs } from './shipped.cjs';

export interface ProgramDeps {
  version: () => string;
  /** The run's surroundings; commander's own output (help, usage errors) goes to its streams too. */
  io: Io;
}

/** The Io a command runs with: --no-color turns colour off on both streams. */
function ioFor(deps: ProgramDeps, noColor: boolean): Io {
  return noColor ? { ...deps.io, color: false, colorErr: false } : deps.io;
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

/**
 * The command tree. `first` is the first argument: a run of `emails` or `domains` gets that command alone
 * (the other one's thirty options and the rest of the tree cost a short run ~1 ms of its ~45, npm run
 * bench); anything else (a typo, a global flag first, completion, which is generated from the tree) gets
 * every command.
 */
export function buildProgram(deps: ProgramDeps, first?: string): Command {
  const program = new Command('idv')
    .description('Validate email addresses and domains in bulk with the Valid Identities API.')
    .version(deps.version(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput(output(deps.io))
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
  /** Every command ends through main.ts (no process.exit) and writes through the run's Io. */
  const inherit = (c: Command) => c.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput(output(deps.io));
  const only = first === 'emails' || first === 'domains' ? first : null;
  for (const kind of ['emails', 'domains'] as const) {
    if (only !== null && kind !== only) continue;
    const command = validateCommand(kind, async (o) => {
      const { run } = await import('./commands/validate/run.js');
      await run(o, ioFor(deps, o.noColor));
    });
    program.addCommand(inherit(command));
  }
  if (only !== null) return program;
  program.addCommand(authCommand(deps, inherit));
  program.addCommand(cacheCommand(deps, inherit));
  program.addCommand(sandboxCommand(deps, inherit));
  program.addCommand(completionCommand(deps, inherit, () => program));
  return program;
}

type Inherit = (c: Command) => Command;

function authCommand(deps: ProgramDeps, inherit: Inherit): Command {
  const auth = inherit(new Command('auth').description('store, show (masked) and remove the API key')).addHelpText(
    'after',
    `
Examples:
  $ idv auth login                          # paste the key at a hidden prompt
  $ printf %s "$KEY" | idv auth login       # or pipe it in
  $ idv auth status                         # where the key comes from, masked
  $ idv auth logout

The key is read from IDV_API_KEY first, then from $XDG_CONFIG_HOME/idv/config.json.`,
  );
  for (const [action, text, example] of [
    ['login', 'store the API key (hidden prompt, or standard input when piped)', '$ idv auth login\n  $ printf %s "$KEY" | idv auth login'],
    ['status', 'show where the key comes from, masked', '$ idv auth status'],
    ['logout', 'remove the stored key', '$ idv auth logout'],
  ] as const) {
    auth.addCommand(
      inherit(new Command(action))
        .description(text)
        .addHelpText('after', `\nExamples:\n  ${example}`)
        .action(async () => {
          const { run } = await import('./commands/auth.js');
          await run({ action }, deps.io);
        }),
    );
  }
  return auth;
}

function cacheCommand(deps: ProgramDeps, inherit: Inherit): Command {
  const cache = inherit(new Command('cache').description('inspect and empty the local result cache')).addHelpText(
    'after',
    `
Examples:
  $ idv cache stats
  $ idv cache stats --format json
  $ idv cache clear                 # asks first
  $ idv cache clear --yes           # in a script

Results are kept in $XDG_CACHE_HOME/idv/ (default ~/.cache/idv/) for --cache-ttl (default 7d;
by status too: --cache-ttl ok=90d,disposable=180d,7d).`,
  );
  cache.addCommand(
    inherit(new Command('stats'))
      .description('entries, size, path and oldest entry of the cache')
      .addOption(new Option('--format <format>', 'json for a machine-readable object').choices(['json']))
      .addHelpText('after', '\nExamples:\n  $ idv cache stats\n  $ idv cache stats --format json')
      .action(async (f: { format?: 'json' }) => {
        const { run } = await import('./commands/cache.js');
        await run({ action: 'stats', format: f.format }, deps.io);
      }),
  );
  cache.addCommand(
    inherit(new Command('clear'))
      .description('remove every cached result (asks first in a terminal)')
      .option('-y, --yes', 'remove without asking (required when standard input is not a terminal)')
      .addHelpText('after', '\nExamples:\n  $ idv cache clear\n  $ idv cache clear --yes')
      .action(async (f: { yes?: boolean }) => {
        const { run } = await import('./commands/cache.js');
        await run({ action: 'clear', yes: f.yes }, deps.io);
      }),
  );
  return cache;
}

function sandboxCommand(deps: ProgramDeps, inherit: Inherit): Command {
  return inherit(new Command('sandbox'))
    .description('run a local emulator of the service on 127.0.0.1')
    .addOption(new Option('--port <n>', 'port to listen on (0: any free port)').argParser(wholeNumber(0, 65535)).default(0))
    .addOption(new Option('--quota <n>', 'validations per window (0: unlimited)').argParser(wholeNumber(0)).default(1000))
    .addOption(new Option('--window <seconds>', 'quota window length in seconds').argParser(wholeNumber(1)).default(3600))
    .option('--key <key>', 'the API key it accepts (default: a random one, printed)')
    .addHelpText(
      'after',
      `
Examples:
  $ idv sandbox --port 8080 --quota 50 --window 3600
  $ IDV_BASE_URL=http://127.0.0.1:8080 IDV_API_KEY=<printed key> idv emails list.csv`,
    )
    .action(async (f: { port: number; quota: number; window: number; key?: string }) => {
      const { run } = await import('./commands/sandbox.js');
      await run({ port: f.port, quota: f.quota, window: f.window, key: f.key }, deps.io);
    });
}

/** `idv completion <shell>`: its script is generated from this tree (the program `root` gives). */
function completionCommand(deps: ProgramDeps, inherit: Inherit, root: () => Command): Command {
  return inherit(new Command('completion'))
    .description('print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell to complete for').choices(SHELLS))
    .addHelpText(
      'after',
      `
Examples:
  $ source <(idv completion bash)                     # bash, in this shell
  $ idv completion bash > ~/.local/share/bash-completion/completions/idv
  $ idv completion zsh > "\${fpath[1]}/_idv"           # zsh: any folder in $fpath, then a new shell
  $ idv completion fish > ~/.config/fish/completions/idv.fish`,
    )
    .action(async (shell: Shell) => {
      const { run } = await import('./commands/completion.js');
      await run({ shell, program: root() }, deps.io);
    });
}
