// The cache store's guarantees (issue 14), through the plan that uses it: the snapshot beside the log answers
// exactly what reading the whole log would, the lines appended since it win, a snapshot that no longer
// matches its log is never believed, per-status TTLs, entries from the future, two writers at once, a torn
// line, and a compaction while another process appends.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearCache, openScope, type ScopeTuning } from '../src/cache/store.js';
import { parseCacheTtl } from '../src/cache/ttl.js';
import { Plan } from '../src/plan/plan.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const NOW = 1_800_000_000_000;
const T = NOW / 1000;
const BASE = 'https://api.x';
const EP = '/emails/validate';
/** A snapshot as soon as the log holds more than a few lines. */
const SMALL: ScopeTuning = { rebuildBytes: 64 };
const scopeOf = (ttl: Parameters<typeof openScope>[3] = 86400, tuning: ScopeTuning = SMALL, now = () => NOW) => openScope(dir, BASE, EP, ttl, now, tuning);

/** What a run would know of each key: its cached status, or 'new'. */
async function known(keys: string[], ttl: Parameters<typeof openScope>[3] = 86400, tuning: ScopeTuning = SMALL, now = () => NOW) {
  const plan = new Plan();
  const report = await plan.loadCache(scopeOf(ttl, tuning, now));
  const out = keys.map((k) => {
    const l = plan.lookup(k);
    return l.kind === 'known' ? l.status : 'new';
  });
  plan.close();
  return { out, report, cached: plan.counts.cached };
}

async function logWith(lines: string[]): Promise<string> {
  const s = scopeOf();
  await new Plan().loadCache(s); // creates the log with its header
  await appendFile(s.path, lines.map((l) => l + '\n').join(''));
  return s.path;
}

const idx = async () => (await readdir(dir)).filter((n) => n.endsWith('.idx'));

