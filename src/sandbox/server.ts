// The sandbox `idv sandbox` and `--sandbox` start: the service (service.ts over answer.ts, quota.ts, rules.ts)
// served on loopback by the HTTP plumbing (http-server.ts), with a latency and faults at a rate drawn from a
// seed (faults.ts) and a request log (request-log.ts) when asked. Tests put the same parts together with faults
// of their own (test/sandbox/test-sandbox.ts).
import { randomInt } from 'node:crypto';
import { listenOnLoopback } from './http-server.js';
import { QuotaWindow } from './quota.js';
import { serve } from './service.js';
import { FaultDraw, parseFaults, type FaultRule, type Latency } from './faults.js';
import { requestLog } from './request-log.js';
import { parseDuration } from '../core/duration.js';
import { randomHex } from '../system/temp-files.js';

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
  /** Wait before each validate answer, in ms: a fixed time, or a range each answer's wait is drawn from. Default 0. */
  latency?: number | Latency;
  /** Faults at a rate: `5xx=10%,timeout=2%,429=1%/30s`, or the rules themselves (faults.ts). Default none. */
  faults?: string | FaultRule[];
  /** The seed faults and latencies are drawn from (an integer, 0 to 2^32 - 1); default a random one. */
  seed?: number;
  /** One line a request as its exchange ends (time, endpoint, items, status, latency, fault; the key masked). */
  log?: (line: string) => void;
}

export interface Sandbox {
  url: string;
  port: number;
  key: string;
  /** The seed its faults and latencies are drawn from: the same seed replays them. */
  seed: number;
  /** Close the server and every connection (idle keep-alive, unanswered) promptly. */
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const settings = sandboxSettings(options);
  const quota = new QuotaWindow(settings.quota, settings.window, Date.now);
  const draw = new FaultDraw(settings.faults, settings.latency, settings.seed);
  const respond = serve(settings.key, quota, {
    next: (authorized) => draw.next(authorized),
    arrived: settings.log ? requestLog(settings.log) : undefined,
  });
  const server = await listenOnLoopback(settings, respond);
  return { url: server.url, port: server.port, key: settings.key, seed: settings.seed, close: () => server.close() };
}

/** The options with their defaults, each checked: a RangeError or an Error naming the one that is wrong. */
export function sandboxSettings(options: SandboxOptions) {
  const given = definedOnly(options);
  const settings = { host: '127.0.0.1', port: 0, quota: 1000, window: 3600, seed: randomInt(2 ** 32), ...given };
  checkInteger('port', settings.port, 0, 65535);
  checkInteger('quota', settings.quota, 0);
  checkInteger('window', settings.window, 1);
  checkInteger('seed', settings.seed, 0, 2 ** 32 - 1);
  const key = settings.key ?? 'sk_sandbox_' + randomHex(8);
  if (key === '' || /\s/.test(key)) throw new Error('sandbox: the key must be non-empty, without white space');
  return { ...settings, key, latency: latencyOf(given.latency ?? 0), faults: faultsOf(given.faults ?? []), log: given.log };
}

/** The longest wait before an answer: beyond any client's timeout, short of a wait that never ends. */
const MAX_LATENCY_MS = 10 * 60 * 1000;

function latencyOf(latency: number | Latency): Latency {
  const range = typeof latency === 'number' ? { min: latency, max: latency } : latency;
  if (!(range.min >= 0 && range.max >= range.min && range.max <= MAX_LATENCY_MS)) {
    throw new RangeError(`sandbox: latency must be from 0 to ${MAX_LATENCY_MS} ms, its least first, got ${range.min}-${range.max}`);
  }
  return range;
}

function faultsOf(faults: string | FaultRule[]): FaultRule[] {
  if (typeof faults !== 'string') return parseFaults(faults.map(ruleText).join(','), seconds);
  try {
    return parseFaults(faults, seconds);
  } catch (err) {
    throw new Error(`sandbox: faults: ${(err as Error).message}`);
  }
}

/** A rule back in the grammar, so that rules given as data are checked as text is. */
function ruleText(r: FaultRule): string {
  const name = r.kind === 'status' ? String(r.status) : r.kind;
  return `${name}=${r.rate * 100}%${r.kind === '429' && r.burstSeconds !== undefined ? `/${r.burstSeconds}s` : ''}`;
}

const seconds = (text: string) => parseDuration(text, 'a burst');

function definedOnly(options: SandboxOptions): SandboxOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

function checkInteger(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`sandbox: ${name} must be an integer between ${min} and ${max}, got ${value}`);
  }
}
