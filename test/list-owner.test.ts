// Issue 12: what a nightly job needs around the validation: a spend cap, a run receipt, per-status files.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixture, makeHome, sandbox, sentItems, type Home, writeList } from './helpers.js';
import { run } from './fake-io.js';

let home: Home;
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  await home.cleanup();
});

const list = (lines: string[], name?: string) => writeList(home, lines, name);
const addresses = (n: number) => Array.from({ length: n }, (_, i) => `user${String(i).padStart(2, '0')}@example.com`);
const readJson = async (p: string) => JSON.parse(await readFile(p, 'utf8')) as Record<string, unknown>;

describe('--max-spend', () => {
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
    const { sb, env } = await sandbox({ delayMs: 200 }, home);
    try {
      const report = join(home.dir, 'run.json');
      const ctrlC = new AbortController();
      const running = run(['emails', await list(addresses(30)), '-q', '--report', report, '--batch-size', '5', '--concurrency', '1'], { env, signal: ctrlC.signal });
      await new Promise((r) => setTimeout(r, 300));
      ctrlC.abort('SIGINT');
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

describe('--split', () => {
  it('one file per status, byte-exact rows with --keep-columns, beside the main output', async () => {
    const dir = join(home.dir, 'split');
    const out = join(home.dir, 'all.csv');
    const r = await run(['emails', fixture('newsletter.csv'), '--sandbox', '-q', '--keep-columns', '--split', dir, '-o', out]);
    expect(r.exitCode).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(['alias.csv', 'disposable.csv', 'error.csv', 'fake.csv', 'invalid.csv', 'ok.csv', 'quota_exceeded.csv']);
    const main = await readFile(out, 'utf8');
    const header = main.slice(0, main.indexOf('\n') + 1);
    for (const status of ['ok', 'alias', 'disposable', 'fake', 'invalid']) {
      const file = await readFile(join(dir, `${status}.csv`), 'utf8');
      expect(file.startsWith(header)).toBe(true);
      const rows = file.slice(header.length);
      // Each split file holds exactly the main output's records of its status, in order, byte for byte.
      const expected = recordsOf(main.slice(header.length)).filter((rec) => rec.endsWith(`,${status}\n`)).join('');
      expect(rows).toBe(expected);
    }
    expect(await readFile(join(dir, 'error.csv'), 'utf8')).toBe(header);
  });

  it('to a terminal with no -o: the files are the output, no table', async () => {
    const dir = join(home.dir, 'split');
    const r = await run(['emails', fixture('emails.txt'), '--sandbox', '-q', '--split', dir], { stdoutIsTTY: true });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(await readFile(join(dir, 'alias.csv'), 'utf8')).toMatch(/^email,status\n.*\+.*,alias\n/);
  });

  it('a failed run leaves earlier split files as they were', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const dir = join(home.dir, 'split');
      await run(['emails', await list(['a@example.com']), '-q', '--split', dir], { env });
      const before = await readFile(join(dir, 'ok.csv'), 'utf8');
      sb.inject({ kind: 'status', status: 401 });
      const r = await run(['emails', await list(['b@example.com']), '-q', '--split', dir], { env });
      expect(r.exitCode).toBe(3);
      expect(await readFile(join(dir, 'ok.csv'), 'utf8')).toBe(before);
      expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

/** CSV text → its records (a quoted cell may hold line breaks), each with its line end. */
function recordsOf(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') quoted = !quoted;
    else if (text[i] === '\n' && !quoted) {
      out.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  return out;
}

describe('--suggest', () => {
  it('adds a suggestion field in every format; never changes the item, never sends the suggestion', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const file = await list(['jane@gmial.com', 'bob@gmail.com', 'al@hotmail.con', 'jo@gmx.com', 'bad']);
      const csv = await run(['emails', file, '-q', '--suggest'], { env });
      expect(csv.exitCode).toBe(0);
      expect(csv.stdout).toBe(
        'email,status,suggestion\njane@gmial.com,ok,jane@gmail.com\nbob@gmail.com,ok,\nal@hotmail.con,ok,al@hotmail.com\njo@gmx.com,ok,\nbad,invalid,\n',
      );
      expect(sentItems(sb)).toEqual(['jane@gmial.com', 'bob@gmail.com', 'al@hotmail.con', 'jo@gmx.com']);
      const json = await run(['emails', file, '-q', '--suggest', '-f', 'ndjson'], { env });
      expect(json.stdout.split('\n')[0]).toBe('{"email":"jane@gmial.com","status":"ok","suggestion":"jane@gmail.com"}');
      const keep = await run(['emails', await list(['name,email', 'Jane,jane@yaho.com'], 'k.csv'), '-q', '--suggest', '--keep-columns'], { env });
      expect(keep.stdout).toBe('name,email,status,suggestion\nJane,jane@yaho.com,ok,jane@yahoo.com\n');
      const domains = await run(['domains', await list(['gmial.com', 'example.com'], 'd.txt'), '-q', '--suggest'], { env });
      expect(domains.stdout).toBe('domain,status,suggestion\ngmial.com,ok,gmail.com\nexample.com,ok,\n');
    } finally {
      await sb.close();
    }
  });
});

describe('--safe-csv', () => {
  it('formula-like cells get a leading quote mark in CSV (main output and split files); other formats keep data', async () => {
    const dir = join(home.dir, 'split');
    const file = await list(['name,phone,email', '=HYPERLINK("http://x"),+44 20 7946,jo@example.com', '@SUM(A1),-1,al@example.com'], 'f.csv');
    const r = await run(['emails', file, '--sandbox', '-q', '--keep-columns', '--safe-csv', '--split', dir]);
    const expected = `name,phone,email,status\n"'=HYPERLINK(""http://x"")",'+44 20 7946,jo@example.com,ok\n'@SUM(A1),'-1,al@example.com,ok\n`;
    expect(r.stdout).toBe(expected);
    expect(await readFile(join(dir, 'ok.csv'), 'utf8')).toBe(expected);
    const plain = await run(['emails', file, '--sandbox', '-q', '--keep-columns']);
    expect(plain.stdout).toBe('name,phone,email,status\n"=HYPERLINK(""http://x"")",+44 20 7946,jo@example.com,ok\n@SUM(A1),-1,al@example.com,ok\n');
    const json = await run(['emails', file, '--sandbox', '-q', '--keep-columns', '--safe-csv', '-f', 'ndjson']);
    expect(json.stdout.split('\n')[0]).toBe('{"name":"=HYPERLINK(\\"http://x\\")","phone":"+44 20 7946","email":"jo@example.com","status":"ok"}');
  });
});
