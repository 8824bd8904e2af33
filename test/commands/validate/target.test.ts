// Where a run's results come from (src/commands/validate/target.ts): the base URL, refused before anything
// is sent when plain http:// would carry the key across a network.
import { describe, expect, it } from 'vitest';
import { run } from '../../fake-io.js';

describe('plain http:// to a host that only holds a loopback name', () => {
  // (http://x.127.0.0.1 is no URL at all for WHATWG URL: a name ending in a number must be an IPv4 address.)
  it.each(['127.0.0.1.evil.com', 'evil-localhost', 'localhost.evil.com'])(
    'http://%s is refused (exit 2) before any request or lookup',
    async (host) => {
      const r = await run(['emails', '-', '--base-url', `http://${host}:9`, '--retries', '0', '--timeout', '1'], {
        env: { IDV_API_KEY: 'sk_test_0123456789abcdef', HOME: '/nonexistent' },
        input: 'a@gmail.com\n',
      });
      expect(r.stderr).toBe(
        `idv: Refusing plain http:// to ${host}: the API key would cross the network unencrypted; use https://.\n`,
      );
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
    },
  );
});
