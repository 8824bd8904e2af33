// The engine against a fake service (no server): results in input order with their source, each item sent once,
// what reading waits on (the taker, the window) and what goes when it waits, and every way a run stops: the
// caller's signal (what was paid for is still given), a refused key, the quota before anything was validated,
// a taker that stops reading, an input that never ends.
import { describe, expect, it, vi } from 'vitest';
import type { Client, Outcome } from '../../src/api/client.js';
import { Engine, type EngineOptions, type Result } from '../../src/engine/engine.js';
import { IdvError } from '../../src/core/errors.js';
import type { InputRecord } from '../../src/input/records/record.js';
import { Plan } from '../../src/plan/plan.js';
import { fakeService, type ServiceModel } from '../dispatch/fake-service.js';
import type { DispatchSettings } from '../../src/dispatch/scheduler.js';

const recs = (...values: string[]): InputRecord[] => values.map((value) => ({ value, fields: null }));
async function* blocks(...bs: InputRecord[][]): AsyncGenerator<InputRecord[]> {
  for (const b of bs) yield b;
}

function engine(input: AsyncIterable<InputRecord[]>, client: Client, o: Partial<Omit<EngineOptions, 'dispatch'>> & Partial<DispatchSettings> = {}) {
  const lines: string[] = [];
  const { batchSize = 3, concurrency = 2, retries = 0, wait = false, maxSpend, maxWaitSeconds, stopAtEmptyQuota, ...rest } = o;
  const e = new Engine(input, {
    kind: 'emails',
    plan: new Plan(),
    cache: null,
    client,
    host: 'api.example.test',
    signal: new AbortController().signal,
    log: { line: (t) => lines.push(t), warning: (t) => lines.push(`warning: ${t}`) },
    graceMs: 1000,
    ...rest,
    dispatch: { batchSize, concurrency, retries, wait, maxSpend, maxWaitSeconds, stopAtEmptyQuota },
  });
  return { e, lines };
}

const view = (rs: Result[]) => rs.map((r) => `${r.item}=${r.status}/${r.source}`);

async function all(e: Engine): Promise<Result[]> {
  const out: Result[] = [];
  for await (const block of e) out.push(...block);
  return out;
}

/** Its outcome, or the error it ended with. */
async function settle(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => v,
    (err: unknown) => err,
  );
}

