// `idv auth login | status | logout`: store, show (masked) and remove the API key.
import { Command } from 'commander';
import { ENVIRONMENT, FILES, helpAfter, pick, type Block, type Example } from './help-text.js';
import { IdvError, usageError } from '../errors.js';
import { warn, oneLine, type Io } from '../io.js';
import { configPath, findKey, keyLooksSendable, keyTooShort, maskKey, NO_KEY_MESSAGE, removeKey, saveKey } from '../key.js';

export interface AuthOptions {
  action: 'login' | 'status' | 'logout';
}

const KEY_FACTS: Block[] = [
  { list: 'Environment', items: pick(ENVIRONMENT, 'IDV_API_KEY', 'XDG_CONFIG_HOME') },
  { list: 'Files', items: pick(FILES, '~/.config/idv/config.json') },
];

const AUTH_HELP: Record<AuthOptions['action'], Example[]> = {
  login: [
    { command: 'idv auth login', comment: 'paste the key at a hidden prompt' },
    { command: 'printf %s "$KEY" | idv auth login', comment: 'or pipe it in' },
  ],
  status: [{ command: 'idv auth status', comment: 'where the key comes from, masked' }],
  logout: [{ command: 'idv auth logout' }],
};

/** `idv auth` and its three subcommands. */
export function authCommand(io: Io): Command {
  const auth = helpAfter(new Command('auth').description('store, show (masked) and remove the API key'), io, [
    { title: 'Examples:', examples: Object.values(AUTH_HELP).flat() },
    ...KEY_FACTS,
  ]);
  for (const [action, text] of [
    ['login', 'store the API key (hidden prompt, or standard input when piped)'],
    ['status', 'show where the key comes from, masked'],
    ['logout', 'remove the stored key'],
  ] as const) {
    const command = new Command(action).description(text).action(() => run({ action }, io));
    auth.addCommand(helpAfter(command, io, [{ title: 'Examples:', examples: AUTH_HELP[action] }, ...KEY_FACTS]));
  }
  return auth;
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
      const found = await findKey(io.env);
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

async function readAll(io: Io): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin) text += chunk.toString();
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
      }
    };
    stdin.on('data', onData);
  });
}
