// A nightly job that resumes: the cache and --no-cache, --cache-ttl, two runs at once sharing the cache, a damaged
// cache log, idv cache stats/clear, and a rerun after kill -9 that sends nothing the first run saw answered. Runs are
// in this process; the built program is spawned where a process matters (kill -9, two runs at once).
import { describe, it, expect, vi } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixture, idv, makeHome, sandbox, sentItems } from '../helpers.js';
import { hygiene, runChecked, runProcess, items, listOf, csv, setup, since, until, spawnIdv, cacheLogs, FAST } from './checked-run.js';

// --- cache and resume ----------------------------------------------------------------------------

describe.concurrent('cache and resume', () => {
  it('quota 10 over 25 → exit 4; refill; rerun sends exactly the 15 left; third run sends nothing', async ({ onTestFinished }) => {
    const xs = items(25);
    const { sb, env, file } = await setup(onTestFinished, { quota: 10 }, xs);
    const args = ['emails', file, '--batch-size', '5', '--concurrency', '1', '--retries', '2'];

    const r1 = await runChecked(args, env);
    expect(r1.exitCode, String(r1.stderr)).toBe(4);
    expect(r1.stdout).toBe(csv(xs.map(([e, s], i) => [e, i < 10 ? s : 'quota_exceeded'])));
    expect(sentItems(sb)).toEqual(xs.slice(0, 10).map(([e]) => e));
    expect(r1.stderr).toMatch(/resets in/i);

    sb.setRemaining(100); // a refill of quota 10 would not cover the 15 left
    const n1 = sb.requests.length;
    const r2 = await runChecked(args, env);
    expect(r2.exitCode, String(r2.stderr)).toBe(0);
    expect(r2.stdout).toBe(csv(xs));
    expect(since(sb, n1).flatMap((r) => r.items ?? [])).toEqual(xs.slice(10).map(([e]) => e));

    const n2 = sb.requests.length;
    const r3 = await runChecked(args, env);
    expect(r3.exitCode, String(r3.stderr)).toBe(0);
    expect(r3.stdout).toBe(csv(xs));
    expect(sb.requests.length - n2).toBe(0);
    expect(r3.stderr).toMatch(/\b25\b[^\n]*from the cache/i);
  });

  it('--no-cache neither reads nor writes the cache', async ({ onTestFinished }) => {
    const xs = items(12);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    const r0 = await runChecked(['emails', file, '--no-cache', ...FAST], env);
    expect(r0.exitCode, String(r0.stderr)).toBe(0);
    expect(r0.stdout).toBe(csv(xs));
    const stats0 = await runChecked(['cache', 'stats'], home.env);
    expect(stats0.exitCode, String(stats0.stderr)).toBe(0);
    expect(stats0.stdout).toMatch(/entries\D{0,12}\b0\b/i);

    const r1 = await runChecked(['emails', file, ...FAST], env); // fills the cache: all 12 sent
    expect(r1.exitCode, String(r1.stderr)).toBe(0);
    const n1 = sb.requests.length;
    expect(sentItems(sb)).toHaveLength(24);

    const r2 = await runChecked(['emails', file, '--no-cache', ...FAST], env);
    expect(r2.exitCode, String(r2.stderr)).toBe(0);
    expect(r2.stdout).toBe(csv(xs));
    expect(since(sb, n1).flatMap((r) => r.items ?? [])).toEqual(xs.map(([e]) => e));
  });

  it('the cache is keyed by base URL and normalised item; --dry-run counts cached items', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file, home } = await setup(onTestFinished, { quota: 10 }, xs);
    const r1 = await runChecked(['emails', file, ...FAST], env);
    expect(r1.exitCode, String(r1.stderr)).toBe(0);
    // the same addresses with the domain part upper-cased: cached (normalised key), output keeps the input
    const upper = xs.map(([e, st]): [string, string] => [e.replace(/@(.*)$/, (_m, d: string) => '@' + d.toUpperCase()), st]);
    const fu = join(home.dir, 'upper.txt');
    await writeFile(fu, listOf(upper));
    const dry = await runChecked(['emails', fu, '--dry-run', '--format', 'json'], env);
    expect(dry.exitCode, String(dry.stderr)).toBe(0);
    expect(JSON.parse(String(dry.stdout))).toMatchObject({ records: 10, unique: 10, invalid: 0, cached: 10, quota: 0 });
    const n = sb.requests.length;
    const r2 = await runChecked(['emails', fu, ...FAST], env);
    expect(r2.exitCode, String(r2.stderr)).toBe(0);
    expect(r2.stdout).toBe(csv(upper));
    expect(sb.requests.length - n).toBe(0);

    // another service (base URL) does not share these results
    const other = await sandbox({}, home);
    onTestFinished(() => other.sb.close());
    const r3 = await runChecked(['emails', file, ...FAST], other.env);
    expect(r3.exitCode, String(r3.stderr)).toBe(0);
    expect(sentItems(other.sb)).toEqual(xs.map(([e]) => e));
  });

  it('--cache-ttl 0s counts nothing as fresh', async ({ onTestFinished }) => {
    const xs = items(5);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    const r1 = await runChecked(['emails', file, ...FAST], env);
    expect(r1.exitCode, String(r1.stderr)).toBe(0);
    // Entries written a moment ago (here: stamped with the current second, as a run that just finished
    // writes them) must not count as fresh with a TTL of 0.
    const [log] = await cacheLogs(home);
    const sec = Math.floor(Date.now() / 1000) + 1;
    await writeFile(log!, (await readFile(log!, 'utf8')).replace(/^\d+\t/gm, `${sec}\t`));
    // The runs' clock stopped within the second the entries are stamped with: at its start and at its end.
    for (const ms of [0, 999]) {
      vi.useFakeTimers({ toFake: ['Date'], now: sec * 1000 + ms });
      try {
        const n = sb.requests.length;
        const r2 = await runChecked(['emails', file, '--cache-ttl', '0s', ...FAST], env);
        expect(r2.exitCode, String(r2.stderr)).toBe(0);
        expect(r2.stdout).toBe(csv(xs));
        expect(since(sb, n).flatMap((q) => q.items ?? []), `a run ${ms} ms into the entries' second, --cache-ttl 0s`).toEqual(xs.map(([e]) => e));
      } finally {
        vi.useRealTimers();
      }
      await writeFile(log!, (await readFile(log!, 'utf8')).replace(/^\d+\t/gm, `${sec}\t`)); // the run wrote its answers anew
    }
  });

  it('--cache-ttl makes older entries stale', async ({ onTestFinished }) => {
    const xs = items(6);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    expect((await runChecked(['emails', file, ...FAST], env)).exitCode).toBe(0);
    // The entries made 5 s older (rather than sleeping until they are): stale for 1s, fresh for 1h.
    const [log] = await cacheLogs(home);
    const stamped = Math.floor(Date.now() / 1000) - 5;
    await writeFile(log!, (await readFile(log!, 'utf8')).replace(/^\d+\t/gm, `${stamped}\t`));
    let n = sb.requests.length;
    const fresh = await runChecked(['emails', file, '--cache-ttl', '1h', ...FAST], env);
    expect(fresh.stdout).toBe(csv(xs));
    expect(sb.requests.length - n).toBe(0);
    n = sb.requests.length;
    const stale = await runChecked(['emails', file, '--cache-ttl', '1s', ...FAST], env);
    expect(stale.exitCode, String(stale.stderr)).toBe(0);
    expect(stale.stdout).toBe(csv(xs));
    expect(since(sb, n).flatMap((r) => r.items ?? [])).toEqual(xs.map(([e]) => e));
  });

  it('two runs at once on overlapping lists share the cache safely; a third run sends nothing', async ({ onTestFinished }) => {
    const all = items(45);
    const a = all.slice(0, 30);
    const b = all.slice(15);
    const { sb, env, home } = await setup(onTestFinished, { delayMs: 30 }, all);
    const fa = join(home.dir, 'a.txt');
    const fb = join(home.dir, 'b.txt');
    const fall = join(home.dir, 'all.txt');
    await writeFile(fa, listOf(a));
    await writeFile(fb, listOf(b));
    await writeFile(fall, listOf(all));
    const opts = ['--batch-size', '3', '--concurrency', '2', '--retries', '2'];
    // Two processes, as two cron jobs would be: the cache is shared through the file system only.
    const [ra, rb] = await Promise.all([runProcess(['emails', fa, ...opts], env), runProcess(['emails', fb, ...opts], env)]);
    expect(ra.exitCode, String(ra.stderr)).toBe(0);
    expect(rb.exitCode, String(rb.stderr)).toBe(0);
    expect(ra.stdout).toBe(csv(a));
    expect(rb.stdout).toBe(csv(b));
    const n = sb.requests.length;
    const r3 = await runChecked(['emails', fall, ...opts], env);
    expect(r3.exitCode, String(r3.stderr)).toBe(0);
    expect(r3.stdout).toBe(csv(all));
    expect(sb.requests.length - n).toBe(0);
    expect(r3.stderr).not.toMatch(/warning|damaged/i);
  });

  it('a torn and a garbage line in the cache log → warning, correct output, only the lost item re-sent', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    expect((await runChecked(['emails', file, ...FAST], env)).exitCode).toBe(0);
    const [log] = await cacheLogs(home);
    expect(log).toBeDefined();
    const text = await readFile(log!, 'utf8');
    const lines = text.split('\n').filter(Boolean);
    const lastKey = lines[lines.length - 1]!.split('\t').pop()!;
    expect(xs.map(([e]) => e)).toContain(lastKey);
    // garbage line in the middle, last line torn (no newline, cut short)
    const body = lines.slice(0, -1);
    body.splice(2, 0, 'garbage \u0000\u00ff line with no tabs');
    await writeFile(log!, body.join('\n') + '\n' + lines[lines.length - 1]!.slice(0, -4));

    const n = sb.requests.length;
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(r.stderr).toMatch(/warning/i);
    expect(since(sb, n).flatMap((q) => q.items ?? [])).toEqual([lastKey]);

    const n2 = sb.requests.length;
    const again = await runChecked(['emails', file, ...FAST], env);
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect(again.stdout).toBe(csv(xs));
    expect(again.stderr).not.toMatch(/warning/i);
    expect(sb.requests.length - n2).toBe(0);
  });

  it('a cache log that is binary garbage → warning, everything re-sent, no crash', async ({ onTestFinished }) => {
    const xs = items(8);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    expect((await runChecked(['emails', file, ...FAST], env)).exitCode).toBe(0);
    const [log] = await cacheLogs(home);
    await writeFile(log!, await readFile(fixture('broken/binary.bin')));
    const n = sb.requests.length;
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(r.stderr).toMatch(/warning/i);
    expect(since(sb, n).flatMap((q) => q.items ?? [])).toEqual(xs.map(([e]) => e));
  });

  it('idv cache stats shows entries and path; idv cache clear empties it', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file, home } = await setup(onTestFinished, {}, xs);
    expect((await runChecked(['emails', file, ...FAST], env)).exitCode).toBe(0);
    const dir = join(home.env.XDG_CACHE_HOME!, 'idv');
    const s1 = await runChecked(['cache', 'stats'], home.env);
    expect(s1.exitCode, String(s1.stderr)).toBe(0);
    expect(s1.stdout).toContain(dir);
    expect(s1.stdout).toMatch(/entries\D{0,12}\b10\b/i);

    const c = await runChecked(['cache', 'clear', '--yes'], home.env);
    expect(c.exitCode, String(c.stderr)).toBe(0);
    const s2 = await runChecked(['cache', 'stats'], home.env);
    expect(s2.stdout).toMatch(/entries\D{0,12}\b0\b/i);

    const n = sb.requests.length;
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(since(sb, n).flatMap((q) => q.items ?? [])).toEqual(xs.map(([e]) => e));
  });

  it('--sandbox runs never create the cache folder', async ({ onTestFinished }) => {
    const home = await makeHome();
    onTestFinished(() => home.cleanup());
    const r = await runChecked(['emails', fixture('emails.txt'), '--sandbox'], home.env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(existsSync(home.env.XDG_CACHE_HOME!)).toBe(false);
    expect(existsSync(join(home.dir, '.cache'))).toBe(false);
  });
});

