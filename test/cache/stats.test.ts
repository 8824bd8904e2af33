// `idv cache stats` and `clear` underneath: entries per scope, and emptying the folder of results only.
import { describe, expect, it } from 'vitest';
import { readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheStats, clearCache } from '../../src/cache/stats.js';
import { freshnessAt, parseCacheTtl } from '../../src/cache/ttl.js';
import { folderPerTest, known, logWith, NOW, scopeIn, T } from './helpers.js';
import { onlyOn } from '../platforms.js';

const DAY = 86400;
/** Freshness by --cache-ttl's text, at NOW. */
const at = (ttl = '7d') => freshnessAt(parseCacheTtl(ttl), NOW);

const dir = folderPerTest('idv-stats-');

describe('cache stats and clear', () => {
  it('counts entries per scope; clear removes them and says how many', async () => {
    const s = scopeIn(dir(), { ttl: 3600, now: Date.now });
    (await s.load()).results.close();
    s.append([
      ['a@x.com', 'ok'],
      ['b@x.com', 'alias'],
    ]);
    const st = await cacheStats(dir(), at());
    expect(st).toMatchObject({ entries: 2, files: 1, path: dir() });
    expect(st.scopes).toMatchObject([{ baseUrl: 'https://api.x', endpoint: '/emails/validate', entries: 2 }]);
    expect(await clearCache(dir())).toEqual({ logs: 1, results: 2 });
    expect((await cacheStats(dir(), at())).entries).toBe(0);
    await writeFile(join(dir(), 'keep.txt'), 'x');
    expect(await clearCache(dir())).toEqual({ logs: 0, results: 0 });
    expect(await readdir(dir())).toEqual(['keep.txt']);
  });

  it('clear removes the snapshots too', async () => {
    await logWith(dir(), Array.from({ length: 20 }, (_, i) => `${T}\tok\tu${i}@x.com`));
    await known(dir(), ['u1@x.com']);
    expect((await readdir(dir())).filter((n) => n.endsWith('.idx'))).toHaveLength(1);
    expect(await clearCache(dir())).toEqual({ logs: 1, results: 20 });
    expect(await readdir(dir())).toEqual([]);
  });

  onlyOn('symlinks').it('a symbolic link named like a log is not read', async () => {
    const victim = join(dir(), 'victim.txt');
    await writeFile(victim, `${T}\tok\tsecret@x.com\n`);
    await symlink(victim, join(dir(), 'aaaa.log'));
    expect(await cacheStats(dir(), at())).toMatchObject({ files: 0, entries: 0 });
  });

  it('counts by status, expired by the TTLs asked about (per status too), oldest and newest, size per service', async () => {
    const path = await logWith(dir(), [
      `${T - 1 * DAY}\tok\ta@x.com`,
      `${T - 10 * DAY}\tok\tb@x.com`,
      `${T - 100 * DAY}\tok\tc@x.com`,
      `${T - 10 * DAY}\tdisposable\td@x.com`,
      `${T - 200 * DAY}\tdisposable\te@x.com`,
      `${T - 3 * 3600}\tfake\tf@x.com`,
      `${T + 3600}\tok\tahead@x.com`, // written by a clock set wrong: never fresh
      'not a line of the log',
    ]);
    const week = await cacheStats(dir(), at('7d'));
    expect(week).toMatchObject({ entries: 7, expired: 5, damaged: 1, oldest: T - 200 * DAY, newest: T + 3600, files: 1 });
    expect([...week.byStatus]).toEqual([
      ['ok', { entries: 4, expired: 3 }],
      ['disposable', { entries: 2, expired: 2 }],
      ['fake', { entries: 1, expired: 0 }],
    ]);
    expect(week.scopes[0]).toMatchObject({ entries: 7, expired: 5, bytes: (await stat(path)).size });
    const long = await cacheStats(dir(), at('ok=90d,disposable=180d,7d'));
    expect(long.expired).toBe(3); // c (ok, 100 days), e (disposable, 200 days), ahead
    expect(long.byStatus.get('disposable')).toEqual({ entries: 2, expired: 1 });
  });
});

