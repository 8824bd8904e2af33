// --max-spend: at most N items are sent in a run. An item is charged the first time it is sent; a retry, a
// half of a batch split after a 413, or a resend after --wait is the same item and is not charged again.

export class SpendCap<T extends object> {
  /** Items the cap left unsent (they end quota_exceeded). */
  capped = 0;
  private left: number;
  private readonly charged = new WeakSet<T>();

  /** `limit` undefined: no cap. */
  constructor(limit: number | undefined) {
    this.left = limit ?? Infinity;
  }

  /** Whether no new item may be sent any more. */
  get reached(): boolean {
    return this.left <= 0;
  }

  /** Of a batch about to go, the items that may (charging those sent for the first time), and those the cap keeps back. */
  admit(batch: T[]): { go: T[]; capped: T[] } {
    if (this.left === Infinity) return { go: batch, capped: [] };
    const go: T[] = [];
    const capped: T[] = [];
    for (const item of batch) {
      if (this.charged.has(item)) go.push(item);
      else if (this.left > 0) {
        this.left--;
        this.charged.add(item);
        go.push(item);
      } else capped.push(item);
    }
    this.capped += capped.length;
    return { go, capped };
  }

  /** An item that came once the cap was reached: it is kept back at once. */
  refuse(): void {
    this.capped++;
  }
}
