// The circuit breaker as a table: requests that got no usable answer, answers between them, and when it trips.
import { describe, expect, it } from 'vitest';
import { Breaker, BREAKER_MS, hostError, tooLargeError } from '../../src/dispatch/breaker.js';

// A step: an answer at `at`, or a request sent at `sent` (its batch's first try at `batch`) that got none at `at`,
// the batch's last try or not, with whether the breaker must trip.
type Step = { answered: number } | { sent: number; batch: number; lastTry: boolean; at: number; trips: boolean; turnedAway?: boolean };

describe('Breaker', () => {
  const rows: Array<[string, Step[]]> = [
    ['one failure alone never trips, even a batch’s last try (--retries 0)', [{ sent: 0, batch: 0, lastTry: true, at: 10, trips: false }]],
    [
      'a batch that used all its tries with no answer in between: trips',
      [
        { sent: 0, batch: 0, lastTry: false, at: 1, trips: false },
        { sent: 500, batch: 0, lastTry: false, at: 501, trips: false },
        { sent: 1500, batch: 0, lastTry: true, at: 1501, trips: true },
      ],
    ],
    [
      'another batch answered while this one was failing: no trip, its items end error',
      [
        { sent: 0, batch: 0, lastTry: false, at: 1, trips: false },
        { answered: 300 },
        { sent: 500, batch: 0, lastTry: true, at: 501, trips: false },
      ],
    ],
    [
      'an answer in the very millisecond the failing batch was first sent counts as an answer while it failed: no trip',
      [
        { answered: 100 },
        { sent: 100, batch: 100, lastTry: false, at: 101, trips: false },
        { sent: 102, batch: 100, lastTry: true, at: 103, trips: false },
      ],
    ],
    [
      'an answer breaks the streak',
      [
        { sent: 0, batch: 0, lastTry: false, at: 1, trips: false },
        { answered: 2 },
        { sent: 3, batch: 3, lastTry: false, at: 4, trips: false },
      ],
    ],
    [
      'retries left, but no answer for 30 s: trips',
      [
        { sent: 0, batch: 0, lastTry: false, at: BREAKER_MS - 1000, trips: false },
        { sent: BREAKER_MS - 500, batch: 0, lastTry: false, at: BREAKER_MS, trips: true },
      ],
    ],
    [
      'two requests in flight that time out together after 30 s, once the host has answered: trips at the second',
      [
        { answered: 0 },
        { sent: 0, batch: 0, lastTry: false, at: BREAKER_MS, trips: false },
        { sent: 5, batch: 5, lastTry: false, at: BREAKER_MS + 5, trips: true },
      ],
    ],
    [
      'two batches turned away in a row (403, not retried): trips at the second',
      [
        { sent: 0, batch: 0, lastTry: true, at: 1, trips: false },
        { sent: 2, batch: 2, lastTry: true, at: 3, trips: true },
      ],
    ],
    [
      'a request unanswered for 30 s before the host answered anything: trips at once, retries left or not',
      [{ sent: 0, batch: 0, lastTry: false, at: BREAKER_MS, trips: true }],
    ],
    [
      'a request refused at once before any answer, retries left: no trip yet (the retry may get through)',
      [{ sent: 0, batch: 0, lastTry: false, at: 5, trips: false }],
    ],
    [
      'the first batch turned away (403, 404, a proxy refusing) before the host answered anything: trips at once',
      [{ sent: 0, batch: 0, lastTry: true, at: 1, trips: true, turnedAway: true }],
    ],
    [
      'turned away once the host has answered: the second in a row trips, not the first',
      [
        { answered: 0 },
        { sent: 1, batch: 1, lastTry: true, at: 2, trips: false, turnedAway: true },
        { sent: 3, batch: 3, lastTry: true, at: 4, trips: true, turnedAway: true },
      ],
    ],
  ];
  for (const [name, steps] of rows) {
    it(name, () => {
      const b = new Breaker();
      for (const s of steps) {
        if ('answered' in s) b.answered(s.answered);
        else expect(b.broken(s.sent, s.batch, s.lastTry, s.at, s.turnedAway)).toBe(s.trips);
      }
    });
  }
});

describe('Breaker, requests refused as too large (413)', () => {
  // A step: an answer, or a 413 to a batch of several (halved) or to a lone item (`alone`: after all its tries).
  type TooLarge = 'answer' | 'halved' | 'retried alone' | 'alone';
  const rows: Array<[string, TooLarge[], boolean[]]> = [
    ['one lone item refused: no trip (the item may be too large, not the service)', ['halved', 'halved', 'retried alone', 'alone'], [false, false, false, false]],
    ['a second lone item refused with no answer between: trips', ['halved', 'retried alone', 'alone', 'halved', 'retried alone', 'alone'], [false, false, false, false, false, true]],
    ['an answer between two lone items refused: no trip', ['alone', 'answer', 'alone'], [false, false, false]],
    ['halvings and retries, however many, never trip alone', ['halved', 'halved', 'halved', 'retried alone', 'retried alone', 'retried alone'], [false, false, false, false, false, false]],
  ];
  for (const [name, steps, trips] of rows) {
    it(name, () => {
      const b = new Breaker();
      expect(steps.map((s) => (s === 'answer' ? (b.answered(0), false) : b.tooLarge(s === 'alone')))).toEqual(trips);
    });
  }

  it('counts the 413s in a row, of any size; an answer starts again', () => {
    const b = new Breaker();
    for (const alone of [false, false, false, true]) b.tooLarge(alone);
    expect(b.tooLargeInRow).toBe(4);
    b.answered(0);
    expect(b.tooLargeInRow).toBe(0);
  });
});

describe('tooLargeError', () => {
  it('one line naming the host, what it refused and how often, exit 1', () => {
    expect(tooLargeError('127.0.0.1:9', 12, 413)).toMatchObject({
      kind: 'failed',
      message:
        'The service at 127.0.0.1:9 refused even single items as too large (HTTP 413), 12 requests in a row; check --base-url (and any proxy in front of the service), then run the same command again.',
    });
  });
});

describe('hostError', () => {
  it('one line naming the host and the cause, exit 1', () => {
    expect(hostError('127.0.0.1:9', 'network error (ECONNREFUSED)', 4, false)).toMatchObject({
      kind: 'failed',
      message:
        'The service at 127.0.0.1:9 gave no answer to 4 requests in a row: network error (ECONNREFUSED); check --base-url and the network, then run the same command again.',
    });
    expect(hostError('api.example.com', 'the proxy asks for credentials (HTTP 407); put them in the proxy URL', 2, true).message).toMatch(
      /: the proxy asks for credentials \(HTTP 407\); put them in the proxy URL; check the proxy \(HTTPS_PROXY\), then run/,
    );
    expect(hostError('api.example.com', 'the service answered HTTP 404: Not found', 2, true).message).toBe(
      'The service at api.example.com turned away 2 requests in a row: the service answered HTTP 404: Not found; check --base-url, then run the same command again.',
    );
  });
});
