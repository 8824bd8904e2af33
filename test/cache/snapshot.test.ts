// The snapshot beside a log answers exactly what reading the whole log would; the lines appended since it
// win; a snapshot that no longer matches its log is never believed; per-status TTLs and entries from the
// future are judged as in the log.
import { describe, expect, it } from 'vitest';
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCacheTtl } from '../../src/cache/ttl.js';
import { folderPerTest, known, logWith, snapshotsIn, T } from './helpers.js';

const dir = folderPerTest('idv-snapshot-');
const LARGE = { rebuildBytes: 1 << 20 };

describe('cache snapshot', () => {
  it('answers as the whole log would, writes the snapshot once, and the lines appended since win', async () => {
    const keys = Array.from({ length: 200 }, (_, i) => `u${i}@x.com`);
    const path = await logWith(dir(), keys.map((k, i) => `${T - 100}\t${i % 3 ? 'ok' : 'disposable'}\t${k}`));
    const first = await known(dir(), [...keys, 'nope@x.com']);
    expect(first.out).toEqual([...keys.map((_, i) => (i % 3 ? 'ok' : 'disposable')), 'new']);
    expect(first.report.snapshotCovers).not.toBeNull();
    expect(await snapshotsIn(dir())).toHaveLength(1);
    const built = (await stat(`${path}.idx`)).mtimeMs;
    // A later answer for u1 and a new key, appended after the snapshot: read from the log, and they win.
    await appendFile(path, `${T - 10}\tfake\tu1@x.com\n${T - 10}\talias\tnew+1@x.com\n`);
    const second = await known(dir(), ['u1@x.com', 'u2@x.com', 'new+1@x.com'], { tuning: { rebuildBytes: 4096 } });
    expect(second.out).toEqual(['fake', 'ok', 'alias']);
    expect((await stat(`${path}.idx`)).mtimeMs).toBe(built); // small tail: no rebuild
    // Past the threshold, the tail is merged into a new snapshot with the same answers.
    const third = await known(dir(), ['u1@x.com', 'u2@x.com', 'new+1@x.com', 'u0@x.com'], { tuning: { rebuildBytes: 16 } });
    expect(third.out).toEqual(['fake', 'ok', 'alias', 'disposable']);
    expect(third.report.snapshotCovers).toBe((await stat(path)).size);
  });

  it('a duplicate of a cached item counts once; a key answered twice keeps its latest answer', async () => {
    await logWith(dir(), [`${T - 50}\tok\ta@x.com`, `${T - 40}\tfake\ta@x.com`, `${T - 30}\tok\tb@x.com`, `${T - 20}\tok\tc@x.com`]);
    for (const tuning of [undefined, LARGE]) {
      const r = await known(dir(), ['a@x.com', 'a@x.com', 'b@x.com', 'zz@x.com'], { tuning });
      expect(r.out).toEqual(['fake', 'fake', 'ok', 'new']);
      expect(r.cached).toBe(2);
    }
  });

  it('an answer that is no longer fresh hides an older fresh one (the latest answer counts), in the snapshot and after it', async () => {
    const ttl = parseCacheTtl('ok=1h,disposable=30d,7d');
    // a: disposable 10 days ago (fresh under 30d), then ok 2 hours ago (stale under 1h): a is new again.
    const path = await logWith(dir(), [`${T - 10 * 86400}\tdisposable\ta@x.com`, `${T - 7200}\tok\ta@x.com`, `${T - 100}\tok\tb@x.com`, `${T - 100}\tok\tc@x.com`]);
    expect((await known(dir(), ['a@x.com', 'b@x.com'], { ttl })).out).toEqual(['new', 'ok']);
    // The same, with the stale answer appended after the snapshot.
    await appendFile(path, `${T - 7200}\tok\tb@x.com\n`);
    expect((await known(dir(), ['a@x.com', 'b@x.com', 'c@x.com'], { ttl, tuning: { rebuildBytes: 4096 } })).out).toEqual(['new', 'new', 'ok']);
  });

  it('per-status TTL: a stale ok is new, a fresh disposable is not; entries dated in the future are not trusted', async () => {
    const ttl = parseCacheTtl('ok=90d,disposable=180d,7d');
    const day = 86400;
    const lines = [
      `${T - 100 * day}\tok\told-ok@x.com`,
      `${T - 100 * day}\tdisposable\told-disp@x.com`,
      `${T - 10 * day}\tfake\tten-days-fake@x.com`,
      `${T - 5 * day}\tfake\tfive-days-fake@x.com`,
      `${T + 3600}\tok\tfuture@x.com`,
    ];
    const expected = ['new', 'disposable', 'new', 'fake', 'new'];
    const keys = ['old-ok@x.com', 'old-disp@x.com', 'ten-days-fake@x.com', 'five-days-fake@x.com', 'future@x.com'];
    await logWith(dir(), lines);
    expect((await known(dir(), keys, { ttl, tuning: LARGE })).out).toEqual(expected); // the log read whole
    expect((await known(dir(), keys, { ttl })).out).toEqual(expected); // through the snapshot
    expect(await snapshotsIn(dir())).toHaveLength(1);
  });

  it('probes in place, then reads the snapshot whole for a large run: the same answers either way', async () => {
    const n = 5000;
    await logWith(dir(), Array.from({ length: n }, (_, i) => `${T - 100}\t${['ok', 'fake', 'alias'][i % 3]}\tk${i}@x.com`));
    // The first 100 met again after the switch to the whole file: each cached item counts once.
    const keys = [...Array.from({ length: n + 500 }, (_, i) => `k${i}@x.com`), ...Array.from({ length: 100 }, (_, i) => `k${i}@x.com`)];
    const r = await known(dir(), keys);
    expect(r.out).toEqual(keys.map((k) => Number(k.slice(1, -6))).map((i) => (i < n ? ['ok', 'fake', 'alias'][i % 3] : 'new')));
    expect(r.cached).toBe(n);
  });

  it('a snapshot that does not match its log is never believed: replaced log, truncated log, damaged or cut-short snapshot', async () => {
    const keys = Array.from({ length: 50 }, (_, i) => `u${i}@x.com`);
    const path = await logWith(dir(), keys.map((k) => `${T - 100}\tok\t${k}`));
    await known(dir(), keys);
    const [name] = await snapshotsIn(dir());
    const snap = join(dir(), name!);
    const good = await readFile(snap);

    // The log replaced by another with other answers (same size): the snapshot's fingerprint no longer matches.
    const other = (await readFile(path, 'utf8')).replaceAll('\tok\t', '\tfake\t').replace('u1@', 'v1@');
    await writeFile(path, other);
    expect((await known(dir(), ['u0@x.com', 'u1@x.com', 'v1@x.com'], { tuning: LARGE })).out).toEqual(['fake', 'new', 'fake']);

    // A truncated log: only what it still holds counts.
    await writeFile(snap, good);
    await writeFile(path, (await readFile(path, 'utf8')).split('\n').slice(0, 11).join('\n') + '\n');
    expect((await known(dir(), ['u0@x.com', 'u30@x.com'], { tuning: LARGE })).out).toEqual(['fake', 'new']);

    // A snapshot cut short or scribbled on: ignored.
    await writeFile(path, keys.map((k) => `${T - 100}\tok\t${k}`).join('\n') + '\n');
    await known(dir(), keys); // fresh snapshot of this log
    const fresh = await readFile(snap);
    await writeFile(snap, fresh.subarray(0, fresh.length - 7));
    expect((await known(dir(), ['u0@x.com', 'u49@x.com'], { tuning: LARGE })).out).toEqual(['ok', 'ok']);
    const scribbled = Buffer.from(fresh);
    scribbled.writeInt32LE(0x12345678, 0);
    await writeFile(snap, scribbled);
    expect((await known(dir(), ['u0@x.com', 'u49@x.com'], { tuning: LARGE })).out).toEqual(['ok', 'ok']);
  });
});
