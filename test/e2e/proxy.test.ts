// Runs through a proxy (contract: "HTTPS_PROXY / HTTP_PROXY / NO_PROXY are honoured"; plain http:// only to
// loopback, and loopback never goes through a proxy). Everything stays on 127.0.0.1:
//
//   idv (IDV_BASE_URL=https://api.example.test, HTTPS_PROXY=http://127.0.0.1:P)
//     → forward proxy (below: records each CONNECT and its Proxy-Authorization, tunnels every CONNECT to
//       the TLS relay whatever host it names, so nothing is resolved)
//     → TLS relay (test/tls/server.pem for api.example.test; pipes the decrypted bytes to the sandbox)
//     → sandbox (test/sandbox/test-sandbox.ts)
//
// idv runs in-process, given the test CA (test/tls/ca.pem) and a guarded lookup (test/guarded-lookup.cjs)
// through its Io's network options: no name is ever resolved for real; each name idv asks for is logged,
// and only the names a test maps (to 127.0.0.1) resolve. That is what lets NO_PROXY bypasses of
// api.example.test be tested without a DNS lookup, and what makes a client that ignored the proxy fail here
// without one. Two tests run the built program, where a process matters: a signal, and the process's own
// trust (NODE_EXTRA_CA_CERTS) and resolver (the same lookup, preloaded by test/dns-guard.cjs).
import { afterAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { run } from '../fake-io.js';
import { idv, sentItems } from '../helpers.js';
import { KEY, API, LIST_CSV, LIST_SENT, LIST_ERROR_CSV, type Proxy, silentProxy, closedPort, chain, idvIn, spawnedEnv, b64, expectTunnelled, stackLines, closers } from './proxy-harness.js';
import { onlyOn } from '../platforms.js';

afterAll(async () => {
  await Promise.all(closers.splice(0).map((c) => c().catch(() => undefined)));
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('HTTPS_PROXY / https_proxy', () => {
  for (const name of ['HTTPS_PROXY', 'https_proxy']) {
    it(`${name}: emails go through CONNECT api.example.test:443, exact CSV, the sandbox gets exactly the items`, async () => {
      const c = await chain();
      const r = await idvIn(c, ['emails', c.list, '-f', 'csv'], { ...c.env, [name]: c.proxy.url });
      expect(r.stderr).not.toMatch(/error/i);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(LIST_CSV);
      await expectTunnelled(c);
      expect(c.proxy.connects.every((x) => x.auth === undefined)).toBe(true);
    });
  }

  it('the built program: HTTPS_PROXY honoured, the service\'s certificate trusted through NODE_EXTRA_CA_CERTS, nothing resolved', async () => {
    const c = await chain();
    const spawned = await spawnedEnv(c);
    const r = await idv(['emails', c.list, '-f', 'csv'], { env: { ...spawned.env, HTTPS_PROXY: c.proxy.url } });
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(LIST_CSV);
    await expectTunnelled(c);
    expect(await spawned.lookups()).toEqual([]);
  });

  it('the proxy is used for every batch (several requests, --batch-size 1)', async () => {
    const c = await chain();
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv', '--batch-size', '1', '--concurrency', '2'], { ...c.env, HTTPS_PROXY: c.proxy.url });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(LIST_CSV);
    expect(c.sb.requests).toHaveLength(4);
    await expectTunnelled(c);
  });

  it('HTTP_PROXY alone is used for https:// too (undici EnvHttpProxyAgent falls back to it)', async () => {
    const c = await chain();
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv'], { ...c.env, HTTP_PROXY: c.proxy.url });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(LIST_CSV);
    await expectTunnelled(c);
  });
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('proxy credentials', () => {
  it('user:password in the proxy URL → Proxy-Authorization: Basic on CONNECT; --verbose shows neither it nor the key', async () => {
    const c = await chain();
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv', '--verbose'], { ...c.env, HTTPS_PROXY: `http://user:s3cret@127.0.0.1:${c.proxy.port}` });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(LIST_CSV);
    expect(r.stderr).toContain('POST /emails/validate'); // --verbose did log the request
    expect(c.proxy.connects.length).toBeGreaterThanOrEqual(1);
    for (const x of c.proxy.connects) expect(x.auth).toBe(`Basic ${b64('user:s3cret')}`);
    await expectTunnelled(c);
    for (const out of [r.stdout, r.stderr]) {
      expect(out).not.toContain('s3cret');
      expect(out).not.toContain(b64('user:s3cret'));
      expect(out).not.toContain(KEY);
    }
  });

  it('percent-encoded user and password are decoded before encoding (u%40corp:p%3Ass → u@corp:p:ss)', async () => {
    const c = await chain();
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv', '--verbose'], { ...c.env, https_proxy: `http://u%40corp:p%3Ass@127.0.0.1:${c.proxy.port}` });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(LIST_CSV);
    for (const x of c.proxy.connects) expect(x.auth).toBe(`Basic ${b64('u@corp:p:ss')}`);
    await expectTunnelled(c);
    expect(r.stderr).not.toMatch(/p%3Ass|p:ss/);
  });
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('loopback and NO_PROXY', () => {
  it('loopback base URL (http://127.0.0.1) never goes through the proxy, whatever *_PROXY says', async () => {
    const c = await chain();
    const trap = { HTTPS_PROXY: c.proxy.url, HTTP_PROXY: c.proxy.url, https_proxy: c.proxy.url, http_proxy: c.proxy.url };
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv'], { ...c.env, ...trap, IDV_BASE_URL: `http://127.0.0.1:${c.sb.port}` });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(LIST_CSV);
    expect(c.proxy.connections).toBe(0);
    expect([...sentItems(c.sb)].sort()).toEqual([...LIST_SENT].sort());
    expect(await c.lookups()).toEqual([]);
  });

  it('loopback base URL http://localhost never goes through the proxy either', async () => {
    const c = await chain({ dnsHosts: 'localhost=127.0.0.1' });
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv'], { ...c.env, HTTPS_PROXY: c.proxy.url, HTTP_PROXY: c.proxy.url, IDV_BASE_URL: `http://localhost:${c.sb.port}` });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(LIST_CSV);
    expect(c.proxy.connections).toBe(0);
    expect([...sentItems(c.sb)].sort()).toEqual([...LIST_SENT].sort());
  });

  // A bypass makes idv resolve api.example.test itself: the DNS guard answers 127.0.0.1 for it (nothing
  // reaches a resolver), and the base URL names the relay's port since nothing listens on 127.0.0.1:443.
  const bypass = (relayPort: number): Array<[string, Record<string, string>]> => [
    ['NO_PROXY=api.example.test', { NO_PROXY: 'api.example.test' }],
    ['no_proxy=api.example.test (lower case)', { no_proxy: 'api.example.test' }],
    ['NO_PROXY=API.Example.TEST (case-insensitive)', { NO_PROXY: 'API.Example.TEST' }],
    ['NO_PROXY=.example.test', { NO_PROXY: '.example.test' }],
    ['NO_PROXY=*.example.test', { NO_PROXY: '*.example.test' }],
    ['NO_PROXY=example.test (a parent domain)', { NO_PROXY: 'example.test' }],
    ['NO_PROXY=*', { NO_PROXY: '*' }],
    ['NO_PROXY=localhost,api.example.test (a list)', { NO_PROXY: 'localhost,api.example.test' }],
    ['NO_PROXY="localhost, api.example.test" (a list with spaces)', { NO_PROXY: 'localhost, api.example.test' }],
    [`NO_PROXY=api.example.test:<port> (matching port)`, { NO_PROXY: `api.example.test:${relayPort}` }],
  ];
  const proxied = (relayPort: number): Array<[string, Record<string, string>]> => [
    ['NO_PROXY=example.com (another domain)', { NO_PROXY: 'example.com' }],
    ['NO_PROXY=ample.test (a mere suffix, not a parent domain)', { NO_PROXY: 'ample.test' }],
    ['NO_PROXY=other.example.test (a sibling)', { NO_PROXY: 'other.example.test' }],
    ['NO_PROXY=api.example.test:<other port>', { NO_PROXY: `api.example.test:${relayPort + 1}` }],
    ['NO_PROXY= (empty)', { NO_PROXY: '' }],
  ];

  for (const i of [...Array(10).keys()]) {
    it(`bypasses the proxy: ${bypass(0)[i]![0]}`, async () => {
      const c = await chain({ dnsHosts: 'api.example.test=127.0.0.1' });
      const [, vars] = bypass(c.relay.port)[i]!;
      const r = await idvIn(c, ['emails', c.list, '-f', 'csv'], { ...c.env, HTTPS_PROXY: c.proxy.url, ...vars, IDV_BASE_URL: `${API}:${c.relay.port}` });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(LIST_CSV);
      expect(c.proxy.connections).toBe(0);
      expect((await c.lookups()).every((h) => h === 'api.example.test')).toBe(true);
      expect(await c.lookups()).not.toEqual([]); // it went direct, so it resolved the name (through the guard)
      expect(c.relay.connections.length).toBeGreaterThanOrEqual(1);
      for (const conn of c.relay.connections) expect(conn.servername).toBe('api.example.test');
      expect([...sentItems(c.sb)].sort()).toEqual([...LIST_SENT].sort());
    });
  }

  it('no proxy variables: https:// goes direct over TLS (node:https, several batches on kept-alive connections)', async () => {
    const c = await chain({ dnsHosts: 'api.example.test=127.0.0.1' });
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv', '--batch-size', '1', '--concurrency', '1'], { ...c.env, IDV_BASE_URL: `${API}:${c.relay.port}` });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(LIST_CSV);
    expect(c.proxy.connections).toBe(0);
    // 4 requests, one connection: the agent keeps it alive between batches.
    expect(c.sb.requests.filter((q) => q.path.endsWith('/validate'))).toHaveLength(4);
    expect(c.relay.connections).toHaveLength(1);
    expect(c.relay.connections[0]!.servername).toBe('api.example.test');
    expect(c.sb.requests.every((q) => q.authorization === `Bearer ${KEY}`)).toBe(true);
    expect([...sentItems(c.sb)].sort()).toEqual([...LIST_SENT].sort());
  });

  it('a certificate idv does not trust is refused: exit 1, one line naming the TLS error, nothing reaches the service', async () => {
    const c = await chain({ dnsHosts: 'api.example.test=127.0.0.1' });
    // Node's own certificates only: the test CA is not among them.
    const r = await run(['emails', c.list, '-f', 'csv', '--retries', '0'], {
      env: { ...c.env, IDV_BASE_URL: `${API}:${c.relay.port}` },
      network: { lookup: c.network.lookup },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe(LIST_ERROR_CSV);
    const lines = String(r.stderr).split('\n').filter((l) => /^idv: /.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/network error \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/);
    expect(c.sb.requests).toEqual([]);
  });

  for (const i of [...Array(5).keys()]) {
    it(`still uses the proxy: ${proxied(0)[i]![0]}`, async () => {
      const c = await chain({ dnsHosts: 'api.example.test=127.0.0.1' });
      const [, vars] = proxied(c.relay.port)[i]!;
      const r = await idvIn(c, ['emails', c.list, '-f', 'csv'], { ...c.env, HTTPS_PROXY: c.proxy.url, ...vars, IDV_BASE_URL: `${API}:${c.relay.port}` });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(LIST_CSV);
      await expectTunnelled(c, `api.example.test:${c.relay.port}`);
    });
  }
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('proxy failures', () => {
  it('the proxy is down (closed port), --retries 0: exit 1, one-line network error, records "error"', async () => {
    const c = await chain();
    const port = await closedPort();
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv', '--retries', '0'], { ...c.env, HTTPS_PROXY: `http://user:s3cret@127.0.0.1:${port}` });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe(LIST_ERROR_CSV);
    const lines = String(r.stderr).split('\n').filter(Boolean);
    expect(lines.filter((l) => /^idv: /.test(l) && /network error/i.test(l))).toHaveLength(1);
    expect(r.stderr).toMatch(/ECONNREFUSED/);
    expect(stackLines(String(r.stderr))).toEqual([]);
    expect(r.stderr).not.toContain('s3cret');
    expect(r.stderr).not.toContain(KEY);
    expect(c.sb.requests).toEqual([]);
    expect(await c.lookups()).toEqual([]);
  });

  for (const [status, text] of [
    [407, 'Proxy Authentication Required'],
    [403, 'Forbidden'],
  ] as const) {
    it(`the proxy answers CONNECT with ${status}: exit 1, one line saying so, no records written, not retried, nothing reaches the sandbox`, async () => {
      const c = await chain({
        refuse: { status, text, headers: status === 407 ? 'Proxy-Authenticate: Basic realm="test"\r\n' : '' },
      });
      // Default retries (3): a refusal is not a passing failure, so no batch is tried twice.
      const r = await idvIn(c, ['emails', c.list, '-f', 'csv'], { ...c.env, HTTPS_PROXY: `http://user:s3cret@127.0.0.1:${c.proxy.port}` });
      expect(r.exitCode).toBe(1);
      // The first batch turned away before any answer stops the run (the circuit breaker): nothing is written.
      expect(r.stdout).toBe('');
      const lines = String(r.stderr).split('\n').filter((l) => /^idv: /.test(l));
      const cause =
        status === 407
          ? 'the proxy refused the credentials in the proxy URL (HTTP 407); check the user name and password there'
          : 'the proxy refused the connection (HTTP 403)';
      expect(lines).toEqual([
        `idv: The service at ${new URL(API).host} turned away the first request: ${cause}; check the proxy (HTTPS_PROXY), then run the same command again; results received so far are cached.`,
      ]);
      expect(stackLines(String(r.stderr))).toEqual([]);
      expect(r.stderr).not.toContain('s3cret');
      expect(r.stderr).not.toContain(KEY);
      expect(c.proxy.connects.length).toBe(1); // one batch, one CONNECT, no retry
      expect(c.sb.requests).toEqual([]);
      expect(c.relay.connections).toEqual([]);
    });
  }

  it('a proxy that never answers CONNECT: --timeout 1 --retries 0 ends within seconds with "no answer within 1 s"', async () => {
    const c = await chain();
    const silent = await silentProxy();
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv', '--retries', '0', '--timeout', '1'], { ...c.env, HTTPS_PROXY: silent.url });
    expect(silent.received()).toMatch(/^CONNECT api\.example\.test:443 HTTP\/1\.1\r\n/);
    // Ended by --timeout, as its message says; a hang (undici's own 300 s CONNECT limit) fails at the test's time-out.
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe(LIST_ERROR_CSV);
    expect(r.stderr).toContain('no answer within 1 s');
    expect(stackLines(String(r.stderr))).toEqual([]);
    expect(c.sb.requests).toEqual([]);
  });

  onlyOn('signals').it('SIGTERM while a proxy CONNECT is unanswered: exit 143 once the grace for requests in flight is over', async () => {
    const c = await chain();
    const silent = await silentProxy();
    const { env } = await spawnedEnv(c);
    const proc = idv(['emails', c.list, '-f', 'csv', '--retries', '0'], {
      env: { ...env, HTTPS_PROXY: silent.url },
      forceKillAfterDelay: false, // idv ends by itself, or the test's time-out says it did not
    }) as ReturnType<typeof idv> & { kill(signal?: NodeJS.Signals): boolean };
    const deadline = Date.now() + 20_000;
    while (!silent.received().startsWith('CONNECT ') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(silent.received()).toMatch(/^CONNECT api\.example\.test:443 /);
    proc.kill('SIGTERM');
    // The CONNECT is never answered (undici would wait 300 s): only the grace's end stops the wait.
    const r = await proc;
    expect(r.signal).toBeUndefined(); // idv itself ended
    expect(r.exitCode).toBe(143);
    expect(r.stdout).toBe('');
    expect(stackLines(String(r.stderr))).toEqual([]);
  });

  it('the service hangs behind the proxy: --timeout 5 --retries 0 → "no answer within 5 s", exit 1', async () => {
    const c = await chain();
    c.sb.inject({ kind: 'hang' });
    // 5 s, not 1: the tunnel, TLS and the request must reach the service within it, on a loaded machine as well
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv', '--retries', '0', '--timeout', '5'], { ...c.env, HTTPS_PROXY: c.proxy.url });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe(LIST_ERROR_CSV);
    expect(r.stderr).toContain('no answer within 5 s'); // --timeout 5 ended it, not the default 30 s
    expect(c.proxy.connects.map((x) => x.target)).toEqual(['api.example.test:443']);
    expect([...sentItems(c.sb)].sort()).toEqual([...LIST_SENT].sort());
  });

  it('a proxy answering CONNECT with 502 once is a passing failure: retried, and the run succeeds', async () => {
    const c = await chain({ refuse: { status: 502, text: 'Bad Gateway', first: 1 } });
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv', '--retries', '1'], { ...c.env, HTTPS_PROXY: c.proxy.url });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(LIST_CSV);
    expect(c.proxy.connects.length).toBe(2);
    expect([...sentItems(c.sb)].sort()).toEqual([...LIST_SENT].sort());
  });

  it('a proxy answering CONNECT with 502 every time: the circuit breaker stops the run (exit 1), the message names it, nothing written', async () => {
    const c = await chain({ refuse: { status: 502, text: 'Bad Gateway' } });
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv', '--retries', '1'], { ...c.env, HTTPS_PROXY: c.proxy.url });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(String(r.stderr).split('\n').filter((l) => /^idv: /.test(l))).toEqual([
      'idv: The service at api.example.test gave no answer to 2 requests in a row: network error (proxy answered HTTP 502); check the proxy (HTTPS_PROXY), then run the same command again; results received so far are cached.',
    ]);
    expect(c.proxy.connects.length).toBe(2);
  });

  it('an unanswered CONNECT frees its connection at --timeout: the retry tunnels anew and the run succeeds', async () => {
    // One connection (--concurrency 1): were the stuck tunnel kept for undici's 300 s, the retry would queue behind it.
    const c = await chain({ silentFirst: 1 });
    // 5 s, not 1: the retry's tunnel and answer must come within it too, on a loaded machine as well
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv', '--retries', '1', '--timeout', '5', '--concurrency', '1'], { ...c.env, HTTPS_PROXY: c.proxy.url });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(LIST_CSV);
    expect(c.proxy.connects.length).toBe(2);
    expect([...sentItems(c.sb)].sort()).toEqual([...LIST_SENT].sort());
  });

  it('HTTPS_PROXY without a scheme (127.0.0.1:PORT) is taken as http://, as curl takes it', async () => {
    const c = await chain();
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv'], { ...c.env, HTTPS_PROXY: `127.0.0.1:${c.proxy.port}` });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(LIST_CSV);
    await expectTunnelled(c);
  });

  for (const [bad, why] of [
    ['http://user:s3cret@[bad:3128', 'idv: HTTPS_PROXY is not a proxy URL; give one like http://proxy.example.com:3128.'],
    ['socks5://127.0.0.1:1080', 'idv: HTTPS_PROXY must be an http:// or https:// proxy URL, not socks5://.'],
  ]) {
    it(`a malformed HTTPS_PROXY (${bad}) is a usage error: exit 2, one line naming the variable, no password, nothing sent`, async () => {
      const c = await chain();
      const r = await idvIn(c, ['emails', c.list, '-f', 'csv'], { ...c.env, HTTPS_PROXY: bad });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(why + '\n');
      expect(c.sb.requests).toEqual([]);
      expect(c.proxy.connections).toBe(0);
      expect(await c.lookups()).toEqual([]);
    });
  }
});
