// Batches to the API client: concurrency, the quota gate (429, quota_exceeded, RateLimit r), --wait,
// retries with back-off, splitting batches the service refuses as too large.
// Data goes one way: push(item) … finish(); every item pushed comes out once through onResults.
import { setMaxListeners } from 'node:events';
import type { Client, Outcome } from '../api/client.js';
import type { RateInfo } from '../api/ratelimit.js';
import { IdvError, interruptedError } from '../errors.js';
import { ERROR, QUOTA_EXCEEDED } from '../statuses.js';

export interface WorkItem {
  key: string;
  send: string;
}

export interface DispatchOptions {
  client: Client;
  endpoint: string;
  field: string;
  batchSize: number;
  concurrency: number;
  retries: number;
  /** --wait: sleep until the quota resets instead of stopping; bounded by maxWaitSeconds. */
  wait: boolean;
  maxWaitSeconds?: number;
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
  /** How long requests in flight may finish after an interrupt. */
  graceMs?: number;
  /** Final statuses, as soon as they are known. */
  onResults(results: Array<[WorkItem, string]>): void;
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
  /** Latest rate-limit facts and when they arrived. */
  rate?: RateInfo;
  rateAt?: number;
  /** When the quota resets (ms since epoch), when the service said so. */
  resetAt?: number;
  waitedMs: number;
}

const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 30_000;
/** A Retry-After on a failed request is honoured up to this long; the quota wait (--wait) is separate. */
const RETRY_AFTER_CAP_MS = 60_000;

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