describe('cache snapshot', () => {
  it('answers as the whole log would, writes the snapshot once, and the lines appended since win', async () => {
    const keys = Array.from({ length: 200 }, (_, i) => `u${i}@x.com`);
    const path = await logWith(keys.map((k, i) => `${T - 100}\t${i % 3 ? 'ok' : 'disposable'}\t${k}`));
    const first = await known([...keys, 'nope@x.com']);
    expect(first.out).toEqual([...keys.map((_, i) => (i % 3 ? 'ok' : 'disposable')), 'new']);
    expect(first.report.snapshot).not.toBeNull();
    expect(await idx()).toHaveLength(1);
    const built = (await stat(`${path}.idx`)).mtimeMs;
    // A later answer for u1 and a new key, appended after the snapshot: read from the log, and they win.
    await appendFile(path, `${T - 10}\tfake\tu1@x.com\n${T - 10}\talias\tnew+1@x.com\n`);
    const second = await known(['u1@x.com', 'u2@x.com', 'new+1@x.com'], 86400, { rebuildBytes: 4096 });
    expect(second.out).toEqual(['fake', 'ok', 'alias']);
    expect((await stat(`${path}.idx`)).mtimeMs).toBe(built); // small tail: no rebuild
    // Past the threshold, the tail is merged into a new snapshot with the same answers.
    const third = await known(['u1@x.com', 'u2@x.com', 'new+1@x.com', 'u0@x.com'], 86400, { rebuildBytes: 16 });
    expect(third.out).toEqual(['fake', 'ok', 'alias', 'disposable']);
    expect(third.report.snapshot?.covered).toBe((await stat(path)).size);
  });

  it('a duplicate of a cached item counts once; a key answered twice keeps its latest answer', async () => {
    await logWith([`${T - 50}\tok\ta@x.com`, `${T - 40}\tfake\ta@x.com`, `${T - 30}\tok\tb@x.com`, `${T - 20}\tok\tc@x.com`]);
    const r = await known(['a@x.com', 'a@x.com', 'b@x.com', 'zz@x.com']);
    expect(r.out).toEqual(['fake', 'fake', 'ok', 'new']);
    expect(r.cached).toBe(2);
  });

  it('an answer that is no longer fresh hides an older fresh one (the latest answer counts), in the snapshot and after it', async () => {
    const policy = parseCacheTtl('ok=1h,disposable=30d,7d');
    // a: disposable 10 days ago (fresh under 30d), then ok 2 hours ago (stale under 1h): a is new again.
    const path = await logWith([`${T - 10 * 86400}\tdisposable\ta@x.com`, `${T - 7200}\tok\ta@x.com`, `${T - 100}\tok\tb@x.com`, `${T - 100}\tok\tc@x.com`]);
    expect((await known(['a@x.com', 'b@x.com'], policy)).out).toEqual(['new', 'ok']);
    // The same, with the stale answer appended after the snapshot.
    await appendFile(path, `${T - 7200}\tok\tb@x.com\n`);
    expect((await known(['a@x.com', 'b@x.com', 'c@x.com'], policy, { rebuildBytes: 4096 })).out).toEqual(['new', 'new', 'ok']);
  });

  it('per-status TTL: a stale ok is new, a fresh disposable is not; entries dated in the future are not trusted', async () => {
    const policy = parseCacheTtl('ok=90d,disposable=180d,7d');
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
    await logWith(lines);
    expect((await known(keys, policy, { rebuildBytes: 1 << 20 })).out).toEqual(expected); // the log read whole
    expect((await known(keys, policy)).out).toEqual(expected); // through the snapshot
    expect(await idx()).toHaveLength(1);
  });

  it('probes in place, then reads the snapshot whole for a large run: the same answers either way', async () => {
    const n = 5000;
    await logWith(Array.from({ length: n }, (_, i) => `${T - 100}\t${['ok', 'fake', 'alias'][i % 3]}\tk${i}@x.com`));
    // The first 100 met again after the switch to the whole file: each cached item counts once.
    const keys = [...Array.from({ length: n + 500 }, (_, i) => `k${i}@x.com`), ...Array.from({ length: 100 }, (_, i) => `k${i}@x.com`)];
    const r = await known(keys);
    expect(r.out).toEqual(keys.map((k) => Number(k.slice(1, -6))).map((i) => (i < n ? ['ok', 'fake', 'alias'][i % 3] : 'new')));
    expect(r.cached).toBe(n);
  });

  it('a snapshot that does not match its log is never believed: replaced log, truncated log, damaged or cut-short snapshot', async () => {
    const keys = Array.from({ length: 50 }, (_, i) => `u${i}@x.com`);
    const path = await logWith(keys.map((k) => `${T - 100}\tok\t${k}`));
    await known(keys);
    const [name] = await idx();
    const snap = join(dir, name!);
    const good = await readFile(snap);

    // The log replaced by another with other answers (same size): the snapshot's fingerprint no longer matches.
    const other = (await readFile(path, 'utf8')).replaceAll('\tok\t', '\tfake\t').replace('u1@', 'v1@');
    await writeFile(path, other);
    expect((await known(['u0@x.com', 'u1@x.com', 'v1@x.com'], 86400, { rebuildBytes: 1 << 20 })).out).toEqual(['fake', 'new', 'fake']);

    // A truncated log: only what it still holds counts.
    await writeFile(snap, good);
    await writeFile(path, (await readFile(path, 'utf8')).split('\n').slice(0, 11).join('\n') + '\n');
    expect((await known(['u0@x.com', 'u30@x.com'], 86400, { rebuildBytes: 1 << 20 })).out).toEqual(['fake', 'new']);

    // A snapshot cut short or scribbled on: ignored.
    await writeFile(path, keys.map((k) => `${T - 100}\tok\t${k}`).join('\n') + '\n');
    await known(keys); // fresh snapshot of this log
    const fresh = await readFile(snap);
    await writeFile(snap, fresh.subarray(0, fresh.length - 7));
    expect((await known(['u0@x.com', 'u49@x.com'], 86400, { rebuildBytes: 1 << 20 })).out).toEqual(['ok', 'ok']);
    const scribbled = Buffer.from(fresh);
    scribbled.writeInt32LE(0x12345678, 0);
    await writeFile(snap, scribbled);
    expect((await known(['u0@x.com', 'u49@x.com'], 86400, { rebuildBytes: 1 << 20 })).out).toEqual(['ok', 'ok']);
  });

  it('a torn last line is dropped and healed; damaged lines are dropped by a rebuild of the log', async () => {
    const path = await logWith([`${T - 100}\tok\ta@x.com`, 'garbage here', `${T - 100}\tok\tb@x.com`]);
    await appendFile(path, `${T - 100}\tok\tc@x.c`); // torn: no line end
    const r = await known(['a@x.com', 'b@x.com', 'c@x.c', 'c@x.com']);
    expect(r.out).toEqual(['ok', 'ok', 'new', 'new']);
    expect(r.report).toMatchObject({ damaged: 2, rebuilt: true });
    scopeOf().append([['d@x.com', 'ok']]);
    const again = await known(['a@x.com', 'd@x.com']);
    expect(again.out).toEqual(['ok', 'ok']);
    expect(again.report.damaged).toBe(0);
  });

  it('clear removes the snapshots too', async () => {
    await logWith(Array.from({ length: 20 }, (_, i) => `${T}\tok\tu${i}@x.com`));
    await known(['u1@x.com']);
    expect(await idx()).toHaveLength(1);
    expect(await clearCache(dir)).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });
});

