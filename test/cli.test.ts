// Issue 10.1's safety net, in a real process: if the event loop empties while a run is unfinished (a
// promise nothing will settle), idv says so and exits 1, never 0 with records unwritten.
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { join } from 'node:path';
import { fixture, IDV, makeHome, ROOT } from './helpers.js';

describe('safety net', () => {
  it('a run that can never finish exits 1 with one line, not 0', async () => {
    const home = await makeHome();
    try {
      const r = await execa('node', ['--require', join(ROOT, 'test', 'never-reads.cjs'), IDV, 'emails', fixture('emails.txt')], {
        // Nothing listens on port 9, and no request is ever made: the file never yields a record.
        env: { ...home.env, IDV_API_KEY: 'sk_test_0123456789abcdef', IDV_BASE_URL: 'http://127.0.0.1:9' },
        extendEnv: false,
        reject: false,
        timeout: 20_000,
      });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('idv: internal error: the run stopped before every record was written; nothing was completed. Please report this.');
    } finally {
      await home.cleanup();
    }
  });
});
