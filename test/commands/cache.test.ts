// `idv cache stats | clear`, as a user runs them: clear asks in a terminal (--yes skips the question, and is
// required when standard input is not a terminal) and says how many results it removed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appendFile, readdir } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { cacheDir, openScope } from '../../src/cache/store.js';
import { run } from '../fake-io.js';
import { clearCache } from '../../src/cache/stats.js';
import { ago } from '../../src/commands/cache.js';
import { makeHome, type Home } from '../helpers.js';

let home: Home;
let dir: string;
beforeEach(async () => {
  home = await makeHome();
  dir = cacheDir(home.env);
  const scope = openScope(dir, 'https://api.x', '/emails/validate', 86400);
  (await scope.load()).results.close();
  scope.append([
    ['a@x.com', 'ok'],
    ['b@x.com', 'fake'],
    ['c@x.com', 'alias'],
  ]);
});
afterEach(async () => {
  await home.cleanup();
});

const logs = async () => (await readdir(dir)).filter((n) => n.endsWith('.log'));

describe('idv cache clear', () => {
  it('-q removes without a word', async () => {
    const quiet = await run(['cache', 'clear', '--yes', '-q', '--no-color'], { env: home.env });
    expect(quiet).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await logs()).toEqual([]);
  });

  it('Ctrl-C at the question: the message starts a line of its own', async () => {
    const stop = new AbortController();
    const input = new PassThrough();
    const r = run(['cache', 'clear'], { env: home.env, stdinIsTTY: true, input, signal: stop.signal, onStderr: (t) => t.endsWith('[y/N] ') && stop.abort('SIGINT') });
    const { exitCode, stderr } = await r;
    expect(exitCode).toBe(130);
    expect(stderr.split('\n')[0]).toBe(`Remove all 3 cached results in ${dir}? [y/N] `);
    expect(stderr.split('\n')[1]).toMatch(/^idv: Interrupted/);
  });

  it('in a terminal, asks first; "y" removes every result and says how many', async () => {
    const r = await run(['cache', 'clear'], { env: home.env, stdinIsTTY: true, input: 'y\n' });
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: `Remove all 3 cached results in ${dir}? [y/N] Removed 3 cached results from ${dir}.\n` });
    expect(await logs()).toEqual([]);
  });

  it('in a terminal, anything but yes (or the end of input) keeps the cache', async () => {
    for (const input of ['n\n', '\n', 'yep\n', '']) {
      const r = await run(['cache', 'clear'], { env: home.env, stdinIsTTY: true, input });
      expect(r).toEqual({ exitCode: 0, stdout: '', stderr: `Remove all 3 cached results in ${dir}? [y/N] Nothing removed.\n` });
      expect(await logs()).toHaveLength(1);
    }
  });

  it('Ctrl-C at the question ends it with exit 130 and removes nothing', async () => {
    const stop = new AbortController();
    const input = new PassThrough(); // a terminal nobody types into
    let asked = '';
    const running = run(['cache', 'clear'], { env: home.env, stdinIsTTY: true, input, signal: stop.signal, onStderr: (t) => (asked += t) });
    await vi.waitFor(() => expect(asked).toContain('[y/N]'), { timeout: 20_000 }); // at the question
    stop.abort('SIGINT');
    const r = await running;
    expect(r.exitCode).toBe(130);
    expect(await logs()).toHaveLength(1);
  });

  it('--yes removes without asking, in a pipe or a terminal', async () => {
    const r = await run(['cache', 'clear', '--yes'], { env: home.env });
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: `Removed 3 cached results from ${dir}.\n` });
    const again = await run(['cache', 'clear', '-y'], { env: home.env, stdinIsTTY: true });
    expect(again).toEqual({ exitCode: 0, stdout: '', stderr: `The cache in ${dir} holds no results; nothing to remove.\n` });
  });

  it('standard input not a terminal and no --yes: a usage error (exit 2), nothing removed', async () => {
    const r = await run(['cache', 'clear'], { env: home.env, input: 'y\n' });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('idv: idv cache clear asks before it removes anything, and standard input is not a terminal; add --yes to clear the cache without asking.\n');
    expect(await logs()).toHaveLength(1);
  });
});

