// Every way a run stops, at any list size: a refused key (401), the quota, the spend cap, the circuit breaker
// (a host that never answers, or turns every batch away), a signal, a failed write and a reader gone; each with
// its own message, exit code and --report, also with lists far larger than the in-order window (WINDOW_MAX)
// and every buffer. And hostile servers whose answers once made runs that never ended. In this process
// (test/fake-io.ts) against a real server on 127.0.0.1; the built program only where a loop must be bounded
// by a process that can be killed.
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/main.js';
import { WINDOW_MAX } from '../../src/engine/in-order.js';
import { fakeIo, run, type FakeRun } from '../fake-io.js';
import { IDV, idv, sandbox, sentBatches, withHome, writeList, type Home, interruptedLine } from '../helpers.js';
import { untilWaiting } from '../process-wait.js';
import { onlyOn } from '../platforms.js';

const KEY = 'sk_test_0123456789abcdef';
/** Far larger than the in-order window (and so than the scheduler's queue and every write buffer). */
const LARGE = Math.round(WINDOW_MAX * 2.4);
const SIZES = [3, LARGE];
const addresses = (n: number) => Array.from({ length: n }, (_, i) => `u${i}@example.com`);
const PREVIOUS = 'the previous run’s output\n';

/** A server on 127.0.0.1 that answers every validate request as `answer` says; it records the items of each. */
async function hostile(answer: (items: string[], n: number) => { status: number; headers?: Record<string, string>; body?: string } | 'hang') {
  const requests: string[][] = [];
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      let items: string[] = [];
      try {
        items = (JSON.parse(body) as { emails: string[] }).emails;
      } catch {
        /* not a batch */
      }
      requests.push(items);
      const a = answer(items, requests.length);
      if (a === 'hang') return void hanging.push(res);
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body ?? '{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
const statuses = (items: string[], status: string) => JSON.stringify({ emails: Object.fromEntries(items.map((i) => [i, { status }])) });

/** A 127.0.0.1 port where nothing listens. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

interface Stopped extends FakeRun {
  report: { exitCode: number; reason: string; message: string | null; capped: number; sent: number };
  output: string;
}

/** `idv emails LIST -o out.csv --report run.json …` with `n` addresses, over an -o file a previous run left. */
async function runList(home: Home, n: number, env: Record<string, string>, extra: string[] = [], o: { signal?: AbortSignal } = {}): Promise<Stopped> {
  const list = await writeList(home, addresses(n));
  const out = join(home.dir, 'out.csv');
  const report = join(home.dir, 'run.json');
  await writeFile(out, PREVIOUS);
  const r = await run(['emails', list, '-o', out, '--report', report, '-q', ...extra], { env: { ...home.env, ...env }, signal: o.signal });
  return { ...r, report: JSON.parse(await readFile(report, 'utf8')), output: await readFile(out, 'utf8') };
}

describe.concurrent('a refused key at the edge of the in-order window', () => {
  it.each([WINDOW_MAX - 1, WINDOW_MAX, WINDOW_MAX + 1])('%i records: exit 3 and its message (not an internal error)', async (n) => {
    const s = await hostile(() => ({ status: 401, body: '{"message":"Unauthorized."}' }));
    try {
      await withHome(async (home) => {
        const r = await runList(home, n, { IDV_BASE_URL: s.url, IDV_API_KEY: KEY });
        expect([r.exitCode, r.stderr]).toEqual([3, 'idv: The service refused the API key from the IDV_API_KEY environment variable (401 Unauthorized); export the right key in IDV_API_KEY, or unset it and store the right one with idv auth login (a stored key is not used while IDV_API_KEY is set).\n']);
        expect(r.report).toMatchObject({ exitCode: 3, reason: 'auth' });
      });
    } finally {
      await s.close();
    }
  });
});

// Runs of 120,000 records, several at once in this process: on a loaded machine they take longer than most
// tests' deadline. Theirs is longer, and still only stops a hang.
const LARGE_RUNS = { timeout: 120_000 };

describe.concurrent.each(SIZES)('stops with %i records', LARGE_RUNS, (n) => {
  it('a refused key (401): exit 3, its message, report "auth", -o left as it was', async () => {
    const s = await hostile(() => ({ status: 401, body: '{"message":"Unauthorized."}' }));
    try {
      await withHome(async (home) => {
        const r = await runList(home, n, { IDV_BASE_URL: s.url, IDV_API_KEY: KEY });
        expect(r.stderr).toBe('idv: The service refused the API key from the IDV_API_KEY environment variable (401 Unauthorized); export the right key in IDV_API_KEY, or unset it and store the right one with idv auth login (a stored key is not used while IDV_API_KEY is set).\n');
        expect(r.exitCode).toBe(3);
        expect(r.report).toMatchObject({ exitCode: 3, reason: 'auth' });
        expect(r.output).toBe(PREVIOUS);
      });
    } finally {
      await s.close();
    }
  });

  it('the service’s quota: exit 4, every record written, those past the quota quota_exceeded, report "quota"', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({ quota: 1000, key: KEY }, home);
      try {
        const r = await runList(home, n, env);
        const validated = Math.min(n, 1000);
        if (n > 1000) {
          expect(r.stderr).toMatch(new RegExp(`^idv: Quota used up: ${(n - validated).toLocaleString('en-US')} records not validated \\(quota_exceeded\\)\\. It resets in `));
          expect(r.exitCode).toBe(4);
          expect(r.report).toMatchObject({ exitCode: 4, reason: 'quota', sent: 1000 });
        } else expect([r.exitCode, r.stderr]).toEqual([0, '']);
        const rows = r.output.split('\n').slice(1, -1);
        expect(rows.length).toBe(n);
        expect(rows.filter((l) => l.endsWith(',ok')).length).toBe(validated);
        expect(rows.filter((l) => l.endsWith(',quota_exceeded')).length).toBe(n - validated);
        expect(sentBatches(sb).flat().length).toBeLessThanOrEqual(1100);
      } finally {
        await sb.close();
      }
    });
  });

  it('the spend cap: exit 4, the cap’s message, report "spend-cap", nothing sent past it', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({ quota: 0, key: KEY }, home);
      try {
        const cap = 2;
        const r = await runList(home, n, env, ['--max-spend', String(cap)]);
        expect(r.stderr).toBe(
          `idv: Spend cap reached: --max-spend ${cap} items sent; ${(n - cap).toLocaleString('en-US')} record${n - cap === 1 ? '' : 's'} not validated (quota_exceeded); run the same command again to go on: results already received are cached and not paid for twice.\n`,
        );
        expect(r.exitCode).toBe(4);
        expect(r.report).toMatchObject({ exitCode: 4, reason: 'spend-cap', capped: n - cap, sent: cap });
        expect(sentBatches(sb).flat()).toEqual(addresses(cap));
        expect(r.output.split('\n').length - 2).toBe(n);
      } finally {
        await sb.close();
      }
    });
  });

  it('the circuit breaker, a port where nothing listens: exit 1 within seconds, one line naming the host, -o left as it was, report "failed"', async () => {
    const port = await closedPort();
    await withHome(async (home) => {
      // Without the breaker, every batch would wait out its retries' back-off: the test's time-out says so.
      const r = await runList(home, n, { IDV_BASE_URL: `http://127.0.0.1:${port}`, IDV_API_KEY: KEY });
      expect(r.stderr).toMatch(
        new RegExp(
          `^idv: The service at 127\\.0\\.0\\.1:${port} gave no answer to \\d+ requests in a row: network error \\(ECONNREFUSED\\); check --base-url and the network, then run the same command again; results received so far are cached\\.\\n$`,
        ),
      );
      expect(r.exitCode).toBe(1);
      expect(r.output).toBe(PREVIOUS);
      expect(r.report).toMatchObject({ exitCode: 1, reason: 'failed', message: r.stderr.slice('idv: '.length, -1) });
    });
  });

  for (const items of n === SIZES[0] ? [n, 1] : [n]) {
    it(`the circuit breaker, a 404 to every batch (${items === 1 ? 'one batch' : 'many'}): exit 1, one line naming the host and the answer, -o left as it was`, async () => {
      const s = await hostile(() => ({ status: 404, body: '{"message":"Not found"}' }));
      try {
        await withHome(async (home) => {
          const r = await runList(home, items, { IDV_BASE_URL: s.url, IDV_API_KEY: KEY }, ['--batch-size', '1']);
          const host = s.url.slice('http://'.length);
          const what = 'turned away (the first request|\\d+ requests in a row)';
          expect(r.stderr).toMatch(new RegExp(`^idv: The service at ${host.replace(/\./g, '\\.')} ${what}: the service answered HTTP 404: Not found; check --base-url, then`));
          expect(r.exitCode).toBe(1);
          expect(r.output).toBe(PREVIOUS);
          expect(r.report).toMatchObject({ exitCode: 1, reason: 'failed' });
          expect(s.requests.length).toBeLessThanOrEqual(items === 1 ? 1 : 8);
        });
      } finally {
        await s.close();
      }
    });
  }

  it('Ctrl-C while every request hangs (the window full with the large list): exit 130, report "interrupted", -o left as it was', async () => {
    const s = await hostile(() => 'hang');
    try {
      await withHome(async (home) => {
        const ctrlC = new AbortController();
        const running = runList(home, n, { IDV_BASE_URL: s.url, IDV_API_KEY: KEY }, [], { signal: ctrlC.signal });
        await expect.poll(() => s.requests.length, { timeout: 20_000 }).toBeGreaterThan(0);
        await new Promise((r) => setTimeout(r, 800)); // the large list has filled the window, and reading waits
        ctrlC.abort('SIGINT');
        const r = await running;
        expect(r.stderr).toMatch(interruptedLine('SIGINT'));
        expect(r.exitCode).toBe(130);
        expect(r.report).toMatchObject({ exitCode: 130, reason: 'interrupted' });
        expect(r.output).toBe(PREVIOUS);
      });
    } finally {
      await s.close();
    }
  });
});

