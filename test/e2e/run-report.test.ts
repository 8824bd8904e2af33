// --report, the receipt of a run a nightly job keeps: what was read, sent and paid, and why it ended (done, quota,
// spend-cap, interrupted, failed, usage), also for a run that stopped early or a flag commander refused.
import { describe, expect, it } from 'vitest';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixture, sandbox, sentBatches, homeForEachTest, readJson, addresses } from '../helpers.js';
import { run } from '../fake-io.js';

const home = homeForEachTest();
const list = home.list;

describe('--report', () => {
  const common = (r: Record<string, unknown>) => {
    expect(r.format).toBe(1);
    expect(r.idv).toMatch(/^\d+\.\d+\.\d+/);
    expect(r.command).toBe('emails');
    expect(Date.parse(r.started as string)).toBeLessThanOrEqual(Date.parse(r.ended as string));
  };

  it('a finished run', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const report = join(home.dir, 'run.json');
      const r = await run(['emails', fixture('newsletter.csv'), '-q', '--report', report], { env });
      expect(r.exitCode).toBe(0);
      const j = await readJson(report);
      common(j);
      expect(j).toMatchObject({
        dryRun: false,
        inputs: [{ path: fixture('newsletter.csv'), bytes: 2703, records: 11 }],
        output: null,
        records: 11,
        unique: 9,
        invalid: 1,
        statuses: { ok: 6, alias: 1, disposable: 2, fake: 1, invalid: 1 },
        fromCache: 0,
        sent: 9,
        requests: 1,
        retries: 0,
        maxSpend: null,
        capped: 0,
        quota: { remaining: 991, limit: 1000, resetsAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
        exitCode: 0,
        reason: 'done',
        message: null,
      });
      expect(Object.keys(j.statuses as object)).toEqual(['ok', 'alias', 'disposable', 'fake', 'invalid']);
    } finally {
      await sb.close();
    }
  });

  it('a quota-stopped run, with a retry', async () => {
    const { sb, env } = await sandbox({ quota: 3 }, home);
    try {
      sb.inject({ kind: 'status', status: 503 });
      const report = join(home.dir, 'run.json');
      const r = await run(['emails', await list(addresses(5)), '-q', '--report', report, '--retries', '1'], { env });
      expect(r.exitCode).toBe(4);
      const j = await readJson(report);
      common(j);
      expect(j).toMatchObject({ statuses: { ok: 3, quota_exceeded: 2 }, sent: 5, requests: 2, retries: 1, exitCode: 4, reason: 'quota' });
      expect(j.message).toMatch(/^Quota used up: 2 records not validated/);
    } finally {
      await sb.close();
    }
  });

  it('a capped run', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const report = join(home.dir, 'run.json');
      const r = await run(['emails', await list(addresses(5)), '-q', '--report', report, '--max-spend', '2'], { env });
      expect(r.exitCode).toBe(4);
      expect(await readJson(report)).toMatchObject({ statuses: { ok: 2, quota_exceeded: 3 }, sent: 2, maxSpend: 2, capped: 3, exitCode: 4, reason: 'spend-cap' });
    } finally {
      await sb.close();
    }
  });

  it('an interrupted run (Ctrl-C), an error run, a refused key and a usage error', async () => {
    const { sb, env } = await sandbox({}, home);
    const release = sb.hold(1); // one answer, then a request held until Ctrl-C
    try {
      const report = join(home.dir, 'run.json');
      const ctrlC = new AbortController();
      const running = run(['emails', await list(addresses(30)), '-q', '--report', report, '--batch-size', '5', '--concurrency', '1'], { env, signal: ctrlC.signal });
      await expect.poll(() => sb.requests.length, { timeout: 20_000 }).toBe(2);
      ctrlC.abort('SIGINT');
      release();
      expect((await running).exitCode).toBe(130);
      expect(await readJson(report)).toMatchObject({ exitCode: 130, reason: 'interrupted', message: expect.stringMatching(/^Interrupted \(SIGINT\)/) });

      sb.inject({ kind: 'status', status: 400, body: '{"message":"nope"}' });
      expect((await run(['emails', await list(['e1@example.org', 'e2@example.org']), '-q', '--report', report], { env })).exitCode).toBe(1);
      expect(await readJson(report)).toMatchObject({ statuses: { error: 2 }, exitCode: 1, reason: 'errors' });

      sb.inject({ kind: 'status', status: 401 });
      expect((await run(['emails', await list(['x@example.com']), '-q', '--report', report], { env })).exitCode).toBe(3);
      expect(await readJson(report)).toMatchObject({ exitCode: 3, reason: 'auth' });

      expect((await run(['emails', join(home.dir, 'missing.csv'), '--report', report], { env })).exitCode).toBe(2);
      expect(await readJson(report)).toMatchObject({ exitCode: 2, reason: 'usage', inputs: [], message: expect.stringContaining('no such file') });
      expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

describe('--report of a run that stopped early still says what it read, sent and paid', () => {
  const addresses = (n: number) => Array.from({ length: n }, (_, i) => `user${String(i).padStart(2, '0')}@example.com`);

  it('interrupted (Ctrl-C) after two answers: records, unique, sent and requests are those of the run, not 0', async () => {
    const { sb, env } = await sandbox({}, home);
    const release = sb.hold(2); // two answers, then the third request held until Ctrl-C
    try {
      const report = join(home.dir, 'run.json');
      const ctrlC = new AbortController();
      const running = run(['emails', await list(addresses(30)), '-q', '--report', report, '--batch-size', '5', '--concurrency', '1'], {
        env,
        signal: ctrlC.signal,
      });
      await expect.poll(() => sentBatches(sb).length, { timeout: 20_000 }).toBe(3);
      ctrlC.abort('SIGINT');
      release(); // within the grace
      expect((await running).exitCode).toBe(130);
      const paid = sentBatches(sb); // the one in flight at Ctrl-C was given its grace and answered
      expect(await readJson(report)).toMatchObject({
        inputs: [{ records: 30 }],
        records: 30,
        unique: 30,
        invalid: 0,
        statuses: {}, // nothing was written: -o and stdout are left as they were
        sent: paid.flat().length,
        requests: paid.length,
        retries: 0,
        quota: { remaining: 1000 - paid.flat().length, limit: 1000 },
        exitCode: 130,
        reason: 'interrupted',
      });
    } finally {
      await sb.close();
    }
  });

  it('a key refused mid-run (401 after one answer): the request and the items paid for are counted', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      sb.inject({ kind: 'none' });
      sb.inject({ kind: 'status', status: 401 });
      const report = join(home.dir, 'run.json');
      const r = await run(['emails', await list(addresses(10)), '-q', '--report', report, '--batch-size', '5', '--concurrency', '1'], { env });
      expect(r.exitCode).toBe(3);
      expect(await readJson(report)).toMatchObject({ records: 10, unique: 10, sent: 5, requests: 2, exitCode: 3, reason: 'auth' });
    } finally {
      await sb.close();
    }
  });
});

describe('--report also for a flag that is refused', () => {
  it('a bad --max-spend value: exit 2, one line, and a usage report replaces the last run\'s "done"', async () => {
    const report = join(home.dir, 'run.json');
    await writeFile(report, JSON.stringify({ reason: 'done', exitCode: 0 }));
    const file = await list(['a@example.com']);
    for (const args of [
      ['emails', file, '--report', report, '--max-spend', '1k'],
      ['domains', `--report=${report}`, file, '--format', 'xml'],
      ['emails', file, '--report', report, '--no-such-flag'],
      ['emails', file, '--report', report, '--only', 'valid'],
      ['emails', file, '--report', report, '--max-wait', '90'],
      ['emails', file, '--max-spend', '1k', '--report', report], // --report after the refused flag
      ['emails', file, '--no-such-flag', `--report=${report}`],
    ]) {
      const r = await run(args, { env: home.env });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/^idv: (--max-spend|--format|unknown option|--only|--max-wait) [^\n]*\n$/);
      const j = await readJson(report);
      expect(j).toMatchObject({ format: 1, command: args[0], exitCode: 2, reason: 'usage', inputs: [], records: 0, sent: 0 });
      expect(j.message).toBe(r.stderr.split('\n')[0]!.replace(/^idv: /, ''));
    }
    expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
