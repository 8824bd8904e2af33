// A program's items as the engine reads records: in blocks, a block being what is at hand. An iterable (an array,
// a Set, a generator) gives blocks of BLOCK items at once; an async iterable (a stream of lines, a queue) gives
// what has come by the time its next item is not there yet, so that a stream in is a stream out.
import { usageError } from '../core/errors.js';
import type { InputRecord } from '../input/records/record.js';
import type { Items } from './types.js';

/** Items per block: as many as a 64 KiB block of a list holds, about. */
const BLOCK = 2000;

/** Refuse what is no iterable of items (a string is one: of its characters), before anything runs. */
export function checkItems(items: unknown, fn: string): asserts items is Items {
  const it = items as { [Symbol.iterator]?: unknown; [Symbol.asyncIterator]?: unknown } | null;
  if (typeof items === 'string') throw usageError(`${fn}() takes a list of items, not one string: give [item].`);
  if (it === null || typeof it !== 'object' || (typeof it[Symbol.iterator] !== 'function' && typeof it[Symbol.asyncIterator] !== 'function')) {
    throw usageError(`${fn}() takes an iterable or async iterable of strings (an array, a Set, a generator, a stream of lines).`);
  }
}

export async function* itemBlocks(items: Items): AsyncGenerator<InputRecord[]> {
  if (Symbol.asyncIterator in items) yield* asyncBlocks(items[Symbol.asyncIterator]());
  else yield* syncBlocks(items[Symbol.iterator]());
}

function record(item: unknown): InputRecord {
  if (typeof item !== 'string') throw usageError(`Items are strings; got ${item === null ? 'null' : typeof item}.`);
  return { value: item, fields: null };
}

function* syncBlocks(it: Iterator<string>): Generator<InputRecord[]> {
  let block: InputRecord[] = [];
  for (let next = it.next(); !next.done; next = it.next()) {
    block.push(record(next.value));
    if (block.length === BLOCK) {
      yield block;
      block = [];
    }
  }
  if (block.length) yield block;
}

async function* asyncBlocks(it: AsyncIterator<string>): AsyncGenerator<InputRecord[]> {
  let block: InputRecord[] = [];
  let pending = it.next();
  try {
    for (;;) {
      const next = await pending;
      if (next.done) break;
      block.push(record(next.value));
      pending = it.next();
      if (block.length === BLOCK || !(await settledSoon(pending))) {
        yield block;
        block = [];
      }
    }
    if (block.length) yield block;
  } finally {
    await it.return?.();
  }
}

/** Whether `p` settles within a few turns of the microtask queue: an item at hand, not one still to come. */
async function settledSoon(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let turn = 0; turn < 4 && !settled; turn++) await undefined;
  return settled;
}
