// QuotaGate: what the quota allows and what happens once it is used up, as tables over a given clock.
import { describe, expect, it } from 'vitest';
import { MAX_EMPTY_WINDOWS, QuotaGate, WAIT_CEILING_MS, type QuotaGateOptions, type WhenUsedUp } from '../../src/dispatch/quota-gate.js';

describe('QuotaGate.allowance', () => {
  it('unknown until the service says; then what it says less the items in flight, never below 0', () => {
    const g = new QuotaGate({ wait: false });
    expect(g.allowance(0)).toBe(Infinity);
    g.note({ remaining: 5 }, 0);
    expect([g.allowance(0), g.allowance(3), g.allowance(9)]).toEqual([5, 2, 0]);
    g.note({ reset: 60 }, 1000); // no r: the count stands
    expect(g.allowance(0)).toBe(5);
    expect(g.resetAt).toBe(61_000);
    g.note({ retryAfter: 30 }, 2000);
    expect(g.resetAt).toBe(32_000);
  });
  it('nothing while waiting or stopped', () => {
    const g = new QuotaGate({ wait: true });
    g.note({ remaining: 0, reset: 10 }, 0);
    expect(g.usedUp(0)).toEqual({ waitMs: 11_000 });
    expect(g.allowance(0)).toBe(0);
    g.waited(11_000, true);
    expect(g.allowance(0)).toBe(Infinity); // a new window: unknown again until the service says
  });
  it('an answer still in flight that reports quota left does not reopen a stopped or waiting run', () => {
    const stopped = new QuotaGate({ wait: false });
    expect(stopped.usedUp(0)).toEqual({ stop: 'quota' });
    stopped.note({ remaining: 50 }, 10);
    expect(stopped.allowance(0)).toBe(0);
    const waiting = new QuotaGate({ wait: true });
    waiting.note({ reset: 10 }, 0);
    expect(waiting.usedUp(0)).toEqual({ waitMs: 11_000 });
    waiting.note({ remaining: 50 }, 10);
    expect(waiting.allowance(0)).toBe(0);
  });
});

// Each row: options, then steps; a step is a rate note, some validations, a use-up (with what it must answer)
// or the end of a wait.
type Step =
  | { note: { remaining?: number; reset?: number }; at: number }
  | { validated: number }
  | { usedUp: number; expect: WhenUsedUp | null }
  | { waited: number; slept?: boolean };

describe('QuotaGate.usedUp', () => {
  const rows: Array<[string, QuotaGateOptions, Step[]]> = [
    ['without --wait: stop', { wait: false }, [{ note: { remaining: 0, reset: 60 }, at: 0 }, { usedUp: 0, expect: { stop: 'quota' } }]],
    ['--wait, reset unknown: stop', { wait: true }, [{ usedUp: 0, expect: { stop: 'no-reset' } }]],
    ['--wait: until the reset and a second more', { wait: true }, [{ note: { reset: 60 }, at: 0 }, { usedUp: 20_000, expect: { waitMs: 41_000 } }]],
    ['already waiting: nothing more', { wait: true }, [{ note: { reset: 60 }, at: 0 }, { usedUp: 0, expect: { waitMs: 61_000 } }, { usedUp: 1, expect: null }]],
    ['already stopped: nothing more', { wait: false }, [{ usedUp: 0, expect: { stop: 'quota' } }, { usedUp: 1, expect: null }]],
    ['--max-wait shorter than the reset: stop', { wait: true, maxWaitMs: 30_000 }, [{ note: { reset: 60 }, at: 0 }, { usedUp: 0, expect: { stop: 'max-wait' } }]],
    [
      '--max-wait bounds the total: 61 s waited, 60 s more would pass 100 s',
      { wait: true, maxWaitMs: 100_000 },
      [
        { note: { reset: 60 }, at: 0 },
        { usedUp: 0, expect: { waitMs: 61_000 } },
        { waited: 61_000 },
        { validated: 2 },
        { note: { reset: 59 }, at: 61_000 },
        { usedUp: 61_000, expect: { stop: 'max-wait' } },
      ],
    ],
    [
      `--wait gives up after ${MAX_EMPTY_WINDOWS} resets in a row that validated nothing`,
      { wait: true },
      [
        { note: { reset: 0 }, at: 0 },
        { usedUp: 0, expect: { waitMs: 1000 } },
        { waited: 1000 },
        { note: { reset: 0 }, at: 1000 },
        { usedUp: 1000, expect: { waitMs: 1000 } },
        { waited: 1000 },
        { note: { reset: 0 }, at: 2000 },
        { usedUp: 2000, expect: { waitMs: 1000 } },
        { waited: 1000 },
        { note: { reset: 0 }, at: 3000 },
        { usedUp: 3000, expect: { stop: 'empty-windows' } },
      ],
    ],
    [
      'a reset that validated something starts the count again',
      { wait: true },
      [
        { note: { reset: 0 }, at: 0 },
        { usedUp: 0, expect: { waitMs: 1000 } },
        { waited: 1000 },
        { note: { reset: 0 }, at: 1000 },
        { usedUp: 1000, expect: { waitMs: 1000 } },
        { waited: 1000 },
        { validated: 1 },
        { note: { reset: 0 }, at: 2000 },
        { usedUp: 2000, expect: { waitMs: 1000 } },
        { waited: 1000 },
        { note: { reset: 0 }, at: 3000 },
        { usedUp: 3000, expect: { waitMs: 1000 } },
      ],
    ],
    [
      'a wait cut short (a signal) keeps the reset it was waiting for',
      { wait: true },
      [{ note: { reset: 60 }, at: 0 }, { usedUp: 0, expect: { waitMs: 61_000 } }, { waited: 5000, slept: false }, { usedUp: 5000, expect: { waitMs: 56_000 } }],
    ],
    [
      'without --max-wait, the ceiling: 32 days of waiting in all',
      { wait: true },
      [
        { note: { reset: 20 * 86_400 }, at: 0 },
        { usedUp: 0, expect: { waitMs: 20 * 86_400_000 + 1000 } },
        { waited: 20 * 86_400_000 + 1000 },
        { validated: 5 },
        { note: { reset: 20 * 86_400 }, at: 20 * 86_400_000 },
        { usedUp: 20 * 86_400_000, expect: { stop: 'max-wait' } },
      ],
    ],
  ];
  for (const [name, options, steps] of rows) {
    it(name, () => {
      const g = new QuotaGate(options);
      for (const step of steps) {
        if ('note' in step) g.note(step.note, step.at);
        else if ('validated' in step) g.validated(step.validated);
        else if ('usedUp' in step) expect(g.usedUp(step.usedUp)).toEqual(step.expect);
        else g.waited(step.waited, step.slept ?? true);
      }
    });
  }

  it('the ceiling is 32 days', () => {
    expect(WAIT_CEILING_MS).toBe(32 * 86_400_000);
  });
});
