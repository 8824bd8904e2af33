// defaultSleep: the scheduler's one way to wait, cut short by a signal, on fake timers.
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultSleep } from '../../src/dispatch/sleep.js';

/** Whether `p` has settled, and how, once pending callbacks have run. */
async function settled(p: Promise<void>): Promise<'resolved' | 'pending' | { rejected: unknown }> {
  let state: 'resolved' | 'pending' | { rejected: unknown } = 'pending';
  p.then(
    () => (state = 'resolved'),
    (e: unknown) => (state = { rejected: e }),
  );
  await vi.advanceTimersByTimeAsync(0);
  return state;
}

describe('defaultSleep', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('a run already stopped does not sleep: it rejects at once with the signal’s reason', async () => {
    const ac = new AbortController();
    const reason = new Error('interrupted');
    ac.abort(reason);
    expect(await settled(defaultSleep(60_000, ac.signal))).toEqual({ rejected: reason });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a signal cuts a sleep short, and no timer is left to hold the process open', async () => {
    const ac = new AbortController();
    const reason = new Error('interrupted');
    const p = defaultSleep(60_000, ac.signal);
    expect(await settled(p)).toBe('pending');
    expect(vi.getTimerCount()).toBe(1);
    ac.abort(reason);
    expect(await settled(p)).toEqual({ rejected: reason });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a sleep that ran its course leaves no listener on the run’s signal (a long run sleeps thousands of times)', async () => {
    const ac = new AbortController();
    for (let i = 0; i < 3; i++) {
      const p = defaultSleep(1000, ac.signal);
      await vi.advanceTimersByTimeAsync(1000);
      expect(await settled(p)).toBe('resolved');
    }
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('a sleep longer than a timer can hold (24.8 days; a --wait of 30 days) lasts its whole length, not a millisecond', async () => {
    const ac = new AbortController();
    const days30 = 30 * 86_400_000;
    const p = defaultSleep(days30, ac.signal);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(p)).toBe('pending');
    await vi.advanceTimersByTimeAsync(2 ** 31 - 2);
    expect(await settled(p)).toBe('pending'); // the first step has run its course; the rest is still to sleep
    await vi.advanceTimersByTimeAsync(days30 - 2 ** 31);
    expect(await settled(p)).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(p)).toBe('resolved');
  });

  it('a sleep of exactly 2^31 ms (one past what a timer holds) is not cut to a millisecond', async () => {
    const ac = new AbortController();
    const p = defaultSleep(2 ** 31, ac.signal);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await settled(p)).toBe('pending');
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1000);
    expect(await settled(p)).toBe('resolved');
  });
});
