// idv sandbox as a user starts it (a process): it serves on a free port with its quota and key, and idv emails
// works against it.
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import http from 'node:http';
import { idv, IDV, sandbox, withHome } from '../helpers.js';
import { run } from '../fake-io.js';

// ---------------------------------------------------------------------------------------------
describe.concurrent('idv sandbox (subprocess)', () => {
  it('serves on a free port with its quota and key; idv emails works against it', () => withHome(async (home) => {
    const proc = execa('node', [IDV, 'sandbox', '--port', '0', '--quota', '5', '--key', 'k123456789012'], {
      env: home.env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 20_000,
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no URL on stdout: ${out}`)), 10_000);
        proc.stdout!.on('data', (c: Buffer) => {
          out += c.toString();
          const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[0]);
          }
        });
        proc.catch(reject);
      });
      const items = Array.from({ length: 7 }, (_, i) => `s${i}@gmail.com`);
      const env = { ...home.env, IDV_BASE_URL: url, IDV_API_KEY: 'k123456789012' };
      const r = await run(['emails', '-'], { env, input: items.join('\n') + '\n' });
      expect(r.exitCode).toBe(4);
      expect(r.stdout).toBe(
        'email,status\n' + items.map((e, i) => `${e},${i < 5 ? 'ok' : 'quota_exceeded'}\n`).join(''),
      );
      const bad = await run(['emails', '-'], { env: { ...env, IDV_API_KEY: 'nope_wrong_key' }, input: 'a@gmail.com\n' });
      expect(bad.exitCode).toBe(3);
    } finally {
      proc.kill('SIGINT');
      const res = await Promise.race([proc, new Promise((r) => setTimeout(() => r(null), 5_000))]);
      if (res === null) proc.kill('SIGKILL');
      await proc;
    }
  }));
});