describe('idv cache stats', () => {
  const DAY = 86400;
  /** A cache of two services: entries 3 days, 10 days and 2 hours old, and one written a minute ago. */
  async function aged(): Promise<number> {
    const now = Math.floor(Date.now() / 1000);
    await clearCache(dir);
    const emails = openScope(dir, 'https://api.valididentities.com', '/emails/validate', 86400);
    (await emails.load()).results.close();
    await appendFile(emails.path, [`${now - 3 * DAY}\tok\ta@x.com`, `${now - 10 * DAY}\tok\tb@x.com`, `${now - 10 * DAY}\tdisposable\tc@x.com`, `${now - 60}\talias\td+x@x.com`].map((l) => l + '\n').join(''));
    const domains = openScope(dir, 'http://127.0.0.1:8080', '/domains/validate', 86400);
    (await domains.load()).results.close();
    await appendFile(domains.path, `${now - 2 * 3600}\tfake\tfake.com\n`);
    return now;
  }
  const utc = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

  it('counts by status and by service, expired ones, sizes, and ages from now, in 80 columns', async () => {
    const now = await aged();
    const r = await run(['cache', 'stats'], { env: home.env });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`path     ${dir}`);
    expect(lines[1]).toMatch(/^size     \d+ B in 2 files$/);
    expect(lines.slice(2)).toEqual([
      'entries  5, 2 expired (older than 7d)',
      `oldest   10 days ago (${utc(now - 10 * DAY)})`,
      `newest   1 minute ago (${utc(now - 60)})`,
      '',
      'status      entries  expired',
      'ok                2        1',
      'alias             1        0',
      'disposable        1        1',
      'fake              1        0',
      '',
      'by service',
      '  https://api.valididentities.com /emails/validate',
      expect.stringMatching(/^    4 entries, 2 expired, \d+ B, oldest 10 days ago$/),
      '  http://127.0.0.1:8080 /domains/validate',
      expect.stringMatching(/^    1 entry, 0 expired, \d+ B, oldest 2 hours ago$/),
      '',
    ]);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('--cache-ttl counts expired by the TTLs a run would give, per status too', async () => {
    await aged();
    const r = await run(['cache', 'stats', '--cache-ttl', 'ok=30d,2d'], { env: home.env });
    expect(r.stdout.split('\n')[2]).toBe('entries  5, 1 expired (ok after 30d, others after 2d)');
    expect(r.stdout).toContain('\nok                2        0\nalias             1        0\ndisposable        1        1\n');
    const bad = await run(['cache', 'stats', '--cache-ttl', '7'], { env: home.env });
    expect(bad).toMatchObject({ exitCode: 2, stdout: '', stderr: 'idv: --cache-ttl "7" has no unit: write 7s, 7m, 7h or 7d (seconds, minutes, hours or days).\n' });
  });

  it('-f json: one object, dates in ISO 8601, TTLs in seconds, counts by status and by service', async () => {
    const now = await aged();
    const iso = (ts: number) => new Date(ts * 1000).toISOString();
    for (const flag of ['-f', '--format']) {
      const json = JSON.parse((await run(['cache', 'stats', flag, 'json'], { env: home.env })).stdout);
      expect(json).toMatchObject({
        path: dir,
        ttl: { default: 604800, byStatus: {} },
        files: 2,
        damaged: 0,
        entries: 5,
        expired: 2,
        oldest: iso(now - 10 * DAY),
        newest: iso(now - 60),
        byStatus: { ok: { entries: 2, expired: 1 }, disposable: { entries: 1, expired: 1 }, alias: { entries: 1, expired: 0 }, fake: { entries: 1, expired: 0 } },
        scopes: [
          { baseUrl: 'https://api.valididentities.com', endpoint: '/emails/validate', entries: 4, expired: 2, oldest: iso(now - 10 * DAY) },
          { baseUrl: 'http://127.0.0.1:8080', endpoint: '/domains/validate', entries: 1, expired: 0, oldest: iso(now - 7200) },
        ],
      });
      expect(Date.parse(json.now)).toBeGreaterThanOrEqual(now * 1000);
    }
  });

  it('an empty cache: no tables, nothing to age', async () => {
    await clearCache(dir);
    const r = await run(['cache', 'stats'], { env: home.env });
    expect(r.stdout).toBe(`path     ${dir}\nsize     0 B in 0 files\nentries  0\noldest   -\nnewest   -\n`);
  });

  it('a service name from a log that holds control characters is shown escaped', async () => {
    await clearCache(dir);
    const scope = openScope(dir, 'https://evil\x1b[2J.example', '/emails/validate', 86400);
    (await scope.load()).results.close();
    scope.append([['a@x.com', 'ok']]);
    const r = await run(['cache', 'stats'], { env: home.env });
    expect(r.stdout).toContain('  https://evil\\x1b[2J.example /emails/validate\n');
    expect(r.stdout).not.toContain('\x1b');
  });
});

describe('how long ago', () => {
  it('just now, minutes, hours up to two days, then days; ahead of the clock', () => {
    const now = 1_800_000_000;
    expect([0, 59, 60, 3599, 3600, 47 * 3600, 2 * 86400, 30 * 86400 + 5].map((s) => ago(now - s, now))).toEqual([
      'just now',
      'just now',
      '1 minute ago',
      '59 minutes ago',
      '1 hour ago',
      '47 hours ago',
      '2 days ago',
      '30 days ago',
    ]);
    expect(ago(now + 3600, now)).toBe('ahead of the clock');
  });
});
