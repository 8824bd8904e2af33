// The scheduler: batches to the API client in arrival order, `concurrency` requests in flight, each batch cut
// to what the quota and the spend cap allow. What an answer means for its batch is decide()'s; the quota
// (quota-gate.ts), --max-spend (spend-cap.ts) and a host that does not answer (breaker.ts) are each a module.
// Data goes one way: push(item) … finish(); every item pushed comes out once through onResults, unless the
// run stops (the key refused, the host unreachable, a signal), which finish() throws.
import { setMaxListeners } from 'node:events';
import type { Client, Outcome } from '../api/client.js';
import type { RateInfo } from '../api/ratelimit.js';
import { IdvError, interruptedError } from '../core/errors.js';
import { ERROR, QUOTA_EXCEEDED } from '../core/statuses.js';
import { Fifo } from '../core/fifo.js';
import { Breaker, hostError, tooLargeError } from './breaker.js';
import { decide, type Decision, type DecideOptions } from './decide.js';
import { QuotaGate, type QuotaStop } from './quota-gate.js';
import { defaultSleep } from './sleep.js';
import { SpendCap } from './spend-cap.js';

/**
 * Who may wait on the items queued: the output (the in-order window is full, and its head waits on them), a live
 * input that paused (its records are due), other runs (holding items this run claimed, or held for theirs).
 */
export type Waiter = 'output' | 'input' | 'other-runs';

export interface WorkItem {
  key: string;
  send: string;
}

/** How a run sends its items, as its flags or options say. */
export type DispatchSettings = Pick<SchedulerOptions, 'batchSize' | 'concurrency' | 'retries' | 'maxSpend' | 'wait' | 'maxWaitSeconds' | 'stopAtEmptyQuota'>;

export interface SchedulerOptions<T extends WorkItem = WorkItem> {
  client: Client;
  endpoint: string;
  field: string;
  /** The service's host, for the message of a run stopped by the circuit breaker. */
  host: string;
  batchSize: number;
  concurrency: number;
  retries: number;
  /** --max-spend: never send more than this many items in the run; the rest end quota_exceeded. */
  maxSpend?: number;
  /** --wait: sleep until the quota resets instead of stopping; bounded by maxWaitSeconds. */
  wait: boolean;
  maxWaitSeconds?: number;
  /**
   * Without --wait, a quota used up before the service validated anything in this run stops it with an error
   * (fatal, kind 'quota'), instead of ending every item quota_exceeded: the library's choice (a program learns
   * at once that it cannot go on); the CLI writes every record quota_exceeded.
   */
  stopAtEmptyQuota?: boolean;
  /** Aborted on SIGINT/SIGTERM, or when the run stops for another reason (a failed write). */
  signal: AbortSignal;
  /** How long requests in flight may finish after the run stops. */
  graceMs?: number;
  /** Final statuses, as soon as they are known. */
  onResults(results: Array<[T, string]>): void;
  /** After every answer, for progress. */
  onProgress?(stats: DispatchStats): void;
  /** A wait for the quota began; it ends at `until` (ms since epoch). */
  onWait?(until: number, reason: string): void;
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
  retries: number;
  /** Latest rate-limit facts and when they arrived. */
  rate?: RateInfo;
  rateAt?: number;
  /** Whether the quota stopped the run, and why (QuotaStop); null when it did not. */
  readonly quotaStopped: boolean;
  readonly quotaStop: QuotaStop | null;
  /** Items left unsent by --max-spend (they end quota_exceeded). */
  readonly capped: number;
  /** When the quota resets (ms since epoch), when the service said so. */
  readonly resetAt?: number;
  readonly waitedMs: number;
}

