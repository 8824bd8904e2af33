// outcomeOf(): how a finished run ends, as a table: exit 0, the quota (4) — the service's or --max-spend's,
// and why --wait gave up or did not wait — or errors (1), the quota winning over errors; the reset in local time.
import { describe, expect, it } from 'vitest';
import { interruptionOf, outcomeOf, shellLine, type Ending } from '../../../src/commands/validate/outcome.js';
import { run } from '../../fake-io.js';
import { idv, sandbox, sentItems, withHome, writeList } from '../../helpers.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const base: Ending = { counts: new Map(), now: NOW, cached: true, capped: 0, quotaStopped: false };
const counts = (o: Record<string, number>) => new Map(Object.entries(o));

describe('outcomeOf', () => {
  const rows: Array<[string, Partial<Ending>, { kind: string; message: string } | null]> = [
    ['every record validated or invalid: exit 0', { counts: counts({ ok: 3, invalid: 1 }) }, null],
    [
      'the service’s quota, reset known, cached',
      { counts: counts({ ok: 2, quota_exceeded: 3 }), quotaStopped: true, quotaStop: 'quota', resetAt: NOW + 90 * 60_000 },
      {
        kind: 'quota',
        message:
          'Quota used up: 3 records not validated (quota_exceeded). It resets in 1h 30m (at 11:30 UTC); run the same command again then: results already received are cached and not paid for twice.',
      },
    ],
    [
      'the service’s quota, reset unknown, no cache',
      { counts: counts({ quota_exceeded: 1 }), quotaStopped: true, quotaStop: 'quota', cached: false },
      { kind: 'quota', message: 'Quota used up: 1 record not validated (quota_exceeded). The service did not say when it resets.' },
    ],
    [
      '--max-spend reached, the service’s quota untouched: the spend cap',
      { counts: counts({ ok: 10, quota_exceeded: 20 }), capped: 20, maxSpend: 10 },
      {
        kind: 'quota',
        message:
          'Spend cap reached: --max-spend 10 items sent; 20 records not validated (quota_exceeded); run the same command again to go on: results already received are cached and not paid for twice.',
      },
    ],
    [
      'a capped run that the service’s quota stopped: the quota, not the spend cap',
      { counts: counts({ ok: 7, quota_exceeded: 23 }), capped: 20, maxSpend: 10, quotaStopped: true, quotaStop: 'quota', cached: false },
      { kind: 'quota', message: 'Quota used up: 23 records not validated (quota_exceeded). The service did not say when it resets.' },
    ],
    [
      'quota and errors: the quota wins (a rerun retries both)',
      { counts: counts({ error: 2, quota_exceeded: 1 }), quotaStopped: true, quotaStop: 'quota', cached: false, lastFailure: 'the service answered HTTP 503' },
      { kind: 'quota', message: 'Quota used up: 1 record not validated (quota_exceeded). The service did not say when it resets.' },
    ],
    [
      'errors alone: exit 1 with the last failure',
      { counts: counts({ ok: 1, error: 2 }), lastFailure: 'the service answered HTTP 503' },
      { kind: 'failed', message: '2 records could not be validated (error: the service answered HTTP 503); run the same command again to retry them.' },
    ],
    [
      'errors from a host that could not be reached: the host named',
      { counts: counts({ error: 2 }), lastFailure: 'network error (ENOTFOUND)', host: 'api.example.com' },
      { kind: 'failed', message: '2 records could not be validated (error: network error (ENOTFOUND) reaching api.example.com); run the same command again to retry them.' },
    ],
    [
      '--wait gave up after resets that validated nothing',
      { counts: counts({ quota_exceeded: 3 }), quotaStopped: true, quotaStop: 'empty-windows', cached: false, resetAt: NOW },
      {
        kind: 'quota',
        message: 'Quota used up: 3 records not validated (quota_exceeded); --wait stopped: the service validated nothing after 3 resets in a row. It resets in 0s (at 10:00 UTC).',
      },
    ],
    [
      '--wait gave up at --max-wait',
      { counts: counts({ quota_exceeded: 3 }), quotaStopped: true, quotaStop: 'max-wait', cached: false, resetAt: NOW + 3_600_000 },
      {
        kind: 'quota',
        message:
          'Quota used up: 3 records not validated (quota_exceeded); --wait stopped: waiting for the reset would pass --max-wait (or 32 days of waiting in all). It resets in 1h (at 11:00 UTC).',
      },
    ],
  ];
  for (const [name, ending, expected] of rows) {
    it(name, () => {
      const err = outcomeOf({ ...base, ...ending });
      if (expected === null) expect(err).toBeNull();
      else expect({ kind: err?.kind, message: err?.message }).toEqual(expected);
    });
  }
});

