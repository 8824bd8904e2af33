// The only module that touches `process`: flags → an options object → run(options, io) → exit code.
// CommonJS on purpose: Node's ES module loader costs ~15% of a bare `node` start, and `idv --version`
// and `idv … --help` (answered here from dist/help/, pre-rendered at build time) should cost nothing more
// than node itself. Everything else is an ES module, loaded with import() only when a command runs.
import { readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Io } from './io.js' with { 'resolution-mode': 'import' };

const argv = process.argv.slice(2);

function version(): string {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** `idv [command…] --help`, pre-rendered at build time (dist/help/), or null. */
function renderedHelp(): string | null {
  const last = argv[argv.length - 1];
  if (last !== '--help' && last !== '-h') return null;
  const names = argv.slice(0, -1);
  if (!names.every((n) => /^[a-z]+$/.test(n))) return null;
  try {
    return readFileSync(join(__dirname, 'help', `${names.join('-') || 'idv'}.txt`), 'utf8');
  } catch {
    return null;
  }
}

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

function colourChoice(stream: { isTTY?: boolean }, flagOff: boolean): boolean {
  const env = process.env;
  if (flagOff) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

function makeIo(signal: AbortSignal, noColor: boolean): Io {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    color: colourChoice(process.stdout, noColor),
    colorErr: colourChoice(process.stderr, noColor),
    env: process.env,
    cwd: process.cwd(),
    signal,
  };
}

/** Never let the key reach a message, whatever produced it. */
function redact(text: string): string {
  const key = process.env.IDV_API_KEY?.trim();
  return key && key.length >= 4 ? text.split(key).join('****') : text;
}

function fail(err: unknown, { IdvError, exitCodeFor, EXIT }: typeof import('./errors.js', { with: { 'resolution-mode': 'import' } })): number {
  if (err instanceof IdvError) {
    process.stderr.write(redact(`idv: ${err.message}`) + '\n');
    return exitCodeFor(err.kind, err.signal);
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(redact(`idv: unexpected error: ${message.split('\n')[0]} (set IDV_DEBUG=1 for details)`) + '\n');
  if (process.env.IDV_DEBUG) process.stderr.write(redact(String((err as Error)?.stack ?? err)) + '\n');
  return EXIT.failed;
}

async function main(): Promise<void> {
  const errors = await import('./errors.js');
  const { exitCodeFor, EXIT } = errors;
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (sig: 'SIGINT' | 'SIGTERM') => {
    signals++;
    if (signals > 1) process.exit(sig === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint); // a second one: at once
    controller.abort(sig);
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.stdout.on('error', () => undefined); // EPIPE: the sink notices and ends the run quietly
  process.stderr.on('error', () => undefined);

  let code: number;
  try {
    const { buildProgram } = await import('./program.js');
    const program = buildProgram({ version, makeIo: (noColor) => makeIo(controller.signal, noColor) });
    try {
      await program.parseAsync(process.argv);
    } catch (err) {
      const e = err as { code?: string; exitCode?: number };
      if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
        code = e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0 ? 0 : EXIT.usage;
        return finish(code);
      }
      throw err;
    }
    code = controller.signal.aborted ? exitCodeFor('interrupted', controller.signal.reason as 'SIGINT' | 'SIGTERM') : 0;
  } catch (err) {
    code = fail(err, errors);
  }
  finish(code);
}

function finish(code: number): void {
  // Let standard output drain, then leave (pools and timers must not keep a finished run alive).
  if (process.stdout.writableLength > 0 && !process.stdout.destroyed) {
    process.stdout.once('drain', () => process.exit(code));
    process.stdout.once('error', () => process.exit(code));
  } else process.exit(code);
}