/** A client whose requests wait until the test answers them. */
function heldClient() {
  const held: Array<{ items: string[]; answer(o: Outcome): void }> = [];
  const client: Client = {
    validate: (_e, _f, items, signal) =>
      new Promise((resolve, reject) => {
        held.push({ items, answer: resolve });
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    close: async () => undefined,
  };
  return { client, held };
}
const ok = (items: string[], status = 'ok'): Outcome => ({ type: 'ok', results: new Map(items.map((i) => [i, status])), rate: {} });
/** Until `cond()` holds: a deadline only to stop a hang. */
const until = (cond: () => boolean) => vi.waitFor(() => expect(cond()).toBe(true), { timeout: 20_000, interval: 5 });

describe('Engine', () => {
  it('gives every record a result in input order, with where its status came from; each item sent once, an invalid one never', async () => {
    const svc = fakeService({});
    const { e } = engine(blocks(recs('a@x.com', ' a@X.COM ', 'nope'), recs('a@x.com', 'c@x.com', 'b@x.com')), svc.client);
    expect(view(await all(e))).toEqual(['a@x.com=ok/service', 'a@X.COM=ok/service', 'nope=invalid/check', 'a@x.com=ok/service', 'c@x.com=ok/service', 'b@x.com=ok/service']);
    expect(svc.requests.flat().sort()).toEqual(['a@x.com', 'b@x.com', 'c@x.com']);
    expect(Object.fromEntries(e.finished!.counts)).toEqual({ ok: 5, invalid: 1 });
    expect(e.finished!.stats).toMatchObject({ sent: 3, requests: 1 });
  });

  it('a result keeps the item as given, as read and as sent, and its row', async () => {
    const svc = fakeService({});
    const { e } = engine(blocks([{ value: ' Ann <ann@X.com> ', fields: [' Ann <ann@X.com> ', '7'] }]), svc.client);
    expect(await all(e)).toEqual([{ given: ' Ann <ann@X.com> ', item: 'ann@X.com', send: 'ann@X.com', fields: [' Ann <ann@X.com> ', '7'], status: 'ok', source: 'service' }]);
  });

  it('reads on only as fast as its results are taken: a taker that does not ask holds the reading', async () => {
    let read = 0;
    async function* counted(): AsyncGenerator<InputRecord[]> {
      for (let i = 0; i < 5; i++) {
        read++;
        yield recs(`nope${i}`);
      }
    }
    const svc = fakeService({});
    const { e } = engine(counted(), svc.client);
    const it = e[Symbol.asyncIterator]();
    expect(read).toBe(0); // nothing runs before the first ask
    expect(view((await it.next()).value as Result[])).toEqual(['nope0=invalid/check']);
    await new Promise((r) => setTimeout(r, 20));
    expect(read).toBeLessThanOrEqual(2);
    const rest: string[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(...view(r.value));
    expect(rest).toEqual(['nope1', 'nope2', 'nope3', 'nope4'].map((i) => `${i}=invalid/check`));
  });

  it('a full window holds reading, and sends the part-filled batch its head waits on (no run waits on itself)', async () => {
    const { client, held } = heldClient();
    const { e } = engine(blocks(recs('a@x.com'), recs('b@x.com'), recs('c@x.com')), client, { windowMax: 2, batchSize: 100 });
    const results = settle(all(e));
    await until(() => held.length === 1);
    expect(held[0]!.items).toEqual(['a@x.com', 'b@x.com']); // two of a batch of 100: the window is full
    held[0]!.answer(ok(held[0]!.items));
    await until(() => held.length === 2);
    expect(held[1]!.items).toEqual(['c@x.com']); // input ended
    held[1]!.answer(ok(held[1]!.items, 'fake'));
    expect(view((await results) as Result[])).toEqual(['a@x.com=ok/service', 'b@x.com=ok/service', 'c@x.com=fake/service']);
  });

  it("the caller's signal: nothing new is sent, answers in flight are still given (in order, passing over what was never answered), then it throws an interruption", async () => {
    const { client, held } = heldClient();
    const ac = new AbortController();
    const items = ['a@x.com', 'b@x.com', 'c@x.com', 'd@x.com', 'e@x.com', 'f@x.com', 'g@x.com'];
    const { e } = engine(blocks(recs(...items)), client, { signal: ac.signal, concurrency: 2, graceMs: 200 });
    const got: Result[] = [];
    const ended = settle(
      (async () => {
        for await (const block of e) got.push(...block);
      })(),
    );
    await until(() => held.length === 2);
    ac.abort('SIGTERM');
    held[1]!.answer(ok(held[1]!.items, 'alias')); // the second batch answers; the first never does (cut after the grace)
    const err = await ended;
    expect(err).toBeInstanceOf(IdvError);
    expect(err).toMatchObject({ kind: 'interrupted', signal: 'SIGTERM' });
    expect(view(got)).toEqual(['d@x.com=alias/service', 'e@x.com=alias/service', 'f@x.com=alias/service']);
    expect(held).toHaveLength(2);
    expect(e.signal.aborted).toBe(true);
  });

  it('a refused key stops the run: the iterator throws the auth error, and nothing more is sent', async () => {
    const svc = fakeService({ faults: [{ type: 'auth' }] });
    const { e } = engine(blocks(recs('a@x.com', 'b@x.com', 'c@x.com', 'd@x.com')), svc.client, { concurrency: 1 });
    const err = await settle(all(e));
    expect(err).toMatchObject({ kind: 'auth', message: expect.stringContaining('401') });
    expect(svc.requests).toHaveLength(1);
  });

  it('the quota used up before anything was validated: quota_exceeded for every item by default, an error with stopAtEmptyQuota', async () => {
    const model: ServiceModel = { quota: 0 };
    const values = ['a@x.com', 'b@x.com', 'c@x.com', 'd@x.com'];
    const cli = engine(blocks(recs(...values)), fakeService(model).client, { concurrency: 1 });
    expect(view(await all(cli.e))).toEqual(values.map((v) => `${v}=quota_exceeded/service`));
    const lib = engine(blocks(recs(...values)), fakeService(model).client, { concurrency: 1, stopAtEmptyQuota: true });
    expect(await settle(all(lib.e))).toMatchObject({ kind: 'quota' });
  });

  it('the quota used up after some were validated: the rest quota_exceeded, whatever stopAtEmptyQuota says', async () => {
    const svc = fakeService({ quota: 2 });
    const { e } = engine(blocks(recs('a@x.com', 'b@x.com', 'c@x.com', 'd@x.com')), svc.client, { concurrency: 1, stopAtEmptyQuota: true });
    expect(view(await all(e))).toEqual(['a@x.com=ok/service', 'b@x.com=ok/service', 'c@x.com=quota_exceeded/service', 'd@x.com=quota_exceeded/service']);
    expect(e.finished!.stats.quotaStopped).toBe(true);
  });

  it('a taker that stops reading (break) ends the run: its return waits for the answers in flight, which settle the plan', async () => {
    const { client, held } = heldClient();
    const plan = new Plan();
    const { e } = engine(blocks(recs('nope', 'a@x.com', 'b@x.com', 'c@x.com')), client, { plan });
    let returned = false;
    const loop = (async () => {
      for await (const _block of e) break;
      returned = true;
    })();
    await until(() => held.length === 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(returned).toBe(false);
    held[0]!.answer(ok(held[0]!.items, 'disposable'));
    await loop;
    expect(returned).toBe(true);
    expect(plan.statusOf('b@x.com')).toBe('disposable');
  });

  it('an input that never ends, and never gives another record, still hears the stop', async () => {
    const ac = new AbortController();
    async function* forever(): AsyncGenerator<InputRecord[]> {
      yield recs('nope');
      await new Promise(() => undefined);
    }
    const { e } = engine(forever(), fakeService({}).client, { signal: ac.signal });
    const got: string[] = [];
    const ended = settle(
      (async () => {
        for await (const block of e) got.push(...view(block));
      })(),
    );
    await until(() => got.length === 1);
    ac.abort();
    expect(await ended).toMatchObject({ kind: 'interrupted' });
  });

  it('results can be read once', () => {
    const { e } = engine(blocks(), fakeService({}).client);
    e[Symbol.asyncIterator]();
    expect(() => e[Symbol.asyncIterator]()).toThrow('iterated once');
  });
});
