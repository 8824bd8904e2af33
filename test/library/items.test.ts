// A program's items as the engine reads them (src/library/items.ts): anything but an iterable of strings refused
// before anything runs; an iterable in blocks of 2,000; an async iterable in blocks of what has come (a stream in
// is a stream out), its return() called when the reader stops.
import { describe, expect, it } from 'vitest';
import { checkItems, itemBlocks } from '../../src/library/items.js';

const sizes = async (items: Parameters<typeof itemBlocks>[0]) => {
  const out: number[] = [];
  for await (const block of itemBlocks(items)) out.push(block.length);
  return out;
};

describe('checkItems', () => {
  it('an array, a Set, a generator, an async generator: taken', () => {
    for (const items of [[], new Set(['a']), (function* () {})(), (async function* () {})()]) expect(() => checkItems(items, 'validateEmails')).not.toThrow();
  });

  it('one string, or anything not iterable: a usage error naming the function and what it takes', () => {
    expect(() => checkItems('ann@example.com', 'validateEmails')).toThrow(expect.objectContaining({ kind: 'usage', message: 'validateEmails() takes a list of items, not one string: give [item].' }));
    for (const items of [null, undefined, 42, { length: 1 }]) {
      expect(() => checkItems(items, 'validateDomains')).toThrow(
        expect.objectContaining({ kind: 'usage', message: 'validateDomains() takes an iterable or async iterable of strings (an array, a Set, a generator, a stream of lines).' }),
      );
    }
  });
});

describe('itemBlocks', () => {
  it('an iterable: blocks of 2,000 items, each item a record of its own', async () => {
    expect(await sizes(Array.from({ length: 4500 }, (_, i) => `u${i}@x.com`))).toEqual([2000, 2000, 500]);
    expect(await sizes(new Set(['a', 'b']))).toEqual([2]);
    expect(await sizes([])).toEqual([]);
    const [block] = await (async () => {
      const out = [];
      for await (const b of itemBlocks(['Ann <ann@x.com>'])) out.push(b);
      return out;
    })();
    expect(block).toEqual([{ value: 'Ann <ann@x.com>', fields: null }]);
  });

  it('an async iterable: what has come goes as a block, without waiting for what is still to come', async () => {
    let release: () => void = () => undefined;
    const later = new Promise<void>((r) => (release = r));
    async function* stream() {
      yield 'a@x.com';
      yield 'b@x.com'; // at hand: same block
      await later; // the next one is not there yet
      yield 'c@x.com';
    }
    const blocks: string[][] = [];
    const reading = (async () => {
      for await (const b of itemBlocks(stream())) {
        blocks.push(b.map((r) => r.value));
        if (blocks.length === 1) release(); // the second comes only once the first block is out
      }
    })();
    await reading;
    expect(blocks).toEqual([['a@x.com', 'b@x.com'], ['c@x.com']]);
  });

  it('an item that is no string: a usage error saying what it got', async () => {
    await expect(sizes(['a@x.com', 42 as unknown as string])).rejects.toMatchObject({ kind: 'usage', message: 'Items are strings; got number.' });
    await expect(sizes([null as unknown as string])).rejects.toMatchObject({ message: 'Items are strings; got null.' });
  });

  it('a reader that stops early ends the async iterable (its return() is called: a stream is let go)', async () => {
    let ended = false;
    async function* stream() {
      try {
        for (let i = 0; ; i++) yield `u${i}@x.com`;
      } finally {
        ended = true;
      }
    }
    for await (const _ of itemBlocks(stream())) break;
    expect(ended).toBe(true);
  });
});