/** A standard output that takes `bytes`, then fails every write with `code` (a full disk, or a reader gone). */
function stdoutFailingAfter(bytes: number, code: string): Writable {
  let taken = 0;
  return new Writable({
    write(chunk: Buffer, _enc, cb) {
      taken += chunk.length;
      cb(taken > bytes ? Object.assign(new Error(code), { code }) : null);
    },
  });
}

async function runToStdout(home: Home, n: number, env: Record<string, string>, stdout: Writable): Promise<{ exitCode: number; stderr: string; report: Stopped['report'] }> {
  const list = await writeList(home, addresses(n));
  const report = join(home.dir, 'run.json');
  const io = fakeIo({ env: { ...home.env, ...env } });
  io.stdout = stdout;
  const exitCode = await runCli(['emails', list, '-f', 'csv', '--report', report, '-q'], io);
  return { exitCode, stderr: io.err.text, report: JSON.parse(await readFile(report, 'utf8')) };
}

describe.concurrent('a failed write at scale', LARGE_RUNS, () => {
  it(`standard output full (ENOSPC) after 200 KB of ${LARGE.toLocaleString('en-US')} records: exit 1 naming the cause, report "failed", sending stops`, async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({ quota: 0, key: KEY }, home);
      try {
        const r = await runToStdout(home, LARGE, env, stdoutFailingAfter(200_000, 'ENOSPC'));
        expect(r.stderr).toBe('idv: Cannot write to standard output: no space left on the device (ENOSPC); the results are kept in the cache, so the same command sends nothing for them again.\n');
        expect(r.exitCode).toBe(1);
        expect(r.report).toMatchObject({ exitCode: 1, reason: 'failed' });
        expect(sentBatches(sb).flat().length).toBeLessThan(LARGE);
      } finally {
        await sb.close();
      }
    });
  });

  it(`a reader that went away (EPIPE) after 200 KB of ${LARGE.toLocaleString('en-US')} records: exit 0 quietly, sending stops`, async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({ quota: 0, key: KEY }, home);
      try {
        const r = await runToStdout(home, LARGE, env, stdoutFailingAfter(200_000, 'EPIPE'));
        expect(r.stderr).toBe('');
        expect(r.exitCode).toBe(0);
        expect(sentBatches(sb).flat().length).toBeLessThan(LARGE);
      } finally {
        await sb.close();
      }
    });
  });

  it('-o naming a folder: exit 2 before anything is sent, report "usage" (the command names an output it cannot write)', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({ key: KEY }, home);
      try {
        const list = await writeList(home, addresses(3));
        const report = join(home.dir, 'run.json');
        const r = await run(['emails', list, '-o', home.dir, '--report', report, '-q'], { env: { ...home.env, ...env } });
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toMatch(/^idv: Cannot write .*: it is a folder \(EISDIR\); give a file name\.\n$/);
        expect(JSON.parse(await readFile(report, 'utf8'))).toMatchObject({ exitCode: 2, reason: 'usage' });
        expect(sentBatches(sb)).toEqual([]);
      } finally {
        await sb.close();
      }
    });
  });
});

