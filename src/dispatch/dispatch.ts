// Batches to the API client: concurrency, the quota gate (429, quota_exceeded, RateLimit r), --wait.
// What an answer means for its batch (retry, split, requeue, stop) is decided by ./decide.ts.
// Data goes one way: push(item) … finish(); every item pushed comes out once through onResults.
import { setMaxListeners } from 'node:events';
import type { Client, Outcome } from '../api/client.js';
import type { RateInfo } from '../api/ratelimit.js';
import { IdvError, interruptedError } from '../errors.js';
import { ERROR, QUOTA_EXCEEDED } from '../statuses.js';
import { Fifo } from '../fifo.js';
import { decide, quotaWaitMs, type DecideOptions } from './decide.js';

export interface WorkItem {
  key: string;
  send: string;
  /** Counted against --max-spend (set when first sent; a retry or a resend after --wait is not counted again). */
  spent?: boolean;
}

export interface DispatchOptions<T extends WorkItem = WorkItem> {
  client: Client;
  endpoint: string;
  field: string;
  batchSize: number;
  concurrency: number;
  retries: number;
  /** --max-spend: never send more than this many items in the run; the rest end quota_exceeded. */
  maxSpend?: number;
  /** --wait: sleep until the quota resets instead of stopping; bounded by maxWaitSeconds. */
  wait: boolean;
  maxWaitSeconds?: number;
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
  /** How long requests in flight may finish after an interrupt. */
  graceMs?: number;
  /** Final statuses, as soon as they are known. */
  onResults(results: Array<[T, string]>): void;
  /** After every answer, for progress. */
  onProgress?(stats: DispatchStats): void;
  /** A wait for the quota began; it ends at `until` (ms since epoch). */
  onWait?(until: number, reason: string): void;
  /**
   * Whether someone is waiting on the items still queued (the output window is full): then a part-filled
   * batch goes at once instead of waiting for more input, which would never come while reading waits.
   */
  hurry?(): boolean;
  /** Back-off and waits; replaceable in tests. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

export interface DispatchStats {
  /** Requests made, retries included. */
  requests: number;
  /** Items the service answered (2xx), each counted once: what the run paid for, at most. */
  sent: number;
  inFlight: number;
  quotaStopped: boolean;
  /** Items left unsent by --max-spend (they end quota_exceeded). */
  capped: number;
  /** Requests that were retries of a failed one. */
  retries: number;
  /** Latest rate-limit facts and when they arrived. */
  rate?: RateInfo;
  rateAt?: number;
  /** When the quota resets (ms since epoch), when the service said so. */
  resetAt?: number;
  waitedMs: number;
}

/** Node fires a timer set beyond 2^31-1 ms (24.8 days) at once; longer sleeps go in steps below it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let left = Math.max(0, ms);
    let t: NodeJS.Timeout;
    const step = () => {
      const now = Math.min(left, MAX_TIMER_MS);
      left -= now;
      t = setTimeout(() => {
        if (left > 0) return step();
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, now);
    };
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    step();
  });
}

/**
 * The scheduler: batches items in arrival order, keeps `concurrency` requests in flight, cuts batches to the
 * quota left (RateLimit r), and carries out decide()'s rules for each answer. It alone holds state.
 */