const NOON = Date.UTC(2026, 10, 25, 12, 0, 0);
const ending = (more: Partial<Ending>): Ending => ({
  counts: new Map([['ok', 1], ['quota_exceeded', 2]]),
  now: NOON,
  cached: true,
  capped: 0,
  quotaStopped: true,
  ...more,
});

describe('outcomeOf, a quota stop', () => {
  it('with --wait and a reset beyond --max-wait: did not wait, and why', () => {
    const e = outcomeOf(ending({ resetAt: NOON + 59 * 60_000, wait: { maxWaitSeconds: 60, waitedMs: 0 } }));
    expect(e?.kind).toBe('quota');
    expect(e?.message).toMatch(
      /^Quota used up: 2 records not validated \(quota_exceeded\)\. It resets in 59m \(at \d\d:\d\d \S+\); did not wait: reset in 59m exceeds --max-wait 1m; run the same command again then: results already received are cached and not paid for twice\.$/,
    );
  });

  it('with --wait and no reset time from the service: did not wait, and why', () => {
    expect(outcomeOf(ending({ wait: { waitedMs: 0 } }))?.message).toBe(
      'Quota used up: 2 records not validated (quota_exceeded). The service did not say when it resets, so --wait did not wait; run the same command again later: results already received are cached and not paid for twice.',
    );
  });

  it('without --wait: no word of waiting', () => {
    expect(outcomeOf(ending({ resetAt: NOON + 59 * 60_000 }))?.message).not.toContain('wait');
  });
});

describe('idv emails --wait --max-wait 1m, the quota resetting in an hour', () => {
  it('stops at once (exit 4) and says it did not wait, and why', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({ quota: 1, window: 3600 }, home);
      try {
        const file = await writeList(home, ['a@example.com', 'b@example.com', 'c@example.com']);
        // A wait of the 1m it may, or the hour, would meet the test's time-out; the message says it did not wait.
        const r = await run(['emails', file, '-q', '--wait', '--max-wait', '1m', '--batch-size', '1', '--concurrency', '1'], { env });
        expect(r.exitCode).toBe(4);
        expect(r.stdout).toBe('email,status\na@example.com,ok\nb@example.com,quota_exceeded\nc@example.com,quota_exceeded\n');
        expect(r.stderr).toMatch(/; did not wait: reset in (59m \d\ds|1h) exceeds --max-wait 1m; run the same command again then/);
        expect(sentItems(sb)).toEqual(['a@example.com']); // r=0 in its answer: nothing more is sent
      } finally {
        await sb.close();
      }
    });
  });

  it('says the reset in the local time of TZ, with its zone', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({ quota: 1, window: 3600 }, home);
      try {
        const file = await writeList(home, ['a@example.com', 'b@example.com']);
        const r = await idv(['emails', file, '-q', '--batch-size', '1', '--concurrency', '1'], { env: { ...env, TZ: 'Asia/Kolkata' } });
        expect(r.exitCode).toBe(4);
        const local = new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Kolkata', hourCycle: 'h23', hour: '2-digit', minute: '2-digit' });
        // The reset is whole seconds from the sandbox's window, a moment before or after this line's clock.
        const at = [Date.now() + 3_540_000, Date.now() + 3_599_000, Date.now() + 3_602_000].map((t) => local.format(new Date(t)));
        expect(r.stderr).toMatch(new RegExp(`It resets in (59m \\d\\ds|1h) \\(at (${at.join('|')}) GMT\\+5:30\\)`));
      } finally {
        await sb.close();
      }
    });
  });
});

