// Loopback hosts (contract: plain http:// only to `localhost`, 127.0.0.0/8 or ::1; loopback never goes
// through a proxy). The match is on the whole host name: a name that merely holds a loopback one
// (x.127.0.0.1, evil-localhost, 127.0.0.1.evil.com) is another host, and a key sent there over plain http://
// would cross the network unencrypted.
import { describe, expect, it } from 'vitest';
import { isLoopback } from '../src/api/loopback.js';
import { startSandbox } from '../src/sandbox/server.js';
import { run } from './fake-io.js';

describe('isLoopback', () => {
  it.each(['localhost', 'LocalHost', '127.0.0.1', '127.1.2.3', '127.255.255.255', '::1', '[::1]', '0:0:0:0:0:0:0:1'])('%s is loopback', (h) => {
    expect(isLoopback(h)).toBe(true);
  });
  it.each([
    'x.127.0.0.1',
    '127.0.0.1.evil.com',
    '127.0.0.1x',
    'evil-localhost',
    'localhost.evil.com',
    'notlocalhost',
    '127.0.0.256',
    '128.0.0.1',
    '0.0.0.0',
    '::2',
    '',
  ])('%j is not loopback', (h) => {
    expect(isLoopback(h)).toBe(false);
  });
});

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

describe('the sandbox listens on loopback only', () => {
  it.each(['x.127.0.0.1', 'evil-localhost', '127.0.0.1.evil.com'])('host %s is refused', async (host) => {
    await expect(startSandbox({ host })).rejects.toThrow(`sandbox: refusing to listen on ${host}: only loopback`);
  });
});
