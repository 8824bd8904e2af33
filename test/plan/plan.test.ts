// The plan's vocabulary: lookup → NEW (once), PENDING (its duplicates), or Known (cached, or settled); the
// counts a dry run prints; and the cache asked again for what another run answered since.
import { describe, expect, it } from 'vitest';
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { NEW, PENDING, Plan } from '../../src/plan/plan.js';
import { folderPerTest, logWith, scopeIn, T } from '../cache/helpers.js';

const dir = folderPerTest('idv-plan-');

describe('plan', () => {
  it('an item is NEW once, PENDING while it waits, then known by its answer; duplicates count once', () => {
    const plan = new Plan();
    expect(plan.lookup('a@x.com')).toBe(NEW);
    expect(plan.lookup('a@x.com')).toBe(PENDING);
    expect(plan.statusOf('a@x.com')).toBeUndefined();
    plan.settle('a@x.com', 'ok');
    expect(plan.lookup('a@x.com')).toEqual({ kind: 'known', status: 'ok', source: 'service' });
    expect(plan.lookup('a@x.com')).toBe(plan.knownAs('ok')); // one object per status
    expect(plan.statusOf('a@x.com')).toBe('ok');
    expect(plan.statusOf('never@x.com')).toBeUndefined();
    expect(plan.counts).toEqual({ records: 0, unique: 1, invalid: 0, cached: 0 });
  });

  it('asks the cache for what it has not met: a cached item is known and counted once, however often it comes', async () => {
    await logWith(dir(), [`${T - 10}\tfake\tc@x.com`]);
    const plan = new Plan();
    await plan.loadCache(scopeIn(dir(), { tuning: { rebuildBytes: 1 << 20 } }));
    expect([plan.lookup('c@x.com'), plan.lookup('c@x.com'), plan.lookup('n@x.com')]).toEqual([plan.knownAs('fake', 'cache'), plan.knownAs('fake', 'cache'), NEW]);
    expect(plan.counts).toMatchObject({ unique: 2, cached: 1 });
    plan.close();
  });

  it('takes from the cache a pending item another run answered since the load, once the cache is read again', async () => {
    const path = await logWith(dir(), []);
    const plan = new Plan();
    await plan.loadCache(scopeIn(dir()));
    expect(plan.lookup('a@x.com')).toBe(NEW);
    expect(plan.takeFromCache('a@x.com')).toBeNull();
    await appendFile(path, `${T - 5}\talias\ta@x.com\n`); // another run's answer
    expect(plan.takeFromCache('a@x.com')).toBeNull(); // not read yet
    await plan.refreshCache();
    expect(plan.takeFromCache('a@x.com')).toBe(plan.knownAs('alias', 'cache'));
    expect(plan.statusOf('a@x.com')).toBe('alias'); // its duplicates learn it too
    expect(plan.counts).toMatchObject({ unique: 1, cached: 1 });
    plan.close();
  });

  it('a cached item met before a refresh that brings a newer answer for it is still counted once', async () => {
    for (const [n, tuning] of [{ rebuildBytes: 64 }, { rebuildBytes: 1 << 20 }].entries()) {
      // Through a snapshot, then with the log read whole.
      const folder = join(dir(), String(n));
      await mkdir(folder);
      const path = await logWith(folder, Array.from({ length: 10 }, (_, i) => `${T - 100}\tok\tk${i}@x.com`));
      const plan = new Plan();
      await plan.loadCache(scopeIn(folder, { tuning }));
      expect(plan.lookup('k1@x.com')).toBe(plan.knownAs('ok', 'cache'));
      await appendFile(path, `${T - 5}\tfake\tk1@x.com\n${T - 5}\tfake\tk2@x.com\n`);
      await plan.refreshCache();
      expect(plan.lookup('k1@x.com')).toBe(plan.knownAs('fake', 'cache'));
      expect(plan.lookup('k2@x.com')).toBe(plan.knownAs('fake', 'cache'));
      expect(plan.counts).toMatchObject({ unique: 2, cached: 2 });
      plan.close();
    }
  });

  it('an item settled with any status is known by it, never taken for pending (whatever index its status has)', () => {
    const plan = new Plan();
    const statuses = ['ok', 'fake', 'disposable', 'alias'];
    statuses.forEach((s, i) => {
      expect(plan.lookup(`k${i}@x.com`)).toBe(NEW);
      plan.settle(`k${i}@x.com`, s);
    });
    statuses.forEach((s, i) => {
      expect(plan.lookup(`k${i}@x.com`)).toEqual({ kind: 'known', status: s, source: 'service' });
      expect(plan.statusOf(`k${i}@x.com`)).toBe(s);
    });
    expect(plan.counts).toEqual({ records: 0, unique: 4, invalid: 0, cached: 0 });
  });

  it('without a cache: nothing is taken from it, reading it again and closing it are no-ops', async () => {
    const plan = new Plan();
    expect(plan.lookup('a@x.com')).toBe(NEW);
    expect(plan.takeFromCache('a@x.com')).toBeNull();
    await expect(plan.refreshCache()).resolves.toBeUndefined();
    plan.close();
    plan.close();
    expect(plan.lookup('a@x.com')).toBe(PENDING);
    expect(plan.counts).toEqual({ records: 0, unique: 1, invalid: 0, cached: 0 });
  });

  it('once closed, the cache is no longer asked: its items are new, a refresh reads nothing, a second close is harmless', async () => {
    const path = await logWith(dir(), [`${T - 10}\tfake\tc@x.com`]);
    const plan = new Plan();
    await plan.loadCache(scopeIn(dir(), { tuning: { rebuildBytes: 1 << 20 } }));
    expect(plan.lookup('p@x.com')).toBe(NEW);
    plan.close();
    plan.close();
    await appendFile(path, `${T - 5}\tok\tp@x.com\n`);
    await expect(plan.refreshCache()).resolves.toBeUndefined();
    expect(plan.takeFromCache('p@x.com')).toBeNull();
    expect(plan.lookup('c@x.com')).toBe(NEW);
    expect(plan.counts).toEqual({ records: 0, unique: 2, invalid: 0, cached: 0 });
  });
});
