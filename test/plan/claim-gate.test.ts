// The gate between the plan and the dispatcher: what another run holds is not sent; it is answered from
// the cache when that run's answer lands, or sent after all when that run lets go without an answer (it
// ended, died or gave up); every wait ends, Ctrl-C included.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Claims, keyHex } from '../../src/cache/claims.js';
import { openScope, type CacheScope } from '../../src/cache/store.js';
import { markText, selfMark } from '../../src/cache/process-mark.js';
import { ClaimGate } from '../../src/plan/claim-gate.js';
import { Plan } from '../../src/plan/plan.js';
import type { PlannedRecord } from '../../src/plan/planned.js';

let dir: string;
let scope: CacheScope;
let plan: Plan;
const open: Array<{ close(): void }> = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-gate-'));
  scope = openScope(dir, 'https://api.x', '/emails/validate', 86400);
  plan = new Plan();
  await plan.loadCache(scope);
});
afterEach(async () => {
  for (const o of open.splice(0)) o.close();
  plan.close();
  await rm(dir, { recursive: true, force: true });
});

/** Another idv run of the same scope, holding these keys. */
async function holder(...keys: string[]): Promise<Claims> {
  const other = (await Claims.join(dir, scope.id))!;
  open.push(other);
  other.claim(keys.map(keyHex));
  return other;
}

/** A gate whose outlets record what they were asked (holding a record at most `maxHoldMs`, when given). */
async function gate(signal = new AbortController().signal, maxHoldMs?: number) {
  const said: string[] = [];
  const g = new ClaimGate(plan, signal, (line) => said.push(line), maxHoldMs);
  open.push(g);
  const out = { sent: [] as string[], kicks: 0, resolved: 0 };
  await g.open(scope, {
    send: (r) => out.sent.push(r.key),
    sendPartialBatches: () => out.kicks++,
    whenQueueHasRoom: async () => undefined,
    answered: (results) => {
      out.resolved++;
      for (const [record, status] of results) record.state = plan.knownAs(status); // as the ordered writer does
    },
  });
  return { g, out, said };
}

const records = (...keys: string[]): PlannedRecord[] => keys.map((key) => ({ item: key, key, send: key, fields: null, state: plan.lookup(key) }));
const within = (g: ClaimGate, ms: number) => Promise.race([g.drain().then(() => 'drained'), new Promise((r) => setTimeout(() => r('still waiting'), ms))]);

