// `idv sandbox`: run the local emulator of the service until Ctrl-C.
import { once } from 'node:events';
import { Command } from 'commander';
import { forSystem, helpAfter } from './help-text.js';
import { addFlags, given, readFlags, value, valueOr, type OptionsOf } from './flag-table.js';
import { wholeNumber } from './parsers.js';
import { durationFlag, formatDuration, parseDuration } from '../core/duration.js';
import { describeFaults, parseFaults, type FaultRule, type Latency } from '../sandbox/faults.js';
import { warn, type Io } from '../system/io.js';
import { IdvError, usageError } from '../core/errors.js';
import { startSandbox, type Sandbox } from '../sandbox/server.js';
import { MIN_KEY_LENGTH } from '../system/api-key.js';
import { sampleList } from '../shipped.cjs';

const SANDBOX_FLAGS = {
  port: valueOr('--port <n>', 'port to listen on (0: any free port)', { parse: wholeNumber(0, 65535), fallback: 0 }),
  quota: valueOr('--quota <n>', 'validations per window (0: unlimited)', { parse: wholeNumber(0), fallback: 1000 }),
  window: valueOr('--window <duration>', 'the quota\'s window: 1h, 90m (a number alone is seconds)', {
    parse: durationFlag('--window', { bareSeconds: true, min: 1, whole: true }),
    fallback: 3600,
    shown: '1h',
  }),
  key: value('--key <key>', 'the API key it accepts (default: a random one, printed)'),
  latency: value('--latency <duration>', 'wait before each answer: 300ms, or a range: 100ms-2s', { parse: latencyFlag }),
  faults: value('--faults <list>', 'faults at a rate: 5xx=10%,timeout=2%,429=1% (below)', { parse: faultsFlag }),
  seed: value('--seed <n>', 'seed of the faults and waits: the same replays them', {
    parse: wholeNumber(0, 2 ** 32 - 1),
  }),
  quiet: given('-q, --quiet', 'no request log and no note on standard error'),
  noColor: given('--no-color', 'no colour (it prints none)'),
};

/** The longest --latency: ten minutes, beyond any client's timeout. */
const MAX_LATENCY_SECONDS = 600;

/** --latency `300ms` or `100ms-2s`: the wait in ms, fixed or a range. */
function latencyFlag(text: string): Latency {
  const parts = text.split('-');
  // `-1s` or `1s-` is no wait: said as such, not as an empty duration.
  if (parts.length > 2 || parts.some((p) => p.trim() === '')) throw usageError(`--latency takes a duration (300ms) or a range (100ms-2s), not "${text.trim()}".`);
  const bare = parts.find((p) => /^\s*\d+(\.\d+)?\s*$/.test(p));
  if (bare !== undefined) throw usageError(`--latency "${text.trim()}" has no unit: write ${bare.trim()}ms or ${bare.trim()}s.`);
  const [min, max] = parts.map((p) => Math.round(parseDuration(p, '--latency', { max: MAX_LATENCY_SECONDS }) * 1000));
  if (max !== undefined && max < min!) throw usageError(`--latency "${text.trim()}": give the shorter wait first (${parts[1]!.trim()}-${parts[0]!.trim()}).`);
  return { min: min!, max: max ?? min! };
}

/** --faults `5xx=10%,timeout=2%,429=1%/30s`. */
function faultsFlag(text: string): FaultRule[] {
  try {
    return parseFaults(text, (burst) => parseDuration(burst, '--faults'));
  } catch (err) {
    throw usageError(err instanceof Error && err.message.startsWith('--faults') ? err.message : `--faults: ${(err as Error).message}.`);
  }
}

export type SandboxCommandOptions = OptionsOf<typeof SANDBOX_FLAGS>;

