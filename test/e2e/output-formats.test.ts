// What a run writes: csv (RFC 4180) in a pipe, json, ndjson, table, -o by extension, input order kept, data on
// stdout and the summary on stderr. idv runs in this process (test/fake-io.ts) against the sandbox, asserting exact output, exit codes and what the server received.
import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { fixture, idv, sentBatches } from '../helpers.js';
import { run } from '../fake-io.js';
import { withSandbox, delayingProxy, EMAILS_TXT_CSV } from './helpers.js';

// ---------------------------------------------------------------------------------------------
describe.concurrent('output', () => {
  const INPUT = 'a@gmail.com\nbobby+x@fake.com\nc+tag@gmail.com\nnope\n';
  const RECORDS = [
    { email: 'a@gmail.com', status: 'ok' },
    { email: 'bobby+x@fake.com', status: 'fake' },
    { email: 'c+tag@gmail.com', status: 'alias' },
    { email: 'nope', status: 'invalid' },
  ];

  it('csv is the default in a pipe, RFC 4180 quoting', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', fixture('newsletter.csv'), '--keep-columns'], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain(',"QA signup, do not mail",');
      expect(r.stdout).toContain(',"Asked to ""pause"" emails until spring.\nPrefers plain text.",');
      const rows = parseCsv(r.stdout, { columns: true }) as Array<Record<string, string>>;
      expect(rows.map((x) => x.NOTES)).toEqual([
        '', '', '', '', 'Asked to "pause" emails until spring.\nPrefers plain text.', 'QA signup, do not mail', '',
        'Re-subscribed from the pricing page', '', '', '',
      ]);
    });
  });

  it('--only " ok, Alias " (spaces and capitals, as typed in a shell): names trimmed, no unknown-status warning', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', '--only', ' ok, Alias ', '-q'], { env, input: INPUT });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\na@gmail.com,ok\nc+tag@gmail.com,alias\n');
      expect(r.stderr).toBe('');
      const ex = await run(['emails', '--exclude', 'fake , invalid', '-q'], { env, input: INPUT });
      expect(ex.stdout).toBe('email,status\na@gmail.com,ok\nc+tag@gmail.com,alias\n');
      expect(ex.stderr).toBe('');
    });
  });

  it('-f json: one array of {email, status}', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', '-f', 'json'], { env, input: INPUT });
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(RECORDS);
      expect(r.stdout.trimStart().startsWith('[')).toBe(true);
    });
  });

  it('-f json with domains uses the domain field', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['domains', '-f', 'json'], { env, input: 'gmail.com\nfake.com\n' });
      expect(JSON.parse(r.stdout)).toEqual([
        { domain: 'gmail.com', status: 'ok' },
        { domain: 'fake.com', status: 'fake' },
      ]);
    });
  });

  it('-f ndjson: one object per line', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', '-f', 'ndjson'], { env, input: INPUT });
      expect(r.exitCode).toBe(0);
      expect(r.stdout.endsWith('\n')).toBe(true);
      const lines = r.stdout.slice(0, -1).split('\n');
      expect(lines.map((l) => JSON.parse(l))).toEqual(RECORDS);
    });
  });

  it('-f table: aligned columns, no colour in a pipe', async () => {
    await withSandbox({}, async ({ env }) => {
      // The built program: whether stdout is a terminal (and so colour) is decided by src/cli.cts.
      const r = await idv(['emails', '-f', 'table'], { env, input: INPUT });
      expect(r.exitCode).toBe(0);
      const stdout = String(r.stdout);
      expect(stdout).not.toContain('\u001b[');
      const lines = stdout.replace(/\n$/, '').split('\n');
      expect(lines).toHaveLength(5);
      const parsed = lines.map((l) => /^(\S+)( +)(\S+) *$/.exec(l));
      expect(parsed.every((m) => m !== null)).toBe(true);
      expect(parsed.map((m) => m![1]!.toLowerCase())).toEqual(['email', ...RECORDS.map((x) => x.email)]);
      expect(parsed.map((m) => m![3]!.toLowerCase())).toEqual(['status', ...RECORDS.map((x) => x.status)]);
      const col = new Set(parsed.map((m) => m![1]!.length + m![2]!.length));
      expect(col.size).toBe(1);
    });
  });

  it('-o FILE picks the format by extension and writes nothing to stdout', async () => {
    await withSandbox({}, async ({ env, home }) => {
      const json = join(home.dir, 'out.json');
      let r = await run(['emails', '-o', json], { env, input: INPUT });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('');
      expect(JSON.parse(await readFile(json, 'utf8'))).toEqual(RECORDS);

      const nd = join(home.dir, 'out.ndjson');
      r = await run(['emails', '-o', nd], { env, input: INPUT });
      expect(r.stdout).toBe('');
      const text = await readFile(nd, 'utf8');
      expect(text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(RECORDS);

      const csv = join(home.dir, 'out.csv');
      r = await run(['emails', '-o', csv], { env, input: INPUT });
      expect(r.stdout).toBe('');
      expect(await readFile(csv, 'utf8')).toBe(
        'email,status\na@gmail.com,ok\nbobby+x@fake.com,fake\nc+tag@gmail.com,alias\nnope,invalid\n',
      );
    });
  });

  it('input order is kept when batches answer out of order', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const proxy = await delayingProxy(sb.url, (n) => (n === 0 ? 500 : n === 1 ? 250 : 0));
      try {
        const emails = Array.from({ length: 8 }, (_, i) => `user${i}${i % 2 ? '+t' : ''}@gmail.com`);
        const r = await run(['emails', '--batch-size', '2', '--concurrency', '4', '--base-url', proxy.url], {
          env,
          input: emails.join('\n') + '\n',
        });
        expect(r.exitCode).toBe(0);
        expect(proxy.completed[0]).not.toBe(0); // the first batch really answered late
        expect(r.stdout).toBe(
          'email,status\n' + emails.map((e, i) => `${e},${i % 2 ? 'alias' : 'ok'}\n`).join(''),
        );
        expect(sentBatches(sb).every((b) => b.length <= 2)).toBe(true);
      } finally {
        await proxy.close();
      }
    });
  });

  it('stdout carries only data; the summary (count per status) is on stderr; -q silences stderr', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', fixture('emails.txt')], { env });
      expect(r.stdout).toBe(EMAILS_TXT_CSV);
      expect(r.stderr).toMatch(/\bok\s+8\b/);
      expect(r.stderr).toMatch(/\balias\s+2\b/);
      expect(r.stderr).toMatch(/\bdisposable\s+3\b/);
      expect(r.stderr).toMatch(/\bfake\s+3\b/);
      expect(r.stderr).toMatch(/\binvalid\s+3\b/);
      const q = await run(['emails', fixture('emails.txt'), '-q'], { env });
      expect(q.exitCode).toBe(0);
      expect(q.stdout).toBe(EMAILS_TXT_CSV);
      expect(q.stderr).toBe('');
    });
  });
});
