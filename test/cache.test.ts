import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheStats, clearCache, openScope } from '../src/cache/store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-cache-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(scope: ReturnType<typeof openScope>) {
  const m = new Map<string, string>();
  const report = await scope.load({ expect: () => undefined, add: (bytes, start, end, s) => m.set(Buffer.from(bytes.subarray(start, end)).toString('utf8'), s) });
  return { m, report };
}

describe('cache store', () => {
  it('keeps what was appended, not quota_exceeded or error, per base URL and endpoint', async () => {
    const a = openScope(dir, 'https://api.x', '/emails/validate', 3600);
    await load(a);
    a.append([
      ['a@x.com', 'ok'],
      ['b@x.com', 'quota_exceeded'],
      ['c@x.com', 'error'],
      ['d@x.com', 'risky'],
    ]);
    expect((await load(openScope(dir, 'https://api.x/', '/emails/validate', 3600))).m).toEqual(
      new Map([
        ['a@x.com', 'ok'],
        ['d@x.com', 'risky'],
      ]),
    );
    expect((await load(openScope(dir, 'https://api.x', '/domains/validate', 3600))).m.size).toBe(0);
    expect((await load(openScope(dir, 'http://127.0.0.1:9', '/emails/validate', 3600))).m.size).toBe(0);
  });

  it('drops expired entries', async () => {
    let now = 1_000_000_000_000;
    const s = openScope(dir, 'https://api.x', '/emails/validate', 60, () => now);
    await load(s);
    s.append([['a@x.com', 'ok']]);
    now += 61_000;
    const { m, report } = await load(openScope(dir, 'https://api.x', '/emails/validate', 60, () => now));
    expect(m.size).toBe(0);
    expect(report.expired).toBe(1);
  });

  it('detects a torn last line and garbage, rebuilds, and later appends stay readable', async () => {
    const s = openScope(dir, 'https://api.x', '/emails/validate', 3600);
    await load(s);
    s.append([['a@x.com', 'ok']]);
    await appendFile(s.path, 'garbage line\n1700000000\tok');
    const first = await load(openScope(dir, 'https://api.x', '/emails/validate', 3600));
    expect(first.report).toMatchObject({ loaded: 1, damaged: 2, rebuilt: true });
    const again = openScope(dir, 'https://api.x', '/emails/validate', 3600);
    await load(again);
    again.append([['b@x.com', 'fake']]);
    const last = await load(openScope(dir, 'https://api.x', '/emails/validate', 3600));
    expect(last.m).toEqual(new Map([['a@x.com', 'ok'], ['b@x.com', 'fake']]));
    expect(last.report.damaged).toBe(0);
    expect(await readFile(s.path, 'utf8')).toMatch(/^# idv cache v1 https:\/\/api.x \/emails\/validate\n/);
  });

  it('reads lines in place: odd but well-formed lines load, malformed ones count as damaged, statuses are shared', async () => {
    const s = openScope(dir, 'https://api.x', '/emails/validate', 3600, () => 1_800_000_000_000);
    await load(s);
    const good = ['1799999990\tok\ta@x.com', '1799999991\tok\tb@x.com', '1799999992\tnew_status-2\tc@x.com', '1799999993\tok\ta@x.com'];
    const bad = ['17999x9990\tok\td@x.com', '\tok\te@x.com', '1799999990\tok\t', '1799999990\to k\tf@x.com', '1799999990 ok g@x.com', '12345678901234\tok\th@x.com'];
    await appendFile(s.path, [...good, ...bad].join('\n') + '\n');
    const seen: string[] = [];
    const expected: number[] = [];
    const report = await openScope(dir, 'https://api.x', '/emails/validate', 3600, () => 1_800_000_000_000).load({
      expect: (n) => expected.push(n),
      add: (bytes, start, end, status) => seen.push(`${Buffer.from(bytes.subarray(start, end)).toString('utf8')}=${status}`),
    });
    expect(seen).toEqual(['a@x.com=ok', 'b@x.com=ok', 'c@x.com=new_status-2', 'a@x.com=ok']);
    // 12345678901234 has too many digits for a time: damaged, not a time in the far future.
    expect(report).toMatchObject({ loaded: 4, damaged: 6, expired: 0 });
    expect(expected.length).toBe(1);
    expect(expected[0]).toBeGreaterThanOrEqual(10); // ten lines, estimated from the first block
    expect(expected[0]).toBeLessThan(20);
  });

  it('a CRLF line loads its key without the CR; a time of 14 digits is damaged, dropped by the rebuild, and stays gone', async () => {
    const at = () => 1_800_000_000_000;
    const s = openScope(dir, 'https://api.x', '/emails/validate', 3600, at);
    await load(s);
    await appendFile(s.path, '1799999990\tok\tcrlf@x.com\r\n00001799999990\tok\tlong@x.com\n');
    const first = await load(openScope(dir, 'https://api.x', '/emails/validate', 3600, at));
    expect(first.m).toEqual(new Map([['crlf@x.com', 'ok']]));
    expect(first.report).toMatchObject({ damaged: 1, rebuilt: true });
    const second = await load(openScope(dir, 'https://api.x', '/emails/validate', 3600, at));
    expect(second.m).toEqual(new Map([['crlf@x.com', 'ok']]));
    expect(second.report).toMatchObject({ damaged: 0, rebuilt: false }); // no rebuild on every run
    expect(await readFile(s.path, 'utf8')).not.toContain('long@x.com');
  });

  it('stats and clear', async () => {
    const s = openScope(dir, 'https://api.x', '/emails/validate', 3600);
    await load(s);
    s.append([['a@x.com', 'ok'], ['b@x.com', 'alias']]);
    const st = await cacheStats(dir);
    expect(st).toMatchObject({ entries: 2, files: 1, path: dir });
    expect(st.scopes).toEqual([{ baseUrl: 'https://api.x', endpoint: '/emails/validate', entries: 2 }]);
    expect(await clearCache(dir)).toBe(1);
    expect((await cacheStats(dir)).entries).toBe(0);
    await writeFile(join(dir, 'keep.txt'), 'x');
    expect(await clearCache(dir)).toBe(0);
  });
});