describe('claim gate', () => {
  it('what another run holds is not sent; its answer, once in the cache, settles the record; one line says so', async () => {
    await holder('a@x.com');
    const { g, out, said } = await gate();
    const recs = records('a@x.com', 'b@x.com');
    await g.push(recs);
    expect(out.sent).toEqual(['b@x.com']);
    expect(g.urgent).toBe(true);
    expect(out.kicks).toBeGreaterThan(0); // this run's own part-filled batch must not wait either
    expect(await within(g, 500)).toBe('still waiting');
    scope.append([['a@x.com', 'fake']]); // the other run's answer
    expect(await within(g, 1_000)).toBe('drained');
    expect(recs[0]!.state).toEqual({ kind: 'known', status: 'fake' });
    expect(plan.statusOf('a@x.com')).toBe('fake');
    expect(plan.counts.cached).toBe(1);
    expect(out).toMatchObject({ sent: ['b@x.com'], resolved: 1 });
    expect(said).toEqual(['idv: note: another idv run is validating some of these items against the same service; waiting for its answers instead of paying for them twice.']);
  });

  it('sent after all when the other run lets go without an answer, ends, or dies (its process gone)', async () => {
    const giver = await holder('a@x.com');
    const ender = await holder('b@x.com');
    const killed = await holder('c@x.com');
    const { g, out } = await gate();
    await g.push(records('a@x.com', 'b@x.com', 'c@x.com'));
    expect(out.sent).toEqual([]);
    giver.release([keyHex('a@x.com')]); // e.g. stopped by its quota: no answer
    await new Promise((r) => setTimeout(r, 500));
    expect(out.sent).toEqual(['a@x.com']);
    ender.close();
    await new Promise((r) => setTimeout(r, 500));
    expect(out.sent).toEqual(['a@x.com', 'b@x.com']);
    await writeFile(join(dir, `${scope.id}.${killed.run}.run`), markText({ ...selfMark()!, started: '1' })); // kill -9
    expect(await within(g, 1_000)).toBe('drained');
    expect(out.sent).toEqual(['a@x.com', 'b@x.com', 'c@x.com']);
  });

  it('an item the other run answered and let go before this run claimed it is taken from the cache, not sent', async () => {
    const { g, out } = await gate();
    const recs = records('a@x.com'); // planned while the other run had not answered it yet
    const other = await holder('a@x.com');
    scope.append([['a@x.com', 'ok']]);
    other.release([keyHex('a@x.com')]);
    await g.push(recs);
    expect(out.sent).toEqual([]);
    expect(recs[0]!.state).toEqual({ kind: 'known', status: 'ok' });
    expect(g.urgent).toBe(false);
  });

  it("what another run answered between this run's load of the cache and its start is known, not sent", async () => {
    const other = await holder('a@x.com');
    scope.append([['a@x.com', 'disposable']]);
    other.close(); // it ended: no claim of it remains
    const { g, out } = await gate();
    const recs = records('a@x.com');
    expect(recs[0]!.state).toEqual({ kind: 'known', status: 'disposable' });
    await g.push(recs);
    expect(out.sent).toEqual([]);
  });

  it('a record is held at most a set time: then it is sent, and one line says why', async () => {
    await holder('a@x.com'); // alive, and never answering
    const { g, out, said } = await gate(undefined, 300);
    await g.push(records('a@x.com'));
    expect(out.sent).toEqual([]);
    expect(await within(g, 1_000)).toBe('drained');
    expect(out.sent).toEqual(['a@x.com']);
    expect(said[1]).toBe('idv: note: the other idv run has not answered some items in 0s; sending them instead of waiting longer.');
  });

  it('a run that another run waits on sends its part-filled batches at once (it may be waiting for more input)', async () => {
    const { g, out } = await gate();
    await g.push(records('a@x.com', 'b@x.com'));
    expect(out.sent).toEqual(['a@x.com', 'b@x.com']);
    expect(g.urgent).toBe(false);
    const kicks = out.kicks;
    const waiter = await holder('b@x.com'); // claims b after this run: it waits for this run's answer
    await new Promise((r) => setTimeout(r, 400));
    expect(g.urgent).toBe(true);
    expect(out.kicks).toBeGreaterThan(kicks);
    expect(waiter.claim([keyHex('c@x.com')])).toEqual(['send']);
  });

  it('Ctrl-C ends the wait at once', async () => {
    await holder('a@x.com');
    const stop = new AbortController();
    const { g } = await gate(stop.signal);
    await g.push(records('a@x.com'));
    const waiting = g.drain();
    stop.abort('SIGINT');
    expect(await Promise.race([waiting.then(() => 'ended'), new Promise((r) => setTimeout(() => r('still waiting'), 100))])).toBe('ended');
  });

  it('claims its records as it hands them on, a group at a time as the dispatcher has room, and releases them once settled', async () => {
    const g = new ClaimGate(plan, new AbortController().signal, () => undefined);
    open.push(g);
    const out = { sent: [] as string[] };
    let rooms = 0;
    await g.open(scope, { send: (r) => out.sent.push(r.key), sendPartialBatches: () => undefined, whenQueueHasRoom: async () => void rooms++, answered: () => undefined });
    const recs = records(...Array.from({ length: 250 }, (_, i) => `u${i}@x.com`));
    await g.push(recs);
    expect(out.sent).toHaveLength(250);
    expect(rooms).toBe(3);
    recs[0]!.state = plan.knownAs('ok'); // the dispatcher's answer
    await new Promise((r) => setTimeout(r, 400));
    const lines = (await readFile(join(dir, `${scope.id}.claims`), 'latin1')).trim().split('\n');
    expect(lines).toHaveLength(251);
    expect(lines.at(-1)).toMatch(new RegExp(`^[0-9a-f]{12}\\t-${keyHex('u0@x.com')}$`));
  });

  it('without a cache (--no-cache, --sandbox) no claims are taken: every new record goes on', async () => {
    const g = new ClaimGate(plan, new AbortController().signal, () => undefined);
    const sent: string[] = [];
    await g.open(null, { send: (r) => sent.push(r.key), sendPartialBatches: () => undefined, whenQueueHasRoom: async () => undefined, answered: () => undefined });
    await g.push(records('a@x.com', 'b@x.com', 'a@x.com'));
    expect(sent).toEqual(['a@x.com', 'b@x.com']);
    g.close();
    expect((await readdir(dir)).filter((n) => !n.endsWith('.log'))).toEqual([]);
  });
});
