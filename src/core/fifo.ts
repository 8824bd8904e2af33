// A first-in, first-out queue: an array read from a moving head, trimmed now and then (Array.shift() would
// copy the whole array each time). The dispatcher's queue of items and the output window are both one. A slot
// is emptied as its item leaves: what has left is never held (a record of megabytes, until the next trim).
const TRIM_AT = 4096;

export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The first item, left in place. */
  peek(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined as T;
    this.trim();
    return item;
  }

  /** The first n items (fewer if there are fewer), taken out. */
  take(n: number): T[] {
    const out = this.items.slice(this.head, this.head + n);
    for (let i = 0; i < out.length; i++) this.items[this.head + i] = undefined as T;
    this.head += out.length;
    this.trim();
    return out;
  }

  /** Put items back at the front, in their order. */
  unshift(items: readonly T[]): void {
    if (this.head >= items.length) {
      this.head -= items.length;
      for (let i = 0; i < items.length; i++) this.items[this.head + i] = items[i]!;
    } else this.items.splice(this.head, 0, ...items);
  }

  private trim(): void {
    if (this.head > TRIM_AT && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
  }
}