export class Scheduler<T extends WorkItem> {
  readonly stats: DispatchStats;
  /** Settles with the error when the run cannot go on: the key refused, or the host unreachable. */
  readonly fatal: Promise<IdvError>;
  private readonly queue = new Fifo<T>();
  private readonly gate: QuotaGate;
  private readonly cap: SpendCap<T>;
  private readonly breaker = new Breaker();
  private readonly rules: DecideOptions;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Cuts requests in flight, a grace period after the run stops. */
  private readonly hard = new AbortController();
  private batchSize: number;
  private inFlightItems = 0;
  private inputEnded = false;
  private readonly waiters = new Set<Waiter>();
  private kicking = false;
  private failure: IdvError | null = null;
  private reportFatal: (err: IdvError) => void = () => undefined;
  private lastFailureReason: string | undefined;
  private validatedAny = false;
  private roomWaiters: Array<() => void> = [];
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly o: SchedulerOptions<T>) {
    // One listener per request in flight (--concurrency may pass Node's warning at 10): none is a leak.
    setMaxListeners(0, this.hard.signal);
    this.now = o.now ?? Date.now;
    this.sleep = o.sleep ?? defaultSleep;
    this.rules = { retries: o.retries, wait: o.wait, random: o.random ?? Math.random };
    this.batchSize = o.batchSize;
    this.gate = new QuotaGate({ wait: o.wait, maxWaitMs: o.maxWaitSeconds === undefined ? undefined : o.maxWaitSeconds * 1000 });
    this.cap = new SpendCap(o.maxSpend);
    this.stats = liveStats(this.gate, this.cap);
    this.fatal = new Promise((resolve) => (this.reportFatal = resolve));
    // An interrupt that came before the scheduler (Ctrl-C while the cache loads) fires no event: maySend() and
    // halted() read the signal itself, so nothing is sent, and there is nothing in flight to cut.
    o.signal.addEventListener('abort', this.onInterrupt, { once: true });
  }

  /** Queue an item; when queueHasRoom() turns false, wait for whenQueueHasRoom() before pushing more. */
  push(item: T): void {
    if (this.gate.stopped !== null || this.cap.reached) {
      if (this.gate.stopped === null) this.cap.refuse();
      return this.end([item], QUOTA_EXCEEDED);
    }
    this.queue.push(item);
    if (this.queue.length >= this.batchSize) this.fillSlots();
    else if (this.waiters.size > 0) this.kickSoon();
  }

  /** Part-filled batches go once the items pushed in this turn are all in (one batch, not one per push). */
  private kickSoon(): void {
    if (this.kicking) return;
    this.kicking = true;
    queueMicrotask(() => {
      this.kicking = false;
      this.fillSlots();
    });
  }

  /**
   * `who` waits on the items queued (`on`), or no longer. The one rule for a part-filled batch: it waits to fill
   * while input may still come and nobody waits on its items; it goes once input has ended, or while anyone does.
   */
  waiting(who: Waiter, on: boolean): void {
    if (on) this.waiters.add(who);
    else this.waiters.delete(who);
    if (on) this.fillSlots();
  }

  queueHasRoom(): boolean {
    return this.queue.length < this.roomLimit() || this.halted();
  }

  whenQueueHasRoom(): Promise<void> {
    if (this.queueHasRoom()) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** No more items: send what is queued and wait for every answer. Throws why the run stopped, if it did. */
  async finish(): Promise<DispatchStats> {
    this.inputEnded = true;
    this.fillSlots();
    await new Promise<void>((resolve) => {
      this.idleWaiters.push(resolve);
      this.wakeWaiters();
    });
    this.o.signal.removeEventListener('abort', this.onInterrupt);
    if (this.failure) throw this.failure;
    if (this.o.signal.aborted) throw interruptedError(this.o.signal.reason);
    return this.stats;
  }

  lastFailure(): string | undefined {
    return this.lastFailureReason;
  }

  private readonly onInterrupt = (): void => {
    this.cutInFlightAfterGrace();
    this.wakeWaiters();
  };

  private maySend(): boolean {
    return this.stats.inFlight < this.o.concurrency && this.failure === null && !this.o.signal.aborted && !this.gate.waiting;
  }

  private halted(): boolean {
    return this.failure !== null || this.o.signal.aborted || this.gate.stopped !== null;
  }

  private roomLimit(): number {
    return Math.max(this.batchSize * this.o.concurrency * 2, 1);
  }

  /**
   * Send batches while a request slot is free. A batch takes at least one item, so the loop turns at most once
   * per item queued: whatever the quota or the cap says, it never spins (a signal is always heard).
   */
  private fillSlots(): void {
    if (this.gate.stopped !== null) this.end(this.queue.take(this.queue.length), QUOTA_EXCEEDED);
    for (let turns = this.queue.length; turns > 0 && this.maySend(); turns--) {
      const batch = this.nextBatch();
      if (batch === null) break;
      const { go, capped } = this.cap.admit(batch);
      this.end(capped, QUOTA_EXCEEDED);
      if (go.length) this.send(go);
    }
    this.wakeWaiters();
  }

  /** The next batch (never empty): at most batchSize items and what the quota leaves; null when none goes now. */
  private nextBatch(): T[] | null {
    const queued = this.queue.length;
    if (queued === 0) return null;
    // A part-filled batch waits for more input, unless input has ended or someone waits on its items (waiting()).
    if (queued < this.batchSize && !this.inputEnded && this.waiters.size === 0) return null;
    const allowed = this.gate.allowance(this.inFlightItems);
    if (allowed < 1) {
      if (this.stats.inFlight === 0) this.quotaUsedUp(); // else their answers bring fresh counts
      return null;
    }
    return this.queue.take(Math.min(this.batchSize, queued, allowed));
  }

  private send(batch: T[]): void {
    this.stats.inFlight++;
    this.inFlightItems += batch.length;
    void this.runBatch(batch).finally(() => {
      this.stats.inFlight--;
      this.inFlightItems -= batch.length;
      this.o.onProgress?.(this.stats);
      this.fillSlots();
    });
  }

  /** One batch from its first request to its last answer, as decide() rules. */
  private async runBatch(batch: T[]): Promise<void> {
    const firstSentAt = this.now();
    for (let attempt = 0; ; attempt++) {
      const sentAt = this.now();
      const outcome = await this.request(batch, attempt);
      if (outcome === null) return; // cut after the run stopped: these items stay unvalidated (and uncached)
      const { answered, over } = this.readAnswer(outcome, batch);
      const d = decide(outcome, batch.length, attempt, over.length, this.rules);
      const lastTry = d.then !== 'retry';
      const stopped = outcome.type === 'too-large' ? this.refusedAsTooLarge(batch.length === 1 && lastTry, outcome.status) : this.hostFailed(outcome, sentAt, firstSentAt, lastTry);
      if (stopped) return;
      if (d.then !== 'retry') return this.carryOut(d, batch, answered, over);
      if (!(await this.backOff(d.afterMs, d.reason, batch))) return;
    }
  }

  private async request(batch: T[], attempt: number): Promise<Outcome | null> {
    this.stats.requests++;
    if (attempt > 0) this.stats.retries++;
    try {
      return await this.o.client.validate(this.o.endpoint, this.o.field, batch.map((i) => i.send), this.hard.signal);
    } catch {
      return null;
    }
  }

  /** A 2xx answer's statuses: those answered, and the items it left quota_exceeded. Notes its rate-limit facts. */
  private readAnswer(outcome: Outcome, batch: T[]): { answered: Array<[T, string]>; over: T[] } {
    if (outcome.type !== 'auth') this.noteRate(outcome.rate);
    const answered: Array<[T, string]> = [];
    const over: T[] = [];
    if (outcome.type !== 'ok') return { answered, over };
    this.stats.sent += batch.length;
    let unusable = 0;
    for (const item of batch) {
      const status = outcome.results.get(item.send);
      if (status === QUOTA_EXCEEDED) over.push(item);
      else answered.push([item, status ?? ERROR]);
      if (status === undefined) unusable++;
    }
    this.gate.validated(answered.length - unusable);
    if (answered.length > unusable) this.validatedAny = true;
    if (unusable) this.lastFailureReason = `the service's answer had no usable status for ${unusable} item${unusable === 1 ? '' : 's'}`;
    return { answered, over };
  }

  /** The circuit breaker's count of requests the host gave no usable answer; whether it stopped the run. */
  private hostFailed(outcome: Outcome, sentAt: number, firstSentAt: number, lastTry: boolean): boolean {
    const turnedAway = outcome.type === 'failed' && outcome.turnedAway === true;
    if (outcome.type !== 'unreachable' && !turnedAway) {
      this.breaker.answered(this.now());
      return false;
    }
    if (!this.breaker.broken(sentAt, firstSentAt, lastTry, this.now(), turnedAway)) return false;
    this.stop(hostError(this.o.host, outcome.reason, this.breaker.streak, turnedAway));
    return true;
  }

  /**
   * A 413: a batch is halved, a lone item tried again. One refused alone after all its tries stops the halving:
   * later batches are full-sized again; two such in a row (the breaker) stop the run. Whether it stopped.
   */
  private refusedAsTooLarge(alone: boolean, status: number): boolean {
    if (alone) this.batchSize = this.o.batchSize;
    if (!this.breaker.tooLarge(alone)) return false;
    this.stop(tooLargeError(this.o.host, this.breaker.tooLargeInRow, status));
    return true;
  }

  /** What decide() said for a batch that is done with (anything but a retry). */
  private carryOut(d: Exclude<Decision, { then: 'retry' }>, batch: T[], answered: Array<[T, string]>, over: T[]): void {
    if ('quotaHit' in d && d.quotaHit && this.o.stopAtEmptyQuota && !this.o.wait && !this.validatedAny) {
      return this.stop(new IdvError('quota', 'The quota is used up: the service validated nothing in this run before refusing more.'));
    }
    switch (d.then) {
      case 'answers':
        if (answered.length) this.o.onResults(answered);
        if (this.o.wait) this.queue.unshift(over);
        else this.end(over, QUOTA_EXCEEDED);
        break;
      case ERROR:
      case QUOTA_EXCEEDED:
        if (d.reason) this.lastFailureReason = d.reason;
        this.end(batch, d.then);
        break;
      case 'requeue':
        if (d.batchSize !== undefined) this.batchSize = Math.max(1, Math.min(this.batchSize, d.batchSize));
        this.queue.unshift(batch);
        break;
      case 'drop':
        return this.stop(new IdvError('auth', 'The service refused the API key (401 Unauthorized); check it, or store a new one with idv auth login.'));
    }
    if ('quotaHit' in d && d.quotaHit) this.quotaUsedUp();
  }

  /** Sleep before a retry; false when the batch must not be sent again (then its items are dealt with here). */
  private async backOff(ms: number, reason: string, batch: T[]): Promise<boolean> {
    this.lastFailureReason = reason;
    try {
      await this.sleep(ms, this.o.signal);
    } catch {
      return false;
    }
    // While it slept, the run may have stopped or begun to wait: a batch is never sent after the quota stop or a refused key.
    if (this.gate.stopped !== null) this.end(batch, QUOTA_EXCEEDED);
    else if (this.gate.waiting) this.queue.unshift(batch);
    return !this.halted() && !this.gate.waiting;
  }

  /**
   * The quota is used up (429, quota_exceeded, or nothing left to send with): wait for the reset (--wait), or stop.
   * Called from fillSlots() or a batch's end, which then wake those waiting.
   */
  private quotaUsedUp(): void {
    const next = this.gate.usedUp(this.now());
    if (next === null) return;
    if ('waitMs' in next) return void this.waitForReset(next.waitMs);
    this.end(this.queue.take(this.queue.length), QUOTA_EXCEEDED);
  }

  private async waitForReset(ms: number): Promise<void> {
    const started = this.now();
    this.o.onWait?.(started + ms, 'quota');
    const slept = await this.sleep(ms, this.o.signal).then(() => true, () => false);
    this.gate.waited(this.now() - started, slept);
    this.fillSlots();
  }

  private noteRate(rate: RateInfo): void {
    if (rate.remaining === undefined && rate.reset === undefined && rate.retryAfter === undefined && rate.quota === undefined) return;
    const at = this.now();
    this.stats.rate = { ...this.stats.rate, ...definedOnly(rate) };
    this.stats.rateAt = at;
    this.gate.note(rate, at);
  }

  /**
   * The run cannot go on: no new request; those in flight get the grace period. Called at a batch's end, which
   * then wakes those waiting.
   */
  private stop(err: IdvError): void {
    if (this.failure) return;
    this.failure = err;
    this.reportFatal(err);
    this.cutInFlightAfterGrace();
  }

  private cutInFlightAfterGrace(): void {
    setTimeout(() => this.hard.abort(this.o.signal.reason), this.o.graceMs ?? 3000).unref();
  }

  private end(items: T[], status: string): void {
    if (items.length) this.o.onResults(items.map((i) => [i, status]));
  }

  /** Free those waiting for room in the queue, and for the end once nothing is in flight or waiting. */
  private wakeWaiters(): void {
    if (this.queueHasRoom()) for (const wake of this.roomWaiters.splice(0)) wake();
    const idle = this.stats.inFlight === 0 && !this.gate.waiting;
    const over = this.failure !== null || this.o.signal.aborted || (this.inputEnded && this.queue.length === 0);
    if (idle && over) for (const wake of this.idleWaiters.splice(0)) wake();
  }
}

/** The stats object handed out once: counts kept here, the quota's and the cap's read from them as they are. */
function liveStats(gate: QuotaGate, cap: SpendCap<object>): DispatchStats {
  return {
    requests: 0,
    sent: 0,
    inFlight: 0,
    retries: 0,
    get quotaStopped() {
      return gate.stopped !== null;
    },
    get quotaStop() {
      return gate.stopped;
    },
    get capped() {
      return cap.capped;
    },
    get resetAt() {
      return gate.resetAt;
    },
    get waitedMs() {
      return gate.waitedMs;
    },
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
