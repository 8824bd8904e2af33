// validateEmails / validateDomains: the engine for a Node program, set up from the options and the environment at
// the call (options.env, else process.env) where the CLI has flags and an Io; it stops as the CLI stops (docs/api.md).
// Nothing here writes to a terminal, reads argv, exits, or keeps state between calls.
import { DEFAULTS, type Kind } from '../core/defaults.js';
import { IdvError, usageError } from '../core/errors.js';
import type { Client } from '../api/client.js';
import type { CacheScope } from '../cache/store.js';
import { parseCacheTtl } from '../cache/ttl.js';
import { resolveBaseUrl, sendable } from '../commands/validate/target.js';
import { proxySettings } from '../api/transport.js';
import { findKey, readConfigFile } from '../system/api-key.js';
import { Secrets } from '../system/secrets.js';
import { Engine, type Result } from '../engine/engine.js';
import { openCache } from '../engine/open-cache.js';
import { Plan } from '../plan/plan.js';
import type { DispatchSettings, DispatchStats } from '../dispatch/scheduler.js';
import { QUOTA_EXCEEDED } from '../core/statuses.js';
import { checkItems, itemBlocks } from './items.js';
import type { Items, Validation, ValidateOptions, ValidationFacts, ValidationResult } from './types.js';

/** What a run needs that is made before it starts: the service, its client, the plan and the cache. */
interface Opened {
  baseUrl: string;
  client: Client;
  plan: Plan;
  cache: CacheScope | null;
}

export function validate(kind: Kind, items: Items, options: ValidateOptions = {}): Validation {
  const fn = kind === 'emails' ? 'validateEmails' : 'validateDomains';
  checkItems(items, fn);
  const o = checkedOptions(options);
  const env = { ...(options.env ?? process.env) }; // as it is now: a later change of process.env is no concern of this run
  let settle!: { resolve(f: ValidationFacts): void; reject(err: unknown): void };
  const done = new Promise<ValidationFacts>((resolve, reject) => (settle = { resolve, reject }));
  done.catch(() => undefined); // a program that only iterates has heard the error there
  let iterated = false;
  return {
    done,
    [Symbol.asyncIterator]() {
      if (iterated) throw new TypeError(`the results of ${fn}() can be iterated once`);
      iterated = true;
      return new LibraryRun(kind, items, options, o, env, settle).iterator();
    },
  };
}

/** The options that are numbers, checked (a usage error naming the one that is wrong) and defaulted. */
function checkedOptions(options: ValidateOptions) {
  const whole = (name: string, value: number | undefined, min: number, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isSafeInteger(value) || value < min) throw usageError(`${name} must be a whole number of at least ${min}, not ${String(value)}.`);
    return value;
  };
  const wait = options.wait;
  const maxWait = typeof wait === 'object' && wait.maxWait !== undefined ? whole('wait.maxWait', wait.maxWait, 0, 0) : undefined;
  const dispatch: DispatchSettings = {
    batchSize: whole('batchSize', options.batchSize, 1, DEFAULTS.batchSize),
    concurrency: whole('concurrency', options.concurrency, 1, DEFAULTS.concurrency),
    retries: whole('retries', options.retries, 0, DEFAULTS.retries),
    maxSpend: options.maxSpend === undefined ? undefined : whole('maxSpend', options.maxSpend, 0, 0),
    wait: Boolean(wait),
    maxWaitSeconds: maxWait === undefined ? undefined : maxWait / 1000,
    stopAtEmptyQuota: true,
  };
  return { dispatch, timeoutMs: whole('timeout', options.timeout, 1, DEFAULTS.timeoutSeconds * 1000) };
}

type Checked = ReturnType<typeof checkedOptions>;

/** One call's run: opened on the first ask for a result, closed when the results end, however they end. */
class LibraryRun {
  private engine: Engine | null = null;
  private opened: Opened | null = null;
  private block: Result[] = [];
  private at = 0;
  private blocks: AsyncIterator<Result[]> | null = null;
  private ended = false;

  constructor(
    private readonly kind: Kind,
    private readonly items: Items,
    private readonly options: ValidateOptions,
    private readonly o: Checked,
    private readonly env: Record<string, string | undefined>,
    private readonly settle: { resolve(f: ValidationFacts): void; reject(err: unknown): void },
  ) {}

