// The in-order window: records leave in input order once their status is known (from their planning, or from
// the plan once answered), each with where its status came from, counted by status; what a stopped run leaves
// is the known records, in order. The records themselves are left as planned.
import { describe, expect, it } from 'vitest';
import { InOrder } from '../../src/engine/in-order.js';
import { NEW, Plan } from '../../src/plan/plan.js';
import type { PlannedRecord } from '../../src/plan/planned.js';

/** A planned record as planRecords() makes one: its state from the plan. */
const planned = (plan: Plan, item: string): PlannedRecord => ({ given: ` ${item} `, item, key: item, send: item, fields: null, state: plan.lookup(item) });
const invalid = (plan: Plan, item: string): PlannedRecord => ({ given: item, item, key: '', send: '', fields: null, state: plan.knownAs('invalid', 'check') });
const view = (rs: ReturnType<InOrder['take']>) => rs.map((r) => `${r.item}=${r.status}/${r.source}`);

describe('InOrder', () => {
  it('records leave in input order as soon as those before them are known, each with its status and source', () => {
    const plan = new Plan();
    const w = new InOrder(plan);
    const [a, b, c] = [planned(plan, 'a@x.com'), planned(plan, 'b@x.com'), invalid(plan, 'c')];
    w.add([a, b, c]);
    expect(w.take()).toEqual([]);
    plan.settle('b@x.com', 'ok');
    expect(w.take()).toEqual([]); // a is still unknown
    plan.settle('a@x.com', 'fake');
    expect(view(w.take())).toEqual(['a@x.com=fake/service', 'b@x.com=ok/service', 'c=invalid/check']);
    expect(w.passed).toBe(3);
    expect(w.length).toBe(0);
    expect(Object.fromEntries(w.counts)).toEqual({ fake: 1, ok: 1, invalid: 1 });
    expect([a.state, b.state]).toEqual([NEW, NEW]); // as planned: the plan, not the record, learnt the answers
  });

  it('a result carries the item as given, as read and as sent, and its row', () => {
    const plan = new Plan();
    const w = new InOrder(plan);
    const r: PlannedRecord = { given: ' Ann <ann@X.com>', item: 'ann@X.com', key: 'ann@x.com', send: 'ann@X.com', fields: ['Ann <ann@X.com>', '1'], state: plan.knownAs('ok', 'cache') };
    w.add([r]);
    expect(w.take()).toEqual([{ given: ' Ann <ann@X.com>', item: 'ann@X.com', send: 'ann@X.com', fields: ['Ann <ann@X.com>', '1'], status: 'ok', source: 'cache' }]);
  });

  it('a duplicate waiting on an item sent for another record learns its status from the plan', () => {
    const plan = new Plan();
    const w = new InOrder(plan);
    const first = planned(plan, 'a@x.com');
    const dup = planned(plan, 'a@x.com');
    expect(dup.state.kind).toBe('pending');
    w.add([first, dup]);
    plan.settle('a@x.com', 'ok');
    expect(view(w.take())).toEqual(['a@x.com=ok/service', 'a@x.com=ok/service']);
  });

  it('counts the text it holds, items and cells, as records come in and as they leave (known or passed over)', () => {
    const plan = new Plan();
    const w = new InOrder(plan);
    const wide: PlannedRecord = { ...planned(plan, 'a@x.com'), fields: ['a@x.com', 'x'.repeat(1000)] };
    const b = planned(plan, 'b@x.com');
    w.add([wide, b]);
    expect(w.chars).toBe(9 + 7 + 1000 + 9);
    plan.settle('a@x.com', 'ok');
    w.take();
    expect(w.chars).toBe(9);
    w.takeKnown(); // b never answered: passed over
    expect([w.chars, w.length]).toEqual([0, 0]);
  });

  it('answers from the cache (another run filled it) are marked so', () => {
    const plan = new Plan();
    const w = new InOrder(plan);
    const a = planned(plan, 'a@x.com');
    w.add([a]);
    plan.settle('a@x.com', 'alias', 'cache');
    expect(view(w.take())).toEqual(['a@x.com=alias/cache']);
  });

  it('a record whose status the plan learnt after the last answer still leaves when asked', () => {
    const plan = new Plan();
    const w = new InOrder(plan);
    const [a, b] = [invalid(plan, 'a'), planned(plan, 'b@x.com')];
    const dup = planned(plan, 'b@x.com');
    w.add([a, dup]);
    expect(view(w.take())).toEqual(['a=invalid/check']);
    plan.settle(b.key, 'ok');
    expect(view(w.take())).toEqual(['b@x.com=ok/service']);
  });

  it('what a stopped run leaves: the records whose status is known, in order, passing over those never answered', () => {
    const plan = new Plan();
    const w = new InOrder(plan);
    const rs = ['a@x.com', 'b@x.com', 'c@x.com', 'd@x.com'].map((i) => planned(plan, i));
    w.add([rs[0]!, rs[1]!, invalid(plan, 'x'), rs[2]!, rs[3]!]);
    plan.settle('b@x.com', 'ok');
    plan.settle('d@x.com', 'fake');
    expect(view(w.takeKnown())).toEqual(['b@x.com=ok/service', 'x=invalid/check', 'd@x.com=fake/service']);
    expect(w.length).toBe(0);
  });
});
