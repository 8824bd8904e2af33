// The queue under the dispatcher and the in-order window (src/core/fifo.ts): first in, first out, put back in
// front; and what has left is no longer held by it (a record of megabytes must not stay until a trim).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Fifo } from '../../src/core/fifo.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('Fifo', () => {
  it('gives items in order, one or several at a time, and takes some back in front', () => {
    const q = new Fifo<number>();
    for (let i = 0; i < 10; i++) q.push(i);
    expect([q.shift(), q.take(3), q.peek(), q.length]).toEqual([0, [1, 2, 3], 4, 6]);
    q.unshift([2, 3]);
    expect(q.take(100)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expect([q.shift(), q.length]).toEqual([undefined, 0]);
  });

  /** Items pushed, and weak references to them (made in a function of their own: no variable of the test holds one). */
  function filled(q: Fifo<object>, n: number): Array<WeakRef<object>> {
    const refs: Array<WeakRef<object>> = [];
    for (let i = 0; i < n; i++) {
      const item = { row: 'x'.repeat(1000) + i };
      refs.push(new WeakRef(item));
      q.push(item);
    }
    return refs;
  }

  it('holds no item that has left, shifted or taken', async () => {
    const q = new Fifo<object>();
    const refs = filled(q, 4);
    q.push({ kept: true });
    q.shift();
    q.take(3);
    await new Promise((resolve) => setImmediate(resolve)); // weak references hold for the job that made them
    gc();
    expect(refs.map((r) => r.deref() === undefined)).toEqual([true, true, true, true]);
    expect(q.length).toBe(1);
  });
});