  iterator(): AsyncIterator<ValidationResult> {
    return {
      next: () => this.next(),
      return: async () => {
        if (!this.ended) {
          await this.blocks?.return?.();
          await this.end(new IdvError('interrupted', 'The results were no longer read: the run stopped.'));
        }
        return { value: undefined, done: true };
      },
    };
  }

  /** The next result: from the block at hand (no await of the engine per result), else the next block. */
  private async next(): Promise<IteratorResult<ValidationResult>> {
    if (this.at < this.block.length) return { value: publicResult(this.block[this.at++]!), done: false };
    if (this.ended) return { value: undefined, done: true };
    try {
      this.blocks ??= (await this.start())[Symbol.asyncIterator]();
      const next = await this.blocks.next();
      if (next.done) {
        const failure = await this.end(null);
        if (failure) throw failure;
        return { value: undefined, done: true };
      }
      this.block = next.value;
      this.at = 1;
      return { value: publicResult(this.block[0]!), done: false };
    } catch (err) {
      if (this.ended) throw err; // the spend cap, thrown just above
      throw await this.end(err);
    }
  }

  private async start(): Promise<Engine> {
    const { options, o, env, kind } = this;
    const opened = (this.opened = await open(kind, options, o, env));
    return (this.engine = new Engine(itemBlocks(this.items), {
      kind,
      plan: opened.plan,
      cache: opened.cache,
      client: opened.client,
      host: new URL(opened.baseUrl).host,
      dispatch: o.dispatch,
      // An async iterable may be a stream that pauses: its items wait at most a moment for their batch (input/bytes/live.ts).
      live: Symbol.asyncIterator in this.items ? { waited: false } : undefined,
      signal: options.signal ?? new AbortController().signal,
      log: { line: () => undefined, warning: () => undefined },
      onProgress: options.onProgress ? () => this.progress() : undefined,
    }));
  }

  /** onProgress told the counts now; an exception it throws is thrown on its own, as an event listener's is, not into the run. */
  private progress(): void {
    const { engine, opened } = this;
    if (!engine || !opened) return;
    const { counts } = opened.plan;
    const facts = {
      read: counts.records,
      done: engine.passed,
      sent: engine.stats.sent,
      requests: engine.stats.requests,
      fromCache: counts.cached,
      quotaLeft: engine.stats.rate?.remaining ?? null,
    };
    try {
      this.options.onProgress!(facts);
    } catch (err) {
      queueMicrotask(() => {
        throw err;
      });
    }
  }

  /** The run ends: closed, and `done` settled; the error to throw, when it failed (the spend cap is one, once every result is given). */
  private async end(err: unknown): Promise<unknown> {
    if (this.ended) return err;
    this.ended = true;
    const facts = this.facts();
    const failure = err === null ? spendCapError(facts, this.o.dispatch.maxSpend) : publicError(err, facts, this.options.signal, this.opened?.cache != null);
    try {
      this.opened?.plan.close();
      await this.opened?.client.close();
    } finally {
      if (failure) this.settle.reject(failure);
      else this.settle.resolve(facts);
    }
    return failure;
  }

  private facts(): ValidationFacts {
    const counts = this.opened?.plan.counts;
    return {
      items: counts?.records ?? 0,
      unique: counts?.unique ?? 0,
      invalid: counts?.invalid ?? 0,
      fromCache: counts?.cached ?? 0,
      statuses: Object.fromEntries(this.engine?.counts ?? []),
      ...spent(this.engine?.stats),
    };
  }
}

/** The service, the key, the client, the plan and the cache of a call; a usage or auth error when one cannot be. */
async function open(kind: Kind, options: ValidateOptions, o: Checked, env: Record<string, string | undefined>): Promise<Opened> {
  const baseUrl = resolveBaseUrl(options.baseUrl, env);
  proxySettings(env, new URL(baseUrl)); // a malformed proxy variable: a usage error before anything starts
  const key = await apiKey(options, env);
  const plan = new Plan();
  const cache = await cacheOf(kind, options, env, baseUrl, plan);
  const { createClient } = await import('../api/client.js');
  const secrets = new Secrets();
  const client = await createClient({ baseUrl, key, timeoutMs: o.timeoutMs, connections: o.dispatch.concurrency, env, secrets }).catch((err: unknown) => {
    plan.close();
    throw err;
  });
  return { baseUrl, client, plan, cache };
}

