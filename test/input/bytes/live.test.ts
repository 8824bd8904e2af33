// When a live input's records may go in part-filled batches (src/input/bytes/live.ts): at once once the blocks that
// came after a pause are taken in, else 200 ms after a block came; never while blocks keep coming at once.
// On fake timers: the test says when each block comes, and the clock moves only when the test moves it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PAUSE_MS } from '../../../src/input/bytes/content.js';
import { liveRecords } from '../../../src/input/bytes/live.js';

beforeEach(() => void vi.useFakeTimers({ now: 0 }));
afterEach(() => void vi.useRealTimers());

/**
 * A live input the test feeds (`give` hands blocks over, all at once), read through liveRecords: what the
 * consumer took and what go() was told, in one log, each with the fake clock's time.
 */
function live(firstWaited: boolean) {
  const log: string[] = [];
  const ready: number[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  async function* blocks() {
    for (;;) {
      while (ready.length === 0 && !ended) await new Promise<void>((r) => (wake = r));
      if (ready.length === 0) return;
      yield ready.shift()!;
    }
  }
  const done = (async () => {
    const at = () => `@${Date.now()}`;
    for await (const block of liveRecords(blocks(), (now) => log.push(`go(${now}) ${at()}`), firstWaited, () => Date.now())) log.push(`took ${block} ${at()}`);
  })();
  /** The run of everything ready now (immediates included), as after the input's bytes came. */
  const settle = () => vi.advanceTimersByTimeAsync(0);
  return {
    log,
    async give(...bs: number[]) {
      ready.push(...bs);
      wake?.();
      await settle();
    },
    async end() {
      ended = true;
      wake?.();
      await settle();
      await done;
    },
  };
}

describe('live records', () => {
  it('blocks a pause apart: each goes at once, once taken in (no wait for a batch to fill)', async () => {
    const input = live(true);
    await input.give(0);
    await vi.advanceTimersByTimeAsync(300);
    await input.give(1);
    await vi.advanceTimersByTimeAsync(300);
    await input.give(2);
    await input.end();
    expect(input.log).toEqual(['go(false) @0', 'took 0 @0', 'go(true) @0', 'go(false) @300', 'took 1 @300', 'go(true) @300', 'go(false) @600', 'took 2 @600', 'go(true) @600']);
  });

  it(`blocks 50 ms apart: they go ${PAUSE_MS} ms after the first of them, not each at once, nor when they stop coming`, async () => {
    const input = live(false);
    for (const block of [0, 1, 2, 3]) {
      await input.give(block);
      if (block < 3) await vi.advanceTimersByTimeAsync(50);
    }
    await vi.advanceTimersByTimeAsync(PAUSE_MS - 150 - 1);
    expect(input.log.filter((l) => l.startsWith('go(true)'))).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(input.log.filter((l) => l.startsWith('go(true)'))).toEqual([`go(true) @${PAUSE_MS}`]);
    expect(input.log.filter((l) => l.startsWith('took'))).toEqual(['took 0 @0', 'took 1 @50', 'took 2 @100', 'took 3 @150']);
    await input.end();
  });

  it('a block that comes a pause after the last one goes at once, though the input did not start with a wait', async () => {
    const input = live(false);
    await input.give(0);
    await vi.advanceTimersByTimeAsync(2 * PAUSE_MS - 1); // the first block's batch went at 200 ms
    await input.give(1); // 399 ms after the first: after a pause
    await input.end();
    expect(input.log).toEqual([
      'go(false) @0',
      'took 0 @0',
      `go(true) @${PAUSE_MS}`,
      `go(false) @${2 * PAUSE_MS - 1}`,
      `took 1 @${2 * PAUSE_MS - 1}`,
      `go(true) @${2 * PAUSE_MS - 1}`,
    ]);
  });

  it('blocks that come together after a pause go together, once none is left', async () => {
    const input = live(true);
    await input.give(0, 1, 2);
    await input.end();
    expect(input.log).toEqual(['go(false) @0', 'took 0 @0', 'go(false) @0', 'took 1 @0', 'go(false) @0', 'took 2 @0', 'go(true) @0']);
  });

  it('a consumer that stops early, its batch timer started, leaves no timer', async () => {
    const told: boolean[] = [];
    async function* blocks() {
      yield 1;
      yield 2;
      yield 3;
    }
    for await (const block of liveRecords(blocks(), (now) => told.push(now), false)) if (block === 2) break;
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10 * PAUSE_MS);
    expect(told).toEqual([false, false]);
  });
});
