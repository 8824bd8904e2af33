// `idv auth login | status | logout`: store, show (masked) and remove the API key.
import { Command } from 'commander';
import { helpAfter, type Block, type Example } from './help-text.js';
import { topicsLine } from './help-topics.js';
import { IdvError, interruptedError, usageError } from '../core/errors.js';
import { warn, oneLine, type Io } from '../system/io.js';
import { configPath, findKey, keyFix, keyLooksSendable, keyRefusedMessage, keyTooShort, maskKey, MIN_KEY_LENGTH, noKeyMessage, removeKey, saveKey } from '../system/api-key.js';
import { addFlags, given, onUnless, readFlags, value, type OptionsOf } from './flag-table.js';
import { askService, quotaSentence, type Verdict } from './key-check.js';
import { resolveBaseUrl } from './validate/target.js';

/** Where the key may come from, said once for every command (idv help environment, idv help files). */
const KEY_FACTS: Block[] = [
  { prose: 'The key in use is the first found: IDV_API_KEY, then the one idv auth login stored.' },
  topicsLine('environment', 'files', 'exit-codes'),
];

const ASKED =
  'The key is checked with the service at --base-url (default $IDV_BASE_URL, else https://api.valididentities.com) by a request that validates nothing and costs no quota.';

const AUTH_HELP: Record<keyof typeof FLAGS, { about: string; examples: Example[] }> = {
  login: {
    about: `${ASKED} A key it refuses is not saved (exit 3); when it cannot tell (no network, another answer), the key is saved with a note.`,
    examples: [
      { command: 'idv auth login', comment: 'paste the key at a hidden prompt' },
      { command: 'printf %s "$KEY" | idv auth login', comment: 'or pipe it in' },
    ],
  },
  status: {
    about: `${ASKED} It shows the quota left and when it resets, as the service's rate-limit headers say; exit 3 when it refuses the key.`,
    examples: [{ command: 'idv auth status', comment: 'where the key comes from, masked; the quota' }],
  },
  logout: { about: 'The key in IDV_API_KEY, if set, stays in use.', examples: [{ command: 'idv auth logout' }] },
};

const BASE_URL = value('--base-url <url>', 'the service to check the key with (default: $IDV_BASE_URL or https://api.valididentities.com)');
const QUIET = given('-q, --quiet', 'say nothing when all went well');
const NO_COLOR = given('--no-color', 'no colour (it prints none)');
const CHECK = onUnless('--no-check', 'do not ask the service whether the key works');
/** Each subcommand's flags: --base-url where the service is asked, -q where a note is said on success. */
const FLAGS = {
  login: { check: CHECK, baseUrl: BASE_URL, quiet: QUIET, noColor: NO_COLOR },
  status: { check: CHECK, baseUrl: BASE_URL, noColor: NO_COLOR },
  logout: { quiet: QUIET, noColor: NO_COLOR },
};
/** A subcommand and its flags (login's are every one's). */
type AuthOptions = { action: keyof typeof FLAGS } & Partial<OptionsOf<typeof FLAGS.login>>;

export function authCommand(io: Io): Command {
  const auth = helpAfter(new Command('auth').description('store, show (masked) and remove the API key'), io, [
    { title: 'Examples:', examples: Object.values(AUTH_HELP).flatMap((h) => h.examples) },
    ...KEY_FACTS,
  ]);
  for (const [action, text] of [
    ['login', 'store the API key (hidden prompt, or standard input when piped), checked with the service'],
    ['status', 'show where the key comes from, masked, and the quota left'],
    ['logout', 'remove the stored key'],
  ] as const) {
    const command = addFlags(new Command(action).description(text), FLAGS[action]);
    command.action((parsed: Record<string, unknown>) => run({ action, ...readFlags(FLAGS[action], parsed) }, io));
    const { about, examples } = AUTH_HELP[action];
    auth.addCommand(helpAfter(command, io, [{ prose: about }, { title: 'Examples:', examples }, ...KEY_FACTS]));
  }
  return auth;
}

export async function run(o: AuthOptions, io: Io): Promise<void> {
  switch (o.action) {
    case 'login':
      return login(o, io);
    case 'status':
      return status(o, io);
    case 'logout': {
      const removed = await removeKey(io.env, io.platform);
      const said = removed.length ? `Removed the key from ${removed.join(' and ')}.` : `No key was stored in ${configPath(io.env, io.platform)}.`;
      if (!o.quiet || !removed.length) warn(io, said);
      if (io.env.IDV_API_KEY?.trim()) warn(io, 'Note: IDV_API_KEY is still set in this environment, and its key is still used; unset IDV_API_KEY to stop using it.');
      return;
    }
  }
}

