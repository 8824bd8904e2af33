// The chain the proxy tests (test/e2e/proxy.test.ts) run through, all on 127.0.0.1: a forward proxy that records
// each CONNECT, a TLS relay for api.example.test, the sandbox; the test CA and a guarded lookup handed to idv's Io.
// Every server started here is closed by the test file's afterAll (closers).
import { expect } from 'vitest';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { NetworkOptions } from '../../src/system/io.js';
import { run } from '../fake-io.js';
import { makeHome, ROOT, sentItems, type Home } from '../helpers.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/test-sandbox.js';

export const TLS_DIR = join(ROOT, 'test', 'tls');
export const CA_PEM = join(TLS_DIR, 'ca.pem');
export const SERVER_CERT = readFileSync(join(TLS_DIR, 'server.pem'));
export const SERVER_KEY = readFileSync(join(TLS_DIR, 'server-key.pem'));
export const CA = readFileSync(CA_PEM);
export const DNS_GUARD = join(ROOT, 'test', 'dns-guard.cjs');
export const { guardedLookup } = createRequire(import.meta.url)('../guarded-lookup.cjs') as {
  guardedLookup(hosts: Map<string, string>, log: (host: string) => void): { lookup: NonNullable<NetworkOptions['lookup']> };
};
export const KEY = 'sk_test_0123456789abcdef';
export const API = 'https://api.example.test';

export const LIST =
  'olivia.bennett@gmail.com\n' +
  'daniel.okafor+newsletter@gmail.com\n' +
  'throwaway4821@mailinator.com\n' +
  'john.doe@fake.com\n' +
  'noah.garcia.gmail.com\n';
export const LIST_CSV =
  'email,status\n' +
  'olivia.bennett@gmail.com,ok\n' +
  'daniel.okafor+newsletter@gmail.com,alias\n' +
  'throwaway4821@mailinator.com,disposable\n' +
  'john.doe@fake.com,fake\n' +
  'noah.garcia.gmail.com,invalid\n';
export const LIST_SENT = [
  'olivia.bennett@gmail.com',
  'daniel.okafor+newsletter@gmail.com',
  'throwaway4821@mailinator.com',
  'john.doe@fake.com',
];
export const LIST_ERROR_CSV =
  'email,status\n' +
  'olivia.bennett@gmail.com,error\n' +
  'daniel.okafor+newsletter@gmail.com,error\n' +
  'throwaway4821@mailinator.com,error\n' +
  'john.doe@fake.com,error\n' +
  'noah.garcia.gmail.com,invalid\n';

// ---------------------------------------------------------------------------------------------
// Servers, all on 127.0.0.1 port 0; every one is closed in afterAll.

export const closers: Array<() => Promise<void>> = [];

export function listen(server: net.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** Close a server and destroy every socket it (or its pipes) opened. */
export function closer(server: net.Server, sockets: Set<net.Socket>): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

export function track(sockets: Set<net.Socket>, s: net.Socket): net.Socket {
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
  s.on('error', () => s.destroy());
  return s;
}

export interface Relay {
  port: number;
  /** One per TLS connection: the SNI name idv sent and the decrypted bytes it wrote (first 64 KiB). */
  connections: Array<{ servername: string | false | null; plaintext: string }>;
}

/** TLS server for api.example.test whose connections are piped, decrypted, to the sandbox. */
export async function startRelay(sb: TestSandbox): Promise<Relay> {
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

export interface Proxy {
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
export type Refusal = { status: number; text: string; headers?: string; /** only the first N CONNECTs */ first?: number };

export async function startProxy(relayPort: number, refuse?: Refusal, silentFirst = 0): Promise<Proxy> {
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
export async function silentProxy(): Promise<{ url: string; received: () => string }> {
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
export async function closedPort(): Promise<number> {
  const s = net.createServer();
  const port = await listen(s);
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface Chain {
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

export async function chain(o: { refuse?: Refusal; silentFirst?: number; dnsHosts?: string } = {}): Promise<Chain> {
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
export function hostMap(text = ''): Map<string, string> {
  return new Map(
    text
      .split(',')
      .filter(Boolean)
      .map((pair) => pair.split('=').map((part) => part.trim().toLowerCase()) as [string, string]),
  );
}

/** idv in this process, through the chain's network options. */
export const idvIn = (c: Chain, args: string[], env: Record<string, string>) => run(args, { env, network: c.network });

/** The built idv, trusting the test CA through NODE_EXTRA_CA_CERTS, its lookups guarded and logged to a file. */
export async function spawnedEnv(c: Chain, dnsHosts?: string): Promise<{ env: Record<string, string>; lookups(): Promise<string[]> }> {
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

export const b64 = (s: string) => Buffer.from(s).toString('base64');

/** What every successful run through the proxy must show: the TLS tunnel reached the sandbox, nothing else happened. */
export async function expectTunnelled(c: Chain, target = 'api.example.test:443') {
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
export const stackLines = (stderr: string) => stderr.split('\n').filter((l) => /^\s+at\s|node:internal|\.js:\d+:\d+/.test(l));
