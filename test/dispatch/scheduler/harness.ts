// The scheduler's test bench: a scripted client (harness), a fake service on a fake clock (against), a clock
// only sleeps move, and a client whose requests wait until the test answers them.
import type { Client, Outcome } from '../../../src/api/client.js';
import { Scheduler, type SchedulerOptions, type WorkItem } from '../../../src/dispatch/scheduler.js';
import { fakeService, type ServiceModel } from '../fake-service.js';

export type Script = (items: string[], call: number) => Outcome | Promise<Outcome>;

export const BASE = {
  endpoint: '/emails/validate',
  field: 'emails',
  host: 'api.example.test',
  batchSize: 3,
  concurrency: 2,
  retries: 2,
  wait: false,
};

export function harness(script: Script, opts: Partial<SchedulerOptions> = {}) {
  const calls: string[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const client: Client = {
    async validate(_e, _f, items) {
      const call = calls.push(items);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      try {
        return await script(items, call);
      } finally {
        inFlight--;
      }
    },
    close: async () => undefined,
  };
  const results = new Map<string, string>();
  const d = new Scheduler({
    ...BASE,
    client,
    signal: new AbortController().signal,
    sleep: async () => undefined,
    onResults: (rs: Array<[WorkItem, string]>) => rs.forEach(([i, s]) => results.set(i.send, s)),
    ...opts,
  });
  const run = async (items: string[]) => {
    for (const i of items) {
      d.push({ key: i, send: i });
      await d.whenQueueHasRoom();
    }
    return d.finish();
  };
  return { d, calls, results, run, maxInFlight: () => maxInFlight };
}

export const ok = (items: string[], rate = {}): Outcome => ({
  type: 'ok',
  results: new Map(items.map((i) => [i, 'ok'])),
  rate,
});
export const items = (n: number) => Array.from({ length: n }, (_, i) => `u${i}@x.com`);
export const count = (m: Map<string, string>, status: string) => [...m.values()].filter((s) => s === status).length;

/** A run of `n` items against a fake service, on its fake clock. */
export async function against(model: ServiceModel, opts: Partial<SchedulerOptions>, n: number) {
  const service = fakeService(model);
  const results = new Map<string, string[]>();
  const d = new Scheduler({
    ...BASE,
    client: service.client,
    signal: new AbortController().signal,
    now: service.now,
    sleep: service.sleep,
    random: () => 0.5,
    onResults: (rs: Array<[WorkItem, string]>) => rs.forEach(([i, s]) => results.set(i.send, [...(results.get(i.send) ?? []), s])),
    ...opts,
  });
  for (const i of items(n)) {
    d.push({ key: i, send: i });
    await d.whenQueueHasRoom();
  }
  const outcome = await d.finish().then(
    (stats) => ({ stats, error: null }),
    (error: unknown) => ({ stats: d.stats, error }),
  );
  const final = new Map([...results].map(([k, v]) => [k, v.at(-1)!]));
  return { ...outcome, service, results, final, d };
}

/** A clock that only sleeps move: `now` for the scheduler, `sleep` that records each wait and moves the clock. */
export function fakeClock(start = 0) {
  const clock = { at: start, slept: [] as number[] };
  return {
    slept: clock.slept,
    now: () => clock.at,
    sleep: async (ms: number) => {
      clock.slept.push(ms);
      clock.at += ms;
    },
  };
}

/** A client whose requests wait until the test answers them, one by one, in the order they came. */
export function heldClient() {
  const held: Array<{ items: string[]; signal: AbortSignal; answer(o: Outcome): void }> = [];
  const client: Client = {
    validate: (_e, _f, items, signal) =>
      new Promise<Outcome>((resolve, reject) => {
        held.push({ items, signal, answer: resolve });
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    close: async () => undefined,
  };
  return { client, held };
}

export const tick = () => new Promise((r) => setTimeout(r, 5));
