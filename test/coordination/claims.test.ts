// The claims rule between runs of one machine: the first claim of a key, in file order, by a run still
// alive, wins; a release or the end (or death) of the winner lets the next one go on; the claims file is
// followed by a next generation holding what live runs still hold (never truncated nor renamed over), so that it
// stays small while runs go on; it is never opened through a link.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { statSync } from 'node:fs';
import fc from 'fast-check';
import { readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Claims, keyHex, type ClaimsOptions } from '../../src/coordination/claims.js';
import { markText, selfMark } from '../../src/system/process-mark.js';
import { folderPerTest } from '../cache/helpers.js';
import { onlyOn } from '../platforms.js';

const dir = folderPerTest('idv-claims-');
const SCOPE = '0123456789abcdef';
// The runs' clock is the test's: it moves only when a test moves it, and each beat (an interval, on fake
// timers) only when the test moves the timers; so no heartbeat is ever late because the machine is busy.
let clock = 0;
beforeEach(() => {
  clock = Date.now();
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
});
afterEach(() => void vi.useRealTimers());
const join2 = async (o: ClaimsOptions = {}) => (await Claims.join(dir(), SCOPE, { now: () => clock, ...o }))!;
/** The claims files in the folder (every generation), sorted. */
const claimFiles = async () => (await readdir(dir())).filter((n) => /\.claims(\.\d+)?$/.test(n)).sort();
/** What a run past its limit does first: seal the file (its next generation then follows). */
const sealNow = (run: Claims) => (run as unknown as { nextGeneration(): boolean }).nextGeneration();
const heartbeat = (run: Claims) => join(dir(), `${SCOPE}.${run.run}.run`);
/** Make a heartbeat look last touched `ms` ago. */
const age = async (path: string, ms: number) => {
  const then = (clock - ms) / 1000;
  await utimes(path, then, then);
};
const [a, b, c, d] = ['a@x.com', 'b@x.com', 'c@x.com', 'd@x.com'].map(keyHex);

