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
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { NetworkOptions } from '../../src/io.js';
import { run } from '../fake-io.js';
import { idv, makeHome, ROOT, sentItems, type Home } from '../helpers.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/test-sandbox.js';

const TLS_DIR = join(ROOT, 'test', 'tls');
const CA_PEM = join(TLS_DIR, 'ca.pem');
const SERVER_CERT = readFileSync(join(TLS_DIR, 'server.pem'));
const SERVER_KEY = readFileSync(join(TLS_DIR, 'server-key.pem'));
const CA = readFileSync(CA_PEM);
const DNS_GUARD = join(ROOT, 'test', 'dns-guard.cjs');
const { guardedLookup } = createRequire(import.meta.url)('../guarded-lookup.cjs') as {
  guardedLookup(hosts: Map<string, string>, log: (host: string) => void): { lookup: NonNullable<NetworkOptions['lookup']> };
};
const KEY = 'sk_test_0123456789abcdef';
const API = 'https://api.example.test';

const LIST =
  'olivia.bennett@gmail.com\n' +
  'daniel.okafor+newsletter@gmail.com\n' +
  'throwaway4821@mailinator.com\n' +
  'john.doe@fake.com\n' +
  'noah.garcia.gmail.com\n';
const LIST_CSV =
  'email,status\n' +
  'olivia.bennett@gmail.com,ok\n' +
  'daniel.okafor+newsletter@gmail.com,alias\n' +
  'throwaway4821@mailinator.com,disposable\n' +
  'john.doe@fake.com,fake\n' +
  'noah.garcia.gmail.com,invalid\n';
const LIST_SENT = [
  'olivia.bennett@gmail.com',
  'daniel.okafor+newsletter@gmail.com',
  'throwaway4821@mailinator.com',
  'john.doe@fake.com',
];
const LIST_ERROR_CSV =
  'email,status\n' +
  'olivia.bennett@gmail.com,error\n' +
  'daniel.okafor+newsletter@gmail.com,error\n' +
  'throwaway4821@mailinator.com,error\n' +
  'john.doe@fake.com,error\n' +
  'noah.garcia.gmail.com,invalid\n';

// ---------------------------------------------------------------------------------------------
// Servers, all on 127.0.0.1 port 0; every one is closed in afterAll.

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(closers.splice(0).map((c) => c().catch(() => undefined)));
});

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** Close a server and destroy every socket it (or its pipes) opened. */
function closer(server: net.Server, sockets: Set<net.Socket>): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

function track(sockets: Set<net.Socket>, s: net.Socket): net.Socket {
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
  s.on('error', () => s.destroy());
  return s;
}

interface Relay {
  port: number;
  /** One per TLS connection: the SNI name idv sent and the decrypted bytes it wrote (first 64 KiB). */
  connections: Array<{ servername: string | false | null; plaintext: string }>;
}