describe('interruptionOf: what an interrupted run did, what it keeps, and the command that goes on', () => {
  const base = { signal: 'SIGINT' as const, passed: 2, read: 4, total: null, sent: 2, kept: 'cache' as const, output: null, argv: ['emails', 'list.csv'] };
  it.each([
    ['with the cache', {}, 'Interrupted (SIGINT): 2 of the 4 records read had their result, 2 items validated by the service; those results are kept in the cache. To go on without paying for them again: idv emails list.csv'],
    ['the total counted ahead, and -o left as it was', { total: 50_000, read: 12_000, passed: 12_043, sent: 3_100, output: 'clean.csv' }, 'Interrupted (SIGINT): 12,043 of 50,000 records had their result, 3,100 items validated by the service; those results are kept in the cache; -o clean.csv is left as it was. To go on without paying for them again: idv emails list.csv'],
    ['--no-cache: the results are lost, a rerun pays again', { kept: 'nothing' as const }, 'Interrupted (SIGINT): 2 of the 4 records read had their result, 2 items validated by the service; with --no-cache they are not kept, and running again pays for them again. To run it again: idv emails list.csv'],
    ['--sandbox: nothing kept, nothing paid', { kept: 'sandbox' as const }, 'Interrupted (SIGINT): 2 of the 4 records read had their result, 2 items validated by the service; the sandbox keeps nothing (and costs nothing). To run it again: idv emails list.csv'],
    ['before any answer', { passed: 0, sent: 0, read: 3 }, 'Interrupted (SIGINT): no record had its result yet (3 records read), nothing sent. To run it again: idv emails list.csv'],
  ])('%s', (_name, more, message) => {
    const e = interruptionOf({ ...base, ...more });
    expect([e.kind, e.signal, e.message]).toEqual(['interrupted', 'SIGINT', message]);
  });

  it('the command line is quoted back for the shell it runs in', () => {
    expect(shellLine(['idv', 'emails', 'my list.csv', "O'Brien.csv", '--only', 'ok,alias', '-o', 'a&b.csv'])).toBe(
      `idv emails 'my list.csv' 'O'\\''Brien.csv' --only ok,alias -o 'a&b.csv'`,
    );
    expect(shellLine(['idv', 'emails', 'C:\\Users\\Ann\\my list.csv', 'say "hi".csv'], 'win32')).toBe('idv emails "C:\\Users\\Ann\\my list.csv" "say ""hi"".csv"');
  });
});

describe('Ctrl-C in a run: the line says how far it got, and its command goes on where it stopped', () => {
  it('two of four records answered, the next batch hanging: Ctrl-C says so; the same command then sends only the other two', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({}, home);
      try {
        const list = await writeList(home, ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com'], 'my list.txt');
        sb.inject({ kind: 'none' });
        sb.inject({ kind: 'hang' });
        const args = ['emails', list, '--batch-size', '2', '--concurrency', '1', '--retries', '0', '-f', 'csv'];
        const ctrlC = new AbortController();
        const running = run(args, { env, signal: ctrlC.signal });
        await expect.poll(() => sb.requests.length, { timeout: 10_000 }).toBe(2);
        ctrlC.abort('SIGINT');
        const r = await running;
        expect(r.stderr).toBe(
          `idv: Interrupted (SIGINT): 2 of the 4 records read had their result, 2 items validated by the service; those results are kept in the cache. To go on without paying for them again: idv emails '${list}' --batch-size 2 --concurrency 1 --retries 0 -f csv\n`,
        );
        expect(r.exitCode).toBe(130);
        const again = await run(args, { env });
        expect(again.exitCode).toBe(0);
        expect(sentItems(sb).slice(-2)).toEqual(['c@example.com', 'd@example.com']);
      } finally {
        await sb.close();
      }
    });
  });
});
