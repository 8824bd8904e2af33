// A hostile black-box audit of issues 10, 16 and 12: each test here pins a failure found by using the built
// idv as a user would (or a hostile server would), and fails without its fix.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import http from 'node:http';
import { execa } from 'execa';
import { IDV, makeHome, ROOT, sandbox, sentBatches, type Home, writeList } from './helpers.js';
import { run } from './fake-io.js';
import { cacheDir, openScope } from '../src/cache/store.js';
import { parseCacheTtl, ttlOf } from '../src/cache/ttl.js';

let home: Home;
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  await home.cleanup();
});

const list = (lines: string[], name?: string) => writeList(home, lines, name);
const readJson = async (p: string) => JSON.parse(await readFile(p, 'utf8')) as Record<string, unknown>;
const DAY = 86_400;

describe('issue 12.4: --cache-ttl by status', () => {
  it('a stale ok is sent again, a fresh disposable is not (ok=1d,disposable=180d,7d)', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      // Results cached 10 days ago and 2 hours ago, as earlier runs would have left them.
      const at = (secondsAgo: number) => () => Date.now() - secondsAgo * 1000;
      const old = openScope(cacheDir(env), sb.url, '/emails/validate', 365 * DAY, at(10 * DAY));
      (await old.load()).results.close();
      old.append([
        ['stale-ok@example.com', 'ok'],
        ['kept@mailinator.com', 'disposable'],
        ['old@fake.com', 'fake'],
      ]);
      openScope(cacheDir(env), sb.url, '/emails/validate', 365 * DAY, at(7200)).append([['fresh-ok@example.com', 'ok']]);
      const file = await list(['stale-ok@example.com', 'kept@mailinator.com', 'old@fake.com', 'fresh-ok@example.com']);

      const r = await run(['emails', file, '-q', '--cache-ttl', 'ok=1d,disposable=180d,7d'], { env });
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\nstale-ok@example.com,ok\nkept@mailinator.com,disposable\nold@fake.com,fake\nfresh-ok@example.com,ok\n');
      // ok (1 day) and fake (the bare 7d) are 10 days old: sent again; disposable (180 days) and the 2-hour-old ok are free.
      expect(sentBatches(sb)).toEqual([['stale-ok@example.com', 'old@fake.com']]);

      // A dry run counts the same way: what was just answered is fresh now, nothing is left to pay.
      const dry = await run(['emails', file, '--dry-run', '-f', 'json', '--cache-ttl', 'ok=1d,disposable=180d,7d'], { env });
      expect(JSON.parse(dry.stdout)).toMatchObject({ records: 4, unique: 4, invalid: 0, cached: 4, quota: 0 });
    } finally {
      await sb.close();
    }
  });

  it('compaction keeps what is fresh by its own status: a 10-day-old disposable survives beside 12,000 expired ok', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const old = openScope(cacheDir(env), sb.url, '/emails/validate', 365 * DAY, () => Date.now() - 10 * DAY * 1000);
      (await old.load()).results.close();
      old.append([...Array.from({ length: 12_000 }, (_, i): [string, string] => [`gone${i}@example.com`, 'ok']), ['kept@mailinator.com', 'disposable']]);
      const file = await list(['kept@mailinator.com']);
      const ttl = ['--cache-ttl', 'disposable=180d,7d'];
      const first = await run(['emails', file, '-q', ...ttl], { env });
      expect(first.stdout).toBe('email,status\nkept@mailinator.com,disposable\n');
      const log = await readFile(old.path, 'utf8');
      expect(log.split('\n').length).toBeLessThan(10); // compacted: the expired ok lines are gone
      expect(log).toContain('\tdisposable\tkept@mailinator.com\n');
      const second = await run(['emails', file, '-q', ...ttl], { env });
      expect(second.stdout).toBe('email,status\nkept@mailinator.com,disposable\n');
      expect(sentBatches(sb)).toEqual([]);
    } finally {
      await sb.close();
    }
  });

  it('parses a default and durations by status; refuses what it cannot read (exit 2, one line)', async () => {
    const seven = 7 * DAY;
    const t = parseCacheTtl('ok=90d, Disposable=180d,12h');
    expect([ttlOf(t, 'ok'), ttlOf(t, 'disposable'), ttlOf(t, 'fake'), ttlOf(t, 'risky')]).toEqual([90 * DAY, 180 * DAY, 12 * 3600, 12 * 3600]);
    expect(ttlOf(parseCacheTtl('ok=90d'), 'fake')).toBe(seven); // no bare value: the default 7d
    expect(ttlOf(parseCacheTtl('30d'), 'ok')).toBe(30 * DAY);
    for (const [flag, says] of [
      ['ok=90d,ok=1d', 'idv: --cache-ttl names ok twice.'],
      ['7d,30d', 'idv: --cache-ttl "7d,30d" gives the default duration twice; give it once, beside status=duration pairs.'],
      ['ok=90d,,7d', 'idv: --cache-ttl takes durations separated by commas, like ok=90d,disposable=180d,7d, not "ok=90d,,7d".'],
      ['ok=', 'idv: --cache-ttl takes a duration like 90s, 30m, 2h or 7d, not "".'],
      ['o k=1d', 'idv: --cache-ttl: "o k" is not a status name; write status=duration, like ok=90d.'],
      ['ok=soon', 'idv: --cache-ttl takes a duration like 90s, 30m, 2h or 7d, not "soon".'],
    ]) {
      const r = await run(['emails', '--sandbox', '--cache-ttl', flag!], { input: 'a@example.com\n' });
      expect(r.stderr, flag).toBe(says + '\n');
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
    }
  });

  it('a name that is no status the cache keeps draws a warning (a typo must not pass silently)', async () => {
    const r = await run(['emails', '--sandbox', '-q', '--cache-ttl', 'spamtrap=180d,error=1d,7d'], { input: 'a@example.com\n' });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(
      'idv: warning: --cache-ttl names "spamtrap", "error", not a status the cache keeps (it keeps: ok, alias, disposable, fake, and any new status the service gives).\n',
    );
  });
});

