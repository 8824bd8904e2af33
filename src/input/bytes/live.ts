// A live input's blocks (standard input or a FIFO: a stream that may pause, or never end): a record waits at most
// PAUSE_MS for others to fill its batch. `go(true)`: part-filled batches go now (once the blocks that came after
// a pause are taken in, else PAUSE_MS after a block came); `go(false)`, when a block comes: they may fill again.
import { PAUSE_MS } from './content.js';

/** Whether `p` has settled by the time the event loop has run what is ready (I/O included). */
function settledNow(p: Promise<unknown>): Promise<boolean> {
  return Promise.race([p.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
}

export async function* liveRecords<T>(blocks: AsyncIterable<T>, go: (now: boolean) => void, firstWaited: boolean, now = () => performance.now()): AsyncGenerator<T> {
  const it = blocks[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | null = null;
  const due = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    go(true);
  };
  let last: number | null = null; // when the last block came
  let burst = firstWaited; // the blocks being taken in came after a pause: they go once the input has no more ready
  try {
    for (;;) {
      const pending = it.next();
      if (burst && !(await settledNow(pending))) {
        burst = false;
        due();
      }
      const next = await pending;
      if (next.done) return;
      const at = now();
      if (last !== null && at - last >= PAUSE_MS) burst = true;
      last = at;
      go(false);
      yield next.value; // the consumer takes the block in (its records queued) before asking for the next
      if (!burst) timer ??= setTimeout(due, PAUSE_MS);
    }
  } finally {
    if (timer !== null) clearTimeout(timer);
    await it.return?.();
  }
}
