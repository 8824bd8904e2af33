// Between the plan and the dispatcher: an item another idv run on this machine is validating against the same
// service and endpoint is not sent again. This run claims each item as it hands it on (claims.ts); one another
// run claimed first is held until its answer lands in the cache, or sent when that run gives it up (it ended or
// died without an answer). Runs without a cache take no claims.
import type { Claims, Verdict } from './claims.js';
import { formatDuration } from '../core/duration.js';
import type { CacheScope } from '../cache/store.js';
import { NEW, type Plan } from '../plan/plan.js';
import type { PlannedRecord } from '../plan/planned.js';

/** How often held items are looked at (the cache, the claims, the other runs' heartbeats). */
const POLL_MS = 200;
/** A record is held at most this long: then this run sends it itself, whatever the other run is doing. */
const MAX_HOLD_MS = 5 * 60_000;
/** Records are claimed and handed on this many at a time, as the dispatcher has room: a run claims what it is about to send, not its whole list. */
const GROUP = 100;

export interface GateOutlets {
  /** Hand a record to the dispatcher. */
  send(record: PlannedRecord): void;
  /** Whether part-filled batches go now changed (`urgent`): another run may be waiting on them. */
  sendPartialBatches(): void;
  /** Resolves when the dispatcher's queue has room (at once when it has). */
  whenQueueHasRoom(): Promise<void>;
  /** Held records were answered from the cache (another run's answers; the plan has them): output may move on. */
  answered(): void;
}

interface Held {
  record: PlannedRecord;
  since: number;
}

export class ClaimGate {
  /** Records held for another run's answer (and since when), and records handed on but not yet settled, by key. */
  private readonly held = new Map<string, Held>();
  private readonly unsettled = new Map<string, PlannedRecord>();
  private claims: Claims | null = null;
  private keyHex: (key: string) => string = () => '';
  private out: GateOutlets | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private said = { holding: false, overdue: false };
  private waitedOn = false;
  private drained: (() => void) | null = null;

  constructor(
    private readonly plan: Plan,
    private readonly signal: AbortSignal,
    private readonly say: (line: string) => void,
    private readonly maxHoldMs = MAX_HOLD_MS,
    private readonly now: () => number = Date.now,
  ) {
    signal.addEventListener('abort', () => this.drained?.(), { once: true });
  }

  /** Open the gate on its outlets: with a cache, join its claims (and read the cache again for what landed meanwhile). */
  async open(scope: CacheScope | null, out: GateOutlets): Promise<void> {
    this.out = out;
    if (scope === null) return;
    // Loaded only here: a run without a cache never loads the claims (nor node:crypto).
    const { Claims, keyHex } = await import('./claims.js');
    this.keyHex = keyHex;
    this.claims = await Claims.join(scope.dir, scope.id);
    if (this.claims) await this.plan.refreshCache(); // answers other runs gave between the load and the join
  }

  /**
   * Whether part-filled batches should go now, not wait for more input: records here wait on other runs (which
   * may wait on this run's batches in turn), or other runs wait on records this run claimed first.
   */
  get urgent(): boolean {
    return this.held.size > 0 || this.waitedOn;
  }

  /** The NEW records of a block: each is sent, held for another run, or answered from the cache. */
  async push(block: PlannedRecord[]): Promise<void> {
    const fresh = block.filter((r) => r.state === NEW);
    if (this.claims === null) return fresh.forEach((r) => this.out!.send(r));
    for (let i = 0; i < fresh.length && !this.signal.aborted; i += GROUP) {
      await this.out!.whenQueueHasRoom();
      await this.claimAndSend(fresh.slice(i, i + GROUP));
    }
  }

  private async claimAndSend(fresh: PlannedRecord[]): Promise<void> {
    const keys = fresh.map((r) => this.keyHex(r.key));
    const verdicts = this.claims!.claim(keys);
    if (verdicts.includes('look')) await this.plan.refreshCache();
    let answered = 0;
    for (let i = 0; i < fresh.length; i++) if (this.decide(keys[i]!, fresh[i]!, verdicts[i]!)) answered++;
    if (answered) this.out!.answered();
    if (this.held.size > 0) this.startHolding();
    this.poll(this.held.size > 0);
  }

