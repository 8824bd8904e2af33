// The gate between the plan and the dispatcher: what another run holds is not sent; it is answered from
// the cache when that run's answer lands, or sent after all when that run lets go without an answer (it
// ended, died or gave up); every wait ends, Ctrl-C included.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Claims, keyHex } from '../../src/coordination/claims.js';
import { openScope, type CacheScope } from '../../src/cache/store.js';
import { markText, selfMark } from '../../src/system/process-mark.js';
import { ClaimGate } from '../../src/coordination/claim-gate.js';
import { NEW, Plan } from '../../src/plan/plan.js';
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
  vi.restoreAllMocks();
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

/** A gate whose outlets record what they were asked (holding a record at most `maxHoldMs`, when given, by the clock `now`). */
async function gate(signal = new AbortController().signal, maxHoldMs?: number, now?: () => number) {
  const said: string[] = [];
  const g = new ClaimGate(plan, signal, (line) => said.push(line), maxHoldMs, now);
  open.push(g);
  const out = { sent: [] as string[], kicks: 0, resolved: 0, rooms: 0 };
  await g.open(scope, {
    send: (r) => out.sent.push(r.key),
    sendPartialBatches: () => out.kicks++,
    whenQueueHasRoom: async () => void out.rooms++,
    answered: () => void out.resolved++,
  });
  return { g, out, said };
}