describe('claims', () => {
  it('the first claim of a key wins; a later claimant waits, and looks in the cache once the winner lets go', async () => {
    const first = await join2();
    const second = await join2();
    try {
      expect(first.claim([a!, b!])).toEqual(['send', 'send']);
      expect(second.claim([b!, c!])).toEqual(['wait', 'look']); // c: no run holds it, but another run is about: the cache first
      expect(first.claim([c!, d!])).toEqual(['wait', 'look']); // second claimed c first
      first.release([b!]);
      second.poll();
      expect(second.verdict(b!)).toBe('look'); // released: answered (in the cache) or given up (send it)
      expect(second.verdict(c!)).toBe('look');
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
      for (let second = 0; second < 90; second++) {
        clock += 1000;
        vi.advanceTimersByTime(1000);
      }
      expect(Math.round(statSync(heartbeat(holder)).mtimeMs)).toBe(clock); // touched at the last beat
      waiter.poll();
      expect(waiter.verdict(a!)).toBe('wait'); // untouched, 90 s would be stale even for a process seen running
    } finally {
      holder.close();
      waiter.close();
    }
  });

  it('a run that joins alone starts the next generation: the claims of runs gone no longer count, and are not read', async () => {
    const first = await join2();
    first.claim([a!]);
    const second = await join2(); // first is alive: its claim counts
    expect(second.claim([a!])).toEqual(['wait']);
    second.close();
    first.close();
    // A big file of a run killed long ago: a run joining alone reads none of it.
    await writeFile(join(dir(), `${SCOPE}.claims`), `${'deadbeef0000'}\t${b}\n`.repeat(8000), { flag: 'a' });
    const third = await join2();
    try {
      expect(third.bytesRead).toBeLessThan(100);
      expect(third.claim([a!, b!])).toEqual(['send', 'send']);
      expect(third.generation).toBe(1);
      expect(await claimFiles()).toEqual([`${SCOPE}.claims.1`]); // the sealed one is removed
      expect(await readFile(join(dir(), `${SCOPE}.claims.1`), 'latin1')).toBe(`#idv-claims 0\n${third.run}\t${a}\n${third.run}\t${b}\n`);
    } finally {
      third.close();
    }
  });

  it('past its limit a generation is sealed and followed by the next, holding what live runs still hold, in order; never truncated', async () => {
    const holder = await join2({ growth: 1024 });
    const other = await join2({ growth: 1024 });
    try {
      holder.claim([a!, b!]);
      expect(other.claim([b!, c!])).toEqual(['wait', 'look']);
      holder.release([a!]);
      // A dead run's claims and many settled ones: the file passes its 1 KiB limit.
      await writeFile(join(dir(), `${SCOPE}.claims`), `deadbeef0000\t${d}\n`.repeat(10), { flag: 'a' });
      await writeFile(join(dir(), `${SCOPE}.deadbeef0000.run`), '');
      await age(join(dir(), `${SCOPE}.deadbeef0000.run`), 60_000);
      const sealed = join(dir(), `${SCOPE}.claims`);
      for (let i = 0; other.generation === 0 && i < 50; i++) {
        const keys = Array.from({ length: 5 }, (_, j) => keyHex(`k${i}-${j}@x.com`));
        other.claim(keys);
        other.release(keys);
      }
      expect(other.generation).toBe(1);
      const sealedText = await readFile(sealed, 'latin1').catch(() => null);
      expect(sealedText).toBeNull(); // removed once the next was in place
      // The next one: the claims still held, in their order (b by holder before other's b, then c); released and dead ones gone.
      expect(await readFile(join(dir(), `${SCOPE}.claims.1`), 'latin1')).toMatch(
        new RegExp(`^#idv-claims \\d+\n${holder.run}\t${b}\n${other.run}\t${b}\n${other.run}\t${c}\n`),
      );
      expect(await readdir(dir())).not.toContain(`${SCOPE}.deadbeef0000.run`);
      // The holder learns of the move at its next look, and keeps its place: other still waits for b.
      holder.poll();
      expect(holder.generation).toBe(1);
      expect(holder.claim([d!])).toEqual(['look']);
      other.poll();
      expect(other.verdict(b!)).toBe('wait');
      holder.release([b!]);
      other.poll();
      expect(other.verdict(b!)).toBe('look');
    } finally {
      holder.close();
      other.close();
    }
  });

  it('claims made after another run sealed the file are made again in the next generation, after what was copied', async () => {
    const early = await join2();
    const late = await join2();
    try {
      early.claim([a!]);
      late.poll(); // late has read up to here
      // early seals (as a run past the limit does) while late has not read it yet; late then claims a and b.
      sealNow(early);
      expect(late.claim([a!, b!])).toEqual(['wait', 'look']); // a: early's claim was copied ahead of late's new one
      expect(late.generation).toBe(1);
      early.poll();
      expect(early.claim([b!])).toEqual(['wait']);
    } finally {
      early.close();
      late.close();
    }
  });

  it('an item another run answered and let go before a seal is looked up in the cache by a run that claims it after, not sent', async () => {
    const answered = await join2();
    const later = await join2();
    try {
      later.claim([a!]); // a run at work: its plan was made before the other run's answer came
      answered.claim([b!]);
      answered.release([b!]); // answered (in the cache), and let go
      sealNow(answered); // the next generation holds only what is still claimed: b is forgotten there
      later.poll();
      expect(later.generation).toBe(1);
      expect(later.claim([b!])).toEqual(['look']);
    } finally {
      answered.close();
      later.close();
    }
  });

  it('a seal whose next generation never came (its run died in between) is finished by the next run that reads it', async () => {
    const waiter = await join2();
    const path = join(dir(), `${SCOPE}.claims`);
    try {
      waiter.claim([a!]);
      await writeFile(path, '\n#seal\n', { flag: 'a' }); // a run died right after sealing
      waiter.poll();
      expect(waiter.generation).toBe(1);
      expect(await readFile(join(dir(), `${SCOPE}.claims.1`), 'latin1')).toBe(`#idv-claims 38\n${waiter.run}\t${a}\n`);
      const other = await join2();
      expect(other.claim([a!])).toEqual(['wait']);
      other.close();
    } finally {
      waiter.close();
    }
  });

  it('a live run that claims and settles item after item keeps the claims small: a one-item run joining it reads a bounded part', async () => {
    const live = await join2(); // `tail -f signups.log | idv emails`: it never ends
    const waiting = await join2(); // another long run, still holding a few
    try {
      waiting.claim([a!, b!]);
      for (let i = 0; i < 300; i++) {
        const keys = Array.from({ length: 100 }, (_, j) => keyHex(`user${i}-${j}@example.com`));
        live.claim(keys);
        live.release(keys);
      }
      // 30,000 claims and releases written: 2.3 MB without generations.
      const bytes = (await claimFiles()).length && (await Promise.all((await claimFiles()).map((n) => stat(join(dir(), n))))).reduce((t, s) => t + s.size, 0);
      expect(bytes).toBeLessThan(256 * 1024 + 4096);
      const one = await join2();
      expect(one.bytesRead).toBeLessThan(256 * 1024 + 4096);
      expect(one.claim([a!, c!])).toEqual(['wait', 'look']);
      one.close();
    } finally {
      live.close();
      waiting.close();
    }
  });

  it('a run taken for dead (its heartbeat removed) stops counting on its claims: it sends what it has', async () => {
    const run = await join2();
    const other = await join2();
    try {
      other.claim([a!]);
      expect(run.claim([a!])).toEqual(['wait']);
      await rm(join(dir(), `${SCOPE}.${run.run}.run`));
      vi.advanceTimersByTime(1000); // its next beat notices
      expect(run.lost).toBe(true);
      expect(run.verdict(a!)).toBe('send');
    } finally {
      run.close();
      other.close();
    }
  });

  onlyOn('symlinks').it('damaged lines are skipped; a claims file that is a link is never opened (the run then takes no claims)', async () => {
    const path = join(dir(), `${SCOPE}.claims`);
    const holder = await join2();
    holder.claim([a!]);
    await writeFile(path, `garbage\n${'f'.repeat(12)}\tnothex${'0'.repeat(18)}\n${holder.run}\t${b}\n`, { flag: 'a' });
    const other = await join2();
    expect(other.claim([a!, b!, c!])).toEqual(['wait', 'wait', 'look']);
    other.close();
    holder.close();
    await rm(path);
    const victim = join(dir(), 'victim');
    await writeFile(victim, 'mine\n');
    await symlink(victim, path);
    expect(await Claims.join(dir(), SCOPE)).toBeNull();
    expect(await readFile(victim, 'utf8')).toBe('mine\n');
  });

  it('whatever runs claim and release, and however often the file is sealed, no two runs holding an item both go for it', async () => {
    const KEYS = Array.from({ length: 6 }, (_, i) => keyHex(`k${i}@x.com`));
    const step = fc.record({ run: fc.integer({ min: 0, max: 2 }), what: fc.constantFrom('claim', 'release', 'poll'), keys: fc.subarray(KEYS, { minLength: 1 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        for (const name of await readdir(dir())) await rm(join(dir(), name), { force: true });
        const runs = [await join2({ growth: 300 }), await join2({ growth: 300 }), await join2({ growth: 300 })]; // a seal every few groups
        const held = runs.map(() => new Set<string>());
        const went = runs.map(() => new Set<string>()); // went for it: sent, or looked in the cache and sent (the gate never takes that back)
        try {
          for (const { run, what, keys } of steps) {
            const r = runs[run]!;
            if (what === 'claim') {
              const fresh = keys.filter((k) => !held[run]!.has(k));
              r.claim(fresh);
              for (const k of fresh) held[run]!.add(k);
            } else if (what === 'release') {
              r.release(keys.filter((k) => held[run]!.has(k)));
              for (const k of keys) held[run]!.delete(k), went[run]!.delete(k);
            } else r.poll();
            for (const x of runs) x.poll();
            // Among the runs holding an item, at most one has gone for it (sent it, or looked in the cache to send it).
            for (const k of KEYS) {
              runs.forEach((x, i) => held[i]!.has(k) && !x.lost && x.verdict(k) !== 'wait' && went[i]!.add(k));
              const going = runs.filter((_, i) => went[i]!.has(k));
              expect(going.length, `${k} after ${what} by run ${run}`).toBeLessThanOrEqual(1);
            }
          }
        } finally {
          for (const r of runs) r.close();
        }
      }),
      { seed: 37, numRuns: 150 },
    );
  });
});
