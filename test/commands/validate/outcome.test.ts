// How a run ends: the quota's message says when it resets, in local time with its zone, and why --wait
// did not wait when the reset is further away than --max-wait allows.
import { describe, expect, it } from 'vitest';
import { outcomeOf, type Ending } from '../../../src/commands/validate/outcome.js';
import { run } from '../../fake-io.js';
import { idv, sandbox, sentItems, withHome, writeList } from '../../helpers.js';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const ending = (more: Partial<Ending>): Ending => ({
  counts: new Map([['ok', 1], ['quota_exceeded', 2]]),
  now: NOW,
  cached: true,
  capped: 0,
  quotaStopped: true,
  ...more,
});

describe('outcomeOf, a quota stop', () => {
  it('with --wait and a reset beyond --max-wait: did not wait, and why', () => {
    const e = outcomeOf(ending({ resetAt: NOW + 59 * 60_000, wait: { maxWaitSeconds: 60, waitedMs: 0 } }));
    expect(e?.kind).toBe('quota');
    expect(e?.message).toMatch(
      /^Quota used up: 2 records not validated \(quota_exceeded\)\. It resets in 59m \(at \d\d:\d\d \S+\); did not wait: reset in 59m exceeds --max-wait 1m; run the same command again then: results already received are cached and not paid for twice\.$/,
    );
  });

  it('with --wait and no reset time from the service: did not wait, and why', () => {
    expect(outcomeOf(ending({ wait: { waitedMs: 0 } }))?.message).toContain(
      'The service did not say when it resets; did not wait: the service did not say when the quota resets; run the same command again then',
    );
  });

  it('without --wait: no word of waiting', () => {
    expect(outcomeOf(ending({ resetAt: NOW + 59 * 60_000 }))?.message).not.toContain('wait');
  });
});

describe('idv emails --wait --max-wait 1m, the quota resetting in an hour', () => {
  it('stops at once (exit 4) and says it did not wait, and why', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({ quota: 1, window: 3600 }, home);
      try {
        const file = await writeList(home, ['a@example.com', 'b@example.com', 'c@example.com']);
        const started = Date.now();
        const r = await run(['emails', file, '-q', '--wait', '--max-wait', '1m', '--batch-size', '1', '--concurrency', '1'], { env });
        expect(Date.now() - started).toBeLessThan(10_000);
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
        const at = [Date.now() + 3_599_000, Date.now() + 3_540_000].map((t) => local.format(new Date(t)));
        expect(r.stderr).toMatch(new RegExp(`It resets in (59m \\d\\ds|1h) \\(at (${at.join('|')}) GMT\\+5:30\\)`));
      } finally {
        await sb.close();
      }
    });
  });
});
