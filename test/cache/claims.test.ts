// The claims rule between runs of one machine: the first claim of a key, in file order, by a run still
// alive, wins; a release or the end (or death) of the winner lets the next one go on; the claims file is
// emptied only when no other run is alive; it is never opened through a link.
import { describe, expect, it } from 'vitest';
import { readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Claims, keyHex } from '../../src/cache/claims.js';
import { markText, selfMark } from '../../src/process-mark.js';
import { folderPerTest } from './helpers.js';

const dir = folderPerTest('idv-claims-');
const SCOPE = '0123456789abcdef';
const join2 = async () => (await Claims.join(dir(), SCOPE))!;
const heartbeat = (run: Claims) => join(dir(), `${SCOPE}.${run.run}.run`);
/** Make a heartbeat look last touched `ms` ago. */
const age = async (path: string, ms: number) => {
  const then = (Date.now() - ms) / 1000;
  await utimes(path, then, then);
};
const [a, b, c, d] = ['a@x.com', 'b@x.com', 'c@x.com', 'd@x.com'].map(keyHex);

describe('claims', () => {
  it('the first claim of a key wins; a later claimant waits, and looks in the cache once the winner lets go', async () => {
    const first = await join2();
    const second = await join2();
    try {
      expect(first.claim([a!, b!])).toEqual(['send', 'send']);
      expect(second.claim([b!, c!])).toEqual(['wait', 'send']);
      expect(first.claim([c!, d!])).toEqual(['wait', 'send']); // second claimed c first
      first.release([b!]);
      second.poll();
      expect(second.verdict(b!)).toBe('look'); // released: answered (in the cache) or given up (send it)
      expect(second.verdict(c!)).toBe('send');
      // One write a group, one line a key: `<run id>\t<key hash>`, releases with a `-`.
      const lines = (await readFile(join(dir(), `${SCOPE}.claims`), 'latin1')).split('\n').slice(0, -1);
      expect(lines).toEqual([
        `${first.run}\t${a}`,
        `${first.run}\t${b}`,
        `${second.run}\t${b}`,
        `${second.run}\t${c}`,
        `${first.run}\t${c}`,
        `${first.run}\t${d}`,
        `${first.run}\t-${b}`,
      ]);
    } finally {
      first.close();
      second.close();
    }
  });

  it('a run that ends lets go of all its claims; one killed does at once (its process is gone)', async () => {
    const ended = await join2();
    const killed = await join2();
    const waiter = await join2();
    try {
      ended.claim([a!]);
      killed.claim([b!]);
      expect(waiter.claim([a!, b!])).toEqual(['wait', 'wait']);
      ended.close(); // its heartbeat goes
      waiter.poll();
      expect([waiter.verdict(a!), waiter.verdict(b!)]).toEqual(['look', 'wait']);
      // kill -9: the heartbeat stays, fresh, but the process it names is gone (here: one that started at another time).
      await writeFile(heartbeat(killed), markText({ ...selfMark()!, started: '1' }));
      waiter.poll();
      expect(waiter.verdict(b!)).toBe('look');
    } finally {
      for (const r of [ended, killed, waiter]) r.close();
    }
  });

  it('a heartbeat late because the machine is loaded keeps its claims while its process runs; a stopped one loses them after 60 s', async () => {
    const slow = await join2();
    const waiter = await join2();
    try {
      slow.claim([a!]);
      expect(waiter.claim([a!])).toEqual(['wait']);
      await age(heartbeat(slow), 30_000);
      waiter.poll();
      expect(waiter.verdict(a!)).toBe('wait');
      await age(heartbeat(slow), 61_000);
      waiter.poll();
      expect(waiter.verdict(a!)).toBe('look');
    } finally {
      for (const r of [slow, waiter]) r.close();
    }
  });

  it('a run whose process cannot be seen (another pid namespace: a container) is dead once its heartbeat is 10 s old', async () => {
    const far = await join2();
    const waiter = await join2();
    try {
      far.claim([a!]);
      await writeFile(heartbeat(far), markText({ ...selfMark()!, namespace: 'pid:[1]' }));
      expect(waiter.claim([a!])).toEqual(['wait']);
      await age(heartbeat(far), 9_000);
      waiter.poll();
      expect(waiter.verdict(a!)).toBe('wait');
      await age(heartbeat(far), 10_500);
      waiter.poll();
      expect(waiter.verdict(a!)).toBe('look');
    } finally {
      for (const r of [far, waiter]) r.close();
    }
  });

  it('a live heartbeat keeps its claims: touched every second, it is never taken for stale', async () => {
    const holder = await join2();
    const waiter = await join2();
    try {
      holder.claim([a!]);
      waiter.claim([a!]);
      await new Promise((r) => setTimeout(r, 1_200)); // the holder beats meanwhile
      const { mtimeMs } = await import('node:fs').then((fs) => fs.statSync(join(dir(), `${SCOPE}.${holder.run}.run`)));
      expect(Date.now() - mtimeMs).toBeLessThan(1_500);
      waiter.poll();
      expect(waiter.verdict(a!)).toBe('wait');
    } finally {
      holder.close();
      waiter.close();
    }
  });

  it('a run that joins alone skips the claims of runs gone; past 256 KiB it empties the file, never while another run is alive', async () => {
    const path = join(dir(), `${SCOPE}.claims`);
    const first = await join2();
    first.claim([a!]);
    const second = await join2(); // first is alive: its claim counts
    expect(second.claim([a!])).toEqual(['wait']);
    second.close();
    first.close();
    const third = await join2(); // alone: what was claimed before is of runs that are gone
    expect(third.claim([a!])).toEqual(['send']);
    // A big file, a run killed long ago, and a live run: nothing is emptied.
    await writeFile(path, `${'deadbeef0000'}\t${b}\n`.repeat(8000), { flag: 'a' });
    await writeFile(join(dir(), `${SCOPE}.deadbeef0000.run`), '');
    const old = (Date.now() - 60_000) / 1000;
    await utimes(join(dir(), `${SCOPE}.deadbeef0000.run`), old, old);
    const size = (await readFile(path)).length;
    const fourth = await join2();
    expect((await readFile(path)).length).toBe(size);
    expect(fourth.claim([a!])).toEqual(['wait']); // third's claim, before it
    third.close();
    fourth.close();
    // Alone, with the file past 256 KiB: emptied, and the dead run's heartbeat goes.
    const fifth = await join2();
    try {
      expect(await readFile(path, 'latin1')).toBe('');
      expect((await readdir(dir())).filter((n) => n.endsWith('.run'))).toEqual([`${SCOPE}.${fifth.run}.run`]);
      expect(fifth.claim([a!, b!])).toEqual(['send', 'send']);
    } finally {
      fifth.close();
    }
  });

  it('a run taken for dead (its heartbeat removed) stops counting on its claims: it sends what it has', async () => {
    const run = await join2();
    const other = await join2();
    try {
      other.claim([a!]);
      expect(run.claim([a!])).toEqual(['wait']);
      await rm(join(dir(), `${SCOPE}.${run.run}.run`));
      await new Promise((r) => setTimeout(r, 1_100)); // its next beat notices
      expect(run.lost).toBe(true);
      expect(run.verdict(a!)).toBe('send');
    } finally {
      run.close();
      other.close();
    }
  });

  it('damaged lines are skipped; a claims file that is a link is never opened (the run then takes no claims)', async () => {
    const path = join(dir(), `${SCOPE}.claims`);
    const holder = await join2();
    holder.claim([a!]);
    await writeFile(path, `garbage\n${'f'.repeat(12)}\tnothex${'0'.repeat(18)}\n${holder.run}\t${b}\n`, { flag: 'a' });
    const other = await join2();
    expect(other.claim([a!, b!, c!])).toEqual(['wait', 'wait', 'send']);
    other.close();
    holder.close();
    await rm(path);
    const victim = join(dir(), 'victim');
    await writeFile(victim, 'mine\n');
    await symlink(victim, path);
    expect(await Claims.join(dir(), SCOPE)).toBeNull();
    expect(await readFile(victim, 'utf8')).toBe('mine\n');
  });
});
