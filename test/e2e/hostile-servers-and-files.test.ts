// A broken or hostile server, a hostile proxy, and a machine that says no: every wait bounded, answers capped and
// statuses only plain words, -o keeping its mode and nothing left behind, a cache that cannot be trusted.
import { describe, expect, it, vi } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmod, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { IDV, sandbox, sentBatches, homeForEachTest, interruptedLine } from '../helpers.js';
import { run } from '../fake-io.js';
import { cacheDir, openScope } from '../../src/cache/store.js';
import { defaultSleep } from '../../src/dispatch/sleep.js';
import { checkerFor } from '../../src/input/items/check.js';
import { onlyOn } from '../platforms.js';

const home = homeForEachTest();
const list = home.list;

/** A loopback server answering every request with `answer`; counts requests. */
async function server(answer: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void) {
  let n = 0;
  const s = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(req, res, n++));
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    count: () => n,
    close: () => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r()))),
  };
}

describe('time: every wait bounded and slept below the timer limit', () => {
  it('--wait after a 429 whose reset is 30 days away waits (no request storm) until Ctrl-C', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      sb.inject({ kind: 'status', status: 429, body: '', headers: { RateLimit: '"validations";r=0;t=2592000', 'Retry-After': '' } });
      const ctrlC = new AbortController();
      const stderr: string[] = [];
      const running = run(['emails', await list(['a@example.com', 'b@example.com']), '--wait'], {
        env,
        signal: ctrlC.signal,
        onStderr: (t) => stderr.push(t),
      });
      await vi.waitFor(() => expect(stderr.join('')).toMatch(/waiting 720h( 1s)? for it to reset/), { timeout: 20_000 });
      await new Promise((r) => setTimeout(r, 300));
      ctrlC.abort('SIGINT');
      const r = await running;
      expect(r.exitCode).toBe(130);
      expect(sentBatches(sb)).toHaveLength(1); // before the fix: thousands within seconds
    } finally {
      await sb.close();
    }
  });

  for (const [name, headers] of [
    ['RateLimit t=9999999999999', { RateLimit: '"validations";r=0;t=9999999999999', 'Retry-After': '' }],
    ['Retry-After a date in 2199', { RateLimit: '', 'Retry-After': 'Tue, 01 Jan 2199 00:00:00 GMT' }],
  ] as const) {
    it(`--wait with an absurd reset (${name}) stops as without --wait: exit 4, reset unknown`, async () => {
      const { sb, env } = await sandbox({}, home);
      try {
        sb.inject({ kind: 'status', status: 429, body: 'slow down', headers });
        const r = await run(['emails', await list(['a@example.com']), '--wait'], { env });
        expect(r.stdout).toBe('email,status\na@example.com,quota_exceeded\n');
        expect(r.stderr).toMatch(/^idv: Quota used up: 1 record not validated \(quota_exceeded\)\. The service did not say when it resets/m);
        expect(r.exitCode).toBe(4); // before the fix: "unexpected error", exit 1
        expect(sentBatches(sb)).toHaveLength(1);
      } finally {
        await sb.close();
      }
    });
  }

  it('a sleep longer than 2^31-1 ms does not end early', async () => {
    vi.useFakeTimers();
    try {
      let done = false;
      void defaultSleep(2 ** 31 + 5000, new AbortController().signal).then(() => (done = true));
      await vi.advanceTimersByTimeAsync(2 ** 31 - 1);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(5001);
      expect(done).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('server answers: a body cap, statuses only as plain words', () => {
  it('an answer far larger than any legitimate one is cut off and counted malformed (retried, then error)', async () => {
    const big = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const more = () => {
        while (sent < 64 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return res.once('drain', more);
        }
        res.end();
      };
      res.on('error', () => undefined);
      more();
    });
    try {
      const r = await run(['emails', await list(['a@example.com']), '--retries', '1'], {
        env: { ...home.env, IDV_BASE_URL: big.url, IDV_API_KEY: 'sk_test_0123456789abcdef' },
      });
      expect(r.stdout).toBe('email,status\na@example.com,error\n');
      expect(r.stderr).toMatch(/could not be validated \(error: the service sent an answer larger than 1\.0 MiB\)/);
      expect(r.exitCode).toBe(1);
      expect(big.count()).toBe(2);
    } finally {
      await big.close();
    }
  });

  it('a status that is not a plain word ends error; a new plain word passes through', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      sb.inject({ kind: 'status-for', status: '=HYPERLINK("http://evil","x")', item: 'a@example.com' });
      sb.inject({ kind: 'status-for', status: 'x'.repeat(41), item: 'b@example.com' });
      sb.inject({ kind: 'status-for', status: 'risky', item: 'c@example.com' });
      const r = await run(['emails', await list(['a@example.com', 'b@example.com', 'c@example.com']), '--batch-size', '1'], { env });
      expect(r.stdout).toBe('email,status\na@example.com,error\nb@example.com,error\nc@example.com,risky\n');
      expect(r.stderr).toMatch(/2 records could not be validated \(error: the service's answer had no usable status for 1 item\)/);
      expect(r.exitCode).toBe(1);
    } finally {
      await sb.close();
    }
  });
});

describe('server answers: what an answer lacks', () => {
  // The client reads an item's status as answer[item] (src/api/client.ts): safe because nothing idv sends
  // can be a name that every object has (an answer lacking `toString` would lend the item its prototype's).
  it('no name an object inherits (__proto__, toString, constructor…) is ever an item idv sends', () => {
    const names = Object.getOwnPropertyNames(Object.prototype);
    expect(names).toContain('__proto__');
    for (const kind of ['emails', 'domains'] as const) {
      const check = checkerFor(kind);
      expect(names.filter((n) => check(n) !== null || check(` ${n} `) !== null)).toEqual([]);
    }
  });
});

describe('files: -o keeps the mode it replaces; failures leave nothing behind', () => {
  onlyOn('owners').it('-o over a 0600 file keeps 0600; a new file gets the umask mode', async () => {
    const file = await list(['a@example.com']);
    const out = join(home.dir, 'private.csv');
    await writeFile(out, 'old\n', { mode: 0o600 });
    await chmod(out, 0o600);
    const r = await run(['emails', file, '--sandbox', '-q', '-o', out]);
    expect(r.exitCode).toBe(0);
    expect(await readFile(out, 'utf8')).toBe('email,status\na@example.com,ok\n');
    expect((await stat(out)).mode & 0o777).toBe(0o600); // before the fix: 0644
    const fresh = join(home.dir, 'fresh.csv');
    await run(['emails', file, '--sandbox', '-q', '-o', fresh]);
    expect((await stat(fresh)).mode & 0o777).toBe(0o666 & ~process.umask());
    expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  onlyOn('sh').it('a write that fails (file size limit) is one line, exit 1; the old file intact, no .tmp left', async () => {
    const file = await list(Array.from({ length: 20_000 }, (_, i) => `u${i}@example.com`));
    const out = join(home.dir, 'out.csv');
    await writeFile(out, 'old\n');
    const r = await execa('sh', ['-c', `ulimit -f 64; exec node "${IDV}" emails "${file}" --sandbox -q -o "${out}"`], {
      env: home.env,
      extendEnv: false,
      reject: false,
    });
    expect(r.stderr).toBe(`idv: Cannot write ${out}: the file grew past the size allowed (EFBIG); the previous file is left as it was; a --sandbox run keeps no results (and costs nothing).`);
    expect(r.exitCode).toBe(1);
    expect(await readFile(out, 'utf8')).toBe('old\n');
    expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  onlyOn('devices').it('standard output that fails (a full disk) is one line, exit 1, never 0', async () => {
    const file = await list(Array.from({ length: 5000 }, (_, i) => `u${i}@example.com`));
    const r = await execa('sh', ['-c', `exec node "${IDV}" emails "${file}" --sandbox -q > /dev/full`], { env: home.env, extendEnv: false, reject: false });
    expect(r.stderr).toBe('idv: Cannot write to standard output: no space left on the device (ENOSPC); a --sandbox run keeps no results (and costs nothing).');
    expect(r.exitCode).toBe(1);
  });

  onlyOn('devices').it('standard output that fails with --no-cache says the results were not kept and the same command pays again', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const file = await list(Array.from({ length: 5000 }, (_, i) => `u${i}@example.com`));
      const r = await execa('sh', ['-c', `exec node "${IDV}" emails "${file}" --no-cache -q > /dev/full`], { env, extendEnv: false, reject: false });
      expect(r.stderr).toBe('idv: Cannot write to standard output: no space left on the device (ENOSPC); with --no-cache the results were not kept, so the same command pays for them again.');
      expect(r.exitCode).toBe(1);
    } finally {
      await sb.close();
    }
  });

  onlyOn('signals').it('SIGHUP (a closed terminal) mid-run: exit 129, -o left as it was, no .tmp', async () => {
    const { sb, env } = await sandbox({}, home);
    const release = sb.hold(); // every request held: the run is surely mid-way when the signal comes
    try {
      const file = await list(Array.from({ length: 2000 }, (_, i) => `u${i}@example.com`));
      const out = join(home.dir, 'out.csv');
      await writeFile(out, 'old\n');
      const child = execa('node', [IDV, 'emails', file, '-q', '-o', out], { env, extendEnv: false, reject: false });
      await vi.waitFor(() => expect(sb.requests.length).toBeGreaterThan(0), { timeout: 20_000 });
      child.kill('SIGHUP');
      const r = await child.finally(release);
      expect(r.exitCode).toBe(129);
      expect(r.stderr).toMatch(interruptedLine('SIGHUP', ''));
      expect(await readFile(out, 'utf8')).toBe('old\n');
      expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

describe('cache honesty', () => {
  onlyOn('sh').it('a cache that cannot be written draws one warning line, and the output is still written', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const scope = openScope(cacheDir(env), sb.url, '/emails/validate', 86400);
      (await scope.load()).results.close();
      // A log already past the file size limit: every append fails (EFBIG), as on a full or read-only disk.
      await writeFile(scope.path, '# idv cache v1\n' + `${Math.floor(Date.now() / 1000)}\tok\tpad@example.com\n`.repeat(4000));
      const file = await list(Array.from({ length: 250 }, (_, i) => `n${i}@example.com`));
      const r = await execa('sh', ['-c', `ulimit -f 64; exec node "${IDV}" emails "${file}" -q --batch-size 50`], { env, extendEnv: false, reject: false });
      expect(r.exitCode).toBe(0);
      expect(r.stdout.split("\n")).toHaveLength(251); // execa drops the final line break
      const lines = r.stderr.split('\n');
      expect(lines).toEqual([`idv: warning: cannot write the cache (EFBIG: ${scope.path}); this run's results will be paid for again by the next run.`]);
    } finally {
      await sb.close();
    }
  });

  it('entries dated in the future count as expired: the item is sent again', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const scope = openScope(cacheDir(env), sb.url, '/emails/validate', 86400);
      (await scope.load()).results.close();
      const future = Math.floor(Date.now() / 1000) + 86400 * 365;
      const nowTs = Math.floor(Date.now() / 1000);
      await writeFile(scope.path, `# idv cache v1\n${future}\tfake\tfuture@example.com\n${nowTs}\tfake\tnow@example.com\n`);
      const r = await run(['emails', await list(['future@example.com', 'now@example.com']), '-q'], { env });
      expect(r.stdout).toBe('email,status\nfuture@example.com,ok\nnow@example.com,fake\n');
      expect(sentBatches(sb)).toEqual([['future@example.com']]);
    } finally {
      await sb.close();
    }
  });

  it('a compaction lock left by a dead run is taken over; a live one is respected', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const scope = openScope(cacheDir(env), sb.url, '/emails/validate', 86400);
      (await scope.load()).results.close();
      const nowTs = Math.floor(Date.now() / 1000);
      const damaged = `# idv cache v1\n${nowTs}\tok\ta@example.com\ngarbage line\n`;
      const file = await list(['a@example.com']);
      // A live lock (just renewed): compaction is left to its holder.
      await writeFile(scope.path, damaged);
      await writeFile(`${scope.path}.lock`, 'x');
      const live = await run(['emails', file, '-q'], { env });
      expect(live.stderr).toBe(`idv: warning: the cache had 1 damaged line (${scope.path}); ignored them.\n`);
      // The same lock, not renewed for 2 minutes: its holder died; taken over, the log rebuilt.
      const old = (Date.now() - 120_000) / 1000;
      await utimes(`${scope.path}.lock`, old, old);
      const taken = await run(['emails', file, '-q'], { env });
      expect(taken.stderr).toBe(`idv: warning: the cache had 1 damaged line (${scope.path}); rebuilt it without them.\n`);
      expect(await readFile(scope.path, 'utf8')).not.toContain('garbage');
      expect((await readdir(cacheDir(env))).filter((n) => n.includes('.lock'))).toEqual([]);
      expect(sentBatches(sb)).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

describe('a hostile proxy', () => {
  it('one that closes every CONNECT: bounded attempts, exit 1 within --timeout, never a reconnect storm nor a run that never ends', async () => {
    let connections = 0;
    const sockets = new Set<import('node:net').Socket>();
    const proxy = (await import('node:net')).createServer((s) => {
      connections++;
      sockets.add(s);
      s.on('error', () => undefined);
      s.once('data', () => s.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (proxy.address() as import('node:net').AddressInfo).port;
      const giveUp = new AbortController();
      const stuck = setTimeout(() => giveUp.abort('SIGINT'), 25_000); // only to stop a hang
      const r = await run(['emails', await list(['a@example.com']), '--retries', '1', '--timeout', '2'], {
        env: { ...home.env, IDV_BASE_URL: 'https://api.example.test', IDV_API_KEY: 'sk_test_0123456789abcdef', HTTPS_PROXY: `http://127.0.0.1:${port}` },
        signal: giveUp.signal,
      });
      clearTimeout(stuck);
      expect(r.stdout).toBe(''); // the circuit breaker: two tries, no answer, the run stops as a refused key does
      expect(r.stderr).toMatch(/^idv: The service at api\.example\.test gave no answer to 2 requests in a row: network error \(the proxy closed the connection\); check the proxy \(HTTPS_PROXY\), then run the same command again; results received so far are cached\.$/m);
      expect(r.exitCode).toBe(1);
      expect(connections).toBeLessThanOrEqual(4); // two attempts (each with one fresh-socket retry at most)
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => proxy.close(r));
    }
  });
});

describe('a server that invents statuses cannot flood the terminal or the --split folder', () => {
  it('a new status for every item: the first 32 new words pass through, later ones end error (each would be a split file)', async () => {
    let n = 0;
    const srv = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        const items = (JSON.parse(body) as { emails: string[] }).emails;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ emails: Object.fromEntries(items.map((i) => [i, { status: i === 'a0@example.com' ? 'ok' : `s${n++}` }])) }));
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(srv.address() as import('node:net').AddressInfo).port}`;
      const file = await list(Array.from({ length: 200 }, (_, i) => `a${i}@example.com`));
      const split = join(home.dir, 'split');
      const r = await run(['emails', file, '-q', '--split', split, '--batch-size', '50', '--concurrency', '1'], {
        env: { ...home.env, IDV_BASE_URL: url, IDV_API_KEY: 'sk_test_0123456789abcdef' },
      });
      const rows = r.stdout.trim().split('\n').slice(1).map((l) => l.split(',')[1]);
      expect(rows.slice(0, 33)).toEqual(['ok', ...Array.from({ length: 32 }, (_, i) => `s${i}`)]);
      expect(new Set(rows.slice(33))).toEqual(new Set(['error']));
      expect(r.stderr).toBe('idv: 167 records could not be validated (error: the service\'s answer had no usable status for 50 items); run the same command again to retry them.\n');
      expect(r.exitCode).toBe(1);
      expect((await readdir(split)).length).toBe(7 + 32);
    } finally {
      srv.closeAllConnections();
      await new Promise((r) => srv.close(r));
    }
  });
});
