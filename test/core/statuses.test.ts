// Statuses (src/core/statuses.ts): idv's own two and the service's, which ones the cache keeps, what a status may look
// like (anything else from the service is an error, never written), and the --split files of each command.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ERROR, foldStatus, INVALID, isCacheable, isPlainStatus, KNOWN_STATUSES, QUOTA_EXCEEDED, STATUS_COLOUR, STATUSES_OF } from '../../src/core/statuses.js';

describe('statuses', () => {
  it("the contract's statuses: the service's five and idv's invalid and error", () => {
    expect([...KNOWN_STATUSES].sort()).toEqual(['alias', 'disposable', 'error', 'fake', 'invalid', 'ok', 'quota_exceeded']);
    expect([INVALID, ERROR, QUOTA_EXCEEDED]).toEqual(['invalid', 'error', 'quota_exceeded']);
  });

  it('the cache keeps what the service decided (a new status too), never quota_exceeded, error or invalid', () => {
    expect(['ok', 'alias', 'disposable', 'fake', 'risky'].filter(isCacheable)).toEqual(['ok', 'alias', 'disposable', 'fake', 'risky']);
    expect(['quota_exceeded', 'error', 'invalid'].filter(isCacheable)).toEqual([]);
  });

  it('a status is a plain word of letters, digits, _ and -, at most 40 characters', () => {
    expect(['ok', 'quota_exceeded', 'Risky-2', 'x'.repeat(40)].every(isPlainStatus)).toBe(true);
    expect(['', 'x'.repeat(41), 'o k', 'ok\n', 'ok;rm', 'okay!', 'ünicode', '\u001b[31mok'].some(isPlainStatus)).toBe(false);
  });

  it('domains has no alias among its --split files; emails has every status', () => {
    expect(STATUSES_OF.emails).toEqual(KNOWN_STATUSES);
    expect(STATUSES_OF.domains).toEqual(KNOWN_STATUSES.filter((s) => s !== 'alias'));
  });

  it('every known status has a colour of its own', () => {
    expect(Object.keys(STATUS_COLOUR).sort()).toEqual([...KNOWN_STATUSES].sort());
    expect(new Set(Object.values(STATUS_COLOUR)).size).toBe(KNOWN_STATUSES.length);
  });
});

describe('foldStatus', () => {
  const casings = (word: string) => fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }).map((upper) => [...word].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
  it('any casing of a known status folds to it', () => {
    fc.assert(
      fc.property(fc.constantFrom(...KNOWN_STATUSES).chain((known) => fc.tuple(fc.constant(known), casings(known))), ([known, cased]) => {
        expect(foldStatus(cased)).toBe(known);
      }),
      { seed: 20261128, numRuns: 1000 },
    );
  });
  it('a plain word that is no known status in any case passes through as it came', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/), (word) => {
        fc.pre(!KNOWN_STATUSES.includes(word.toLowerCase()));
        expect(foldStatus(word)).toBe(word);
      }),
      { seed: 20261128, numRuns: 1000 },
    );
  });
});
