// A live input's records (standard input or a FIFO: a stream that may pause, or never end), with what dispatch
// needs to answer them as they come: a record waits at most PAUSE_MS for others to fill its batch. `go(true)`
// says part-filled batches go now: at once for a block that came after a pause of the input (or, first, after
// the layout waited for one), else PAUSE_MS after the block came, whether more came or not; `go(false)`, when
// a block comes, that batches may fill again. A file on disk is read without this (its batches fill as fast
// as it is read).
import { PAUSE_MS } from './content.js';

export async function* liveRecords<T>(blocks: AsyncIterable<T>, go: (now: boolean) => void, firstWaited: boolean, now = () => performance.now()): AsyncGenerator<T> {
  const it = blocks[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | null = null;
  const due = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    go(true);
  };
  let last: number | null = null; // when the last block came
  try {
    for (let next = await it.next(); !next.done; next = await it.next()) {
      const at = now();
      const afterPause = last === null ? firstWaited : at - last >= PAUSE_MS;
      last = at;
      go(false);
      yield next.value; // the consumer takes the block in (its records queued) before asking for the next
      if (afterPause) due();
      else timer ??= setTimeout(due, PAUSE_MS);
    }
  } finally {
    if (timer !== null) clearTimeout(timer);
    await it.return?.();
  }
}
