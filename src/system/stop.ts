// How a run is told to stop (a signal heard, the output gone, a fatal answer): what idv's code asks of an
// AbortSignal (aborted, reason, abort listeners), made without Node's AbortController and EventTarget, which a
// short run would otherwise compile at every start. A real AbortSignal is a StopSignal too (tests pass one);
// only a library that wants a real one (undici) is given one of its own.

export interface StopSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

class Signal implements StopSignal {
  aborted = false;
  reason: unknown = undefined;
  private readonly listeners = new Set<() => void>();

  // Every listener is called once at most (the abort comes once): `once` changes nothing. One added after the
  // abort is never called, as with an AbortSignal.
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners.delete(listener);
  }

  fire(reason: unknown): void {
    this.aborted = true;
    this.reason = reason;
    for (const listener of [...this.listeners]) {
      if (!this.listeners.delete(listener)) continue; // removed by a listener called before it
      try {
        listener();
      } catch (err) {
        queueMicrotask(() => {
          throw err; // as an EventTarget does: the others are still called, and the error is uncaught
        });
      }
    }
  }
}

export class Stopper {
  readonly signal: StopSignal = new Signal();

  /** Stop, for `reason` (an AbortError, as AbortController's, when none is given); only the first call counts. */
  abort(reason?: unknown): void {
    if (this.signal.aborted) return;
    (this.signal as Signal).fire(reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason);
  }
}