export function createDispatcher(o: DispatchOptions) {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? defaultSleep;
  const random = o.random ?? Math.random;
  const queue: WorkItem[] = [];
  let head = 0;
  let batchSize = o.batchSize;
  let inFlight = 0;
  let inFlightItems = 0;
  let ended = false;
  let waiting = false;
  let quotaStopped = false;
  let fatal: IdvError | null = null;
  /** Validations left, from the latest RateLimit header, less what was sent since. */
  let budget: number | undefined;
  const stats: DispatchStats = { requests: 0, sent: 0, inFlight: 0, quotaStopped: false, waitedMs: 0 };

  // Requests in flight are cut only after a grace period following an interrupt.
  const hard = new AbortController();
  setMaxListeners(0, hard.signal); // one listener per request in flight: --concurrency 20 is not a leak
  const onInterrupt = () => {
    setTimeout(() => hard.abort(o.signal.reason), o.graceMs ?? 3000).unref?.();
    settle();
  };

  let roomWaiters: Array<() => void> = [];
  let doneWaiters: Array<() => void> = [];

  const queued = () => queue.length - head;
  const roomLimit = () => Math.max(batchSize * o.concurrency * 2, 1);
  // Only now: an interrupt that came before the dispatcher (Ctrl-C while the cache loads) settles at once,
  // and settle() needs everything above.
  if (o.signal.aborted) onInterrupt();
  else o.signal.addEventListener('abort', onInterrupt, { once: true });

  function takeFront(n: number): WorkItem[] {
    const batch = queue.slice(head, head + n);
    head += n;
    if (head > 4096 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
    return batch;
  }
  function putFront(items: WorkItem[]): void {
    if (head >= items.length) {
      head -= items.length;
      for (let i = 0; i < items.length; i++) queue[head + i] = items[i]!;
    } else {
      queue.splice(head, 0, ...items);
    }
  }

  function noteRate(rate: RateInfo): void {
    if (rate.remaining === undefined && rate.reset === undefined && rate.retryAfter === undefined && rate.quota === undefined) return;
    const at = now();
    stats.rate = { ...stats.rate, ...definedOnly(rate) };
    stats.rateAt = at;
    if (rate.remaining !== undefined) budget = rate.remaining;
    const reset = rate.reset ?? rate.retryAfter;
    if (reset !== undefined) stats.resetAt = at + reset * 1000;
  }

  function finishItems(items: WorkItem[], status: string): void {
    if (items.length) o.onResults(items.map((i) => [i, status]));
  }

  /** The quota is used up (429, quota_exceeded, or r = 0 with work left). */
  function quotaHit(): void {
    if (quotaStopped || waiting) return;
    if (o.wait) {
      const resetAt = stats.resetAt;
      const waitMs = resetAt === undefined ? undefined : Math.max(0, resetAt - now()) + 1000;
      const limit = o.maxWaitSeconds === undefined ? Infinity : o.maxWaitSeconds * 1000 - stats.waitedMs;
      if (waitMs !== undefined && waitMs <= limit) {
        waiting = true;
        o.onWait?.(now() + waitMs, 'quota');
        const started = now();
        sleep(waitMs, o.signal)
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
    finishItems(takeFront(queued()), QUOTA_EXCEEDED);
    settle();
  }

  function pump(): void {
    while (!fatal && !o.signal.aborted && !waiting) {
      if (quotaStopped) {
        finishItems(takeFront(queued()), QUOTA_EXCEEDED);
        break;
      }
      const n = queued();
      if (n === 0 || inFlight >= o.concurrency) break;
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
      send(takeFront(size));
    }
    settle();
  }

  function settle(): void {
    if (queued() < roomLimit() || quotaStopped || fatal || o.signal.aborted) {
      const w = roomWaiters;
      roomWaiters = [];
      for (const r of w) r();
    }
    const idle = inFlight === 0 && !waiting;
    if (idle && (fatal || o.signal.aborted || (ended && queued() === 0))) {
      const w = doneWaiters;
      doneWaiters = [];
      for (const r of w) r();
    }
  }

  function send(batch: WorkItem[]): void {
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

  async function runBatch(batch: WorkItem[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let outcome: Outcome;
      try {
        stats.requests++;
        outcome = await o.client.validate(o.endpoint, o.field, batch.map((i) => i.send), hard.signal);
      } catch {
        return; // cut after an interrupt: these items stay unvalidated (and uncached)
      }
      if (outcome.type !== 'auth') noteRate(outcome.rate);
      switch (outcome.type) {
        case 'ok': {
          stats.sent += batch.length;
          const done: Array<[WorkItem, string]> = [];
          const over: WorkItem[] = [];
          let unusable = 0;
          for (const item of batch) {
            const status = outcome.results.get(item.send);
            if (status === QUOTA_EXCEEDED) over.push(item);
            else done.push([item, status ?? ERROR]);
            if (status === undefined) unusable++;
          }
          if (unusable) lastFailure = `the service's answer had no usable status for ${unusable} item${unusable === 1 ? '' : 's'}`;
          if (done.length) o.onResults(done);
          if (over.length) {
            if (o.wait) putFront(over);
            else finishItems(over, QUOTA_EXCEEDED);
            budget = 0;
            quotaHit();
          }
          return;
        }
        case 'quota':
          budget = 0;
          if (o.wait) putFront(batch);
          else finishItems(batch, QUOTA_EXCEEDED);
          quotaHit();
          return;
        case 'auth':
          fatal ??= new IdvError(
            'auth',
            'The service refused the API key (401 Unauthorized); check it, or store a new one with idv auth login.',
          );
          return;
        case 'too-large': {
          if (batch.length <= 1) {
            finishItems(batch, ERROR);
            return;
          }
          batchSize = Math.max(1, Math.min(batchSize, Math.floor(batch.length / 2)));
          putFront(batch);
          return;
        }
        case 'failed':
          lastFailure = outcome.reason;
          finishItems(batch, ERROR);
          return;
        case 'retry': {
          lastFailure = outcome.reason;
          if (attempt >= o.retries) {
            finishItems(batch, ERROR);
            return;
          }
          const retryAfter = outcome.rate.retryAfter;
          const backoff =
            retryAfter !== undefined
              ? Math.min(retryAfter * 1000, RETRY_AFTER_CAP_MS)
              : random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
          try {
            await sleep(backoff, o.signal);
          } catch {
            return;
          }
          if (fatal || quotaStopped) {
            if (quotaStopped) finishItems(batch, QUOTA_EXCEEDED);
            return;
          }
          continue;
        }
      }
    }
  }

  let lastFailure: string | undefined;

  return {
    stats,
    /** Queue an item; call `room()` before pushing more when it says so. */
    push(item: WorkItem): void {
      if (quotaStopped) {
        o.onResults([[item, QUOTA_EXCEEDED]]);
        return;
      }
      queue.push(item);
      if (queued() >= batchSize) pump();
    },
    /** Send what can go now (call when hurry() has just turned true). */
    kick(): void {
      pump();
    },
    /** Whether more may be pushed without waiting. */
    hasRoom(): boolean {
      return queued() < roomLimit() || quotaStopped || fatal !== null || o.signal.aborted;
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

export type Dispatch = ReturnType<typeof createDispatcher>;
