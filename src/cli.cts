// The only module that touches `process`: it builds the Io, and its Terminal once, from the real streams, turns
// signals into an abort, runs main.ts's runCli and exits with its code.
// CommonJS, so that `idv --version` and `idv … --help` (answered here from dist/help/, pre-rendered at
// build time) cost nothing more than node itself, as Node's ES module loader would (README, Performance).
// Everything else is an ES module, bundled into dist/program.cjs and required only when a command runs.
import { setMaxListeners } from 'node:events';
import { fstatSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Io } from './system/io.js' with { 'resolution-mode': 'import' };
import type * as Program from './run-entry.js' with { 'resolution-mode': 'import' };
import { withDocs } from './shipped.cjs';

const argv = process.argv.slice(2);
/** The exit code of a second signal, which ends the run at once. */
const EXIT_ON_SECOND = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
type Sig = keyof typeof EXIT_ON_SECOND;
/** The signals heard, as what they stop the run as: Ctrl-Break (Windows' SIGBREAK) is Ctrl-C. */
const HEARD: Record<string, Sig> = { SIGINT: 'SIGINT', SIGTERM: 'SIGTERM', SIGHUP: 'SIGHUP', SIGBREAK: 'SIGINT' };

// In the single executable (scripts/build-binary.mjs) there is no dist/ beside the program: package.json's
// version and dist/help/ are inside it, as IDV_EMBEDDED (src/embedded.d.ts).
function version(): string {
  if (typeof IDV_EMBEDDED !== 'undefined') return IDV_EMBEDDED.version;
  return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/** Whether a descriptor may be a terminal: process.stdout, made on first use, costs a piped --help milliseconds. */
function terminal(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

/** `idv [command…] --help`, pre-rendered at build time (dist/help/), or null. */
function renderedHelp(): string | null {
  const last = argv[argv.length - 1];
  if (last !== '--help' && last !== '-h') return null;
  const names = argv.slice(0, -1);
  if (!names.every((name) => /^[a-z]+$/.test(name))) return null;
  // It is laid out for PERSON_WIDTH columns: a narrower terminal (not one too narrow to write for) gets it laid
  // out for its width, by commander (program.ts).
  // Required here, not at the top: a run that is no --help does not read it.
  const { PERSON_WIDTH, usableColumns } = require('./system/terminal-size.cjs') as typeof import('./system/terminal-size.cjs');
  const columns = terminal(1) ? usableColumns(process.stdout.columns) : undefined;
  if (columns !== undefined && columns < PERSON_WIDTH) return null;
  const name = names.join('-') || 'idv';
  if (typeof IDV_EMBEDDED !== 'undefined') return Object.hasOwn(IDV_EMBEDDED.help, name) ? withDocs(IDV_EMBEDDED.help[name]!) : null;
  // Windows' and macOS' own forms (PowerShell's lines, their folders) in a folder of their own.
  const system = process.platform === 'win32' || process.platform === 'darwin' ? process.platform : '';
  try {
    return withDocs(readFileSync(join(__dirname, 'help', system, `${name}.txt`), 'utf8'));
  } catch {
    return null;
  }
}

/** This process's run: whether it finished, the signals heard, and how to remove its temporary files at once. */
const thisRun = {
  finished: false,
  signals: 0,
  /** Set once the program is loaded (an exit at once skips the temporary files' own cleanup). */
  removeTempFiles: () => {},
};

// Fast paths: `idv --version` and `--help` load nothing else (start-up is measured by npm run bench).
const help = argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V') ? version() + '\n' : renderedHelp();
if (help !== null) {
  try {
    writeSync(1, help);
  } catch {
    /* a closed standard output */
  }
} else {
  void main();
}

async function main(): Promise<void> {
  // Heard from the start; a handler runs on the event loop, so never before the stopper is made (the load is synchronous).
  let stopper: AbortController | undefined;
  hearSignals((sig) => stopper?.abort(sig));
  process.stdout.on('error', () => undefined); // EPIPE: the sink notices and ends the run quietly
  process.stderr.on('error', () => undefined);
  keepTheSafetyNet();
  const { runCli, fail, Secrets, removeTempFilesNow, Terminal } = loadProgram();
  thisRun.removeTempFiles = removeTempFilesNow;
  stopper = new AbortController();
  setMaxListeners(0, stopper.signal); // each input, output and the engine listen to the run's stop: not a leak
  const io = realIo(stopper.signal, new Secrets(), Terminal);
  // The last net: an error nothing caught (a library's callback, a stray rejection) is one line through the
  // run's secrets, like any other failure, and its temporary files go: never Node's raw stack with the key in it.
  const onUncaught = (err: unknown) => {
    fail(err, io);
    thisRun.removeTempFiles();
    process.exit(1);
  };
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  const code = await runCli(argv, io);
  thisRun.finished = true;
  exit(code);
}

/** A first signal stops the run (the abort); a second one, or one while a finished run waits for standard output to drain (a reader that stopped reading), exits at once. */
function hearSignals(stop: (sig: Sig) => void): void {
  const onSignal = (sig: Sig) => {
    thisRun.signals++;
    if (thisRun.signals > 1 || thisRun.finished) {
      thisRun.removeTempFiles(); // at once, leaving no temporary file behind
      process.exit(EXIT_ON_SECOND[sig]);
    }
    stop(sig);
  };
  for (const [heard, sig] of Object.entries(HEARD)) process.on(heard as NodeJS.Signals, () => onSignal(sig));
}

/**
 * The safety net: if the event loop empties while the run has not finished (a promise that nothing will ever
 * settle), the run would end with exit 0 and records unwritten. Say so and exit 1 instead.
 */
function keepTheSafetyNet(): void {
  process.once('beforeExit', () => {
    if (thisRun.finished) return;
    process.stderr.write('idv: internal error: the run stopped before every record was written; nothing was completed. Please report this.\n');
    thisRun.removeTempFiles();
    process.exit(1);
  });
}

/** The Io of the real process: its streams and their terminal, environment and signal. */
function realIo(signal: Io['signal'], secrets: Io['secrets'], Terminal: typeof Program.Terminal): Io {
  const streams = {
    // Made when first asked for (a run from files never does): process.stdin builds a stream at once.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
  };
  const tty = {
    get stdin() {
      return Boolean(process.stdin.isTTY);
    },
    stdout: Boolean(process.stdout.isTTY),
    stderr: Boolean(process.stderr.isTTY),
  };
  const rest = {
    term: new Terminal({ streams, tty, env: process.env }),
    env: process.env,
    cwd: workingDirectory(),
    signal,
    secrets,
    uid: process.geteuid?.() ?? null,
    platform: process.platform,
  };
  // The streams with their getter: standard input stays unmade until asked for.
  return Object.defineProperties(rest, Object.getOwnPropertyDescriptors(streams)) as Io;
}

/** The program (src/load-program.cts); in the single executable, its asset (scripts/build-binary.mjs). */
function loadProgram(): typeof Program {
  if (typeof IDV_EMBEDDED !== 'undefined') return require('./program.cjs') as typeof Program;
  const loaded = (require('./load-program.cjs') as typeof import('./load-program.cjs')).loadProgram(__dirname, process.version, process.arch);
  // `npm run build` makes the code cache from a sample run (scripts/bundle.mjs).
  if (process.env.IDV_MAKE_CODE_CACHE === '1') process.once('exit', loaded.saveCache);
  return loaded.program;
}

/** The working directory, or null when it no longer exists (process.cwd() throws uv_cwd): see paths.ts. */
function workingDirectory(): string | null {
  try {
    return process.cwd();
  } catch {
    return null;
  }
}

function exit(code: number): void {
  // Let standard output drain, then leave (pools and timers must not keep a finished run alive); an
  // interrupted run leaves at once: a reader that stopped reading would never let it drain.
  if (code < 128 && process.stdout.writableLength > 0 && !process.stdout.destroyed) {
    process.stdout.once('drain', () => process.exit(code));
    process.stdout.once('error', () => process.exit(code));
  } else process.exit(code);
}
