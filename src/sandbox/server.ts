// The sandbox `idv sandbox` and `--sandbox` start: the service model (answer.ts, quota.ts, rules.ts) served
// on loopback by the HTTP plumbing (http-server.ts). Tests put the same parts together with faults of their
// own (test/sandbox/test-sandbox.ts).
import { answerIncoming } from './answer.js';
import { listenOnLoopback } from './http-server.js';
import { QuotaWindow } from './quota.js';
import { randomHex } from '../temp-files.js';

export interface SandboxOptions {
  /** Default 0 = any free port. */
  port?: number;
  /** Default '127.0.0.1'; anything that is not loopback is refused. */
  host?: string;
  /** The one Bearer key accepted; default 'sk_sandbox_' + 16 random hex chars. */
  key?: string;
  /** Validations per window; default 1000; 0 = unlimited (then no RateLimit/RateLimit-Policy headers). */
  quota?: number;
  /** Window length in seconds, default 3600. */
  window?: number;
}

/** The options checked, defaults filled in. */
export type SandboxSettings = Required<SandboxOptions>;

export interface Sandbox {
  url: string;
  port: number;
  key: string;
  /** Close the server and every connection (idle keep-alive, unanswered) promptly. */
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const settings = sandboxSettings(options);
  const quota = new QuotaWindow(settings.quota, settings.window, Date.now);
  const server = await listenOnLoopback(settings, (incoming) => answerIncoming(incoming, { key: settings.key, quota }));
  return { url: server.url, port: server.port, key: settings.key, close: () => server.close() };
}

/** The options with their defaults, each checked: a RangeError or an Error naming the one that is wrong. */
export function sandboxSettings(options: SandboxOptions): SandboxSettings {
  const settings = { host: '127.0.0.1', port: 0, quota: 1000, window: 3600, ...definedOnly(options) };
  checkInteger('port', settings.port, 0, 65535);
  checkInteger('quota', settings.quota, 0);
  checkInteger('window', settings.window, 1);
  const key = settings.key ?? 'sk_sandbox_' + randomHex(8);
  if (key === '' || /\s/.test(key)) throw new Error('sandbox: the key must be non-empty, without white space');
  return { ...settings, key };
}

function definedOnly(options: SandboxOptions): SandboxOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

function checkInteger(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`sandbox: ${name} must be an integer between ${min} and ${max}, got ${value}`);
  }
}
