// The sandbox's HTTP plumbing (src/sandbox/http-server.ts): a reply carried out as a reset or never, the
// delay before an answer, requests served in parallel, closing promptly, listening on loopback only.
import { describe, expect, it, vi } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from './test-sandbox.js';
import { emails, sandboxesClosedAfterEach } from './requests.js';

const sandboxes = sandboxesClosedAfterEach();

describe('replies', () => {
  it('reset destroys the socket without an answer', async () => {
    const s = await sandboxes.test();
    s.inject({ kind: 'reset' });
    await expect(emails(s, ['a@example.com'])).rejects.toThrow();
    expect((await emails(s, ['a@example.com'])).status).toBe(200);
    expect(s.requests.map((q) => q.status)).toEqual([0, 200]);
    expect(s.requests[0]!.items).toEqual(['a@example.com']);
  });

  it('hang never answers; the client can abort; close() returns promptly', async () => {
    const s = await startTestSandbox(); // closed by hand below
    s.inject({ kind: 'hang' }, 2);
    const ac = new AbortController();
    const aborted = emails(s, ['a@example.com'], { signal: ac.signal });
    // Each step waits for the request to arrive (a fixed 50 ms was too short on a busy machine).
    await vi.waitFor(() => expect(s.requests).toHaveLength(1));
    ac.abort();
    await expect(aborted).rejects.toThrow();
    const outstanding = emails(s, ['b@example.com']).then(
      () => 'answered',
      () => 'failed',
    );
    await vi.waitFor(() => expect(s.requests).toHaveLength(2));
    await s.close(); // one that waited for the hung request would wait for ever: the test's time-out says so
    expect(await outstanding).toBe('failed');
    expect(s.requests.map((q) => q.status)).toEqual([0, 0]);
    expect(s.requests[1]!.endedAt).toBeGreaterThan(0);
  });
});

describe('concurrency and lifecycle', () => {
  it('counts maxInFlight with delayMs and parallel requests', async () => {
    const s = await sandboxes.test({ delayMs: 150 });
    const answers = await Promise.all([1, 2, 3, 4].map((i) => emails(s, [`u${i}@example.com`])));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(s.maxInFlight).toBe(4); // served in parallel, not one after the other
    await emails(s, ['x@example.com']);
    expect(s.maxInFlight).toBe(4);
  });

  it('sequential keep-alive requests count one in flight, and close() does not wait for idle sockets', async () => {
    const s = await startTestSandbox();
    for (let i = 0; i < 3; i++) await emails(s, [`u${i}@example.com`]);
    expect(s.maxInFlight).toBe(1);
    await s.close();
    await s.close(); // idempotent
    await expect(emails(s, ['late@example.com'])).rejects.toThrow(); // nothing listens any more
  });

  it('close() wakes a reply waiting out its delay: the client gets no answer, and close() does not wait for the delay', async () => {
    const s = await startTestSandbox({ delayMs: 3_600_000 }); // an hour: longer than the test's time-out
    const answer = emails(s, ['a@example.com']).then(
      () => 'answered',
      () => 'failed',
    );
    await vi.waitFor(() => expect(s.requests).toHaveLength(1));
    await s.close();
    expect(await answer).toBe('failed');
  });

  it('refuses hosts that are not loopback', async () => {
    await expect(startSandbox({ host: '0.0.0.0' })).rejects.toThrow(/loopback/);
    await expect(startSandbox({ host: '192.168.1.2' })).rejects.toThrow(/loopback/);
    const s = await sandboxes.shipped({ host: 'localhost' });
    expect(s.port).toBeGreaterThan(0);
  });
});

describe('the sandbox listens on loopback only', () => {
  it.each(['x.127.0.0.1', 'evil-localhost', '127.0.0.1.evil.com'])('host %s is refused', async (host) => {
    await expect(startSandbox({ host })).rejects.toThrow(`sandbox: refusing to listen on ${host}: only loopback`);
  });
});
