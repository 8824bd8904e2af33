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