// --- SIGKILL mid-run ------------------------------------------------------------------------------

describe.concurrent('kill -9 and resume', () => {
  it('a rerun after SIGKILL sends no item the first run saw answered', async ({ onTestFinished }) => {
    const xs = items(40);
    const { sb, env, file } = await setup(onTestFinished, {}, xs);
    const release = sb.hold(2); // two answers; the third request is held, in flight when the process is killed
    const proc = spawnIdv(['emails', file, '--batch-size', '5', '--concurrency', '1', '--retries', '2'], env);
    const { p } = proc;
    await until(() => sb.requests.filter((r) => r.status === 200).length >= 2 && sb.requests.length >= 3, 20_000, 'two answers', proc);
    // Kill once the client has stored what the server answered so far (a fixed sleep is not enough on a busy
    // machine): the next request is then in flight, its answer lost with the process.
    const answered = new Set(sb.requests.filter((r) => r.status === 200).flatMap((r) => r.items ?? []));
    const logged = () => {
      const dir = join(env.XDG_CACHE_HOME!, 'idv');
      const log = readdirSync(dir).find((n) => n.endsWith('.log'));
      const text = log ? readFileSync(join(dir, log), 'utf8') : '';
      return [...answered].every((e) => text.includes(`\t${e}\n`));
    };
    await until(logged, 20_000, 'the answers in the cache', proc);
    p.kill('SIGKILL');
    const r1 = await p;
    release(); // the rerun's requests are answered
    hygiene(r1);
    expect(r1.signal).toBe('SIGKILL');
    expect(answered.size).toBeGreaterThanOrEqual(10);
    expect(answered.size).toBeLessThan(40);

    const n = sb.requests.length;
    const r2 = await runChecked(['emails', file, '--batch-size', '5', '--concurrency', '1', '--retries', '2'], env);
    expect(r2.exitCode, String(r2.stderr)).toBe(0);
    expect(r2.stdout).toBe(csv(xs));
    const resent = since(sb, n).flatMap((q) => q.items ?? []).filter((e) => answered.has(e));
    expect(resent).toEqual([]);
  });
});
