// When the quota runs out or the user caps the spend: exit 4, what was validated written, the rest quota_exceeded,
// nothing sent after; the RateLimit header read tolerantly; --wait and --max-wait; --max-spend N.
import { describe, expect, it } from 'vitest';
import { idv, sandbox, sentBatches, sentItems, homeForEachTest, addresses } from '../helpers.js';
import { run } from '../fake-io.js';
import { withSandbox } from './helpers.js';
import { hygiene, runChecked, items, csv, setup, until, spawnIdv, FAST } from './checked-run.js';
import { untilWaiting } from '../process-wait.js';
import { onlyOn } from '../platforms.js';

// ---------------------------------------------------------------------------------------------
describe.concurrent('quota', () => {
  const distinct = Array.from({ length: 25 }, (_, i) => `user${i}@gmail.com`);
  const input = distinct.join('\n') + '\nbad\n';

  function checkQuotaStop(stdout: string, validated: number): void {
    const rows = stdout.trimEnd().split('\n');
    expect(rows[0]).toBe('email,status');
    expect(rows).toHaveLength(1 + 26);
    const expected = [
      ...distinct.map((e, i) => `${e},${i < validated ? 'ok' : 'quota_exceeded'}`),
      'bad,invalid',
    ];
    expect(rows.slice(1)).toEqual(expected);
  }

  function quotaLine(stderr: string): void {
    const lines = stderr.split('\n').filter((l) => /quota/i.test(l) && /reset|again|used up|exceeded/i.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(1);
  }

  it('partial quota (10 of 25 in one request): exit 4, 10 validated, 15 quota_exceeded', async () => {
    await withSandbox({ quota: 10 }, async ({ sb, env }) => {
      const r = await run(['emails', '-'], { env, input });
      expect(r.exitCode).toBe(4);
      checkQuotaStop(r.stdout, 10);
      quotaLine(r.stderr);
      expect(sb.requests).toHaveLength(1);
    });
  });

  it('partial quota over several batches: no request after the quota is used up', async () => {
    await withSandbox({ quota: 10 }, async ({ sb, env }) => {
      const r = await run(['emails', '-', '--batch-size', '5', '--concurrency', '1'], { env, input });
      expect(r.exitCode).toBe(4);
      checkQuotaStop(r.stdout, 10);
      quotaLine(r.stderr);
      // r=0 after the second batch: the contract says that stops like a 429
      expect(sentBatches(sb)).toEqual([distinct.slice(0, 5), distinct.slice(5, 10)]);
    });
  });

  it('a 429 stops at once: nothing sent after it, exit 4, all quota_exceeded', async () => {
    await withSandbox({ quota: 100 }, async ({ sb, env }) => {
      sb.setRemaining(0);
      const r = await run(['emails', '-', '--batch-size', '5', '--concurrency', '1'], { env, input });
      expect(r.exitCode).toBe(4);
      checkQuotaStop(r.stdout, 0);
      quotaLine(r.stderr);
      expect(sb.requests).toHaveLength(1);
      expect(sb.requests[0]!.status).toBe(429);
    });
  });

  it('a 429 with an HTML body is handled the same way', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      sb.inject({ kind: 'status', status: 429, body: '<html><body><h1>429 Too Many Requests</h1></body></html>' });
      const r = await run(['emails', '-', '--batch-size', '5', '--concurrency', '1'], { env, input });
      expect(r.exitCode).toBe(4);
      checkQuotaStop(r.stdout, 0);
      quotaLine(r.stderr);
      expect(sb.requests).toHaveLength(1);
      expect(r.stderr).not.toContain('<html>');
    });
  });
});

// --- rate limits ---------------------------------------------------------------------------------

