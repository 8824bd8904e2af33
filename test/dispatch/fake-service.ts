// A scripted service for the scheduler's tests, on a fake clock: a quota per fixed window (429 once used up,
// quota_exceeded past what is left), a largest batch (413 above it), and faults for the first requests. It
// records every request and what it validated, so that a test can tell what was sent and what was paid for.
import type { Client, Outcome } from '../../src/api/client.js';

export interface ServiceModel {
  /** Validations per window; undefined: no limit (and no rate-limit headers). */
  quota?: number;
  windowSeconds?: number;
  /** Batches larger than this are refused (413). */
  maxBatch?: number;
  /** Batches this says are too large are refused (413), whatever their size (an item the service refuses even alone). */
  tooLarge?: (items: string[]) => boolean;
  /** Outcomes for the first requests, in order, before anything else is looked at. */
  faults?: Outcome[];
  /** Every request past this many fails the test run: a scheduler that sends without end is caught, not waited on. */
  requestLimit?: number;
}

export interface FakeService {
  client: Client;
  /** The fake clock, and a sleep that moves it on (after a turn of the event loop). */
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Every request's items, in order. */
  requests: string[][];
  /** How many times each item was validated (what the account paid for). */
  paid: Map<string, number>;
  /** Total time slept. */
  slept(): number;
}

export function fakeService(m: ServiceModel): FakeService {
  const start = 1_000_000_000_000;
  let clock = start;
  let sleptMs = 0;
  const windowMs = (m.windowSeconds ?? 60) * 1000;
  let windowIndex = 0;
  let remaining = m.quota ?? Infinity;
  const faults = [...(m.faults ?? [])];
  const requests: string[][] = [];
  const paid = new Map<string, number>();
  const limit = m.requestLimit ?? 500;

  const rate = () => {
    if (m.quota === undefined) return {};
    const reset = Math.ceil((start + (windowIndex + 1) * windowMs - clock) / 1000);
    return { remaining, reset, quota: m.quota };
  };

  async function validate(_endpoint: string, _field: string, items: string[], signal: AbortSignal): Promise<Outcome> {
    await new Promise((r) => setImmediate(r));
    if (signal.aborted) throw signal.reason;
    requests.push(items);
    if (requests.length > limit) throw new Error(`more than ${limit} requests: the scheduler does not stop`);
    const now = Math.floor((clock - start) / windowMs);
    if (now !== windowIndex) {
      windowIndex = now;
      remaining = m.quota ?? Infinity;
    }
    const fault = faults.shift();
    if (fault) return fault;
    if ((m.maxBatch !== undefined && items.length > m.maxBatch) || m.tooLarge?.(items)) return { type: 'too-large', status: 413, rate: {} };
    if (remaining <= 0) return { type: 'quota', rate: rate() };
    const results = new Map<string, string>();
    for (const item of items) {
      if (remaining > 0) {
        remaining--;
        paid.set(item, (paid.get(item) ?? 0) + 1);
        results.set(item, 'ok');
      } else results.set(item, 'quota_exceeded');
    }
    return { type: 'ok', results, rate: rate() };
  }

  return {
    client: { validate, close: async () => undefined },
    now: () => clock,
    async sleep(ms, signal) {
      await new Promise((r) => setImmediate(r));
      if (signal.aborted) throw signal.reason;
      clock += ms;
      sleptMs += ms;
    },
    requests,
    paid,
    slept: () => sleptMs,
  };
}
