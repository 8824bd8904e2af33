// Flag values: status names (a slip of a known status is refused with the status meant; another name
// passes, for the service may add statuses) and the edit distance behind it.
import { describe, expect, it } from 'vitest';
import { cacheTtl, editDistance, mistypedStatus, statusList, STATUS_WORDS } from '../../src/commands/parsers.js';
import { parseCacheTtl } from '../../src/cache/ttl.js';
import { parseDuration } from '../../src/core/duration.js';
import { KNOWN_STATUSES } from '../../src/core/statuses.js';

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

  it.each(['ok', 'disposable', 'quota_exceeded', 'spamtrap', 'catch_all', 'risky', 'no', 'x', 'unknown', 'valid', 'nonfake', 'unalias', 'noerror'])('%s is none', (name) => {
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
  it('trims, lower-cases and drops empty names; new:NAME is NAME', () => {
    expect(statusList('--only')(' OK,, Alias ,new:Spamtrap')).toEqual(['ok', 'alias', 'spamtrap']);
  });

  it('refuses a slip of a known status, with the whole flag as it should be', () => {
    expect(() => statusList('--only')('ok,Disposible')).toThrow('--only "disposible" is no status; did you mean --only ok,disposable?');
  });

  it('answers a word people use with the statuses that mean it, never with one of the opposite meaning', () => {
    expect(() => statusList('--only')('valid')).toThrow('--only "valid" is no status; the statuses that mean it: --only ok,alias');
    expect(() => statusList('--exclude')('undeliverable')).toThrow('--exclude "undeliverable" is no status; the statuses that mean it: --exclude disposable,fake,invalid');
  });

  it('a slip of a word is answered as the word (valids → ok,alias), never with a status it only looks like (alias)', () => {
    expect(() => statusList('--only')('valids')).toThrow('--only "valids" is no status; did you mean "valid"? The statuses that mean it: --only ok,alias');
    expect(() => statusList('--exclude')('ok,risk')).toThrow('--exclude "risk" is no status; did you mean "risky"? The statuses that mean it: --exclude ok,disposable,fake');
    expect(() => statusList('--only', 'domains')('goods')).toThrow('--only "goods" is no status; did you mean "good"? The statuses that mean it: --only ok');
    // A status as close as a word wins: a slip of a status stays one.
    expect(() => statusList('--only')('fak')).toThrow('--only "fak" is no status; did you mean --only fake?');
  });

  it.each(['', ',', ' , ,'])('an empty list (%j: a variable left unset) is refused: it would write nothing after paying', (value) => {
    expect(() => statusList('--only')(value)).toThrow(`--only "${value}" names no status: give one or more (--only ok,alias), or leave --only out`);
    expect(() => statusList('--exclude', 'domains')(value)).toThrow(`--exclude "${value}" names no status: give one or more (--exclude ok,disposable), or leave --exclude out`);
  });

  it("answers a word with the statuses the command can give: domains are never alias", () => {
    expect(() => statusList('--only', 'domains')('valid')).toThrow('--only "valid" is no status; the statuses that mean it: --only ok');
    expect(() => statusList('--only', 'domains')('ok,plus')).toThrow('--only "plus" is no status, and what it means (alias) is never given here');
    expect(() => statusList('--only', 'emails')('ok,plus')).toThrow('--only "plus" is no status; the statuses that mean it: --only ok,alias');
  });

  it('no word of the table is a status, and each is answered with known statuses only', () => {
    for (const [word, statuses] of Object.entries(STATUS_WORDS)) {
      expect(KNOWN_STATUSES, word).not.toContain(word);
      for (const s of statuses) expect(KNOWN_STATUSES, word).toContain(s);
    }
  });

  it('the words of keeping are never answered with a status of removing, nor the other way round', () => {
    const keep = ['ok', 'alias'];
    for (const word of ['valid', 'good', 'deliverable', 'safe', 'clean']) expect(STATUS_WORDS[word]!.every((s) => keep.includes(s)), word).toBe(true);
    for (const word of ['bad', 'risky', 'undeliverable', 'temporary', 'junk']) expect(STATUS_WORDS[word]!.some((s) => keep.includes(s)), word).toBe(false);
  });
});

describe('--cache-ttl names and durations', () => {
  it('refuses a slip of a known status; a status marked new: passes', () => {
    expect(() => cacheTtl('ok=90d,fak=1d,7d')).toThrow('--cache-ttl "fak" is no status; did you mean fake?');
    expect(() => cacheTtl('risky=1d')).toThrow('--cache-ttl "risky" is no status; the statuses that mean it: disposable,fake');
    expect(cacheTtl('new:risky=1d').byStatus.get('risky')).toBe(86_400);
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

  it.each([
    ['250ms', 0.25],
    ['1.5h', 5400],
    ['2 hours', 7200],
    ['30 sec', 30],
    ['1w', 604800],
    ['1m 30s', 90],
    ['7D', 7 * 86400],
  ])('%s is %f seconds', (text, seconds) => {
    expect(parseDuration(text, '--max-wait')).toBe(seconds);
  });

  it('a number alone is seconds only where it has always been (--timeout, sandbox --window)', () => {
    expect(parseDuration('30', '--timeout', { bareSeconds: true })).toBe(30);
    expect(parseDuration('30s', '--timeout', { bareSeconds: true })).toBe(30);
    expect(() => parseDuration('30', '--max-wait')).toThrow('--max-wait "30" has no unit');
  });

  it.each([
    ['5 months', '--max-wait takes a duration like 90s, 30m, 2h or 7d, not "5 months".'],
    ['1h30', '--max-wait takes a duration like 90s, 30m, 2h or 7d, not "1h30".'],
    ['h', '--max-wait takes a duration like 90s, 30m, 2h or 7d, not "h".'],
  ])('%s is refused', (text, message) => {
    expect(() => parseDuration(text, '--max-wait')).toThrow(message);
  });

  it('bounds are said with their unit', () => {
    expect(() => parseDuration('0.5s', '--window', { min: 1 })).toThrow('--window "0.5s" is too short: give at least 1s.');
    expect(() => parseDuration('2d', '--timeout', { max: 86400 })).toThrow('--timeout "2d" is too long: give at most 24h.');
    expect(() => parseDuration('1500ms', '--window', { whole: true })).toThrow('--window "1500ms" is not a whole number of seconds.');
  });
});
