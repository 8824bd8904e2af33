// The scheduler and a service that answers 413 (too large): a batch is halved down to one item; an item refused
// alone is tried again as a failed request is, then ends `error`, and later batches are full-sized again; two
// items in a row refused alone stop the run (the breaker): never one request per item of the list.
import { describe, expect, it } from 'vitest';
import { Scheduler, type WorkItem } from '../../src/dispatch/scheduler.js';
import { tooLargeError } from '../../src/dispatch/breaker.js';
import { fakeService, type ServiceModel } from './fake-service.js';

const items = (n: number) => Array.from({ length: n }, (_, i) => `u${i}@x.com`);

/** `n` items through a scheduler (batches of 4, one at a time, one retry) against the fake service. */
async function against(model: ServiceModel, n: number, batchSize = 4) {
  const service = fakeService(model);
  const results = new Map<string, string>();
  const d = new Scheduler({
    endpoint: '/emails/validate',
    field: 'emails',
    host: 'api.example.test',
    batchSize,
    concurrency: 1,
    retries: 1,
    wait: false,
    client: service.client,
    signal: new AbortController().signal,
    now: service.now,
    sleep: service.sleep,
    random: () => 0.5,
    onResults: (rs: Array<[WorkItem, string]>) => rs.forEach(([i, s]) => results.set(i.send, s)),
  });
  for (const i of items(n)) {
    d.push({ key: i, send: i });
    await d.whenQueueHasRoom();
  }
  const error = await d.finish().then(
    () => null,
    (err: unknown) => err,
  );
  return { requests: service.requests, results, error };
}

describe('a 413 to a single item', () => {
  it('a service that refuses everything, even one item: halved to one, that item tried twice, then again for the next item, and the run stops', async () => {
    const r = await against({ tooLarge: () => true }, 5_000);
    const [u0, u1, u2, u3, u4] = items(5);
    expect(r.requests).toEqual([
      [u0, u1, u2, u3],
      [u0, u1],
      [u0],
      [u0], // its one retry: then it ends error, and batches are full-sized again
      [u1, u2, u3, u4],
      [u1, u2],
      [u1],
      [u1], // the second item refused alone in a row: the breaker stops the run
    ]);
    expect(r.error).toEqual(tooLargeError('api.example.test', 8, 413));
    expect([...r.results]).toEqual([[u0, 'error']]);
  });

  it('one item the service refuses even alone, the rest validated: that item ends error after its retry, later batches full-sized again', async () => {
    const r = await against({ tooLarge: (batch) => batch.includes('u5@x.com') }, 14);
    expect(r.requests.map((batch) => batch.length)).toEqual([4, 4, 2, 1, 1, 1, 4, 4]);
    expect(r.requests.filter((batch) => batch.includes('u5@x.com'))).toEqual([items(8).slice(4), ['u4@x.com', 'u5@x.com'], ['u5@x.com'], ['u5@x.com']]);
    expect(r.error).toBeNull();
    expect([...r.results.entries()].filter(([, status]) => status !== 'ok')).toEqual([['u5@x.com', 'error']]);
    expect(r.results.size).toBe(14);
  });

  it('items refused alone with answers between them never stop the run: each ends error, every other item is validated', async () => {
    const refused = new Set(['u1@x.com', 'u6@x.com', 'u11@x.com']);
    const r = await against({ tooLarge: (batch) => batch.some((i) => refused.has(i)) }, 16);
    expect(r.error).toBeNull();
    expect([...r.results.entries()].filter(([, status]) => status === 'error').map(([item]) => item)).toEqual([...refused]);
    expect(r.results.size).toBe(16);
  });
});
