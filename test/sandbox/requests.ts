// Requests to a sandbox as the sandbox's tests send them (fetch), and sandboxes closed after each test.
import { afterEach } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { startTestSandbox, type TestSandbox, type TestSandboxOptions } from './test-sandbox.js';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: () => unknown;
}

export interface PostInit {
  /** The Bearer key: default the sandbox's; null sends no Authorization header. */
  key?: string | null;
  /** A body sent as is instead of `body` as JSON. */
  raw?: string;
  method?: string;
  signal?: AbortSignal;
}

export async function post(s: { url: string; key: string }, path: string, body: unknown, init: PostInit = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const key = init.key === undefined ? s.key : init.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  const method = init.method ?? 'POST';
  const res = await fetch(s.url + path, {
    method,
    headers,
    body: method === 'GET' ? undefined : (init.raw ?? JSON.stringify(body)),
    signal: init.signal,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

export const emails = (s: { url: string; key: string }, items: string[], init?: PostInit) => post(s, '/emails/validate', { emails: items }, init);

/** Start sandboxes that are closed after each test of the file: the shipped one, or the test's. */
export function sandboxesClosedAfterEach(): { shipped(o?: SandboxOptions): Promise<Sandbox>; test(o?: TestSandboxOptions): Promise<TestSandbox> } {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const kept = <T extends { close(): Promise<void> }>(s: T): T => {
    open.push(s);
    return s;
  };
  return {
    shipped: async (o = {}) => kept(await startSandbox(o)),
    test: async (o = {}) => kept(await startTestSandbox(o)),
  };
}
