// Flag values: status names (a slip of a known status is refused with the status meant; another name
// passes, for the service may add statuses) and the edit distance behind it.
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from 'commander';
import { editDistance, mistypedStatus, statusList, ttlNames } from '../../src/commands/parsers.js';
import { parseCacheTtl } from '../../src/cache/ttl.js';
import { parseDuration } from '../../src/duration.js';
import { KNOWN_STATUSES } from '../../src/statuses.js';

describe('editDistance', () => {
  it.each([
    ['ok', 'ok', 0],
    ['okk', 'ok', 1],
    ['disposible', 'disposable', 1],
    ['alais', 'alias', 1], // two neighbours swapped: one edit
    ['quota_exceed', 'quota_exceeded', 2],
    ['no', 'ok', 2],
    ['', 'fake', 4],
    ['spamtrap', 'fake', 7],
  ])('%s → %s: %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });

  it('stops counting at the limit', () => {
    expect(editDistance('spamtrap', 'ok', 3)).toBe(3);
  });
});

describe('mistypedStatus', () => {
  it.each([
    ['okk', 'ok'],
    ['ko', 'ok'],
    ['disposible', 'disposable'],
    ['dispossable', 'disposable'],
    ['fakee', 'fake'],
    ['alais', 'alias'],
    ['quota_exceed', 'quota_exceeded'],
    ['invalide', 'invalid'],
    ['eror', 'error'],
  ])('%s is a slip of %s', (name, meant) => {
    expect(mistypedStatus(name)).toBe(meant);
  });

  it.each(['ok', 'disposable', 'quota_exceeded', 'spamtrap', 'catch_all', 'risky', 'no', 'x', 'unknown'])('%s is none', (name) => {
    expect(mistypedStatus(name)).toBeNull();
  });

  it('every single edit of a known status of 3 letters or more that is no status itself is refused', () => {
    const letters = 'abcdefghijklmnopqrstuvwxyz_';
    for (const status of KNOWN_STATUSES.filter((s) => s.length >= 3)) {
      const edits = new Set<string>();
      for (let i = 0; i <= status.length; i++) {
        for (const c of letters) {
          edits.add(status.slice(0, i) + c + status.slice(i)); // insert
          if (i < status.length) edits.add(status.slice(0, i) + c + status.slice(i + 1)); // change
        }
        if (i < status.length) edits.add(status.slice(0, i) + status.slice(i + 1)); // delete
        if (i + 1 < status.length) edits.add(status.slice(0, i) + status[i + 1] + status[i] + status.slice(i + 2)); // swap
      }
      for (const e of edits) if (!KNOWN_STATUSES.includes(e)) expect(mistypedStatus(e), `${status} → ${e}`).not.toBeNull();
    }
  });
});

describe('statusList (--only, --exclude)', () => {
  it('trims, lower-cases and drops empty names', () => {
    expect(statusList(' OK,, Alias ,spamtrap')).toEqual(['ok', 'alias', 'spamtrap']);
  });

  it('refuses a slip of a known status, naming it', () => {
    expect(() => statusList('ok,Disposible')).toThrow(new InvalidArgumentError('"disposible" is no status: did you mean "disposable"?'));
  });
});

describe('--cache-ttl names and durations', () => {
  it('refuses a slip of a known status', () => {
    expect(() => ttlNames(parseCacheTtl('ok=90d,fak=1d,7d'))).toThrow(new InvalidArgumentError('"fak" is no status: did you mean "fake"?'));
    expect(ttlNames(parseCacheTtl('risky=1d')).byStatus.get('risky')).toBe(86_400);
  });

  it.each([
    ['7', '--cache-ttl', '--cache-ttl "7" has no unit: write 7s, 7m, 7h or 7d (seconds, minutes, hours or days).'],
    ['90', '--max-wait', '--max-wait "90" has no unit: write 90s, 90m, 90h or 90d (seconds, minutes, hours or days).'],
    [' 1.5 ', '--max-wait', '--max-wait "1.5" has no unit: write 1.5s, 1.5m, 1.5h or 1.5d (seconds, minutes, hours or days).'],
  ])('a number without its unit (%s) is refused', (text, flag, message) => {
    expect(() => parseDuration(text, flag)).toThrow(message);
  });

  it('0 needs no unit; units add up', () => {
    expect(parseDuration('0', '--cache-ttl')).toBe(0);
    expect(parseDuration('1h30m', '--max-wait')).toBe(5400);
    expect(parseDuration('45s', '--max-wait')).toBe(45);
  });
});
