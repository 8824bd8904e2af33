// The engine's hand-off to whoever takes its results: blocks wait here, in order (those not taken yet as one),
// until asked for through one async iterator. The engine reads on only once the taker has caught up
// (caughtUp()), so that results never pile up faster than they are taken.

interface Waiting<T> {
  resolve(r: IteratorResult<T[]>): void;
  reject(err: unknown): void;
}

export class OutQueue<T> {
  private readonly blocks: T[][] = [];
  private waiting: Waiting<T> | null = null;
  private ended = false;
  private failure: { err: unknown } | null = null;
  private gone = false;
  private iterated = false;
  private catchUp: (() => void) | null = null;

  /**
   * `first`: the taker asked for the first block (the engine starts then); `gone`: the taker stopped asking before
   * the end (return(), as a `break` out of `for await` calls it), and waits until the promise it gives settles.
   */
  constructor(private readonly on: { first(): void; gone(): Promise<void> }) {}

  push(block: T[]): void {
    if (block.length === 0 || this.ended || this.gone) return;
    const w = this.waiting;
    if (w) {
      this.waiting = null;
      w.resolve({ value: block, done: false });
      return;
    }
    // Blocks not taken yet are one: a taker busy with the last one gets the rest at once, not a record at a time.
    const last = this.blocks[this.blocks.length - 1];
    if (last === undefined) this.blocks.push(block);
    else for (const item of block) last.push(item);
  }

  /** No more blocks: the iterator ends once those queued are taken. */
  end(): void {
    this.close(null);
  }

  /** The run failed: the iterator throws `err` once the blocks queued are taken. */
  fail(err: unknown): void {
    this.close({ err });
  }

  /** Until every block pushed has been taken and the taker asks for more (or has gone, or the queue was closed). */
  caughtUp(): Promise<void> {
    if (this.isCaughtUp()) return Promise.resolve();
    return new Promise((resolve) => (this.catchUp = resolve));
  }

  [Symbol.asyncIterator](): AsyncIterator<T[]> {
    if (this.iterated) throw new TypeError('these results are being read already: they can be iterated once');
    this.iterated = true;
    let started = false;
    return {
      next: () => {
        if (!started) {
          started = true;
          this.on.first();
        }
        return this.next();
      },
      return: async () => {
        if (!this.ended) {
          this.gone = true;
          this.blocks.length = 0;
          this.wakeCatchUp();
          await this.on.gone();
        }
        return { value: undefined, done: true };
      },
    };
  }

  private next(): Promise<IteratorResult<T[]>> {
    const block = this.blocks.shift();
    if (block !== undefined) return Promise.resolve({ value: block, done: false });
    if (this.failure) {
      const { err } = this.failure;
      this.failure = null; // thrown once; the iterator is done after it
      return Promise.reject(err);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    const p = new Promise<IteratorResult<T[]>>((resolve, reject) => (this.waiting = { resolve, reject }));
    this.wakeCatchUp();
    return p;
  }

  private close(failure: { err: unknown } | null): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = failure;
    const w = this.waiting;
    this.waiting = null;
    if (w) {
      if (failure) {
        this.failure = null;
        w.reject(failure.err);
      } else w.resolve({ value: undefined, done: true });
    }
    this.wakeCatchUp();
  }

  private isCaughtUp(): boolean {
    return this.gone || this.ended || (this.blocks.length === 0 && this.waiting !== null);
  }

  private wakeCatchUp(): void {
    if (!this.catchUp || !this.isCaughtUp()) return;
    const wake = this.catchUp;
    this.catchUp = null;
    wake();
  }
}
