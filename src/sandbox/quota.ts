// The sandbox's quota: `quota` validations per window of `windowSec` seconds, windows back to back from the
// start. Pure arithmetic over a clock (ms), so that it is tested without waiting.
export class QuotaWindow {
  // Protected: a test's quota (test/sandbox/test-sandbox.ts) sets them by hand.
  protected start: number;
  protected left: number;

  /** quota 0: unlimited (then no rate-limit headers are sent). */
  constructor(
    readonly quota: number,
    readonly windowSec: number,
    protected readonly now: () => number,
  ) {
    this.start = now();
    this.left = quota;
  }

  get limited(): boolean {
    return this.quota > 0;
  }

  /** Validations left in the current window (a new window starts full). */
  remaining(): number {
    this.roll();
    return this.left;
  }

  /** Take one validation; false when none is left (the item is then quota_exceeded). */
  take(): boolean {
    if (!this.limited) return true;
    this.roll();
    if (this.left === 0) return false;
    this.left--;
    return true;
  }

  secondsToReset(): number {
    const now = this.roll();
    return Math.max(0, Math.ceil((this.start + this.windowSec * 1000 - now) / 1000));
  }

  /** `RateLimit-Policy` and `RateLimit` as the service sends them; none when unlimited. */
  headers(): Record<string, string> {
    if (!this.limited) return {};
    return {
      'RateLimit-Policy': `"validations";q=${this.quota};w=${this.windowSec}`,
      RateLimit: `"validations";r=${this.remaining()};t=${this.secondsToReset()}`,
    };
  }

  /** Move to the window the clock is in (a new window starts full); the clock's time. */
  protected roll(): number {
    const now = this.now();
    const windowMs = this.windowSec * 1000;
    if (now >= this.start + windowMs) {
      this.start += Math.floor((now - this.start) / windowMs) * windowMs;
      this.left = this.quota;
    }
    return now;
  }
}