  /** Until no record is held (each answered or sent), or the run is stopped. */
  drain(): Promise<void> {
    if (this.held.size === 0 || this.signal.aborted) return Promise.resolve();
    this.out!.sendPartialBatches();
    return new Promise((resolve) => (this.drained = resolve));
  }

  /** The run ends: its claims go with it. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.claims?.close();
  }

  /** Send, hold or answer one record; whether it was answered (from the cache). */
  private decide(key: string, record: PlannedRecord, verdict: Verdict): boolean {
    if (verdict === 'wait') this.held.set(key, { record, since: this.now() });
    else if (verdict === 'look' && this.fromCache(key, record)) return true;
    else {
      this.unsettled.set(key, record);
      this.out!.send(record);
    }
    return false;
  }

  /** Whether another run's answer for the record is in the cache now (then the plan has it). */
  private fromCache(key: string, record: PlannedRecord): boolean {
    if (this.plan.takeFromCache(record.key) === null) return false;
    this.claims!.release([key]);
    return true;
  }

  private startHolding(): void {
    if (!this.said.holding) {
      this.said.holding = true;
      this.say('idv: note: another idv run is validating some of these items against the same service; waiting for its answers instead of paying for them twice.');
    }
    this.out!.sendPartialBatches();
  }

  /** Look at held and settled records every POLL_MS; the timer keeps the process alive only while records are held. */
  private poll(on: boolean): void {
    if (this.timer === null) this.timer = setInterval(() => void this.look(), POLL_MS);
    if (on) this.timer.ref();
    else this.timer.unref();
  }

  private async look(): Promise<void> {
    if (this.polling || this.claims === null) return;
    this.polling = true;
    const wasHolding = this.held.size > 0;
    try {
      this.releaseSettled();
      this.claims.poll(); // first: a run given up for dead, or a release, means its answer is in the cache by now
      this.noteWaitedOn();
      if (this.held.size === 0) return;
      // Let go before the cache is read: a release read later (by a claim meanwhile) may be of an answer this read misses.
      const free = new Set([...this.held.keys()].filter((key) => this.claims!.verdict(key) !== 'wait'));
      await this.plan.refreshCache();
      this.moveHeld(free);
    } catch {
      this.sendHeld(); // the cache cannot be read: waiting could last for ever, paying again cannot
    } finally {
      this.polling = false;
      if (this.held.size === 0) this.endHolding(wasHolding);
    }
  }

  /** Another run has begun to wait on records this run claimed first: its part-filled batches go now. */
  private noteWaitedOn(): void {
    const before = this.waitedOn;
    this.waitedOn = this.claims!.waitedOn;
    if (this.waitedOn !== before) this.out!.sendPartialBatches();
  }

  /** Held records answered since are settled; those let go before the cache was read (`free`), or held too long, are sent. */
  private moveHeld(free: Set<string>): void {
    let answered = 0;
    let sent = false;
    for (const [key, { record, since }] of this.held) {
      if (this.fromCache(key, record)) answered++;
      else {
        if (!free.has(key) && !this.overdue(since)) continue;
        this.unsettled.set(key, record);
        this.out!.send(record);
        sent = true;
      }
      this.held.delete(key);
    }
    if (answered) this.out!.answered();
    if (sent) this.out!.sendPartialBatches();
  }

  private overdue(since: number): boolean {
    if (this.now() - since < this.maxHoldMs) return false;
    if (!this.said.overdue) {
      this.said.overdue = true;
      this.say(`idv: note: the other idv run has not answered some items in ${formatDuration(this.maxHoldMs / 1000)}; sending them instead of waiting longer.`);
    }
    return true;
  }

  private sendHeld(): void {
    for (const [key, { record }] of this.held) {
      this.unsettled.set(key, record);
      this.out!.send(record);
    }
    this.held.clear();
    this.out!.sendPartialBatches();
  }

  /** Keys whose answers are settled (the plan knows them) are released for other runs. */
  private releaseSettled(): void {
    const done: string[] = [];
    for (const [key, record] of this.unsettled) if (this.plan.knownOf(record.key) !== undefined) done.push(key);
    for (const key of done) this.unsettled.delete(key);
    if (done.length) this.claims!.release(done);
  }

  private endHolding(wasHolding: boolean): void {
    if (this.timer) this.poll(false);
    if (wasHolding) this.out?.sendPartialBatches(); // perhaps no longer urgent: batches may fill again
    const drained = this.drained;
    this.drained = null;
    drained?.();
  }
}
