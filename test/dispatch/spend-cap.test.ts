// SpendCap (--max-spend): which items of a batch about to go may, as a table of steps; no timers, no state but its own.
import { describe, expect, it } from 'vitest';
import { SpendCap } from '../../src/dispatch/spend-cap.js';

const item = (name: string) => ({ name });
const A = item('a');
const B = item('b');
const C = item('c');
const D = item('d');
type Item = typeof A;
const names = (xs: Item[]) => xs.map((x) => x.name);

describe('SpendCap', () => {
  const rows: Array<[string, number | undefined, Item[][], Array<{ go: string[]; capped: string[] }>, number]> = [
    ['no cap: everything goes, nothing counted', undefined, [[A, B, C]], [{ go: ['a', 'b', 'c'], capped: [] }], 0],
    ['a cap of 2: the first two go, the third is kept back', 2, [[A, B, C]], [{ go: ['a', 'b'], capped: ['c'] }], 1],
    [
      'a batch split after a 413: its halves go again uncharged',
      2,
      [[A, B], [A], [B]],
      [{ go: ['a', 'b'], capped: [] }, { go: ['a'], capped: [] }, { go: ['b'], capped: [] }],
      0,
    ],
    [
      'a resend after --wait, with new items behind it: the resent go, the new ones only within the cap',
      3,
      [[A, B], [B, C, D]],
      [{ go: ['a', 'b'], capped: [] }, { go: ['b', 'c'], capped: ['d'] }],
      1,
    ],
    ['a cap of 0 keeps everything back', 0, [[A, B]], [{ go: [], capped: ['a', 'b'] }], 2],
  ];
  for (const [name, limit, batches, expected, capped] of rows) {
    it(name, () => {
      const cap = new SpendCap<Item>(limit);
      const got = batches.map((b) => cap.admit(b)).map(({ go, capped }) => ({ go: names(go), capped: names(capped) }));
      expect(got).toEqual(expected);
      expect(cap.capped).toBe(capped);
    });
  }

  it('reached once the cap is spent, never without one; refuse() counts an item kept back as it came', () => {
    const none = new SpendCap<Item>(undefined);
    none.admit([A, B, C, D]);
    expect(none.reached).toBe(false);
    const cap = new SpendCap<Item>(2);
    expect(cap.reached).toBe(false);
    cap.admit([A]);
    expect(cap.reached).toBe(false);
    cap.admit([B]);
    expect(cap.reached).toBe(true);
    cap.refuse();
    expect(cap.capped).toBe(1);
  });
});
