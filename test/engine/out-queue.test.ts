// The engine's hand-off to its taker (src/engine/out-queue.ts): blocks in order, those not taken yet as one; the
// engine told to read on only once the taker has caught up; the end or a failure after what was queued; a taker
// that stops asking told to the engine, which its return() waits for; iterated once.
import { describe, expect, it } from 'vitest';
import { OutQueue } from '../../src/engine/out-queue.js';

function queue() {
  const events: string[] = [];
  let goneDone: () => void = () => undefined;
  const q = new OutQueue<number>({
    first: () => void events.push('first'),
    gone: () => {
      events.push('gone');
      return new Promise<void>((r) => (goneDone = r));
    },
  });
  return { q, events, finishGone: () => goneDone() };
}
/** Whether `p` has settled once the microtasks queued now have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  for (let i = 0; i < 10; i++) await undefined;
  return done;
}

describe('OutQueue', () => {
  it('the blocks in order; those not taken yet come as one block; the end after them', async () => {
    const { q, events } = queue();
    const it = q[Symbol.asyncIterator]();
    q.push([1, 2]);
    q.push([3]);
    q.push([]); // nothing: no block
    const first = await it.next();
    expect(events).toEqual(['first']); // the engine starts when the first block is asked for
    expect(first).toEqual({ value: [1, 2, 3], done: false });
    const waiting = it.next();
    q.push([4]);
    expect(await waiting).toEqual({ value: [4], done: false });
    q.push([5]);
    q.end();
    q.push([6]); // after the end: dropped
    expect(await it.next()).toEqual({ value: [5], done: false });
    expect(await it.next()).toEqual({ value: undefined, done: true });
  });

  it('the engine reads on only once the taker has caught up: every block taken and the next one asked for', async () => {
    const { q } = queue();
    const it = q[Symbol.asyncIterator]();
    q.push([1]);
    const caughtUp = q.caughtUp();
    expect(await settled(caughtUp)).toBe(false); // [1] not taken yet
    await it.next();
    expect(await settled(caughtUp)).toBe(false); // taken, but the next not asked for: the taker is busy with it
    void it.next();
    expect(await settled(caughtUp)).toBe(true);
    expect(await settled(q.caughtUp())).toBe(true); // already caught up: at once
  });

  it('a failure: thrown once the blocks queued are taken, once; an iterator waiting is failed at once', async () => {
    const { q } = queue();
    const it = q[Symbol.asyncIterator]();
    q.push([1]);
    q.fail(new Error('the key was refused'));
    expect(await it.next()).toEqual({ value: [1], done: false });
    await expect(it.next()).rejects.toThrow('the key was refused');
    expect(await it.next()).toEqual({ value: undefined, done: true });
    const other = queue();
    const waiting = other.q[Symbol.asyncIterator]().next();
    other.q.fail(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
  });

  it('a taker that stops (break): the engine is told, what was queued dropped, more pushes ignored; return() waits for the engine', async () => {
    const { q, events, finishGone } = queue();
    const it = q[Symbol.asyncIterator]();
    q.push([1]);
    await it.next();
    q.push([2]);
    const caughtUp = q.caughtUp();
    const leaving = it.return!();
    expect(events).toEqual(['first', 'gone']);
    expect(await settled(caughtUp)).toBe(true); // the engine is not held up by a taker that left
    expect(await settled(leaving)).toBe(false); // until the engine has stopped
    finishGone();
    expect(await leaving).toEqual({ value: undefined, done: true });
    q.push([3]);
    expect(await settled(q.caughtUp())).toBe(true);
  });

  it('iterated once: a second iteration is refused, saying why', () => {
    const { q } = queue();
    q[Symbol.asyncIterator]();
    expect(() => q[Symbol.asyncIterator]()).toThrow('these results are being read already: they can be iterated once');
  });
});
