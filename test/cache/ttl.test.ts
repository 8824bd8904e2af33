// --cache-ttl (src/cache/ttl.ts): a default and durations by status, as a user runs it: a stale `ok` is validated
// again, a fresh `disposable` is not; compaction keeps what is fresh by its own status; a name that is no status
// draws a warning; what cannot be read is refused.
import { describe, expect, it } from 'vitest';
import { appendFile, writeFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sandbox, sentItems, sentBatches, homeForEachTest } from '../helpers.js';
import { run } from '../fake-io.js';
import { cacheDir, openScope } from '../../src/cache/store.js';
import { parseCacheTtl, ttlOf } from '../../src/cache/ttl.js';

const home = homeForEachTest();
const list = home.list;

const DAY = 86400;

describe('--cache-ttl by status', () => {
  it('a stale ok is sent again, a fresh disposable is not; the bare value is the default for the rest', async () => {
    const { sb, env } = await sandbox({ quota: 0 }, home);
    try {
      const scope = openScope(cacheDir(env), sb.url, '/emails/validate', DAY);
      (await scope.load()).results.close(); // creates the log
      const t = Math.floor(Date.now() / 1000);
      // What earlier runs wrote: an ok and a disposable 100 days ago, a fake 10 days ago, another 5 days ago.
      await appendFile(
        scope.path,
        [`${t - 100 * DAY}\tok\tann@example.com`, `${t - 100 * DAY}\tdisposable\tbob@mailinator.com`, `${t - 10 * DAY}\tfake\tcid@fake.com`, `${t - 5 * DAY}\tfake\tdan@fake.com`]
          .map((l) => l + '\n')
          .join(''),
      );
      const file = join(home.dir, 'list.txt');
      await writeFile(file, 'ann@example.com\nbob@mailinator.com\ncid@fake.com\ndan@fake.com\n');
      const r = await run(['emails', file, '-q', '--cache-ttl', 'ok=90d, disposable=180d, 7d'], { env });
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\nann@example.com,ok\nbob@mailinator.com,disposable\ncid@fake.com,fake\ndan@fake.com,fake\n');
      // ok at 100 days is past 90d; fake at 10 days is past the default 7d; the disposable and the 5-day fake are fresh.
      expect(sentItems(sb)).toEqual(['ann@example.com', 'cid@fake.com']);

      // With one TTL for all (the default 7d), the 100-day disposable is stale too; the answers just given are fresh.
      const again = await run(['emails', file, '-q'], { env });
      expect(again.exitCode).toBe(0);
      expect(sentItems(sb)).toEqual(['ann@example.com', 'cid@fake.com', 'bob@mailinator.com']);
    } finally {
      await sb.close();
    }
  });

  it('a name that is no known status is refused unless marked as one the service may add (new:NAME), which passes quietly', async () => {
    const refused = await run(['emails', '-', '--sandbox', '-q', '--cache-ttl', 'spamtrap=180d,7d'], { input: 'a@example.com\n' });
    expect(refused.stderr).toBe(
      'idv: --cache-ttl "spamtrap" is no status idv knows (ok, alias, disposable, fake, quota_exceeded, invalid, error); one the service may add is written new:spamtrap\n',
    );
    expect(refused.exitCode).toBe(2);
    const r = await run(['emails', '-', '--sandbox', '-q', '--cache-ttl', 'New:Spamtrap=180d,7d'], { input: 'a@example.com\n' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('email,status\na@example.com,ok\n');
    expect(r.exitCode).toBe(0);
  });
});

describe('--cache-ttl by status: durations, compaction, what is refused', () => {
  it('a stale ok is sent again, a fresh disposable is not (ok=1d,disposable=180d,7d)', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      // Results cached 10 days ago and 2 hours ago, as earlier runs would have left them.
      const at = (secondsAgo: number) => () => Date.now() - secondsAgo * 1000;
      const old = openScope(cacheDir(env), sb.url, '/emails/validate', 365 * DAY, at(10 * DAY));
      (await old.load()).results.close();
      old.append([
        ['stale-ok@example.com', 'ok'],
        ['kept@mailinator.com', 'disposable'],
        ['old@fake.com', 'fake'],
      ]);
      openScope(cacheDir(env), sb.url, '/emails/validate', 365 * DAY, at(7200)).append([['fresh-ok@example.com', 'ok']]);
      const file = await list(['stale-ok@example.com', 'kept@mailinator.com', 'old@fake.com', 'fresh-ok@example.com']);

      const r = await run(['emails', file, '-q', '--cache-ttl', 'ok=1d,disposable=180d,7d'], { env });
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\nstale-ok@example.com,ok\nkept@mailinator.com,disposable\nold@fake.com,fake\nfresh-ok@example.com,ok\n');
      // ok (1 day) and fake (the bare 7d) are 10 days old: sent again; disposable (180 days) and the 2-hour-old ok are free.
      expect(sentBatches(sb)).toEqual([['stale-ok@example.com', 'old@fake.com']]);

      // A dry run counts the same way: what was just answered is fresh now, nothing is left to pay.
      const dry = await run(['emails', file, '--dry-run', '-f', 'json', '--cache-ttl', 'ok=1d,disposable=180d,7d'], { env });
      expect(JSON.parse(dry.stdout)).toMatchObject({ records: 4, unique: 4, invalid: 0, cached: 4, quota: 0 });
    } finally {
      await sb.close();
    }
  });

  it('compaction keeps what is fresh by its own status: a 10-day-old disposable survives beside 12,000 expired ok', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const old = openScope(cacheDir(env), sb.url, '/emails/validate', 365 * DAY, () => Date.now() - 10 * DAY * 1000);
      (await old.load()).results.close();
      old.append([...Array.from({ length: 12_000 }, (_, i): [string, string] => [`gone${i}@example.com`, 'ok']), ['kept@mailinator.com', 'disposable']]);
      const file = await list(['kept@mailinator.com']);
      const ttl = ['--cache-ttl', 'disposable=180d,7d'];
      const first = await run(['emails', file, '-q', ...ttl], { env });
      expect(first.stdout).toBe('email,status\nkept@mailinator.com,disposable\n');
      const log = await readFile(old.path, 'utf8');
      expect(log.split('\n').length).toBeLessThan(10); // compacted: the expired ok lines are gone
      expect(log).toContain('\tdisposable\tkept@mailinator.com\n');
      const second = await run(['emails', file, '-q', ...ttl], { env });
      expect(second.stdout).toBe('email,status\nkept@mailinator.com,disposable\n');
      expect(sentBatches(sb)).toEqual([]);
    } finally {
      await sb.close();
    }
  });

  it('parses a default and durations by status; refuses what it cannot read (exit 2, one line)', async () => {
    const seven = 7 * DAY;
    const t = parseCacheTtl('ok=90d, Disposable=180d,12h');
    expect([ttlOf(t, 'ok'), ttlOf(t, 'disposable'), ttlOf(t, 'fake'), ttlOf(t, 'risky')]).toEqual([90 * DAY, 180 * DAY, 12 * 3600, 12 * 3600]);
    expect(ttlOf(parseCacheTtl('ok=90d'), 'fake')).toBe(seven); // no bare value: the default 7d
    expect(ttlOf(parseCacheTtl('30d'), 'ok')).toBe(30 * DAY);
    for (const [flag, says] of [
      ['ok=90d,ok=1d', 'idv: --cache-ttl names ok twice.'],
      ['7d,30d', 'idv: --cache-ttl "7d,30d" gives the default duration twice; give it once, beside status=duration pairs.'],
      ['ok=90d,,7d', 'idv: --cache-ttl takes durations separated by commas, like ok=90d,disposable=180d,7d, not "ok=90d,,7d".'],
      ['ok=', 'idv: --cache-ttl takes a duration like 90s, 30m, 2h or 7d, not "".'],
      ['o k=1d', 'idv: --cache-ttl: "o k" is not a status name; write status=duration, like ok=90d.'],
      ['ok=soon', 'idv: --cache-ttl takes a duration like 90s, 30m, 2h or 7d, not "soon".'],
    ]) {
      const r = await run(['emails', '--sandbox', '--cache-ttl', flag!], { input: 'a@example.com\n' });
      expect(r.stderr, flag).toBe(says + '\n');
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
    }
  });

  it('a status of idv\'s own, which the cache never keeps, draws a warning (the duration would do nothing)', async () => {
    const r = await run(['emails', '--sandbox', '-q', '--cache-ttl', 'new:spamtrap=180d,error=1d,7d'], { input: 'a@example.com\n' });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(
      'idv: warning: --cache-ttl names "error", not a status the cache keeps (it keeps: ok, alias, disposable, fake, and any new status the service gives).\n',
    );
  });
});
