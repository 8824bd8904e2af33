// The run's stop signal (src/system/stop.ts): a Stopper's signal behaves as an AbortController's does for everything
// idv asks of it (aborted, reason, abort listeners), without Node's EventTarget.
import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { Stopper, type StopSignal } from '../../src/system/stop.js';

describe('Stopper', () => {
  it('calls each abort listener once, with aborted and the reason already set; a second abort changes nothing', () => {
    const stopper = new Stopper();
    const seen: Array<[boolean, unknown]> = [];
    const listener = () => seen.push([stopper.signal.aborted, stopper.signal.reason]);
    stopper.signal.addEventListener('abort', listener, { once: true });
    stopper.signal.addEventListener('abort', listener); // the same listener twice is one listener
    expect(stopper.signal.aborted).toBe(false);
    stopper.abort('SIGTERM');
    stopper.abort('SIGINT');
    expect(seen).toEqual([[true, 'SIGTERM']]);
    expect(stopper.signal.reason).toBe('SIGTERM');
  });

  it('without a reason, aborts with an AbortError as AbortController does', () => {
    const stopper = new Stopper();
    stopper.abort();
    expect(stopper.signal.reason).toBeInstanceOf(DOMException);
    expect((stopper.signal.reason as DOMException).name).toBe('AbortError');
  });

  it('does not call a listener removed before the abort, nor one removed by a listener called before it, nor one added after', () => {
    const stopper = new Stopper();
    const calls: string[] = [];
    const removed = () => calls.push('removed');
    const second = () => calls.push('second');
    stopper.signal.addEventListener('abort', () => {
      calls.push('first');
      stopper.signal.removeEventListener('abort', second);
    });
    stopper.signal.addEventListener('abort', second);
    stopper.signal.addEventListener('abort', removed);
    stopper.signal.removeEventListener('abort', removed);
    stopper.abort('x');
    stopper.signal.addEventListener('abort', () => calls.push('late'));
    expect(calls).toEqual(['first']);
  });

  it('a listener that throws: the others are still called, and the error is thrown as uncaught', () => {
    const queued: Array<() => void> = [];
    const spy = vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((f) => void queued.push(f));
    try {
      const stopper = new Stopper();
      const calls: string[] = [];
      stopper.signal.addEventListener('abort', () => {
        throw new Error('listener failed');
      });
      stopper.signal.addEventListener('abort', () => calls.push('after'));
      stopper.abort('x');
      expect(calls).toEqual(['after']);
      expect(queued).toHaveLength(1);
      expect(() => queued[0]!()).toThrow('listener failed');
    } finally {
      spy.mockRestore();
    }
  });

  it('calls the same listeners as an AbortController would, whatever is added and removed before the abort (property)', () => {
    type Op = { add: number } | { remove: number };
    const op = fc.oneof(fc.record({ add: fc.nat(4) }), fc.record({ remove: fc.nat(4) })) as fc.Arbitrary<Op>;
    fc.assert(
      fc.property(fc.array(op, { maxLength: 20 }), fc.array(op, { maxLength: 5 }), (before, after) => {
        const run = (signal: StopSignal, abort: () => void) => {
          const calls: number[] = [];
          const listeners = [0, 1, 2, 3, 4].map((n) => () => calls.push(n));
          const apply = (o: Op) =>
            'add' in o ? signal.addEventListener('abort', listeners[o.add]!) : signal.removeEventListener('abort', listeners[o.remove]!);
          before.forEach(apply);
          abort();
          after.forEach(apply);
          abort();
          return calls;
        };
        const stopper = new Stopper();
        const controller = new AbortController();
        expect(run(stopper.signal, () => stopper.abort('r'))).toEqual(run(controller.signal, () => controller.abort('r')));
      }),
      { seed: 20261125, numRuns: 300 },
    );
  });
});
