// Rehearsing a nightly job against a slow, failing sandbox (startSandbox's latency, faults at a rate, seed and
// request log, as `idv sandbox --latency --faults --seed` starts it): idv retries 5xx, gives up on a service that
// never answers, stops cleanly at a 429 burst and says when to come back; a seed replays the same night.
import { describe, expect, it } from 'vitest';
import { startSandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { run } from '../fake-io.js';
import { makeHome } from '../helpers.js';

const list = Array.from({ length: 12 }, (_, i) => `user${i}@example.com`).join('\n') + '\n';

async function rehearse(options: SandboxOptions, args: string[]) {
  const home = await makeHome();
  const log: string[] = [];
  const sandbox = await startSandbox({ ...options, log: (l) => log.push(l) });
  try {
    const env = { ...home.env, IDV_BASE_URL: sandbox.url, IDV_API_KEY: sandbox.key };
    const r = await run(['emails', '-', '--no-cache', ...args], { env, input: list });
    for (let i = 0; i < 100 && log.length === 0; i++) await new Promise((done) => setTimeout(done, 10));
    return { ...r, log, key: sandbox.key };
  } finally {
    await sandbox.close();
    await home.cleanup();
  }
}

describe('a sandbox to rehearse with', () => {
  it('5xx on every request: each batch tried again, then every record error, exit 1', async () => {
    const r = await rehearse({ faults: '5xx=100%' }, ['--retries', '1', '--batch-size', '6', '--concurrency', '1', '-q']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('email,status\n' + list.replace(/\n/g, ',error\n'));
    expect(r.log).toHaveLength(4); // two batches, each tried twice
    for (const line of r.log) expect(line).toMatch(/ POST \/emails\/validate 6 items → 50[0234] in \d+ ms \(fault: 50[0234]\); key \*\*\*\*\w{4}$/);
    expect(r.log.join('\n')).not.toContain(r.key);
  });

  it('a service that never answers: --timeout gives up on it, exit 1, nothing written as validated', async () => {
    const r = await rehearse({ faults: 'timeout=100%' }, ['--timeout', '1s', '--retries', '0', '--batch-size', '12', '-q']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/no answer/);
    expect(r.log[0]).toMatch(/ POST \/emails\/validate 12 items → no answer \(the client gave up\) in \d+ ms \(fault: timeout\)/);
  });

  it('a 429 burst: a clean stop, every record written, exit 4, the burst\'s end said', async () => {
    const r = await rehearse({ faults: '429=100%/30s' }, ['--batch-size', '12']);
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('email,status\n' + list.replace(/\n/g, ',quota_exceeded\n'));
    expect(r.stderr).toMatch(/resets in 30s/);
    expect(r.log[0]).toMatch(/→ 429 in \d+ ms \(fault: 429 burst\)/);
  });

  it('the same seed replays the same night: the same faults met, batch by batch', async () => {
    const night = async () => {
      const r = await rehearse({ faults: '5xx=40%', seed: 2024 }, ['--retries', '3', '--batch-size', '2', '--concurrency', '1', '-q']);
      return { exit: r.exitCode, stdout: r.stdout, statuses: r.log.map((l) => /→ (\d+)/.exec(l)![1]) };
    };
    const first = await night();
    expect(first.statuses).toContain('200');
    expect(first.statuses.some((s) => s !== '200')).toBe(true);
    expect(await night()).toEqual(first);
  });
});
