// The sandbox as tests use it: the shipped parts (the settings' checks, the service model, the HTTP
// plumbing) put together with what only a test needs: a record of every request, the most validate
// requests handled at once, faults queued for the next validate requests, a batch limit, the quota set by
// hand, a clock, a delay before every validate answer, and validate answers held until the test lets them go.
import type { BatchLimit, Fault } from '../../src/sandbox/answer.js';
import { listenOnLoopback, type Incoming } from '../../src/sandbox/http-server.js';
import { QuotaWindow } from '../../src/sandbox/quota.js';
import { sandboxSettings, type SandboxOptions } from '../../src/sandbox/server.js';
import { serve, type Watch } from '../../src/sandbox/service.js';

export type { Fault };

export interface TestSandboxOptions extends SandboxOptions {
  /** Latency added to every validate answer (default 0). */
  delayMs?: number;
  /** Clock in ms for the quota window (default Date.now). */
  now?: () => number;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  /** The array sent under "emails"/"domains" (null if the body is not parseable, the field is missing or not all strings). */
  items: string[] | null;
  /** HTTP status answered (0 if the socket was reset / hung, or while the answer is still pending). */
  status: number;
  /** Wall-clock ms (Date.now, not `now`). */
  startedAt: number;
  /** Wall-clock ms when the answer finished or the socket closed (0 while pending). */
  endedAt: number;
}

function checkInteger(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`test sandbox: ${name} must be an integer of at least ${min}, got ${value}`);
}

/** A quota window a test sets by hand. */
class AdjustableQuota extends QuotaWindow {
  /** Set the remaining quota of the current window. */
  setRemaining(n: number): void {
    this.roll();
    this.left = n;
  }

  /** A fresh window, full, from now. */
  refill(): void {
    this.start = this.now();
    this.left = this.quota;
  }
}

export class TestSandbox {
  url = '';
  port = 0;
  /** Every request received, in arrival order (validate ones and others). */
  readonly requests: ReceivedRequest[] = [];
  /** The highest number of validate requests being handled at once so far. */
  maxInFlight = 0;
  private inFlight = 0;
  private readonly faults: Fault[] = [];
  private batchLimit: BatchLimit | undefined;
  private validates = 0;
  private holding: { gate: Promise<void>; from: number } | null = null;
  private closeServer: () => Promise<void> = async () => undefined;

  constructor(
    readonly key: string,
    private readonly quota: AdjustableQuota,
    private readonly delayMs: number,
  ) {}

  async listen(host: string, port: number): Promise<this> {
    const respond = serve(this.key, this.quota, {
      // A fault is aimed at the next authorized request; the quota is taken as each body is read, in arrival order.
      next: (authorized) => ({ fault: authorized ? this.faults.shift() : undefined, latencyMs: this.delayMs }),
      batchLimit: () => this.batchLimit,
      arrived: (incoming) => this.record(incoming),
    });
    const server = await listenOnLoopback({ host, port }, async (incoming) => {
      const reply = await respond(incoming);
      if (reply && incoming.path.endsWith('/validate')) await this.heldBack(incoming);
      return reply;
    });
    this.url = server.url;
    this.port = server.port;
    this.closeServer = () => server.close();
    return this;
  }

  /** Close the server and every connection (idle keep-alive, hung) promptly. */
  close(): Promise<void> {
    return this.closeServer();
  }

  /** The next `times` (default 1) authorized validate requests get this fault (FIFO queue). */
  inject(fault: Fault, times = 1): void {
    checkInteger('times', times, 0);
    for (let i = 0; i < times; i++) this.faults.push(fault);
  }

  /**
   * The next `after` validate requests are answered; those after them wait before their answer goes (their
   * quota taken as they came), until the function returned is called: a test holds the service still at a point
   * of its choosing while it sees what the client does meanwhile (a signal while a request is in flight, requests
   * at once).
   */
  hold(after = 0): () => void {
    checkInteger('after', after, 0);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    this.holding = { gate, from: this.validates + after };
    return () => {
      if (this.holding?.gate === gate) this.holding = null;
      release();
    };
  }

  /** Refuse batches with more than n items: 413, or 400 naming the size. null = no limit. */
  setMaxBatch(n: number | null, style: '413' | '400' = '413'): void {
    if (n !== null) checkInteger('max batch', n, 1);
    this.batchLimit = n === null ? undefined : { max: n, style };
  }

  /** Set the remaining quota of the current window. */
  setRemaining(n: number): void {
    if (!this.quota.limited) throw new Error('test sandbox: setRemaining needs a limited quota (quota > 0)');
    checkInteger('remaining', n, 0);
    this.quota.setRemaining(n);
  }

  /** Start a fresh window with the full quota. */
  refill(): void {
    this.quota.refill();
  }

  /** A validate request's answer waits while it is held (or until its client goes away). */
  private async heldBack(incoming: Incoming): Promise<void> {
    const index = this.validates++;
    if (this.holding && index >= this.holding.from) await Promise.race([this.holding.gate, incoming.ended]);
  }

  /** Every request is recorded as it arrives; its items once its body is read; a validate one counts as in flight. */
  private record(incoming: Incoming): Watch {
    const { method, path, authorization, contentType } = incoming;
    const record: ReceivedRequest = { method, path, authorization, contentType, items: null, status: 0, startedAt: Date.now(), endedAt: 0 };
    this.requests.push(record);
    void incoming.ended.then((status) => {
      record.status = status;
      record.endedAt = Date.now();
    });
    return {
      read: (items) => (record.items = items),
      answering: () => this.countInFlight(incoming.ended),
    };
  }

  /** A validate request counts towards maxInFlight until its exchange ends. */
  private countInFlight(ended: Promise<number>): void {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    void ended.then(() => this.inFlight--);
  }
}

/** A sandbox for a test: `startSandbox`'s parts and checks, with the test's faults, clock and delay. */
export async function startTestSandbox(options: TestSandboxOptions = {}): Promise<TestSandbox> {
  const { delayMs = 0, now = Date.now, ...rest } = options;
  const settings = sandboxSettings(rest);
  if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError(`test sandbox: delayMs must be >= 0, got ${delayMs}`);
  const sandbox = new TestSandbox(settings.key, new AdjustableQuota(settings.quota, settings.window, now), delayMs);
  return sandbox.listen(settings.host, settings.port);
}