/** The apiKey option, else IDV_API_KEY, else the stored key, as the CLI finds them. */
async function apiKey(options: ValidateOptions, env: Record<string, string | undefined>): Promise<string> {
  if (options.apiKey !== undefined) return sendable({ key: options.apiKey, source: 'the apiKey option' }, 'give the key the service issued').key;
  const found = await findKey(env, { uid: process.getuid?.() ?? null, platform: process.platform, warn: () => undefined, config: await readConfigFile(env) });
  if (!found) throw new IdvError('auth', 'No API key: give the apiKey option, set IDV_API_KEY, or store one with idv auth login.');
  return sendable(found, found.from === 'env' ? 'set IDV_API_KEY to the key the service issued, or give apiKey' : 'give apiKey, or store the key again with idv auth login').key;
}

/** The cache the options ask for, loaded into the plan; null for `cache: false`, or one that cannot be used. */
async function cacheOf(kind: Kind, options: ValidateOptions, env: Record<string, string | undefined>, baseUrl: string, plan: Plan): Promise<CacheScope | null> {
  const c = options.cache ?? true;
  if (c === false) return null;
  const folder = typeof c === 'string' ? c : typeof c === 'object' ? c.folder : undefined;
  const ttlText = typeof c === 'object' ? c.ttl : undefined;
  let ttl;
  try {
    ttl = parseCacheTtl(ttlText ?? DEFAULTS.cacheTtl);
  } catch (err) {
    throw usageError((err as Error).message.replaceAll('--cache-ttl', 'cache.ttl'));
  }
  return openCache({ baseUrl, kind, ttl, dir: folder, env, platform: process.platform }, plan, () => undefined);
}

function publicResult(r: Result): ValidationResult {
  return { input: r.given, item: r.item, canonical: r.send === '' ? null : r.send, status: r.status, source: r.source };
}

/** What the dispatcher sent and learnt of the quota. */
function spent(stats: DispatchStats | undefined): Pick<ValidationFacts, 'sent' | 'requests' | 'retries' | 'capped' | 'quotaStopped' | 'quota'> {
  if (!stats) return { sent: 0, requests: 0, retries: 0, capped: 0, quotaStopped: false, quota: null };
  const { rate, resetAt } = stats;
  const told = rate?.remaining !== undefined || rate?.quota !== undefined || resetAt !== undefined;
  const quota = told ? { remaining: rate?.remaining ?? null, limit: rate?.quota ?? null, resetsAt: resetAt !== undefined ? new Date(resetAt) : null } : null;
  return { sent: stats.sent, requests: stats.requests, retries: stats.retries, capped: stats.capped, quotaStopped: stats.quotaStopped, quota };
}

/** The spend cap reached (and not the service's quota): every result has been given, and the run ends with this error. */
function spendCapError(facts: ValidationFacts, maxSpend: number | undefined): IdvError | null {
  if (facts.capped === 0 || facts.quotaStopped) return null;
  const unsent = facts.statuses[QUOTA_EXCEEDED] ?? 0;
  return withFacts(new IdvError('quota', `Spend cap reached: maxSpend ${maxSpend} items sent; ${unsent} not validated (quota_exceeded).`), facts);
}

/** The error the program sees: an IdvError with the facts (an interruption by its signal said as such), or what went wrong as it is. */
function publicError(err: unknown, facts: ValidationFacts, signal: AbortSignal | undefined, cached: boolean): unknown {
  if (!(err instanceof IdvError)) return err;
  if (err.kind === 'interrupted' && signal?.aborted) {
    return withFacts(new IdvError('interrupted', `Aborted by the signal: results received before it were given${cached ? ', and are cached' : ''}.`), facts);
  }
  if (err.kind === 'quota') {
    const when = facts.quota?.resetsAt ? `it resets at ${facts.quota.resetsAt.toISOString()}` : 'the service did not say when it resets';
    return withFacts(new IdvError('quota', `${err.message.replace(/\.$/, '')}; ${when}.`), facts);
  }
  return withFacts(err, facts);
}

function withFacts(err: IdvError, facts: ValidationFacts): IdvError {
  err.facts = facts;
  return err;
}
