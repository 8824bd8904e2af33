// `idv sandbox`: run the local emulator of the service until Ctrl-C.
import { Command } from 'commander';
import { helpAfter } from './help-text.js';
import { addFlags, given, readFlags, value, valueOr, type OptionsOf } from './flag-table.js';
import { wholeNumber } from './parsers.js';
import { durationFlag, formatDuration } from '../duration.js';
import type { Io } from '../io.js';
import { warn } from '../io.js';
import { IdvError, usageError } from '../errors.js';
import { startSandbox, type Sandbox } from '../sandbox/server.js';
import { MIN_KEY_LENGTH } from '../key.js';
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
  quiet: given('-q, --quiet', 'no note on standard error (the URL and key still go to standard output)'),
  noColor: given('--no-color', 'no colour (it prints none)'),
};

export type SandboxCommandOptions = OptionsOf<typeof SANDBOX_FLAGS>;

/** `idv sandbox`. */
export function sandboxCommand(io: Io): Command {
  const command = addFlags(new Command('sandbox').description('run a local emulator of the service on 127.0.0.1'), SANDBOX_FLAGS);
  return helpAfter(command, io, [
    {
      title: 'Examples:',
      examples: [
        { command: 'idv sandbox --port 8080 --quota 50 --window 1h' },
        { command: 'IDV_BASE_URL=http://127.0.0.1:8080 IDV_API_KEY=<printed key> idv emails list.csv' },
      ],
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

export async function run(options: SandboxCommandOptions, io: Io): Promise<void> {
  checkKey(options.key);
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox({
      port: options.port,
      quota: options.quota,
      window: options.window,
      key: options.key,
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
        `Try: ${tryCommand(sandbox)}`,
        '',
      ].join('\n'),
    );
    if (!options.quiet) warn(io, 'Press Ctrl-C to stop.');
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) {
        resolve();
        return;
      }
      io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    await sandbox.close();
  }
}
