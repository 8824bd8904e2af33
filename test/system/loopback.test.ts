// Loopback hosts (contract: plain http:// only to `localhost`, 127.0.0.0/8 or ::1; loopback never goes
// through a proxy). The match is on the whole host name: a name that merely holds a loopback one
// (x.127.0.0.1, evil-localhost, 127.0.0.1.evil.com) is another host.
import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/system/loopback.js';

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
