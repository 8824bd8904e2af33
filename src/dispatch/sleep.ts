// The scheduler's one way to wait (back-off, Retry-After, --wait): a sleep that a signal cuts short.

/** Node fires a timer set beyond 2^31-1 ms (24.8 days) at once; longer sleeps go in steps below it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Sleep `ms`; rejects with the signal's reason as soon as it is aborted. */
export function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let left = Math.max(0, ms);
    let t: NodeJS.Timeout;
    const step = () => {
      const now = Math.min(left, MAX_TIMER_MS);
      left -= now;
      t = setTimeout(() => {
        if (left > 0) return step();
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, now);
    };
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    step();
  });
}