describe.concurrent('rate limits', () => {
  it('RateLimit r smaller than the batch cuts the next batch to r; r = 0 sends nothing more', async ({ onTestFinished }) => {
    const xs = items(20);
    const { sb, env, file } = await setup(onTestFinished, { quota: 1000 }, xs);
    sb.setRemaining(7);
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(sentBatches(sb).map((b) => b.length)).toEqual([5, 2]);
    expect(sb.requests.map((q) => q.status)).toEqual([200, 200]);
    expect(r.stdout).toBe(csv(xs.map(([e, s], i) => [e, i < 7 ? s : 'quota_exceeded'])));
    expect(r.stderr).toMatch(/resets in/i);
  });

  it('r = 0 in a successful answer: no request after it, exit 4', async ({ onTestFinished }) => {
    const xs = items(20);
    const { sb, env, file } = await setup(onTestFinished, { quota: 1000 }, xs);
    sb.setRemaining(5);
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(sentBatches(sb)).toHaveLength(1);
    expect(r.stdout).toBe(csv(xs.map(([e, s], i) => [e, i < 5 ? s : 'quota_exceeded'])));
    expect(r.stderr).toMatch(/resets in/i);
  });

  it('429 (HTML body) on the first request: nothing more sent, all quota_exceeded, exit 4', async ({ onTestFinished }) => {
    const xs = items(12);
    const { sb, env, file } = await setup(onTestFinished, { quota: 1000 }, xs);
    sb.setRemaining(0);
    sb.inject({ kind: 'status', status: 429, body: '<html><body>Slow down</body></html>' });
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(sentBatches(sb)).toHaveLength(1);
    expect(r.stdout).toBe(csv(xs.map(([e]) => [e, 'quota_exceeded'])));
    expect(r.stderr).toMatch(/resets in/i);
  });

  it('RateLimit is read tolerantly (spacing, parameter order): r = 0 stops the run', async ({ onTestFinished }) => {
    const xs = items(15);
    const { sb, env, file } = await setup(onTestFinished, { quota: 1000 }, xs);
    const first = xs.slice(0, 5);
    sb.inject({
      kind: 'status',
      status: 200,
      body: JSON.stringify({ emails: Object.fromEntries(first.map(([e, st]) => [e, { status: st }])) }),
      headers: { RateLimit: '"validations" ; t=1800 ;  r=0', 'RateLimit-Policy': 'w=3600;"validations";q=50' },
    });
    const r = await runChecked(['emails', file, ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(sentBatches(sb)).toHaveLength(1);
    expect(r.stdout).toBe(csv(xs.map(([e, st], i) => [e, i < 5 ? st : 'quota_exceeded'])));
    expect(r.stderr).toMatch(/resets in (29m|30m)/i);
  });

  it('--wait with a 2 s window waits for the reset and finishes, exit 0', async ({ onTestFinished }) => {
    const xs = items(12);
    const { sb, env, file } = await setup(onTestFinished, { quota: 6, window: 2 }, xs);
    const r = await runChecked(['emails', file, '--wait', ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(sentItems(sb).sort()).toEqual(xs.map(([e]) => e).sort());
    expect(sb.requests.every((q) => q.status === 200)).toBe(true);
    expect(r.stderr).toMatch(/wait/i);
  });

  it('--wait on a 429 that only says Retry-After: 1 waits and goes on', async ({ onTestFinished }) => {
    const xs = items(10);
    const { sb, env, file } = await setup(onTestFinished, { quota: 0 }, xs); // unlimited: no RateLimit headers
    sb.inject({ kind: 'status', status: 429, body: '', headers: { 'Retry-After': '1' } });
    const r = await runChecked(['emails', file, '--wait', ...FAST], env);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe(csv(xs));
    expect(sb.requests.map((q) => q.status)).toEqual([429, 200, 200]);
    expect(sb.requests[1]!.startedAt - sb.requests[0]!.endedAt).toBeGreaterThanOrEqual(900);
  });

  onlyOn('signals').it('SIGINT during a --wait wait → exit 130 promptly; the rerun sends only what was not validated', async ({ onTestFinished }) => {
    const xs = items(12);
    const { sb, env, file } = await setup(onTestFinished, { quota: 5, window: 3600 }, xs);
    const proc = spawnIdv(['emails', file, '--wait', ...FAST], env);
    await until(() => sb.requests.some((q) => q.status === 200), 20_000, 'an answer', proc);
    await untilWaiting(proc.p.pid!, 300); // now asleep, waiting for the window to reset
    proc.p.kill('SIGINT');
    const r1 = await proc.p; // only the signal can end a wait of an hour (else the test's time-out)
    hygiene(r1);
    expect(r1.exitCode, String(r1.stderr)).toBe(130);
    expect(sentBatches(sb)).toHaveLength(1);
    sb.setRemaining(100);
    const r2 = await runChecked(['emails', file, '--wait', ...FAST], env);
    expect(r2.exitCode, String(r2.stderr)).toBe(0);
    expect(r2.stdout).toBe(csv(xs));
    expect(sentBatches(sb).slice(1).flat()).toEqual(xs.slice(5).map(([e]) => e));
  });

  it('--wait --max-wait 1s with a one-hour window stops at once with exit 4', async ({ onTestFinished }) => {
    const xs = items(12);
    const { sb, env, file } = await setup(onTestFinished, { quota: 5, window: 3600 }, xs);
    const r = await runChecked(['emails', file, '--wait', '--max-wait', '1s', ...FAST], env); // not the hour the window asks (the test's time-out)
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(sentBatches(sb)).toHaveLength(1);
    expect(r.stdout).toBe(csv(xs.map(([e, s], i) => [e, i < 5 ? s : 'quota_exceeded'])));
    expect(r.stderr).toMatch(/resets in/i);
  });
});

describe('--max-spend', () => {
  const home = homeForEachTest();
  const list = home.list;
  it('sends exactly N items, the rest quota_exceeded, exit 4 naming the cap; the rerun sends only the rest', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const xs = addresses(25);
      // Duplicates and an invalid line cost nothing and do not count against the cap.
      const file = await list([...xs.slice(0, 5), 'USER00@EXAMPLE.COM'.toLowerCase(), 'not-an-address', ...xs.slice(5)]);
      const r1 = await run(['emails', file, '--max-spend', '10', '--batch-size', '4'], { env });
      expect(r1.exitCode).toBe(4);
      expect(r1.stderr.trim().split('\n').pop()).toBe(
        'idv: Spend cap reached: --max-spend 10 items sent; 15 records not validated (quota_exceeded); run the same command again to go on: results already received are cached and not paid for twice.',
      );
      expect(sentItems(sb)).toEqual(xs.slice(0, 10));
      const lines = r1.stdout.trim().split('\n').slice(1);
      expect(lines.filter((l) => l.endsWith(',ok'))).toHaveLength(11); // 10 + the duplicate
      expect(lines.filter((l) => l.endsWith(',quota_exceeded'))).toHaveLength(15);
      const r2 = await run(['emails', file, '--max-spend', '10', '--batch-size', '4'], { env });
      expect(r2.exitCode).toBe(4);
      expect(sentItems(sb)).toEqual(xs.slice(0, 20));
      const r3 = await run(['emails', file, '--max-spend', '10'], { env });
      expect(r3.exitCode).toBe(0);
      expect(sentItems(sb)).toEqual(xs);
    } finally {
      await sb.close();
    }
  });

  it('--dry-run says what the cap would leave unsent', async () => {
    const file = await list([...addresses(7), 'bad']);
    const r = await run(['emails', file, '--sandbox', '--dry-run', '--max-spend', '5', '-f', 'json']);
    expect(r.stdout).toBe('{"records":8,"unique":7,"invalid":1,"cached":0,"quota":5,"unsent":2}\n');
    const plain = await run(['emails', file, '--sandbox', '--dry-run', '-f', 'json']);
    expect(plain.stdout).toBe('{"records":8,"unique":7,"invalid":1,"cached":0,"quota":7}\n');
  });

  it('--max-spend 0 sends nothing; cached results still come out', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const file = await list(addresses(3));
      await run(['emails', await list(addresses(1), 'one.txt')], { env });
      const r = await run(['emails', file, '--max-spend', '0', '-q'], { env });
      expect(r.exitCode).toBe(4);
      expect(r.stdout).toBe('email,status\nuser00@example.com,ok\nuser01@example.com,quota_exceeded\nuser02@example.com,quota_exceeded\n');
      expect(sentItems(sb)).toEqual(['user00@example.com']);
    } finally {
      await sb.close();
    }
  });
});