describe.concurrent('a reader that stopped reading', () => {
  it('Ctrl-C while standard output takes nothing more (a pipe to a reader that stopped): exit 130 at once', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({ quota: 0, key: KEY }, home);
      try {
        const list = await writeList(home, addresses(LARGE));
        const ctrlC = new AbortController();
        const io = fakeIo({ env: { ...home.env, ...env }, signal: ctrlC.signal });
        let took = 0;
        io.stdout = new Writable({ highWaterMark: 1024, write: (chunk: Buffer) => void (took += chunk.length) }); // never calls back
        const running = runCli(['emails', list, '-f', 'csv', '-q'], io);
        await expect.poll(() => took, { timeout: 20_000 }).toBeGreaterThan(0);
        await new Promise((r) => setTimeout(r, 300));
        ctrlC.abort('SIGINT');
        expect(await running).toBe(130); // the output never takes more: only the signal ends the run (else the test's time-out)
        expect(io.err.text).toMatch(interruptedLine('SIGINT'));
      } finally {
        await sb.close();
      }
    });
  });
});

describe.concurrent('a reader that stopped reading, as a process', () => {
  onlyOn('signals').it('SIGINT with standard output a full pipe nobody reads: the process exits 130 within seconds, not when the reader goes', async () => {
    await withHome(async (home) => {
      const list = await writeList(home, addresses(WINDOW_MAX));
      const child = spawn(process.execPath, [IDV, 'emails', '--sandbox', list, '-q'], { env: home.env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.pause(); // never read: the pipe fills and every write waits
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await untilWaiting(child.pid!, 2000); // its standard output is full
      child.kill('SIGINT');
      // The reader never goes: only the signal can end the run. A deadline only to stop a hang (before the test's time-out).
      const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
      const code = await exited;
      clearTimeout(timer);
      expect(code).toBe(130);
      expect(stderr).toMatch(interruptedLine('SIGINT'));
    });
  });
});

describe.concurrent('the quota and the spend cap together', () => {
  it('a run under --max-spend that the service’s quota stopped ends "quota" (report and message), not "spend-cap"', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({ quota: 5, key: KEY }, home);
      try {
        const r = await runList(home, 20, env, ['--max-spend', '10']);
        expect(r.exitCode).toBe(4);
        expect(r.stderr).toMatch(/^idv: Quota used up: 15 records not validated \(quota_exceeded\)\./);
        expect(r.report).toMatchObject({ exitCode: 4, reason: 'quota', capped: 10 });
      } finally {
        await sb.close();
      }
    });
  });

  it('--max-spend 10 with a batch the service halves (413): the halves are not charged again, all 10 validated', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({ quota: 0, key: KEY }, home);
      try {
        sb.setMaxBatch(5);
        const r = await runList(home, 30, env, ['--max-spend', '10', '--batch-size', '10', '--concurrency', '1']);
        expect(r.exitCode).toBe(4);
        expect(sentBatches(sb).map((b) => b.length)).toEqual([10, 5, 5]);
        const rows = r.output.split('\n').slice(1, -1);
        expect(rows.filter((l) => l.endsWith(',ok')).length).toBe(10);
        expect(r.report).toMatchObject({ reason: 'spend-cap', capped: 20, sent: 10 });
      } finally {
        await sb.close();
      }
    });
  });
});

