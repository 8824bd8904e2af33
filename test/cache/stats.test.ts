// `idv cache stats` and `clear` underneath: entries per scope, and emptying the folder of results only.
import { describe, expect, it } from 'vitest';
import { readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheStats, clearCache } from '../../src/cache/stats.js';
import { folderPerTest, known, logWith, scopeIn, T } from './helpers.js';

const dir = folderPerTest('idv-stats-');

describe('cache stats and clear', () => {
  it('counts entries per scope; clear removes them and says how many', async () => {
    const s = scopeIn(dir(), { ttl: 3600, now: Date.now });
    (await s.load()).results.close();
    s.append([
      ['a@x.com', 'ok'],
      ['b@x.com', 'alias'],
    ]);
    const st = await cacheStats(dir());
    expect(st).toMatchObject({ entries: 2, files: 1, path: dir() });
    expect(st.scopes).toEqual([{ baseUrl: 'https://api.x', endpoint: '/emails/validate', entries: 2 }]);
    expect(await clearCache(dir())).toEqual({ logs: 1, results: 2 });
    expect((await cacheStats(dir())).entries).toBe(0);
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

  it('a symbolic link named like a log is not read', async () => {
    const victim = join(dir(), 'victim.txt');
    await writeFile(victim, `${T}\tok\tsecret@x.com\n`);
    await symlink(victim, join(dir(), 'aaaa.log'));
    expect(await cacheStats(dir())).toMatchObject({ files: 0, entries: 0 });
  });
});
