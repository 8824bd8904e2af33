// A cache scope: what it keeps per base URL and endpoint, what a load reads back (fresh, expired, damaged,
// torn), how it heals, and two processes appending at once.
import { describe, expect, it, vi } from 'vitest';
import { appendFile, readFile, rm } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { CachedResults } from '../../src/cache/results.js';
import { KeyHash } from '../../src/core/key-hash.js';
import { appender, folderPerTest, known, logWith, scopeIn, SMALL, T } from './helpers.js';
import { onlyOn } from '../platforms.js';

const dir = folderPerTest();
const LARGE = { rebuildBytes: 1 << 20 }; // the log read whole: no snapshot

describe('cache scope', () => {
  it('keeps what was appended, not quota_exceeded or error, per base URL and endpoint', async () => {
    const a = scopeIn(dir(), { ttl: 3600, now: Date.now });
    (await a.load()).results.close();
    a.append([
      ['a@x.com', 'ok'],
      ['b@x.com', 'quota_exceeded'],
      ['c@x.com', 'error'],
      ['d@x.com', 'risky'],
    ]);
    const keys = ['a@x.com', 'b@x.com', 'c@x.com', 'd@x.com'];
    const same = await known(dir(), keys, { base: 'https://api.x/', ttl: 3600, now: Date.now, tuning: LARGE });
    expect(same.out).toEqual(['ok', 'new', 'new', 'risky']);
    expect(same.report.loaded).toBe(2);
    expect((await known(dir(), keys, { endpoint: '/domains/validate', now: Date.now })).out).toEqual(['new', 'new', 'new', 'new']);
    expect((await known(dir(), keys, { base: 'http://127.0.0.1:9', now: Date.now })).out).toEqual(['new', 'new', 'new', 'new']);
    expect(await readFile(a.path, 'utf8')).toMatch(/^# idv cache v1 https:\/\/api.x \/emails\/validate\n/);
  });

  it('drops expired entries', async () => {
    let now = 1_000_000_000_000;
    const s = scopeIn(dir(), { ttl: 60, now: () => now, tuning: LARGE });
    (await s.load()).results.close();
    s.append([['a@x.com', 'ok']]);
    now += 61_000;
    const r = await known(dir(), ['a@x.com'], { ttl: 60, now: () => now, tuning: LARGE });
    expect(r.out).toEqual(['new']);
    expect(r.report.expired).toBe(1);
  });

  it('detects a torn last line and garbage, rebuilds, and later appends stay readable', async () => {
    const o = { ttl: 3600, now: Date.now, tuning: LARGE };
    const s = scopeIn(dir(), o);
    (await s.load()).results.close();
    s.append([['a@x.com', 'ok']]);
    await appendFile(s.path, 'garbage line\n1700000000\tok');
    const first = await known(dir(), ['a@x.com'], o);
    expect(first.out).toEqual(['ok']);
    expect(first.report).toMatchObject({ loaded: 1, damaged: 2, rebuilt: true });
    const again = scopeIn(dir(), o);
    (await again.load()).results.close();
    again.append([['b@x.com', 'fake']]);
    const last = await known(dir(), ['a@x.com', 'b@x.com', 'c@x.com'], o);
    expect(last.out).toEqual(['ok', 'fake', 'new']);
    expect(last.report).toMatchObject({ loaded: 2, damaged: 0 });
    expect(await readFile(s.path, 'utf8')).toMatch(/^# idv cache v1 https:\/\/api.x \/emails\/validate\n/);
  });

  it('reads lines in place: odd but well-formed lines load, malformed ones count as damaged, statuses are shared', async () => {
    const o = { ttl: 3600, tuning: LARGE };
    const good = ['1799999990\tok\ta@x.com', '1799999991\tok\tb@x.com', '1799999992\tnew_status-2\tc@x.com', '1799999993\tok\ta@x.com'];
    const bad = ['17999x9990\tok\td@x.com', '\tok\te@x.com', '1799999990\tok\t', '1799999990\to k\tf@x.com', '1799999990 ok g@x.com', '12345678901234\tok\th@x.com'];
    await logWith(dir(), [...good, ...bad]);
    const reserve = vi.spyOn(CachedResults.prototype, 'reserve');
    const r = await known(dir(), ['a@x.com', 'b@x.com', 'c@x.com', 'd@x.com', 'e@x.com', 'f@x.com', 'g@x.com', 'h@x.com'], o);
    expect(r.out).toEqual(['ok', 'ok', 'new_status-2', 'new', 'new', 'new', 'new', 'new']);
    // 12345678901234 has too many digits for a time: damaged, not a time in the far future.
    expect(r.report).toMatchObject({ loaded: 4, damaged: 6, expired: 0 });
    expect(reserve).toHaveBeenCalledTimes(1);
    const estimate = reserve.mock.calls[0]![0];
    reserve.mockRestore();
    expect(estimate).toBeGreaterThanOrEqual(10); // ten lines, estimated from the first block
    expect(estimate).toBeLessThan(20);
  });

  it('a CRLF line loads its key without the CR; a time of 14 digits is damaged, dropped by the rebuild, and stays gone', async () => {
    const o = { ttl: 3600, tuning: LARGE };
    const path = await logWith(dir(), []);
    await appendFile(path, '1799999990\tok\tcrlf@x.com\r\n00001799999990\tok\tlong@x.com\n');
    const first = await known(dir(), ['crlf@x.com', 'long@x.com'], o);
    expect(first.out).toEqual(['ok', 'new']);
    expect(first.report).toMatchObject({ loaded: 1, damaged: 1, rebuilt: true });
    const second = await known(dir(), ['crlf@x.com', 'long@x.com'], o);
    expect(second.out).toEqual(['ok', 'new']);
    expect(second.report).toMatchObject({ loaded: 1, damaged: 0, rebuilt: false }); // no rebuild on every run
    expect(await readFile(path, 'utf8')).not.toContain('long@x.com');
  });

  it('a torn last line is dropped and healed; damaged lines are dropped by a rebuild of the log', async () => {
    const path = await logWith(dir(), [`${T - 100}\tok\ta@x.com`, 'garbage here', `${T - 100}\tok\tb@x.com`]);
    await appendFile(path, `${T - 100}\tok\tc@x.c`); // torn: no line end
    const r = await known(dir(), ['a@x.com', 'b@x.com', 'c@x.c', 'c@x.com']);
    expect(r.out).toEqual(['ok', 'ok', 'new', 'new']);
    expect(r.report).toMatchObject({ damaged: 2, rebuilt: true });
    scopeIn(dir()).append([['d@x.com', 'ok']]);
    const again = await known(dir(), ['a@x.com', 'd@x.com']);
    expect(again.out).toEqual(['ok', 'ok']);
    expect(again.report.damaged).toBe(0);
  });

  it('refresh() reads what another run appended since the load; a line no longer fresh hides the older answer', async () => {
    const path = await logWith(dir(), [`${T - 100}\tok\ta@x.com`, `${T - 100}\tok\tb@x.com`]);
    const s = scopeIn(dir(), { tuning: LARGE });
    const { results } = await s.load();
    await appendFile(path, `${T - 10}\tfake\tc@x.com\n${T - 90_000}\tok\tb@x.com\n${T - 10}\tok\td@x.c`); // the last one still being written
    await s.refresh(results);
    const h = (k: string) => new KeyHash().ofString(k);
    expect(['a@x.com', 'b@x.com', 'c@x.com', 'd@x.c'].map((k) => results.find(h(k))?.status ?? null)).toEqual(['ok', null, 'fake', null]);
    await appendFile(path, 'om\n');
    await s.refresh(results);
    expect(results.find(h('d@x.com'))?.status).toBe('ok');
    results.close();
  });
});

describe('cache scope, odd files', () => {
  onlyOn('fifo').it('a FIFO in place of the snapshot or the log never blocks a load', async () => {
    const path = await logWith(dir(), [`${T - 10}\tok\ta@x.com`]);
    execFileSync('mkfifo', [`${path}.idx`]);
    expect((await known(dir(), ['a@x.com'])).out).toEqual(['ok']); // the snapshot is not believed, nor waited on
    await rm(`${path}.idx`);
    await rm(path);
    execFileSync('mkfifo', [path]);
    await expect(scopeIn(dir()).load()).rejects.toThrow(/is not a file/);
  });
});

describe('cache scope, several processes', () => {
  it('two writers at once: every line of both loads, none damaged', async () => {
    const path = await logWith(dir(), []);
    const codes = await Promise.all([appender(path, 'a', 3000), appender(path, 'b', 3000)]);
    expect(codes).toEqual([0, 0]);
    const keys = [...Array.from({ length: 3000 }, (_, i) => `a${i}@x.com`), ...Array.from({ length: 3000 }, (_, i) => `b${i}@x.com`)];
    const r = await known(dir(), keys, { tuning: SMALL, now: Date.now });
    expect(r.report.damaged).toBe(0);
    expect(r.out.every((s) => s === 'ok')).toBe(true);
  });
});