const records = (...keys: string[]): PlannedRecord[] => keys.map((key) => ({ given: key, item: key, key, send: key, fields: null, state: plan.lookup(key) }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Until `done()` holds (looked at every 20 ms), at most `ms`: a loaded machine polls late. */
async function until(done: () => boolean, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !done() && Date.now() < end; ) await sleep(20);
}
/** As until(), for a condition that must be read from a file. */
async function untilAsync(done: () => Promise<boolean>, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !(await done()) && Date.now() < end; ) await sleep(20);
}
/** The intervals made from now on: how many, and how many of them keep the process alive (ref'd, not cleared). */
function intervals() {
  const made: NodeJS.Timeout[] = [];
  const cleared = new Set<unknown>();
  const { setInterval: set, clearInterval: clear } = globalThis;
  vi.spyOn(globalThis, 'setInterval').mockImplementation(((fn: () => void, ms?: number) => {
    const t = set(fn, ms);
    made.push(t);
    return t;
  }) as typeof setInterval);
  vi.spyOn(globalThis, 'clearInterval').mockImplementation((t) => {
    cleared.add(t);
    clear(t);
  });
  return { made, alive: () => made.filter((t) => t.hasRef() && !cleared.has(t)).length };
}
/** drain(), or 'still waiting' after `ms` (its timer cleared either way). */
async function within(g: ClaimGate, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((r) => (timer = setTimeout(() => r('still waiting'), ms)));
  const first = await Promise.race([g.drain().then(() => 'drained'), late]);
  clearTimeout(timer);
  return first;
}
/** drain() once a poll has seen what it waits for: only a run that never drains meets this deadline. */
const DRAINS = 20_000;
/** drain(), or 'still waiting' if it needs anything beyond this turn of the event loop (a poll, a file read). */
async function atOnce(g: ClaimGate): Promise<string> {
  return Promise.race([g.drain().then(() => 'drained'), new Promise<string>((r) => setImmediate(() => r('still waiting')))]);
}

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
    expect(await within(g, DRAINS)).toBe('drained');
    expect(plan.knownOf(recs[0]!.key)).toEqual({ kind: 'known', status: 'fake', source: 'cache' });
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
    await until(() => out.sent.length > 0);
    expect(out.sent).toEqual(['a@x.com']);
    ender.close();
    await until(() => out.sent.length > 1);
    expect(out.sent).toEqual(['a@x.com', 'b@x.com']);
    await writeFile(join(dir, `${scope.id}.${killed.run}.run`), markText({ ...selfMark()!, started: '1' })); // kill -9
    expect(await within(g, DRAINS)).toBe('drained');
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
    expect(plan.knownOf(recs[0]!.key)).toEqual({ kind: 'known', status: 'ok', source: 'cache' });
    expect(g.urgent).toBe(false);
  });

  it("what another run answered between this run's load of the cache and its start is known, not sent", async () => {
    const other = await holder('a@x.com');
    scope.append([['a@x.com', 'disposable']]);
    other.close(); // it ended: no claim of it remains
    const { g, out } = await gate();
    const recs = records('a@x.com');
    expect(recs[0]!.state).toEqual({ kind: 'known', status: 'disposable', source: 'cache' });
    await g.push(recs);
    expect(out.sent).toEqual([]);
  });

  it('a release read while the cache is being read again waits for the next read: the answer it stands for is not paid for twice', async () => {
    const other = await holder('a@x.com');
    const { g, out } = await gate();
    const recs = records('a@x.com');
    await g.push(recs);
    // The gate's next look reads the cache; that read began before the other run's answer landed, and finds nothing.
    let reading!: () => void;
    const slow = new Promise<void>((r) => (reading = r));
    const refresh = vi.spyOn(plan, 'refreshCache').mockImplementationOnce(() => slow);
    await until(() => refresh.mock.calls.length > 0);
    scope.append([['a@x.com', 'ok']]); // the answer, then the release (as the other run settles it)
    other.release([keyHex('a@x.com')]);
    await g.push(records('b@x.com')); // a claim meanwhile reads the release
    reading();
    expect(await within(g, DRAINS)).toBe('drained');
    expect(out.sent).toEqual(['b@x.com']);
    expect(plan.knownOf(recs[0]!.key)).toMatchObject({ kind: 'known', status: 'ok' });
  });

  it('a record is held at most a set time: then it is sent, and one line says why', async () => {
    await holder('a@x.com'); // alive, and never answering
    const { g, out, said } = await gate(undefined, 300);
    await g.push(records('a@x.com'));
    expect(out.sent).toEqual([]);
    expect(await within(g, DRAINS)).toBe('drained');
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
    await until(() => g.urgent);
    expect(g.urgent).toBe(true);
    expect(out.kicks).toBeGreaterThan(kicks);
    expect(waiter.claim([keyHex('c@x.com')])).toEqual(['look']); // nobody holds c; this run is about, so the cache first
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
    plan.settle(recs[0]!.key, 'ok'); // the dispatcher's answer (the engine settles the plan)
    const claimLines = async () => (await readFile(join(dir, `${scope.id}.claims`), 'latin1')).trim().split('\n');
    await untilAsync(async () => (await claimLines()).length > 250);
    const lines = await claimLines();
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

  it('a block without new records asks for no room and claims nothing; records go a hundred at a time, no empty group after', async () => {
    const { g, out } = await gate();
    const recs = records(...Array.from({ length: 200 }, (_, i) => `u${i}@x.com`));
    await g.push(recs);
    expect(out.rooms).toBe(2);
    await g.push(records('u0@x.com', 'u1@x.com')); // pending: not new
    await g.push([]);
    expect(out.rooms).toBe(2);
    expect(out.sent).toHaveLength(200);
    const lines = (await readFile(join(dir, `${scope.id}.claims`), 'latin1')).trim().split('\n');
    expect(lines).toHaveLength(200);
  });

  it('with nothing held: no note, no early batches, no cache read, no timer keeping the process alive, drain() at once', async () => {
    const refreshes = vi.spyOn(plan, 'refreshCache');
    const timers = intervals();
    const { g, out, said } = await gate();
    refreshes.mockClear(); // the one read when the gate joins the claims
    await g.push(records('a@x.com', 'b@x.com'));
    expect(timers.alive()).toBe(0);
    await sleep(450); // two polls
    expect(await atOnce(g)).toBe('drained');
    expect({ sent: out.sent, kicks: out.kicks, said, urgent: g.urgent }).toEqual({ sent: ['a@x.com', 'b@x.com'], kicks: 0, said: [], urgent: false });
    expect(refreshes).not.toHaveBeenCalled();
    expect(timers.alive()).toBe(0);
  });

  it('the cache is read again when a claim says another run had the item, not for a group no other run claimed', async () => {
    const refreshes = vi.spyOn(plan, 'refreshCache');
    const { g, out } = await gate();
    refreshes.mockClear();
    await g.push(records('a@x.com'));
    expect(refreshes).not.toHaveBeenCalled();
    const other = await holder('b@x.com');
    scope.append([['b@x.com', 'ok']]);
    other.release([keyHex('b@x.com')]);
    await g.push(records('b@x.com'));
    expect(refreshes).toHaveBeenCalledTimes(1);
    expect(out.sent).toEqual(['a@x.com']);
  });

  it('while a record is held the poll keeps the process alive; once it is answered, not; part-filled batches go at the start, on drain() and at the end only', async () => {
    await holder('a@x.com');
    const timers = intervals();
    const { g, out, said } = await gate();
    await g.push(records('c@x.com')); // nothing held: the poll starts, not keeping the process alive
    expect(timers.alive()).toBe(0);
    const recs = records('a@x.com', 'b@x.com');
    await g.push(recs);
    expect(timers.alive()).toBe(1);
    expect(out.kicks).toBe(1);
    await sleep(250); // a poll while held: nothing changes
    const drained = within(g, DRAINS);
    expect(out.kicks).toBe(2);
    scope.append([['a@x.com', 'fake']]);
    expect(await drained).toBe('drained');
    expect(out).toMatchObject({ sent: ['c@x.com', 'b@x.com'], kicks: 3, resolved: 1 });
    expect(timers.alive()).toBe(0);
    await sleep(450);
    expect(out.kicks).toBe(3);
    expect(timers.alive()).toBe(0);
    expect(timers.made).toHaveLength(2); // the claims' heartbeat and the gate's one poll
    expect(said).toHaveLength(1);
  });

  it('a held record the other run lets go is sent with the part-filled batches, and released for other runs once settled', async () => {
    const giver = await holder('a@x.com');
    const { g, out } = await gate();
    const recs = records('a@x.com');
    await g.push(recs);
    expect(out.kicks).toBe(1);
    giver.release([keyHex('a@x.com')]);
    await until(() => out.kicks >= 3);
    expect(out).toMatchObject({ sent: ['a@x.com'], kicks: 3 }); // held → sent (a kick), holding ended (a kick)
    const third = await holder();
    expect(third.claim([keyHex('a@x.com')])).toEqual(['wait']); // this run has it now
    plan.settle(recs[0]!.key, 'ok'); // the dispatcher's answer (the engine settles the plan)
    await until(() => (third.poll(), third.verdict(keyHex('a@x.com')) === 'look'));
    expect(third.verdict(keyHex('a@x.com'))).toBe('look');
  });

  it('an item taken from the cache is released at once for the other runs', async () => {
    const other = await holder('a@x.com');
    scope.append([['a@x.com', 'ok']]);
    other.release([keyHex('a@x.com')]);
    const { g, out } = await gate();
    const recs = [{ given: 'a@x.com', item: 'a@x.com', key: 'a@x.com', send: 'a@x.com', fields: null, state: NEW }]; // planned before the answer came
    await g.push(recs);
    expect(out.sent).toEqual([]);
    expect(plan.knownOf(recs[0]!.key)).toEqual({ kind: 'known', status: 'ok', source: 'cache' });
    const third = await holder();
    expect(third.claim([keyHex('a@x.com')])).toEqual(['look']);
  });

  it('held exactly the longest hold is overdue, a moment less is not; each note is said once however many records', async () => {
    await holder('a@x.com', 'b@x.com');
    let t = 1_000_000;
    const { g, out, said } = await gate(undefined, 1_000, () => t);
    await g.push(records('a@x.com'));
    await g.push(records('b@x.com'));
    t += 999;
    await sleep(450);
    expect(out.sent).toEqual([]);
    t += 1;
    expect(await within(g, DRAINS)).toBe('drained');
    expect(out.sent).toEqual(['a@x.com', 'b@x.com']);
    expect(said).toEqual([
      'idv: note: another idv run is validating some of these items against the same service; waiting for its answers instead of paying for them twice.',
      'idv: note: the other idv run has not answered some items in 1s; sending them instead of waiting longer.',
    ]);
  });

  it('a cache that cannot be read while records are held: they are sent (waiting could last for ever)', async () => {
    await holder('a@x.com');
    const { g, out } = await gate();
    vi.spyOn(plan, 'refreshCache').mockRejectedValue(new Error('EIO'));
    const recs = records('a@x.com');
    await g.push(recs);
    expect(await within(g, DRAINS)).toBe('drained');
    expect(out).toMatchObject({ sent: ['a@x.com'], kicks: 4 }); // held, drain(), sent, holding ended: a kick each
    plan.settle(recs[0]!.key, 'ok'); // the dispatcher's answer (the engine settles the plan): its claim is let go
    await untilAsync(async () => (await readFile(join(dir, `${scope.id}.claims`), 'latin1')).includes(`\t-${keyHex('a@x.com')}`));
    for (const o of open.splice(0, 1)) o.close(); // the holder ends
    const third = await holder();
    expect(third.claim([keyHex('a@x.com')])).toEqual(['look']);
  });

  it('closed while a cache read is under way: no poll starts again once it ends', async () => {
    await holder('a@x.com');
    const timers = intervals();
    const { g, out } = await gate(undefined, 0); // held no time: the read's end sends it, and holding ends
    let reading = false;
    vi.spyOn(plan, 'refreshCache').mockImplementation(async () => {
      reading = true;
      await sleep(300);
    });
    await g.push(records('a@x.com'));
    while (!reading) await sleep(20);
    g.close();
    await sleep(500);
    expect(out.sent).toEqual(['a@x.com']);
    expect(timers.made).toHaveLength(2); // the claims' heartbeat and the gate's one poll
    expect(timers.alive()).toBe(0);
  });

  it('a slow cache read is not begun again while it runs', async () => {
    await holder('a@x.com');
    const { g } = await gate();
    let running = 0;
    let most = 0;
    vi.spyOn(plan, 'refreshCache').mockImplementation(async () => {
      most = Math.max(most, ++running);
      await sleep(500);
      running--;
    });
    await g.push(records('a@x.com'));
    await sleep(1_300);
    expect(most).toBe(1);
  });

  it('stopped before any drain(): nothing throws, and drain() then ends at once though records are held', async () => {
    await holder('a@x.com');
    const stop = new AbortController();
    const { g, out } = await gate(stop.signal);
    await g.push(records('a@x.com'));
    const errors: unknown[] = [];
    const caught = (e: unknown) => errors.push(e);
    process.on('uncaughtException', caught);
    try {
      stop.abort('SIGTERM');
      await sleep(20);
    } finally {
      process.off('uncaughtException', caught);
    }
    expect(errors).toEqual([]);
    expect(await atOnce(g)).toBe('drained');
    expect(out.kicks).toBe(1); // drain() does not hurry batches of a stopped run
  });

  it('closed while records are held: no timer is left, and its claims go with it', async () => {
    await holder('a@x.com');
    const timers = intervals();
    const { g } = await gate();
    await g.push(records('b@x.com', 'a@x.com'));
    expect(timers.alive()).toBe(1);
    g.close();
    expect(timers.alive()).toBe(0);
    const third = await holder();
    expect(third.claim([keyHex('b@x.com')])).toEqual(['look']); // b was this run's: given up with it
  });
});
