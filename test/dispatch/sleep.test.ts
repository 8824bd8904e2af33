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
});