// (Long on purpose: one closure owns the scheduler's state — queue, in-flight counts, budget, waits — and
// its parts are the named inner functions below: noteRate, quotaHit, pump, settle, send, runBatch.)
export function createDispatcher<T extends WorkItem>(o: DispatchOptions<T>) {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? defaultSleep;
  const rules: DecideOptions = { retries: o.retries, wait: o.wait, random: o.random ?? Math.random };
  const queue = new Fifo<T>();
  let batchSize = o.batchSize;
  let inFlight = 0;
  let inFlightItems = 0;
  let ended = false;
  /** Sleeping until the quota resets (--wait). */
  let waiting = false;
  let quotaStopped = false;
  let fatal: IdvError | null = null;
  let lastFailure: string | undefined;
  /** Validations left, from the latest RateLimit header (items in flight not yet taken off). */
  let budget: number | undefined;
  const stats: DispatchStats = { requests: 0, sent: 0, inFlight: 0, quotaStopped: false, capped: 0, retries: 0, waitedMs: 0 };
  /** What --max-spend still allows. */
  let spendLeft = o.maxSpend ?? Infinity;

  // Requests in flight are cut only after a grace period following an interrupt.
  const hard = new AbortController();
  setMaxListeners(0, hard.signal); // one listener per request in flight: --concurrency 20 is not a leak
  const onInterrupt = () => {
    setTimeout(() => hard.abort(o.signal.reason), o.graceMs ?? 3000).unref?.();
    settle();
  };

  let roomWaiters: Array<() => void> = [];
  let doneWaiters: Array<() => void> = [];
  const roomLimit = () => Math.max(batchSize * o.concurrency * 2, 1);
  const stopped = () => quotaStopped || fatal !== null || o.signal.aborted;
  // Only now: an interrupt that came before the dispatcher (Ctrl-C while the cache loads) settles at once,
  // and settle() needs everything above.
  if (o.signal.aborted) onInterrupt();
  else o.signal.addEventListener('abort', onInterrupt, { once: true });

  function noteRate(rate: RateInfo): void {
    if (rate.remaining === undefined && rate.reset === undefined && rate.retryAfter === undefined && rate.quota === undefined) return;
    const at = now();
    stats.rate = { ...stats.rate, ...definedOnly(rate) };
    stats.rateAt = at;
    if (rate.remaining !== undefined) budget = rate.remaining;
    const reset = rate.reset ?? rate.retryAfter;
    if (reset !== undefined) stats.resetAt = at + reset * 1000;
  }

  function finishItems(items: T[], status: string): void {
    if (items.length) o.onResults(items.map((i) => [i, status]));
  }

  /** The quota is used up (429, quota_exceeded, or r = 0 with work left): wait for the reset (--wait), or stop. */
  function quotaHit(): void {
    budget = 0;
    if (quotaStopped || waiting) return;
    if (o.wait) {
      const left = o.maxWaitSeconds === undefined ? Infinity : o.maxWaitSeconds * 1000 - stats.waitedMs;
      const ms = quotaWaitMs(stats.resetAt, now(), left);
      if (ms !== null) {
        waiting = true;
        o.onWait?.(now() + ms, 'quota');
        const started = now();
        sleep(ms, o.signal)
          .then(
            () => {
              budget = undefined;
              stats.resetAt = undefined;
            },
            () => undefined,
          )
          .finally(() => {
            stats.waitedMs += now() - started;
            waiting = false;
            pump();
          });
        return;
      }
    }
    quotaStopped = true;
    stats.quotaStopped = true;
    finishItems(queue.take(queue.length), QUOTA_EXCEEDED);
    settle();
  }

  function pump(): void {
    while (!fatal && !o.signal.aborted && !waiting) {
      if (quotaStopped) {
        finishItems(queue.take(queue.length), QUOTA_EXCEEDED);
        break;
      }
      const n = queue.length;
      if (n === 0 || inFlight >= o.concurrency) break;
      // A part-filled batch waits for more input, unless input has ended or output waits on it (hurry).
      if (!ended && n < batchSize && !o.hurry?.()) break;
      let size = Math.min(batchSize, n);
      if (budget !== undefined) {
        const available = budget - inFlightItems;
        if (available <= 0) {
          if (inFlight > 0) break; // their answers bring fresh counts
          quotaHit();
          continue;
        }
        size = Math.min(size, available);
      }
      spend(queue.take(size));
    }
    settle();
  }

  /** Send a batch, less what --max-spend no longer allows (those items end quota_exceeded, uncharged). */
  function spend(batch: T[]): void {
    if (spendLeft === Infinity) return send(batch);
    const go: T[] = [];
    const capped: T[] = [];
    for (const item of batch) {
      if (item.spent) go.push(item);
      else if (spendLeft > 0) {
        spendLeft--;
        item.spent = true;
        go.push(item);
      } else capped.push(item);
    }
    if (capped.length) {
      stats.capped += capped.length;
      finishItems(capped, QUOTA_EXCEEDED);
    }
    if (go.length) send(go);
  }

  function settle(): void {
    if (queue.length < roomLimit() || stopped()) {
      const w = roomWaiters;
      roomWaiters = [];
      for (const r of w) r();
    }
    const idle = inFlight === 0 && !waiting;
    if (idle && (fatal || o.signal.aborted || (ended && queue.length === 0))) {
      const w = doneWaiters;
      doneWaiters = [];
      for (const r of w) r();
    }
  }

  function send(batch: T[]): void {
    inFlight++;
    inFlightItems += batch.length;
    stats.inFlight = inFlight;
    void runBatch(batch).finally(() => {
      inFlight--;
      inFlightItems -= batch.length;
      stats.inFlight = inFlight;
      o.onProgress?.(stats);
      pump();
    });
  }

  /** One batch from its first request to its last answer, as decide() rules. */
  async function runBatch(batch: T[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let outcome: Outcome;
      try {
        stats.requests++;
        if (attempt > 0) stats.retries++;
        outcome = await o.client.validate(o.endpoint, o.field, batch.map((i) => i.send), hard.signal);
      } catch {
        return; // cut after an interrupt: these items stay unvalidated (and uncached)
      }
      if (outcome.type !== 'auth') noteRate(outcome.rate);
      const answered: Array<[T, string]> = [];
      const over: T[] = [];
      if (outcome.type === 'ok') {
        stats.sent += batch.length;
        let unusable = 0;
        for (const item of batch) {
          const status = outcome.results.get(item.send);
          if (status === QUOTA_EXCEEDED) over.push(item);
          else answered.push([item, status ?? ERROR]);
          if (status === undefined) unusable++;
        }
        if (unusable) lastFailure = `the service's answer had no usable status for ${unusable} item${unusable === 1 ? '' : 's'}`;
      }
      const d = decide(outcome, batch.length, attempt, over.length, rules);
      switch (d.then) {
        case 'answers':
          if (answered.length) o.onResults(answered);
          if (o.wait) queue.unshift(over);
          else finishItems(over, QUOTA_EXCEEDED);
          break;
        case ERROR:
        case QUOTA_EXCEEDED:
          if (d.reason) lastFailure = d.reason;
          finishItems(batch, d.then);
          break;
        case 'requeue':
          if (d.batchSize !== undefined) batchSize = Math.max(1, Math.min(batchSize, d.batchSize));
          queue.unshift(batch);
          break;
        case 'drop':
          fatal ??= new IdvError('auth', 'The service refused the API key (401 Unauthorized); check it, or store a new one with idv auth login.');
          return;
        case 'retry':
          lastFailure = d.reason;
          try {
            await sleep(d.afterMs, o.signal);
          } catch {
            return;
          }
          // While it slept, the run may have stopped: a batch is never sent after the quota stop or a refused key.
          if (quotaStopped) finishItems(batch, QUOTA_EXCEEDED);
          else if (waiting) queue.unshift(batch);
          if (stopped() || waiting) return;
          continue;
      }
      if ('quotaHit' in d && d.quotaHit) quotaHit();
      return;
    }
  }

  return {
    stats,
    /** Queue an item; call `room()` before pushing more when it says so. */
    push(item: T): void {
      if (quotaStopped || spendLeft <= 0) {
        if (!quotaStopped) stats.capped++;
        o.onResults([[item, QUOTA_EXCEEDED]]);
        return;
      }
      queue.push(item);
      if (queue.length >= batchSize) pump();
    },
    /** Send what can go now (call when hurry() has just turned true). */
    kick(): void {
      pump();
    },
    /** Whether more may be pushed without waiting. */
    hasRoom(): boolean {
      return queue.length < roomLimit() || stopped();
    },
    room(): Promise<void> {
      if (this.hasRoom()) return Promise.resolve();
      return new Promise((r) => roomWaiters.push(r));
    },
    /** No more items: send what is queued and wait for every answer. */
    async finish(): Promise<DispatchStats> {
      ended = true;
      pump();
      await new Promise<void>((r) => {
        doneWaiters.push(r);
        settle();
      });
      o.signal.removeEventListener('abort', onInterrupt);
      if (fatal) throw fatal;
      if (o.signal.aborted) throw interruptedError(o.signal.reason);
      return stats;
    },
    lastFailure: () => lastFailure,
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