describe.concurrent('hostile rate-limit answers: every run ends', () => {
  it('--wait against a server answering quota_exceeded with r=0;t=0: stops after 3 empty windows, exit 4, a handful of requests', async () => {
    const s = await hostile((items) => ({ status: 200, headers: { RateLimit: '"validations";r=0;t=0' }, body: statuses(items, 'quota_exceeded') }));
    try {
      await withHome(async (home) => {
        const r = await runList(home, 300, { IDV_BASE_URL: s.url, IDV_API_KEY: KEY }, ['--wait']); // one that never stopped meets the test's time-out
        expect(r.exitCode).toBe(4);
        expect(r.stderr).toMatch(/^idv: Quota used up: 300 records not validated \(quota_exceeded\); --wait stopped: the service validated nothing after 3 resets in a row\./);
        expect(s.requests.length).toBeLessThanOrEqual(16); // four windows of at most --concurrency requests
        expect(s.requests.every((b) => b.length > 0)).toBe(true);
      });
    } finally {
      await s.close();
    }
  });

  for (const [name, extra, exit] of [
    ['r=0.5', [], 0],
    ['r=0.5 with --max-spend 1000', ['--max-spend', '1000'], 4],
  ] as const) {
    it(`${name}: never an empty request; the process ends (it once sent thousands a second, or spun deaf to signals)`, async () => {
      const s = await hostile((items) => ({ status: 200, headers: { RateLimit: '"validations";r=0.5;t=60' }, body: statuses(items, 'ok') }));
      try {
        await withHome(async (home) => {
          const list = await writeList(home, addresses(3000));
          const r = await idv(['emails', list, '-q', ...extra], { env: { ...home.env, IDV_BASE_URL: s.url, IDV_API_KEY: KEY }, timeout: 20_000 });
          expect(r.timedOut).toBe(false);
          expect(r.exitCode).toBe(exit);
          expect(s.requests.every((b) => b.length > 0)).toBe(true);
          expect(s.requests.flat().length).toBe(exit === 0 ? 3000 : 1000);
        });
      } finally {
        await s.close();
      }
    });
  }
});

describe('a live stream, stopped', () => {
  it('stopped while its first answer is awaited: nothing written, not even the header', async () => {
    await withHome(async (home) => {
      const { sb: hung, env: hungEnv } = await sandbox({}, home);
      try {
        hung.inject({ kind: 'hang' });
        const stdin = new PassThrough();
        const ctrlC = new AbortController();
        const io = fakeIo({ env: hungEnv, input: stdin, signal: ctrlC.signal });
        const running = runCli(['emails', '-q', '--no-cache', '-f', 'csv'], io);
        stdin.write('ann@example.com\n');
        await expect.poll(() => hung.requests.length, { timeout: 20_000 }).toBe(1);
        ctrlC.abort('SIGINT');
        expect(await running).toBe(130);
        expect(io.out.text).toBe('');
      } finally {
        await hung.close();
      }
    });
  });
});
