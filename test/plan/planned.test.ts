// planRecords: each record read becomes a planned record in input order (checked, keyed, looked up in the plan),
// block for block; the counts a dry run prints follow every record, invalid ones included.
import { describe, expect, it } from 'vitest';
import { checkDomain, checkEmail } from '../../src/input/items/check.js';
import type { InputRecord } from '../../src/input/records/record.js';
import { NEW, PENDING, Plan } from '../../src/plan/plan.js';
import { planRecords, type PlannedRecord } from '../../src/plan/planned.js';

async function* blocksOf(blocks: InputRecord[][]): AsyncGenerator<InputRecord[]> {
  for (const b of blocks) yield b;
}

async function planAll(blocks: InputRecord[][], check = checkEmail, plan = new Plan()): Promise<PlannedRecord[][]> {
  const out: PlannedRecord[][] = [];
  for await (const b of planRecords(blocksOf(blocks), check, plan)) out.push(b);
  return out;
}

const rec = (value: string, fields: string[] | null = null): InputRecord => ({ value, fields });

describe('planRecords', () => {
  it('keeps the blocks and their order; each record checked, keyed and looked up: new once, then pending or known', async () => {
    const plan = new Plan();
    plan.settle('known@x.com', 'ok');
    const invalid = plan.knownAs('invalid', 'check');
    const blocks = await planAll(
      [
        [rec(' Jo@Example.COM ', [' Jo@Example.COM ', 'Jo']), rec('  not an address  ', ['  not an address  ', 'N']), rec('jo@example.com', ['jo@example.com', 'J'])],
        [],
        [rec('Jo@example.com'), rec('known@x.com'), rec('')],
      ],
      checkEmail,
      plan,
    );
    expect(blocks).toEqual([
      [
        { given: ' Jo@Example.COM ', item: 'Jo@Example.COM', key: 'Jo@example.com', send: 'Jo@Example.COM', fields: [' Jo@Example.COM ', 'Jo'], state: NEW },
        { given: '  not an address  ', item: 'not an address', key: '', send: '', fields: ['  not an address  ', 'N'], state: invalid },
        { given: 'jo@example.com', item: 'jo@example.com', key: 'jo@example.com', send: 'jo@example.com', fields: ['jo@example.com', 'J'], state: NEW },
      ],
      [],
      [
        { given: 'Jo@example.com', item: 'Jo@example.com', key: 'Jo@example.com', send: 'Jo@example.com', fields: null, state: PENDING },
        { given: 'known@x.com', item: 'known@x.com', key: 'known@x.com', send: 'known@x.com', fields: null, state: plan.knownAs('ok') },
        { given: '', item: '', key: '', send: '', fields: null, state: invalid },
      ],
    ]);
    expect(blocks[0]![1]!.state).toBe(invalid);
    expect(plan.counts).toEqual({ records: 6, unique: 2, invalid: 2, cached: 0 }); // known@x.com was settled, never looked up
  });

  it('a block comes out as long as it went in, every slot filled (no holes, nothing beyond)', async () => {
    const values = Array.from({ length: 50 }, (_, i) => (i % 7 === 3 ? `bad ${i}` : `u${i % 20}@x.com`));
    const [block] = await planAll([values.map((v) => rec(v))]);
    expect(block).toHaveLength(50);
    expect(Object.keys(block!)).toHaveLength(50);
    expect(block!.map((r) => r.item)).toEqual(values);
  });

  it('uses the checker it is given: domains keyed by their canonical host', async () => {
    const plan = new Plan();
    const [block] = await planAll([[rec('https://BÜCHER.de/shop'), rec('bücher.de.'), rec('x@y')]], checkDomain, plan);
    expect(block).toEqual([
      { given: 'https://BÜCHER.de/shop', item: 'BÜCHER.de', key: 'xn--bcher-kva.de', send: 'xn--bcher-kva.de', fields: null, state: NEW },
      { given: 'bücher.de.', item: 'bücher.de.', key: 'xn--bcher-kva.de', send: 'xn--bcher-kva.de', fields: null, state: PENDING },
      { given: 'x@y', item: 'x@y', key: '', send: '', fields: null, state: plan.knownAs('invalid', 'check') },
    ]);
    expect(plan.counts).toEqual({ records: 3, unique: 1, invalid: 1, cached: 0 });
  });
});
