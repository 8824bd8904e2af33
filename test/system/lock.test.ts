// The lock file shared by compaction and by runs joining the claims: one holder at a time, taken over once
// its holder stops renewing it.
import { describe, expect, it, vi } from 'vitest';
import { statSync } from 'node:fs';
import { readdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { FileLock } from '../../src/system/lock.js';
import { folderPerTest } from '../cache/helpers.js';

const dir = folderPerTest('idv-lock-');

describe('lock file', () => {
  it('one holder at a time; dropped, it can be taken again', async () => {
    const path = join(dir(), 'x.lock');
    const one = new FileLock(path, 60_000);
    const two = new FileLock(path, 60_000);
    expect(await one.take()).toBe(true);
    expect(await two.take()).toBe(false);
    await one.drop();
    expect(await two.take()).toBe(true);
  });

  it('a lock not renewed for longer than its stale time is taken over (its holder died); a renewed one is not', async () => {
    const path = join(dir(), 'x.lock');
    let clock = Date.now();
    const holder = new FileLock(path, 2_000, () => clock);
    expect(await holder.take()).toBe(true);
    clock += 5_000;
    holder.renew(); // still at work: its time is now
    await vi.waitFor(() => expect(Math.round(statSync(path).mtimeMs)).toBe(clock), { timeout: 20_000 }); // the renewal is written in the background
    expect(await new FileLock(path, 2_000, () => clock).take()).toBe(false);
    const old = (clock - 3_000) / 1000;
    await utimes(path, old, old); // no longer renewed
    expect(await new FileLock(path, 2_000, () => clock).take()).toBe(true); // taken over
    expect(await readdir(dir())).toEqual(['x.lock']); // the stale one is gone, not left beside
  });
});
