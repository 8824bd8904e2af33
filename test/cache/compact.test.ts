// Compaction: the log rewritten with its good, fresh lines, one rewriter at a time, losing nothing another
// process appends meanwhile.
import { describe, expect, it } from 'vitest';
import { appendFile, readFile, utimes, writeFile } from 'node:fs/promises';
import { compactLog } from '../../src/cache/compact.js';
import { freshnessAt, parseCacheTtl } from '../../src/cache/ttl.js';
import { appender, folderPerTest, known, logWith, NOW, SMALL, T } from './helpers.js';

const dir = folderPerTest('idv-compact-');
const HEADER = '# idv cache v1 https://api.x /emails/validate\n';

describe('compaction', () => {
  it('keeps the latest fresh line per key; a line no longer fresh drops the older answers of its key', async () => {
    const path = await logWith(dir(), [
      `${T - 10 * 86400}\tdisposable\ta@x.com`,
      `${T - 7200}\tok\ta@x.com`, // stale under ok=1h: the latest answer counts, so a is new again
      `${T - 50}\tok\tb@x.com`,
      `${T - 40}\tfake\tb@x.com`,
      'garbage',
    ]);
    expect(await compactLog(path, HEADER, freshnessAt(parseCacheTtl('ok=1h,disposable=30d,7d'), NOW), () => NOW)).toBe(true);
    expect(await readFile(path, 'utf8')).toBe(`${HEADER}${T - 40}\tfake\tb@x.com\n`);
  });

  it('waits for no one: a live lock makes it give up, a lock not renewed for a minute is taken over', async () => {
    const path = await logWith(dir(), [`${T - 50}\tok\tb@x.com`, `${T - 40}\tok\tb@x.com`]);
    const fresh = freshnessAt(parseCacheTtl('7d'), NOW);
    await writeFile(`${path}.lock`, 'x');
    expect(await compactLog(path, HEADER, fresh, Date.now)).toBe(false);
    expect(await readFile(path, 'utf8')).toContain(`${T - 50}\tok\tb@x.com`);
    const old = (Date.now() - 120_000) / 1000;
    await utimes(`${path}.lock`, old, old);
    expect(await compactLog(path, HEADER, fresh, Date.now)).toBe(true);
    expect(await readFile(path, 'utf8')).toBe(`${HEADER}${T - 40}\tok\tb@x.com\n`);
  });

  it('a compaction while another process appends loses none of its lines', async () => {
    // A log that is mostly repeats (so it is compacted), while a second process appends new results.
    const keys = Array.from({ length: 4000 }, (_, i) => `r${i}@x.com`);
    const path = await logWith(dir(), []);
    const old = Math.floor(Date.now() / 1000) - 100;
    await appendFile(path, [0, 1, 2, 3].flatMap(() => keys.map((k) => `${old}\tok\t${k}\n`)).join(''));
    const writing = appender(path, 'live', 4000);
    let compactions = 0;
    for (let i = 0; i < 40 && compactions < 3; i++) {
      const r = await known(dir(), [], { tuning: SMALL, now: Date.now });
      if (r.report.rebuilt) compactions++;
      // Repeats again, for the next compaction.
      await appendFile(path, [0, 1, 2].flatMap(() => keys.map((k) => `${old}\tok\t${k}\n`)).join(''));
    }
    expect(await writing).toBe(0);
    expect(compactions).toBeGreaterThan(0);
    const live = Array.from({ length: 4000 }, (_, i) => `live${i}@x.com`);
    const r = await known(dir(), [...live, ...keys], { tuning: SMALL, now: Date.now });
    expect(r.out.filter((s) => s !== 'ok')).toEqual([]);
  });
});
