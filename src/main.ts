// One run of the command line, given its arguments and its surroundings (Io): flags → a command's
// run(options, io) → an exit code. Every error ends here and maps to its code in one place (errors.ts);
// every message goes out through the run's secrets, so the key in use is never printed. cli.cts calls this
// with the real process; tests call it in-process with a fake Io.
import { EXIT, exitCodeFor, IdvError, stopSignal, usageError } from './core/errors.js';
import { warn, withIo, type Io } from './system/io.js';
import { buildProgram } from './program.js';
import { usageLine } from './commands/usage.js';
import { keyInConfig, MIN_KEY_LENGTH, readConfigFile } from './system/api-key.js';
import { version } from './core/version.js';

/** Run `idv <argv…>` (argv without `node` and the script) and give its exit code. Never throws. */
export async function runCli(argv: string[], given: Io): Promise<number> {
  // The config file is read here, once, and passed on to the command that uses its key.
  const configFile = await readConfigFile(given.env, given.platform);
  const io = withIo(given, { configFile, argv });
  // Both keys, from the first message on (a usage error may quote an argument that is one): the environment's
  // and the stored one, whichever is in use.
  io.secrets.add(io.env.IDV_API_KEY, MIN_KEY_LENGTH);
  io.secrets.add(keyInConfig(configFile) ?? undefined, MIN_KEY_LENGTH);
  try {
    const program = await buildProgram({ version, io }, argv[0]);
    // Until a command's action starts, an error is a refusal of the arguments (a flag's parser throws one too).
    let acting = false;
    program.hook('preAction', () => void (acting = true));
    try {
      await program.parseAsync(argv, { from: 'user' });
    } catch (err) {
      const refused = err as { code?: string; exitCode?: number; message: string };
      if (typeof refused.code === 'string' && refused.code.startsWith('commander.')) {
        if (refused.code === 'commander.helpDisplayed' || refused.code === 'commander.version' || refused.exitCode === 0) return EXIT.ok;
        if (refused.code === 'commander.help') return EXIT.usage; // no command given: the help, on stderr, said what there is
        return await refuse(argv, io, usageLine({ code: refused.code, message: refused.message }, argv));
      }
      if (!acting && err instanceof IdvError && err.kind === 'usage') return await refuse(argv, io, err.message);
      throw err;
    }
    return io.signal.aborted ? exitCodeFor('interrupted', stopSignal(io.signal.reason)) : EXIT.ok;
  } catch (err) {
    return fail(err, io);
  }
}

/** Arguments refused before the command ran: one line, the --report it asked for (reason "usage"), exit 2. */
async function refuse(argv: string[], io: Io, line: string): Promise<number> {
  warn(io, `idv: ${line}`);
  const { emptyFacts, reportJson, writeReport } = await import('./output/report.js');
  const { refusedReport } = await import('./commands/validate/flags.js');
  const asked = refusedReport(argv);
  if (!asked) return EXIT.usage;
  const now = Date.now();
  try {
    const [{ sinkFor }, { destinationOf }] = await Promise.all([import('./output/sink.js'), import('./output/destination.js')]);
    await writeReport(sinkFor(destinationOf(asked.path, io.cwd), io), reportJson(version(), emptyFacts(asked.command, now, undefined, undefined, false), usageError(line), now, io.secrets));
  } catch (err) {
    warn(io, `idv: warning: ${(err as Error).message}`);
  }
  return EXIT.usage;
}

/**
 * The one place an error becomes a line on stderr and an exit code (cli.cts calls it too, for an error that
 * escaped the run: the same line, through the same secrets).
 */
export function fail(err: unknown, io: Io): number {
  const say = (text: string) => warn(io, text);
  if (err instanceof IdvError) {
    say(`idv: ${err.message}`);
    return exitCodeFor(err.kind, err.signal);
  }
  const message = err instanceof Error ? err.message : String(err);
  say(`idv: unexpected error: ${message.split('\n')[0]} (set IDV_DEBUG=1 for details)`);
  if (io.env.IDV_DEBUG) for (const line of String((err as Error)?.stack ?? err).split('\n')) say(line);
  return EXIT.failed;
}
