// Two idv processes validating the same list against the same service at once (an hourly cron job that
// overran): what one of them is validating, the other waits for instead of paying for it again.
import { describe, expect, it } from 'vitest';
import { readdir, readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { Claims, keyHex } from '../../src/coordination/claims.js';
import { cacheDir, openScope } from '../../src/cache/store.js';
import { run } from '../fake-io.js';
import { idv, sandbox, sentBatches, sentItems, writeList, homeForEachTest } from '../helpers.js';

const home = homeForEachTest();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const list = (n: number) => Array.from({ length: n }, (_, i) => `user${i}@example.com`);

describe('overlapping runs', () => {
  it('the same 3,000-item list run twice, the second started while the first is at work: 3,000 items sent in all', async () => {
    const { sb, env } = await sandbox({ quota: 0 }, home);
    // The service holds its answers until the second run has met the first's claims: the first is still at work.
    const release = sb.hold();
    try {
      const file = await writeList(home, list(3000));
      const args = (out: string) => ['emails', file, '-o', join(home.dir, out), '--concurrency', '2'];
      const first = idv(args('first.csv'), { env });
      await until(() => sb.requests.length > 0); // it has claimed its items and sent its first batch
      const running = idv(args('second.csv'), { env });
      let waiting = '';
      running.stderr?.on('data', (d: Buffer) => (waiting += d.toString()));
      await until(() => waiting.includes('idv: note: another idv run'));
      release();
      const second = await running;
      const one = await first;
      expect([one.exitCode, second.exitCode]).toEqual([0, 0]);
      const expected = 'email,status\n' + list(3000).map((e) => `${e},ok\n`).join('');
      expect(await readFile(join(home.dir, 'first.csv'), 'utf8')).toBe(expected);
      expect(await readFile(join(home.dir, 'second.csv'), 'utf8')).toBe(expected);
      const sent = sentItems(sb);
      expect(new Set(sent).size).toBe(3000);
      expect(sent.length).toBe(3000);
      const note = 'idv: note: another idv run is validating some of these items against the same service; waiting for its answers instead of paying for them twice.\n';
      expect(second.stderr.startsWith(note), second.stderr).toBe(true);
    } finally {
      await sb.close();
    }
  });

  it('a killed holder is seen gone, not waited out until its heartbeat is stale: the other run then sends what it held', async () => {
    const { sb, env } = await sandbox({ quota: 0 }, home);
    sb.inject({ kind: 'hang' }); // the first run's first batch: it holds its claims until it is killed
    try {
      const file = await writeList(home, list(300));
      const args = (out: string) => ['emails', file, '-o', join(home.dir, out), '--concurrency', '1'];
      const first = idv(args('first.csv'), { env });
      await until(() => sb.requests.length > 0); // it has claimed its items and sent the first batch
      const second = idv(args('second.csv'), { env });
      let stderr = '';
      second.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      await until(() => stderr.includes('idv: note: another idv run'));
      first.kill('SIGKILL');
      expect((await first).signal).toBe('SIGKILL');
      // The killed run's heartbeat is kept fresh, as if it still beat: only seeing its process gone (the heartbeat
      // names it) lets the waiting run go on, not the heartbeat's age. Else: the test's time-out.
      const keepFresh = setInterval(() => void freshen(cacheDir(env)), 100);
      const r = await second.finally(() => clearInterval(keepFresh));
      expect(r.exitCode).toBe(0);
      expect(await readFile(join(home.dir, 'second.csv'), 'utf8')).toBe('email,status\n' + list(300).map((e) => `${e},ok\n`).join(''));
      expect(new Set(sentBatches(sb).slice(1).flat()).size).toBe(300);
    } finally {
      await sb.close();
    }
  });

  it('--no-cache and --sandbox runs take no claims: they neither wait for another run nor hold one up', async () => {
    const { sb, env } = await sandbox({ quota: 0 }, home);
    const other = (await Claims.join(await cacheFolder(env, sb.url), openScope(cacheDir(env), sb.url, '/emails/validate', 1).id))!;
    try {
      other.claim(list(3).map(keyHex)); // another run holds them all
      const file = await writeList(home, list(3));
      const r = await run(['emails', file, '--no-cache', '-q'], { env });
      expect(r).toEqual({ exitCode: 0, stdout: 'email,status\n' + list(3).map((e) => `${e},ok\n`).join(''), stderr: '' });
      expect(sentItems(sb)).toEqual(list(3));
      const sandboxed = await run(['emails', file, '--sandbox', '-q'], { env });
      expect(sandboxed.exitCode).toBe(0);
      expect((await readdir(cacheDir(env))).filter((n) => n.endsWith('.run'))).toEqual([`${openScope(cacheDir(env), sb.url, '/emails/validate', 1).id}.${other.run}.run`]);
    } finally {
      other.close();
      await sb.close();
    }
  });
});

/** Every heartbeat in the cache folder touched now. */
async function freshen(dir: string): Promise<void> {
  const now = new Date();
  for (const name of await readdir(dir).catch(() => [])) if (name.endsWith('.run')) await utimes(join(dir, name), now, now).catch(() => undefined);
}

/** Until `ok()` holds (polled every 20 ms; a test's timeout bounds it). */
async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await sleep(20);
}

async function cacheFolder(env: Record<string, string>, url: string): Promise<string> {
  const scope = openScope(cacheDir(env), url, '/emails/validate', 86400);
  (await scope.load()).results.close();
  return scope.dir;
}