/** Read the key, refuse what cannot be one, ask the service (unless not to), then save it. */
async function login(o: AuthOptions, io: Io): Promise<void> {
  const check = o.check !== false;
  const baseUrl = resolveBaseUrl(o.baseUrl, io.env); // a refused URL: said before the key is asked for
  const key = (io.term.canAsk() ? await typedKey(io) : await readAll(io)).trim();
  // Only a key idv would send is masked: a shorter one never leaves idv, and masking it would rewrite idv's
  // own words ("That is too short…" with the key "short").
  io.secrets.add(key, MIN_KEY_LENGTH);
  if (!key) throw usageError('No key given; paste the key from the dashboard ("API keys" → "Create API key").');
  if (!keyLooksSendable(key)) {
    throw usageError('That does not look like an API key (it holds white space or characters other than ASCII); paste it again.');
  }
  const short = keyTooShort(key);
  if (short) throw usageError(`That is too short to be an API key (${short}); paste the whole key again.`);
  configPath(io.env, io.platform); // no home folder: said before anything is asked
  const answer = check ? await askService(key, baseUrl, io) : null;
  if (answer?.verdict === 'refused') {
    throw new IdvError('auth', `The service refused this key (${answer.why}); it was not saved. Copy it again from the dashboard ("API keys") and run idv auth login.`);
  }
  const { path, removed } = await saveKey(io.env, key, io.platform);
  const say = (line: string) => (o.quiet ? undefined : warn(io, line));
  say(`Key ${maskKey(key)} saved to ${path} (${whoCanRead(io)})${removed ? `; the copy idv kept before in ${removed} was removed` : ''}.`);
  if (answer) sayVerdict(answer, io, say, '; it is saved all the same');
  // Said even with -q: the key just saved is not the one runs will use.
  if (io.env.IDV_API_KEY?.trim()) warn(io, 'Note: IDV_API_KEY is set in this environment, and its key is used instead of the one saved; unset IDV_API_KEY to use the saved key.');
}

/**
 * Who can read the saved key, as far as idv made sure: on Unix its mode (0600 in a 0700 folder); on Windows,
 * where a mode means nothing, the permissions of the user's profile folder, which idv neither sets nor checks.
 */
function whoCanRead(io: Io): string {
  return io.platform === 'win32' ? "protected by your user profile folder's permissions (by default: you, administrators and the system), which idv does not check" : 'readable only by you';
}

/** Where the key comes from, masked; and what the service says of it (unless not to ask). */
async function status(o: AuthOptions, io: Io): Promise<void> {
  const baseUrl = resolveBaseUrl(o.baseUrl, io.env);
  const found = await findKey(io.env, { uid: io.uid, platform: io.platform, warn: (line) => warn(io, line), config: io.configFile });
  if (!found) throw new IdvError('auth', noKeyMessage(io.env));
  const unused = found.alsoStored ? ` (the key stored in ${found.alsoStored} is not used while it is set)` : '';
  io.stdout.write(oneLine(io, `Key ${maskKey(found.key)} from ${found.source}${unused}`) + '\n');
  if (!keyLooksSendable(found.key)) throw new IdvError('auth', `That key holds white space or characters other than ASCII, so it cannot be sent; ${keyFix(found)}.`);
  const short = keyTooShort(found.key);
  if (short) throw new IdvError('auth', `That key is too short to be one (${short}); ${keyFix(found)}.`);
  if (o.check === false) return;
  const answer = await askService(found.key, baseUrl, io);
  if (answer.verdict === 'refused') throw new IdvError('auth', keyRefusedMessage(found, answer.why));
  sayVerdict(answer, io, (line) => void io.stdout.write(oneLine(io, line) + '\n'), '');
}

/** What the service said of a key, for a person: the quota (`say`), or a note on stderr that it could not tell. */
function sayVerdict(answer: Verdict, io: Io, say: (line: string) => void, then: string): void {
  if (answer.verdict === 'works') say(quotaSentence(answer.rate, answer.usedUp, Date.now()));
  else if (answer.verdict === 'unknown') warn(io, `idv: note: could not check the key with the service (${answer.why})${then}.`);
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

/** The key typed at the terminal, not echoed. */
async function typedKey(io: Io): Promise<string> {
  const key = await io.term.askHidden('Paste your API key (input is hidden): ', MAX_KEY_INPUT);
  if (key.length > MAX_KEY_INPUT) throw usageError(KEY_INPUT_TOO_LONG);
  return key;
}
