// startSandbox for a program's own tests: the emulator on loopback with its key, its quota and window (in the
// rate-limit headers a run reads), a key of the program's choosing, and options out of range refused.
import { describe, expect, it } from 'vitest';
import { IdvError, startSandbox, validateEmails, type ValidationFacts } from '../../src/index.js';

describe('startSandbox', () => {
  it('serves on loopback with a key of its own; its quota and window are what a run learns of the quota', async () => {
    const sb = await startSandbox({ quota: 3, window: 60_000 });
    try {
      expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sb.apiKey).toMatch(/^sk_sandbox_[0-9a-f]{16}$/);
      const run = validateEmails(['a@example.com', 'b@mailinator.com', 'c@example.com', 'd@example.com'], { baseUrl: sb.url, apiKey: sb.apiKey, cache: false, batchSize: 1, concurrency: 1 });
      const statuses: string[] = [];
      for await (const r of run) statuses.push(r.status);
      expect(statuses).toEqual(['ok', 'disposable', 'ok', 'quota_exceeded']);
      const facts: ValidationFacts = await run.done;
      expect(facts.quota).toMatchObject({ remaining: 0, limit: 3 });
      const inSeconds = (facts.quota!.resetsAt!.getTime() - Date.now()) / 1000;
      expect(inSeconds).toBeGreaterThan(50);
      expect(inSeconds).toBeLessThanOrEqual(61);
    } finally {
      await sb.close();
    }
  });

  it('accepts only its key: another is refused (401), as the service refuses it', async () => {
    const sb = await startSandbox({ apiKey: 'sk_mine_0123456789' });
    try {
      expect(sb.apiKey).toBe('sk_mine_0123456789');
      const run = validateEmails(['a@example.com'], { baseUrl: sb.url, apiKey: 'sk_other_0123456789', cache: false });
      await expect((async () => { for await (const _ of run); })()).rejects.toMatchObject({ kind: 'auth' });
    } finally {
      await sb.close();
    }
  });

  it('options out of range are a usage error naming the option', async () => {
    await expect(startSandbox({ window: 1500 })).rejects.toThrow('window is in milliseconds, whole seconds of at least 1000; not 1500.');
    await expect(startSandbox({ quota: -1 })).rejects.toMatchObject({ kind: 'usage', message: expect.stringContaining('startSandbox: quota must be an integer') });
    await expect(startSandbox({ apiKey: 'has space' })).rejects.toBeInstanceOf(IdvError);
  });

  it('close() ends it: nothing listens at its URL any more', async () => {
    const sb = await startSandbox();
    await sb.close();
    await expect(fetch(`${sb.url}/emails/validate`, { method: 'POST' })).rejects.toThrow();
  });
});

describe('startSandbox: a slow, failing service to rehearse against', () => {
  it('faults at a rate, drawn from its seed (the same seed, the same faults), each request in its log; the run retries them', async () => {
    const logs: string[][] = [[], []];
    const outcomes: string[] = [];
    const keys: string[] = [];
    for (const n of [0, 1]) {
      const sb = await startSandbox({ faults: '503=50%', seed: 42, log: (l) => logs[n]!.push(l), latency: { min: 1, max: 5 } });
      try {
        expect(sb.seed).toBe(42);
        keys.push(sb.apiKey);
        const run = validateEmails(['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com'], { baseUrl: sb.url, apiKey: sb.apiKey, cache: false, batchSize: 1, concurrency: 1, retries: 10 });
        for await (const r of run) expect(r.status).toBe('ok');
        outcomes.push(String((await run.done).retries));
      } finally {
        await sb.close();
      }
    }
    expect(Number(outcomes[0])).toBeGreaterThan(0);
    expect(outcomes[1]).toBe(outcomes[0]);
    const statuses = (lines: string[]) => lines.map((l) => / (200|503) /.exec(l)?.[1]);
    expect(statuses(logs[1]!)).toEqual(statuses(logs[0]!));
    expect(statuses(logs[0]!)).toContain('503');
    expect(logs[0]![0]).toMatch(/ POST \/emails\/validate 1 item → (200|503) in \d+ ms; key \*{4}[0-9a-f]{4}$/); // the key masked
    expect(logs.flat().filter((l) => keys.some((k) => l.includes(k)))).toEqual([]);
  });

  it('a fault grammar it cannot read is a usage error naming the option', async () => {
    await expect(startSandbox({ faults: '5xx=ten' })).rejects.toMatchObject({ kind: 'usage', message: expect.stringMatching(/^startSandbox: faults: /) });
    await expect(startSandbox({ latency: -1 })).rejects.toMatchObject({ kind: 'usage', message: expect.stringMatching(/^startSandbox: latency must be/) });
  });
});
