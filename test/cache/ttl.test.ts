// `--cache-ttl` by status (issue 12.4), as a user runs it: a stale `ok` is validated again, a fresh
// `disposable` is not; a name that is no status draws a warning. (Malformed values: test/trust-audit.test.ts.)
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeHome, sandbox, sentItems, type Home } from '../helpers.js';
import { run } from '../fake-io.js';
import { cacheDir, openScope } from '../../src/cache/store.js';

let home: Home;
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  await home.cleanup();
});

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

  it('a name that is no known status nor a slip of one draws a warning (the service may add it), and the run goes on', async () => {
    const r = await run(['emails', '-', '--sandbox', '-q', '--cache-ttl', 'spamtrap=180d,7d'], { input: 'a@example.com\n' });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('--cache-ttl names "spamtrap", not a status the cache keeps');
    expect(r.stdout).toBe('email,status\na@example.com,ok\n');
  });
});
