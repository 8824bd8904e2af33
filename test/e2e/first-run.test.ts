import { describe, expect, it } from 'vitest';
import { fixture, idv, sandbox, sentItems, homeForEachTest } from '../helpers.js';

const home = homeForEachTest();

describe('idv emails (smoke)', () => {
  it('validates a plain list against the sandbox and writes CSV in a pipe', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const r = await idv(['emails', '-'], { env, input: 'a@gmail.com\nb+x@gmail.com\nnope\nA@GMAIL.com\n' });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\na@gmail.com,ok\nb+x@gmail.com,alias\nnope,invalid\nA@GMAIL.com,ok\n');
      expect(sentItems(sb)).toEqual(['a@gmail.com', 'b+x@gmail.com', 'A@GMAIL.com']);
      expect(sb.requests[0]!.authorization).toBe('Bearer sk_test_0123456789abcdef');
    } finally {
      await sb.close();
    }
  });

  it('runs the fixture with --sandbox and no key', async () => {
    const r = await idv(['emails', fixture('emails.txt'), '--sandbox', '-q'], { env: home.env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')[0]).toBe('email,status');
  });
});