/** TLS server for api.example.test whose connections are piped, decrypted, to the sandbox. */
async function startRelay(sb: TestSandbox): Promise<Relay> {
  const sockets = new Set<net.Socket>();
  const connections: Relay['connections'] = [];
  const server = tls.createServer({ cert: SERVER_CERT, key: SERVER_KEY }, (client) => {
    track(sockets, client);
    const rec = { servername: client.servername, plaintext: '' };
    connections.push(rec);
    const upstream = track(sockets, net.connect(sb.port, '127.0.0.1'));
    client.on('data', (c: Buffer) => {
      if (rec.plaintext.length < 65536) rec.plaintext += c.toString('latin1');
    });
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  server.on('connection', (s: net.Socket) => track(sockets, s));
  server.on('tlsClientError', () => undefined);
  const port = await listen(server);
  closers.push(closer(server, sockets));
  return { port, connections };
}

interface Proxy {
  url: string;
  port: number;
  /** Every CONNECT received, in order. */
  connects: Array<{ target: string; auth: string | undefined }>;
  /** Requests in absolute form (plain-HTTP proxying): idv must never send one here. */
  plain: string[];
  /** TCP connections accepted. */
  connections: number;
  /** What the client wrote into established tunnels (to check the API key never crosses in clear). */
  tunnelled(): string;
}

/** A forward proxy: CONNECT to anything is tunnelled to `relayPort` (nothing resolved), or refused with `refuse`. */
type Refusal = { status: number; text: string; headers?: string; /** only the first N CONNECTs */ first?: number };

async function startProxy(relayPort: number, refuse?: Refusal, silentFirst = 0): Promise<Proxy> {
  const sockets = new Set<net.Socket>();
  const chunks: Buffer[] = [];
  const p: Proxy = {
    url: '',
    port: 0,
    connects: [],
    plain: [],
    connections: 0,
    tunnelled: () => Buffer.concat(chunks).toString('latin1'),
  };
  const server = http.createServer((req, res) => {
    p.plain.push(`${req.method} ${req.url}`);
    res.writeHead(502).end();
  });
  server.on('connection', (s: net.Socket) => {
    p.connections++;
    track(sockets, s);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const auth = req.headers['proxy-authorization'];
    p.connects.push({ target: req.url ?? '', auth: Array.isArray(auth) ? auth.join(', ') : auth });
    if (p.connects.length <= silentFirst) return; // accepted, never answered
    if (refuse && (refuse.first === undefined || p.connects.length <= refuse.first)) {
      client.end(
        `HTTP/1.1 ${refuse.status} ${refuse.text}\r\n${refuse.headers ?? ''}Content-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      return;
    }
    const upstream = track(sockets, net.connect(relayPort, '127.0.0.1'));
    upstream.on('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      client.on('data', (c: Buffer) => chunks.push(c));
      client.pipe(upstream);
      upstream.pipe(client);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  p.port = await listen(server);
  p.url = `http://127.0.0.1:${p.port}`;
  closers.push(closer(server, sockets));
  return p;
}

/** A proxy that accepts connections and never answers: records what it received. */
async function silentProxy(): Promise<{ url: string; received: () => string }> {
  const sockets = new Set<net.Socket>();
  let text = '';
  const server = net.createServer((s) => {
    track(sockets, s);
    s.on('data', (c: Buffer) => {
      if (text.length < 4096) text += c.toString('latin1');
    });
  });
  const port = await listen(server);
  closers.push(closer(server, sockets));
  return { url: `http://127.0.0.1:${port}`, received: () => text };
}

/** A 127.0.0.1 port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  const port = await listen(s);
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

interface Chain {
  sb: TestSandbox;
  relay: Relay;
  proxy: Proxy;
  home: Home;
  /** The list above, as a file in HOME. */
  list: string;
  /** Env for idv: clean HOME, key, base URL https://api.example.test. No proxy. */
  env: Record<string, string>;
  /** The test CA and the guarded lookup (recording into lookups()). */
  network: NetworkOptions;
  /** Names idv tried to resolve (through the guarded lookup), in order. */
  lookups(): Promise<string[]>;
}

async function chain(o: { refuse?: Refusal; silentFirst?: number; dnsHosts?: string } = {}): Promise<Chain> {
  const home = await makeHome();
  closers.push(() => home.cleanup());
  const sb = await startTestSandbox({ key: KEY });
  closers.push(() => sb.close());
  const relay = await startRelay(sb);
  const proxy = await startProxy(relay.port, o.refuse, o.silentFirst);
  const list = join(home.dir, 'list.txt');
  await writeFile(list, LIST);
  const names: string[] = [];
  const { lookup } = guardedLookup(hostMap(o.dnsHosts), (host) => names.push(host));
  return {
    sb,
    relay,
    proxy,
    home,
    list,
    env: { ...home.env, IDV_API_KEY: KEY, IDV_BASE_URL: API },
    network: { ca: CA, lookup },
    lookups: async () => [...names],
  };
}

/** "name=127.0.0.1,other=127.0.0.1" as a map. */
function hostMap(text = ''): Map<string, string> {
  return new Map(
    text
      .split(',')
      .filter(Boolean)
      .map((pair) => pair.split('=').map((part) => part.trim().toLowerCase()) as [string, string]),
  );
}

/** idv in this process, through the chain's network options. */
const idvIn = (c: Chain, args: string[], env: Record<string, string>) => run(args, { env, network: c.network });

/** The built idv, trusting the test CA through NODE_EXTRA_CA_CERTS, its lookups guarded and logged to a file. */
async function spawnedEnv(c: Chain, dnsHosts?: string): Promise<{ env: Record<string, string>; lookups(): Promise<string[]> }> {
  const dnsLog = join(c.home.dir, 'dns.log');
  await writeFile(dnsLog, '');
  const env: Record<string, string> = {
    ...c.env,
    NODE_EXTRA_CA_CERTS: CA_PEM,
    NODE_OPTIONS: `--require ${JSON.stringify(DNS_GUARD)}`,
    IDV_TEST_DNS_LOG: dnsLog,
  };
  if (dnsHosts) env.IDV_TEST_DNS_HOSTS = dnsHosts;
  return { env, lookups: async () => (await readFile(dnsLog, 'utf8')).split('\n').filter(Boolean) };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** What every successful run through the proxy must show: the TLS tunnel reached the sandbox, nothing else happened. */
async function expectTunnelled(c: Chain, target = 'api.example.test:443') {
  expect(c.proxy.connects.length).toBeGreaterThanOrEqual(1);
  expect(c.proxy.connects.map((x) => x.target)).toEqual(c.proxy.connects.map(() => target));
  expect(c.proxy.plain).toEqual([]);
  expect(c.proxy.tunnelled()).not.toContain(KEY); // TLS inside the tunnel: the key never crosses in clear
  expect(c.relay.connections.length).toBe(c.proxy.connects.length);
  for (const conn of c.relay.connections) {
    expect(conn.servername).toBe('api.example.test');
    expect(conn.plaintext).toMatch(/^POST \/emails\/validate HTTP\/1\.1\r\n/);
    expect(conn.plaintext.toLowerCase()).toContain('\r\nhost: api.example.test');
    expect(conn.plaintext.toLowerCase()).not.toContain('proxy-authorization');
  }
  expect([...sentItems(c.sb)].sort()).toEqual([...LIST_SENT].sort());
  expect(c.sb.requests.every((q) => q.authorization === `Bearer ${KEY}`)).toBe(true);
  expect(await c.lookups()).toEqual([]); // idv resolved nothing itself: the proxy did the "resolving"
}

/** Lines of stderr that look like a stack trace. */
const stackLines = (stderr: string) => stderr.split('\n').filter((l) => /^\s+at\s|node:internal|\.js:\d+:\d+/.test(l));

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
    it(`the proxy answers CONNECT with ${status}: exit 1, records "error", one line saying so, not retried, nothing reaches the sandbox`, async () => {
      const c = await chain({
        refuse: { status, text, headers: status === 407 ? 'Proxy-Authenticate: Basic realm="test"\r\n' : '' },
      });
      // Default retries (3): a refusal is not a passing failure, so no batch is tried twice.
      const r = await idvIn(c, ['emails', c.list, '-f', 'csv'], { ...c.env, HTTPS_PROXY: `http://user:s3cret@127.0.0.1:${c.proxy.port}` });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe(LIST_ERROR_CSV);
      const lines = String(r.stderr).split('\n').filter((l) => /^idv: /.test(l));
      expect(lines).toEqual([
        status === 407
          ? 'idv: 4 records could not be validated (error: the proxy asks for credentials (HTTP 407); put them in the proxy URL: http://user:password@host:port); run the same command again to retry them.'
          : 'idv: 4 records could not be validated (error: the proxy refused the connection (HTTP 403)); run the same command again to retry them.',
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
    const started = Date.now();
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv', '--retries', '0', '--timeout', '1'], { ...c.env, HTTPS_PROXY: silent.url });
    expect(silent.received()).toMatch(/^CONNECT api\.example\.test:443 HTTP\/1\.1\r\n/);
    // Ended by --timeout: a busy machine may take seconds; a hang (undici's own 300 s CONNECT limit) fails the test.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe(LIST_ERROR_CSV);
    expect(r.stderr).toContain('no answer within 1 s');
    expect(stackLines(String(r.stderr))).toEqual([]);
    expect(c.sb.requests).toEqual([]);
  });

  it('SIGTERM while a proxy CONNECT is unanswered: exit 143 within a few seconds', async () => {
    const c = await chain();
    const silent = await silentProxy();
    const { env } = await spawnedEnv(c);
    const proc = idv(['emails', c.list, '-f', 'csv', '--retries', '0'], {
      env: { ...env, HTTPS_PROXY: silent.url },
    }) as ReturnType<typeof idv> & { kill(signal?: NodeJS.Signals): boolean };
    const deadline = Date.now() + 10_000;
    while (!silent.received().startsWith('CONNECT ') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(silent.received()).toMatch(/^CONNECT api\.example\.test:443 /);
    const killedAt = Date.now();
    proc.kill('SIGTERM'); // execa follows up with SIGKILL after 5 s (forceKillAfterDelay)
    const r = await proc;
    expect(r.signal).toBeUndefined(); // not SIGKILLed by execa: idv itself ended
    expect(Date.now() - killedAt).toBeLessThan(5_000); // in-flight requests get "a few seconds"
    expect(r.exitCode).toBe(143);
    expect(r.stdout).toBe('');
    expect(stackLines(String(r.stderr))).toEqual([]);
  });

  it('the service hangs behind the proxy: --timeout 1 --retries 0 → "no answer within 1 s", exit 1', async () => {
    const c = await chain();
    c.sb.inject({ kind: 'hang' });
    const started = Date.now();
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv', '--retries', '0', '--timeout', '1'], { ...c.env, HTTPS_PROXY: c.proxy.url });
    expect(Date.now() - started).toBeLessThan(20_000); // --timeout 1, not the default 30 s, even on a busy machine
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe(LIST_ERROR_CSV);
    expect(r.stderr).toContain('no answer within 1 s');
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
      'idv: The service at api.example.test gave no answer to 2 requests in a row: network error (proxy answered HTTP 502); check the proxy (HTTPS_PROXY), then run the same command again (results received so far are cached).',
    ]);
    expect(c.proxy.connects.length).toBe(2);
  });

  it('an unanswered CONNECT frees its connection at --timeout: the retry tunnels anew and the run succeeds', async () => {
    // One connection (--concurrency 1): were the stuck tunnel kept for undici's 300 s, the retry would queue behind it.
    const c = await chain({ silentFirst: 1 });
    const r = await idvIn(c, ['emails', c.list, '-f', 'csv', '--retries', '1', '--timeout', '1', '--concurrency', '1'], { ...c.env, HTTPS_PROXY: c.proxy.url });
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