/** A child process that appends `n` results to the log, one O_APPEND write each, as runs do. */
function appender(path: string, prefix: string, n: number): Promise<number | null> {
  const code = `
    const { appendFileSync } = require('node:fs');
    const ts = Math.floor(Date.now() / 1000);
    for (let i = 0; i < ${n}; i++) appendFileSync(${JSON.stringify(path)}, ts + '\\tok\\t${prefix}' + i + '@x.com\\n');
  `;
  const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
  return new Promise((resolve) => child.on('exit', resolve));
}

describe('cache store, several processes', () => {
  it('two writers at once: every line of both loads, none damaged', async () => {
    const path = await logWith([]);
    const codes = await Promise.all([appender(path, 'a', 3000), appender(path, 'b', 3000)]);
    expect(codes).toEqual([0, 0]);
    const keys = [...Array.from({ length: 3000 }, (_, i) => `a${i}@x.com`), ...Array.from({ length: 3000 }, (_, i) => `b${i}@x.com`)];
    const r = await known(keys, 86400, SMALL, Date.now);
    expect(r.report.damaged).toBe(0);
    expect(r.out.every((s) => s === 'ok')).toBe(true);
  });

  it('a compaction while another process appends loses none of its lines', async () => {
    // A log that is mostly repeats (so it is compacted), while a second process appends new results.
    const keys = Array.from({ length: 4000 }, (_, i) => `r${i}@x.com`);
    const path = await logWith([]);
    const old = Math.floor(Date.now() / 1000) - 100;
    await appendFile(path, [0, 1, 2, 3].flatMap(() => keys.map((k) => `${old}\tok\t${k}\n`)).join(''));
    const writing = appender(path, 'live', 4000);
    let compactions = 0;
    for (let i = 0; i < 40 && compactions < 3; i++) {
      const r = await known([], 86400, SMALL, Date.now);
      if (r.report.rebuilt) compactions++;
      // Repeats again, for the next compaction.
      await appendFile(path, [0, 1, 2].flatMap(() => keys.map((k) => `${old}\tok\t${k}\n`)).join(''));
    }
    expect(await writing).toBe(0);
    expect(compactions).toBeGreaterThan(0);
    const live = Array.from({ length: 4000 }, (_, i) => `live${i}@x.com`);
    const r = await known([...live, ...keys], 86400, SMALL, Date.now);
    expect(r.out.filter((s) => s !== 'ok')).toEqual([]);
  });
});