export function sandboxCommand(io: Io): Command {
  const command = addFlags(new Command('sandbox').description('run a local emulator of the service on 127.0.0.1'), SANDBOX_FLAGS);
  return helpAfter(command, io, [
    {
      title: 'Examples:',
      examples: [
        { command: 'idv sandbox --port 8080 --quota 50 --window 1h' },
        { command: 'IDV_BASE_URL=http://127.0.0.1:8080 IDV_API_KEY=<printed key> idv emails list.csv' },
        { comment: 'rehearse a slow, failing service (a seed replays the same faults):', command: 'idv sandbox --latency 100ms-2s --faults 5xx=10%,timeout=2%,429=1% --seed 7' },
      ],
    },
    {
      prose:
        '--faults takes NAME=RATE, comma-separated, the rates in percent, drawn for each validate request: 5xx (500, 502, 503 or 504), ' +
        'a status from 500 to 599, timeout (no answer at all), reset (the connection reset), 429 (a burst: every request refused ' +
        'for 10s; 429=1%/30s for 30s). Each request is logged on standard error as it ends (-q: none).',
    },
  ]).action((parsed: Record<string, unknown>) => run(readFlags(SANDBOX_FLAGS, parsed), io));
}

/**
 * The key is the one thing commander does not check: it goes in a header, and idv sends no key shorter than
 * MIN_KEY_LENGTH. (Port, quota and window are checked by their flags' parsers.)
 */
function checkKey(key: string | undefined): void {
  if (key !== undefined && (key.length < MIN_KEY_LENGTH || /\s/.test(key))) {
    throw usageError(`--key must have at least ${MIN_KEY_LENGTH} characters and no white space.`);
  }
}

/** A command to paste: the sample list shipped with idv, or (a copy without it) two addresses typed in. */
function tryCommand(sandbox: Sandbox): string {
  const env = `IDV_BASE_URL=${sandbox.url} IDV_API_KEY=${sandbox.key}`;
  const sample = sampleList();
  if (sample === undefined) return `printf '%s\\n' ann@example.com bob@mailinator.com | ${env} idv emails`;
  const word = /^[\w@%+=:,./-]+$/.test(sample) ? sample : `'${sample.replace(/'/g, `'\\''`)}'`;
  return `${env} idv emails ${word}`;
}

/** The latency and the faults asked for, and the seed that replays them. */
function rehearsalLines(options: SandboxCommandOptions, seed: number): string[] {
  const lines: string[] = [];
  const { latency, faults } = options;
  if (latency) lines.push(`latency: ${latency.min === latency.max ? ms(latency.min) : `${ms(latency.min)} to ${ms(latency.max)}`} before each answer`);
  if (faults?.length) lines.push(`faults: ${describeFaults(faults)}`);
  if (faults?.length || (latency && latency.min !== latency.max)) lines.push(`seed: ${seed} (--seed ${seed} replays them)`);
  return lines;
}

const ms = (n: number) => (n < 1000 || n % 1000 !== 0 ? `${n}ms` : formatDuration(n / 1000).replace(/ /g, ''));

export async function run(options: SandboxCommandOptions, io: Io): Promise<void> {
  checkKey(options.key);
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox({
      port: options.port,
      quota: options.quota,
      window: options.window,
      key: options.key,
      latency: options.latency,
      faults: options.faults,
      seed: options.seed,
      log: options.quiet ? undefined : (line) => io.stderr.write(line + '\n'),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new IdvError('failed', `port ${options.port} is already in use; try another --port, or --port 0 for any free one`);
    }
    if (code === 'EACCES') {
      throw new IdvError('failed', `not allowed to listen on port ${options.port}; try a port above 1023, or --port 0`);
    }
    throw new IdvError('failed', `could not start the sandbox: ${err instanceof Error ? err.message : String(err)}`);
  }

  try {
    const quotaLine =
      options.quota === 0 ? 'quota: unlimited' : `quota: ${options.quota} validations per ${formatDuration(options.window)}`;
    io.stdout.write(
      [
        `idv sandbox listening on ${sandbox.url}`,
        `key: ${sandbox.key}`,
        quotaLine,
        ...rehearsalLines(options, sandbox.seed),
        `Try: ${forSystem(tryCommand(sandbox), io.platform)}`,
        '',
      ].join('\n'),
    );
    if (!options.quiet) warn(io, 'Press Ctrl-C to stop.');
    if (!io.signal.aborted) await once(io.signal, 'abort');
  } finally {
    await sandbox.close();
  }
}
