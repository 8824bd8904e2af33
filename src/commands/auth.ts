// `idv auth login | status | logout`: store, show (masked) and remove the API key.
import { IdvError, interruptedError, usageError } from '../errors.js';
import { warn, oneLine, type Io } from '../io.js';
import { configPath, findKey, keyLooksSendable, keyTooShort, maskKey, NO_KEY_MESSAGE, removeKey, saveKey } from '../key.js';

export interface AuthOptions {
  action: 'login' | 'status' | 'logout';
}

export async function run(o: AuthOptions, io: Io): Promise<void> {
  switch (o.action) {
    case 'login': {
      const key = io.stdinIsTTY ? await promptHidden(io, 'Paste your API key (input is hidden): ') : await readAll(io);
      const trimmed = key.trim();
      io.secrets.add(trimmed);
      if (!trimmed) throw usageError('No key given; paste the key from the dashboard ("API keys" → "Create API key").');
      if (!keyLooksSendable(trimmed)) {
        throw usageError('That does not look like an API key (it holds white space or characters other than ASCII); paste it again.');
      }
      const short = keyTooShort(trimmed);
      if (short) throw usageError(`That is too short to be an API key (${short}); paste the whole key again.`);
      const path = await saveKey(io.env, trimmed);
      warn(io, `Key ${maskKey(trimmed)} saved to ${path} (readable only by you).`);
      if (io.env.IDV_API_KEY?.trim()) {
        io.stderr.write('Note: IDV_API_KEY is set in this environment and takes precedence over the saved key.\n');
      }
      return;
    }
    case 'status': {
      const found = await findKey(io.env, { uid: io.uid, warn: (line) => warn(io, line) });
      if (!found) {
        throw new IdvError('auth', NO_KEY_MESSAGE);
      }
      io.stdout.write(oneLine(io, `Key ${maskKey(found.key)} from ${found.source}`) + '\n');
      return;
    }
    case 'logout': {
      const removed = await removeKey(io.env);
      warn(io, removed ? `Removed the key from ${configPath(io.env)}.` : `No key was stored in ${configPath(io.env)}.`);
      if (io.env.IDV_API_KEY?.trim()) io.stderr.write('Note: IDV_API_KEY is still set in this environment.\n');
      return;
    }
  }
}

/** The most idv reads of standard input or the prompt for a key: far more than any key (/dev/zero is refused, not read). */
const MAX_KEY_INPUT = 64 * 1024;
const KEY_INPUT_TOO_LONG = `No key in the first ${MAX_KEY_INPUT / 1024} KiB given; give the key alone (idv auth login < key.txt).`;

/** The first non-blank line of standard input; reading stops there, at MAX_KEY_INPUT, or at a signal. */
async function readAll(io: Io): Promise<string> {
  let text = '';
  const chunks = io.stdin[Symbol.asyncIterator]();
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(interruptedError(io.signal.reason));
    if (io.signal.aborted) onAbort();
    else io.signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    for (;;) {
      const next = await Promise.race([chunks.next(), aborted]);
      if (next.done) break;
      text += String(next.value);
      const lines = text.split(/\r?\n/);
      const first = lines.slice(0, -1).find((l) => l.trim() !== '');
      if (first !== undefined) return first;
      if (text.length > MAX_KEY_INPUT) throw usageError(KEY_INPUT_TOO_LONG);
    }
  } finally {
    io.signal.removeEventListener('abort', onAbort);
  }
  return text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
}

/** Read one line from a terminal without echoing it. */
async function promptHidden(io: Io, prompt: string): Promise<string> {
  io.stderr.write(prompt);
  const stdin = io.stdin as NodeJS.ReadStream;
  return new Promise((resolve, reject) => {
    let value = '';
    const raw = typeof stdin.setRawMode === 'function';
    if (raw) stdin.setRawMode(true);
    stdin.resume();
    const done = (err?: Error) => {
      stdin.off('data', onData);
      if (raw) stdin.setRawMode(false);
      stdin.pause();
      io.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new IdvError('interrupted', 'Interrupted.', 'SIGINT'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
        if (value.length > MAX_KEY_INPUT) return done(usageError(KEY_INPUT_TOO_LONG));
      }
    };
    stdin.on('data', onData);
  });
}