describe('issue 12.2: --report of a run that stopped early still says what it read, sent and paid', () => {
  const addresses = (n: number) => Array.from({ length: n }, (_, i) => `user${String(i).padStart(2, '0')}@example.com`);

  it('interrupted (Ctrl-C) after two answers: records, unique, sent and requests are those of the run, not 0', async () => {
    const { sb, env } = await sandbox({ delayMs: 150 }, home);
    try {
      const report = join(home.dir, 'run.json');
      const ctrlC = new AbortController();
      const running = run(['emails', await list(addresses(30)), '-q', '--report', report, '--batch-size', '5', '--concurrency', '1'], {
        env,
        signal: ctrlC.signal,
      });
      await expect.poll(() => sentBatches(sb).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      ctrlC.abort('SIGINT');
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

describe('issue 10.5: no temporary file is left behind, even by a second Ctrl-C', () => {
  it('a second SIGINT exits 130 at once and removes the .tmp files of -o, --split and --report', async () => {
    const { sb, env } = await sandbox({ delayMs: 2000 }, home);
    try {
      const file = await list(Array.from({ length: 50 }, (_, i) => `u${i}@example.com`));
      const out = join(home.dir, 'out.csv');
      await writeFile(out, 'old\n');
      const split = join(home.dir, 'split');
      const child = execa('node', [IDV, 'emails', file, '-q', '-o', out, '--split', split, '--report', join(home.dir, 'run.json'), '--batch-size', '10'], {
        env,
        extendEnv: false,
        reject: false,
      });
      await expect.poll(() => sb.requests.length, { timeout: 10_000 }).toBeGreaterThan(0);
      await expect.poll(async () => (await readdir(split).catch(() => [])).length, { timeout: 10_000 }).toBeGreaterThan(0);
      child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGINT');
      const r = await child;
      expect(r.exitCode).toBe(130);
      expect(await readFile(out, 'utf8')).toBe('old\n');
      expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
      expect(await readdir(split)).toEqual([]); // before the fix: .ok.csv.1a2b3c4d.tmp and six more
    } finally {
      await sb.close();
    }
  });
});

describe('issue 16: a key too short to be masked is never sent, so never echoed', () => {
  // Masking a 3-character key would have to rewrite every "abc" in every message (a 1-character one, every "e"),
  // so such a key is not masked at all, and a server that repeats it printed it in full: "Bearer abc".
  for (const source of ['IDV_API_KEY', 'the config file'] as const) {
    it(`a 3-character key from ${source}: exit 3 before any request, not printed`, async () => {
      const { sb, env: sbEnv } = await sandbox({ key: 'abc' }, home);
      try {
        sb.inject({ kind: 'status', status: 400, body: JSON.stringify({ message: 'Bad request for Bearer abc' }) });
        let env: Record<string, string | undefined> = sbEnv;
        if (source === 'the config file') {
          const { IDV_API_KEY: _unset, ...rest } = sbEnv;
          env = rest;
          const { mkdir } = await import('node:fs/promises');
          await mkdir(join(home.dir, 'config', 'idv'), { recursive: true });
          await writeFile(join(home.dir, 'config', 'idv', 'config.json'), '{"apiKey": "abc"}\n', { mode: 0o600 });
        }
        const r = await run(['emails', await list(['a@example.com'])], { env });
        const from = source === 'IDV_API_KEY' ? 'the IDV_API_KEY environment variable' : join(home.dir, 'config', 'idv', 'config.json');
        expect(r.stderr).toBe(`idv: The API key from ${from} is too short to be one (3 characters; keys have at least 8); check it, or store it again with idv auth login.\n`);
        expect(r.exitCode).toBe(3);
        expect(r.stdout).toBe('');
        expect(sb.requests).toEqual([]);
      } finally {
        await sb.close();
      }
    });
  }

  it('idv auth login refuses it (exit 2, nothing stored); idv sandbox --key refuses it too', async () => {
    const login = await run(['auth', 'login'], { env: home.env, input: 'abc\n' });
    expect(login.stderr).toBe('idv: That is too short to be an API key (3 characters; keys have at least 8); paste the whole key again.\n');
    expect(login.exitCode).toBe(2);
    expect(await readdir(join(home.dir, 'config', 'idv')).catch(() => [])).toEqual([]);
    const sb = await run(['sandbox', '--port', '0', '--key', 'abc'], { env: home.env, signal: AbortSignal.abort('SIGINT') });
    expect(sb.stderr).toBe('idv: --key must have at least 8 characters and no white space.\n');
    expect(sb.exitCode).toBe(2);
  });
});

describe('issue 10.3: a line break in a file name cannot forge a line of its own', () => {
  it('file names with \\n and \\r are shown escaped in one-line errors and notes', async () => {
    const missing = join(home.dir, 'no\nidv: all good.csv');
    const r = await run(['emails', missing]);
    expect(r.stderr).toBe(`idv: Cannot read ${join(home.dir, 'no\\nidv: all good.csv')}: no such file.\n`); // before: two lines
    expect(r.exitCode).toBe(2);

    const out = join(home.dir, 'gone\r\nidv: done', 'out.csv');
    const w = await run(['emails', '--sandbox', '-q', '-o', out], { input: 'a@example.com\n' });
    expect(w.stderr).toBe(`idv: Cannot write ${join(home.dir, 'gone\\r\\nidv: done', 'out.csv')}: no such folder (ENOENT); nothing was written.\n`);
    expect(w.exitCode).toBe(1);

    const noted = await list(['Notes:', 'email,name', 'a@example.com,A'], 'x\ny.csv');
    const n = await run(['emails', noted, '--sandbox', '-q']);
    expect(n.exitCode).toBe(0);
    expect(n.stderr).toBe(`idv: note: ${join(home.dir, 'x\\ny.csv')}: skipped line 1 above the header (not a record): "Notes:"\n`);
  });
});

describe('issue 10.3 / 10.2: what a person reads is exact', () => {
  it('a header with an escape code is shown as \\x1b in the table, not upper-cased into \\X1B', async () => {
    const file = await list(['email,na\x1bme', 'a@example.com,x'], 'h.csv');
    const r = await run(['emails', file, '--sandbox', '-q', '--keep-columns'], { stdoutIsTTY: true });
    expect(r.stdout).toBe('EMAIL          NA\\x1bME  STATUS\na@example.com  x         ok\n');
  });

  it('a quota reset more than a day away is said with its date, not only a time of day', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      sb.inject({ kind: 'status', status: 429, headers: { RateLimit: '"validations";r=0;t=2592000' } });
      const r = await run(['emails', await list(['a@example.com'])], { env });
      expect(r.exitCode).toBe(4);
      const at = new Date(Date.now() + 2592000 * 1000).toISOString();
      const when = new RegExp(`It resets in 720h( 1s)? \\(at ${at.slice(0, 10)} \\d\\d:\\d\\d UTC\\)`);
      expect(r.stderr).toMatch(when); // before: "(at 12:15 UTC)", as if today
    } finally {
      await sb.close();
    }
  });
});

describe('issue 10.6: a 32 MB line without a line break costs about what reading 32 MB costs', () => {
  it('its CPU time is within a few times that of 32 MB of 1 KB lines (before: ~100 times)', async () => {
    const MB = 1024 * 1024;
    const oneLine = join(home.dir, 'one-line.txt');
    await writeFile(oneLine, 'a'.repeat(32 * MB));
    const lines = join(home.dir, 'lines.txt');
    await writeFile(lines, ('b'.repeat(1023) + '\n').repeat(32 * 1024));
    // CPU time of this process, not wall time: other work on a busy machine does not count.
    const cpu = async (file: string) => {
      const start = process.cpuUsage();
      const r = await run(['emails', file, '--dry-run', '-f', 'json']);
      const used = process.cpuUsage(start);
      expect(r.exitCode, r.stderr).toBe(0);
      return { ms: (used.user + used.system) / 1000, out: JSON.parse(r.stdout) as Record<string, number> };
    };
    await cpu(lines); // warm up (modules loaded, code compiled)
    const plain = await cpu(lines);
    const long = await cpu(oneLine);
    expect(long.out).toMatchObject({ records: 1, unique: 0, invalid: 1, cached: 0, quota: 0 });
    expect(plain.out.records).toBe(32 * 1024);
    expect(long.ms, `32 MB line ${long.ms.toFixed(0)} ms CPU, 32 MB of lines ${plain.ms.toFixed(0)} ms`).toBeLessThan(5 * plain.ms + 500);
  });
});

describe('issue 12.2: --report also for a flag that commander refuses', () => {
  it('a bad --max-spend value: exit 2, one line, and a usage report replaces the last run\'s "done"', async () => {
    const report = join(home.dir, 'run.json');
    await writeFile(report, JSON.stringify({ reason: 'done', exitCode: 0 }));
    const file = await list(['a@example.com']);
    for (const args of [
      ['emails', file, '--report', report, '--max-spend', '1k'],
      ['domains', `--report=${report}`, file, '--format', 'xml'],
      ['emails', file, '--report', report, '--no-such-flag'],
    ]) {
      const r = await run(args, { env: home.env });
      expect(r.exitCode).toBe(2);
      expect(r.stderr.split('\n')[0]).toMatch(/^idv: (option|unknown option)/);
      const j = await readJson(report);
      expect(j).toMatchObject({ format: 1, command: args[0], exitCode: 2, reason: 'usage', inputs: [], records: 0, sent: 0 });
      expect(j.message).toBe(r.stderr.split('\n')[0]!.replace(/^idv: /, ''));
    }
    expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

describe('issue 16 / 10.1: the last net at the CLI edge', () => {
  it('an error nothing caught, quoting the key: one masked line, exit 1, -o intact, no .tmp (before: Node\'s raw stack with the key)', async () => {
    const { sb, env } = await sandbox({ delayMs: 3000 }, home);
    try {
      const file = await list(['a@example.com', 'b@example.com']);
      const out = join(home.dir, 'out.csv');
      await writeFile(out, 'old\n');
      const r = await execa('node', ['--require', join(ROOT, 'test', 'throws-later.cjs'), IDV, 'emails', file, '-o', out], {
        env: { ...env, THROW_AFTER_MS: '300' },
        extendEnv: false,
        reject: false,
      });
      expect(r.stderr).toBe('idv: unexpected error: boom: Authorization: Bearer **** (set IDV_DEBUG=1 for details)');
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(await readFile(out, 'utf8')).toBe('old\n');
      expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

describe('a hostile proxy', () => {
  it('one that closes every CONNECT: bounded attempts, exit 1 within --timeout (before: a reconnect storm and a run that never ended)', async () => {
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
      const stuck = setTimeout(() => giveUp.abort('SIGINT'), 15_000);
      const r = await run(['emails', await list(['a@example.com']), '--retries', '1', '--timeout', '2'], {
        env: { ...home.env, IDV_BASE_URL: 'https://api.example.test', IDV_API_KEY: 'sk_test_0123456789abcdef', HTTPS_PROXY: `http://127.0.0.1:${port}` },
        signal: giveUp.signal,
      });
      clearTimeout(stuck);
      expect(r.stdout).toBe(''); // the circuit breaker: two tries, no answer, the run stops as a refused key does
      expect(r.stderr).toMatch(/^idv: The service at api\.example\.test gave no answer to 2 requests in a row: network error \(the proxy closed the connection\); check the proxy \(HTTPS_PROXY\), then run the same command again \(results received so far are cached\)\.$/m);
      expect(r.exitCode).toBe(1);
      expect(connections).toBeLessThanOrEqual(4); // two attempts (each with one fresh-socket retry at most)
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => proxy.close(r));
    }
  });
});

describe('issue 10.4: a server that invents statuses cannot flood the terminal or the --split folder', () => {
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

describe('issue 12.5: --suggest never "corrects" a provider\'s real domain in another country', () => {
  // Each of these is a real address domain of the same provider (Yahoo Greece, Microsoft Belgium…), one
  // letter of its country code away from a listed one: a suggestion would send a subscriber's mail elsewhere.
  const real = ['yahoo.gr', 'yahoo.in', 'yahoo.dk', 'yahoo.cn', 'yahoo.cl', 'yahoo.com.ar', 'hotmail.dk', 'hotmail.be', 'outlook.dk', 'outlook.be', 'yahoo.com.ua'];
  it.each(real)('%s: no suggestion', async (domain) => {
    const { suggestDomain } = await import('../src/output/suggest.js');
    expect(suggestDomain(domain)).toBe(null);
  });
  it('typos inside the name, or a country code that is none, still get one', async () => {
    const { suggestDomain } = await import('../src/output/suggest.js');
    expect(['yahho.fr', 'hotmial.de', 'outlok.de', 'yahoo.com.ay', 'hotmail.co.ul', 'comcast.ent', 'gmail.con', 'yahoo.fx'].map(suggestDomain)).toEqual([
      'yahoo.fr', 'hotmail.de', 'outlook.de', 'yahoo.com.au', 'hotmail.co.uk', 'comcast.net', 'gmail.com', 'yahoo.fr',
    ]);
  });
});

describe('issue 10.5: -o naming a folder fails before anything is paid for', () => {
  it('exit 1, one line, no request sent, no .tmp beside it (before: 9 requests, 738 items paid, then the error)', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const { mkdir } = await import('node:fs/promises');
      const folder = join(home.dir, 'results');
      await mkdir(folder);
      const r = await run(['emails', await list(Array.from({ length: 2000 }, (_, i) => `u${i}@example.com`)), '-q', '-o', folder], { env });
      expect(r.stderr).toBe(`idv: Cannot write ${folder}: it is a folder (EISDIR); give a file name.\n`);
      expect(r.exitCode).toBe(1);
      expect(sentBatches(sb)).toEqual([]);
      expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

describe('issue 10.5: an output that cannot be made leaves no temporary file of the others', () => {
  it('--split naming a file: exit 1 before any request, and no .tmp of -o left', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const notAFolder = join(home.dir, 'split');
      await writeFile(notAFolder, 'x');
      const out = join(home.dir, 'out.csv');
      const r = await run(['emails', await list(['a@example.com']), '-q', '-o', out, '--split', notAFolder], { env });
      expect(r.stderr).toBe(`idv: Cannot make the --split folder ${notAFolder}: a file of that name is in the way (EEXIST).\n`);
      expect(r.exitCode).toBe(1);
      expect(sentBatches(sb)).toEqual([]);
      expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]); // before: .out.csv.1a2b3c4d.tmp
    } finally {
      await sb.close();
    }
  });
});

describe('issue 16: the stored key is masked from the first message on, as the environment\'s is', () => {
  it('a key from the config file given by mistake as a flag value: masked in the usage error, like IDV_API_KEY', async () => {
    const KEY = 'sk_live_CONFIGKEY12345';
    const env = { ...home.env };
    expect((await run(['auth', 'login', '--no-check'], { env, input: KEY + '\n' })).exitCode).toBe(0);
    const file = await list(['a@example.com']);
    const url = await run(['emails', file, '--base-url', KEY], { env });
    expect(url.stderr).toBe('idv: The base URL "****" is not a URL; give one like https://api.valididentities.com.\n'); // before: the key
    expect(url.exitCode).toBe(2);
    const flag = await run(['emails', file, '--max-spend', KEY], { env });
    expect(flag.stderr).toBe("idv: option '--max-spend <n>' argument '****' is invalid. Give a whole number.\n(run with --help for usage)\n");
    expect(flag.exitCode).toBe(2);
  });
});

describe('issue 10.1: Ctrl-C frees a reader waiting on a full output window', () => {
  it('60,000 lines of 50 addresses, their one request never answered: Ctrl-C ends the run (130), not a hang', async () => {
    const { sb, env } = await sandbox({ quota: 0 }, home);
    try {
      sb.inject({ kind: 'hang' });
      const lines = Array.from({ length: 60_000 }, (_, i) => `p${i % 50}@example.com`);
      const ctrlC = new AbortController();
      const running = run(['emails', '-', '-q'], { env, input: lines.join('\n') + '\n', signal: ctrlC.signal });
      await expect.poll(() => sb.requests.length, { timeout: 10_000 }).toBe(1);
      await new Promise((r) => setTimeout(r, 300)); // the reader has filled the window (50,000 records) and waits
      ctrlC.abort('SIGINT');
      const r = await running; // before the fix: never settles once the request is cut
      expect(r.exitCode).toBe(130);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('idv: Interrupted (SIGINT); results received so far are kept in the cache.\n');
    } finally {
      await sb.close();
    }
  });
});

describe('issue 10.2: --timeout is bounded too', () => {
  it('a --timeout past Node\'s timer limit (25 days) is refused, not turned into "no answer within 2200000 s" at once', async () => {
    const r = await run(['emails', '--sandbox', '--timeout', '2200000'], { input: 'a@example.com\n' });
    expect(r.stderr).toBe("idv: option '--timeout <seconds>' argument '2200000' is invalid. Give a number of seconds above 0, at most 86400 (a day).\n(run with --help for usage)\n");
    expect(r.exitCode).toBe(2);
    const day = await run(['emails', '--sandbox', '-q', '--timeout', '86400'], { input: 'a@example.com\n' });
    expect(day.stdout).toBe('email,status\na@example.com,ok\n');
    expect(day.exitCode).toBe(0);
  });
});
