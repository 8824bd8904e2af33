// What idv sends the service and how it reads the answers: the key header, batch size and concurrency, unknown
// statuses, items missing from an answer; which base URLs are accepted. idv runs in this process (test/fake-io.ts) against the sandbox, asserting exact output, exit codes and what the server received.
import { describe, expect, it, vi } from 'vitest';
import http from 'node:http';
import { fixture, makeHome, sentBatches, sentItems } from '../helpers.js';
import { run } from '../fake-io.js';
import { withSandbox, connectionCounter, EMAILS_TXT_CSV, EMAILS_TXT_SENT } from './helpers.js';

// ---------------------------------------------------------------------------------------------
describe.concurrent('API client', () => {
  it('sends Authorization: Bearer <key> and a JSON content type, field "emails" / "domains"', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const e = await run(['emails', '-', '--verbose'], { env, input: 'a@gmail.com\n' });
      const d = await run(['domains', '-', '--verbose'], { env, input: 'gmail.com\n' });
      expect([e.exitCode, d.exitCode]).toEqual([0, 0]);
      for (const r of [e, d]) expect(`${r.stdout}${r.stderr}`).not.toContain(env.IDV_API_KEY);
      expect(e.stderr).toContain('/emails/validate'); // --verbose logs the request, key masked
      expect(sb.requests).toHaveLength(2);
      for (const q of sb.requests) {
        expect(q.method).toBe('POST');
        expect(q.authorization).toBe('Bearer sk_test_0123456789abcdef');
        expect(q.contentType).toMatch(/^application\/json\b/);
        expect(q.status).toBe(200);
      }
      // the sandbox parses the body field named after the endpoint; items null would mean a wrong field
      expect(sb.requests.map((q) => [q.path, q.items])).toEqual([
        ['/emails/validate', ['a@gmail.com']],
        ['/domains/validate', ['gmail.com']],
      ]);
    });
  });

  it('--batch-size 3 bounds the items per request', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', fixture('emails.txt'), '--batch-size', '3'], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(EMAILS_TXT_CSV);
      const batches = sentBatches(sb);
      expect(batches.every((b) => b.length >= 1 && b.length <= 3)).toBe(true);
      expect(batches).toHaveLength(5);
      expect([...batches.flat()].sort()).toEqual([...EMAILS_TXT_SENT].sort());
    });
  });

  it('--concurrency 2 bounds the requests in flight', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const input = Array.from({ length: 20 }, (_, i) => `c${i}@gmail.com`).join('\n');
      const release = sb.hold(); // answers wait until two requests are in flight at once
      const running = run(['emails', '--batch-size', '2', '--concurrency', '2'], { env, input });
      await vi.waitFor(() => expect(sb.maxInFlight).toBe(2), { timeout: 20_000 });
      release();
      const r = await running;
      expect(r.exitCode).toBe(0);
      expect(sentBatches(sb)).toHaveLength(10);
      expect(sb.maxInFlight).toBe(2);
    });
  });

  it('default concurrency is 4 and default batch size 100', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const input = Array.from({ length: 12 }, (_, i) => `d${i}@gmail.com`).join('\n');
      const release = sb.hold(); // answers wait until four requests are in flight at once
      const running = run(['emails', '--batch-size', '1'], { env, input });
      await vi.waitFor(() => expect(sb.maxInFlight).toBe(4), { timeout: 20_000 });
      release();
      const r = await running;
      expect(r.exitCode).toBe(0);
      expect(sb.maxInFlight).toBe(4);
      sb.requests.length = 0;
      const big = Array.from({ length: 150 }, (_, i) => `e${i}@gmail.com`).join('\n');
      await run(['emails', '-q'], { env, input: big });
      expect(sentBatches(sb).map((b) => b.length).sort((a, b) => b - a)).toEqual([100, 50]);
    });
  });

  it('an unknown status is passed through unchanged', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      sb.inject({ kind: 'status-for', status: 'risky', item: 'b@gmail.com' });
      const r = await run(['emails', '-'], { env, input: 'a@gmail.com\nb@gmail.com\n' });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\na@gmail.com,ok\nb@gmail.com,risky\n');
      expect(r.stderr).toMatch(/\brisky\s+1\b/);
    });
  });

  it('an item missing from a 2xx answer is "error", exit 1, not sent again', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      sb.inject({ kind: 'drop', item: 'b@gmail.com' });
      const r = await run(['emails', '-'], { env, input: 'a@gmail.com\nb@gmail.com\nc@fake.com\n' });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('email,status\na@gmail.com,ok\nb@gmail.com,error\nc@fake.com,fake\n');
      expect(sentItems(sb)).toEqual(['a@gmail.com', 'b@gmail.com', 'c@fake.com']);
      expect(sb.requests).toHaveLength(1);
    });
  });

  it('any 2xx is success; results matched by key in any order, extra fields ignored', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const body = JSON.stringify({
        emails: {
          'b@gmail.com': { status: 'alias', score: 0.3 },
          'a@gmail.com': { status: 'ok', details: { mx: true } },
        },
        meta: { v: 2 },
      });
      sb.inject({ kind: 'status', status: 202, body });
      const r = await run(['emails', '-'], { env, input: 'a@gmail.com\nb@gmail.com\n' });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\na@gmail.com,ok\nb@gmail.com,alias\n');
      expect(sb.requests).toHaveLength(1);
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('base URL', () => {
  for (const [label, how] of [
    ['--base-url http://example.com', 'flag'],
    ['IDV_BASE_URL=http://10.0.0.1', 'env'],
  ] as const) {
    it(`${label} is refused with exit 2 before any request`, async () => {
      const home = await makeHome();
      const trap = await connectionCounter();
      try {
        const env: Record<string, string> = {
          ...home.env,
          IDV_API_KEY: 'sk_test_0123456789abcdef',
          HTTP_PROXY: trap.url,
          HTTPS_PROXY: trap.url,
          http_proxy: trap.url,
          https_proxy: trap.url,
        };
        const args = ['emails', '-'];
        if (how === 'flag') args.push('--base-url', 'http://example.com');
        else env.IDV_BASE_URL = 'http://10.0.0.1';
        const r = await run(args, { env, input: 'a@gmail.com\n'});
        expect(r.exitCode).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toContain(how === 'flag' ? 'example.com' : '10.0.0.1');
        expect(trap.count()).toBe(0);
      } finally {
        await trap.close();
        await home.cleanup();
      }
    });
  }

  it('http://127.0.0.1 and http://localhost are accepted', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r1 = await run(['emails', '-', '--base-url', `http://127.0.0.1:${sb.port}`], { env, input: 'a@gmail.com\n' });
      expect(r1.exitCode).toBe(0);
      expect(r1.stdout).toBe('email,status\na@gmail.com,ok\n');
      const r2 = await run(['emails', '-'], {
        env: { ...env, IDV_BASE_URL: `http://localhost:${sb.port}` },
        input: 'b@gmail.com\n',
      });
      expect(r2.exitCode).toBe(0);
      expect(r2.stdout).toBe('email,status\nb@gmail.com,ok\n');
      expect(sentItems(sb)).toEqual(['a@gmail.com', 'b@gmail.com']);
    });
  });
});
