// When a live input's records may go in part-filled batches (src/input/live.ts): at once once the blocks that
// came after a pause are taken in, else 200 ms after a block came; never while blocks keep coming at once.
import { describe, expect, it } from 'vitest';
import { liveRecords } from '../../src/input/live.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Blocks given at these times (ms from the start); what go() was told, and when, relative to the start. */
async function timeline(at: number[], firstWaited = false) {
  const start = performance.now();
  async function* blocks() {
    for (let i = 0; i < at.length; i++) {
      const wait = at[i]! - (performance.now() - start);
      if (wait > 0) await sleep(wait);
      yield i;
    }
    await sleep(400); // the stream goes on (its end would send whatever is queued anyway)
  }
  const told: Array<[boolean, number]> = [];
  const taken: number[] = [];
  for await (const block of liveRecords(blocks(), (now) => told.push([now, performance.now() - start]), firstWaited)) taken.push(block);
  return { taken, go: told.filter(([now]) => now).map(([, ms]) => ms) };
}

describe('live records', () => {
  it('blocks a pause apart: each goes at once', async () => {
    const { taken, go } = await timeline([0, 300, 600], true);
    expect(taken).toEqual([0, 1, 2]);
    expect(go).toHaveLength(3);
    go.forEach((ms, i) => expect(ms - i * 300).toBeLessThan(60));
  });

  it('blocks 50 ms apart: they go 200 ms after the first of them, not each at once', async () => {
    const { go } = await timeline([0, 50, 100, 150]);
    expect(go.length).toBeGreaterThanOrEqual(1);
    expect(go[0]).toBeGreaterThan(180);
    expect(go[0]).toBeLessThan(300);
  });

  it('blocks that come together after a pause go together, once none is left', async () => {
    const { go } = await timeline([0, 0, 0], true);
    expect(go).toHaveLength(1);
    expect(go[0]).toBeLessThan(60);
  });

  it('a consumer that stops early leaves no timer', async () => {
    const told: boolean[] = [];
    async function* blocks() {
      yield 1;
      yield 2;
    }
    for await (const _ of liveRecords(blocks(), (now) => told.push(now), false)) break;
    await sleep(300);
    expect(told).toEqual([false]);
  });
});
