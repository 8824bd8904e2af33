// `idv sandbox` (src/commands/sandbox.ts): what it prints, that it serves until a signal, then closes; its
// flags' ranges.
import { describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import { fakeIo as sharedFakeIo, run as runCli } from '../fake-io.js';
import { ROOT } from '../helpers.js';
import { run as runSandboxCommand } from '../../src/commands/sandbox.js';
import type { Io } from '../../src/system/io.js';

describe('idv sandbox command', () => {
  function fakeIo(signal: AbortSignal): { io: Io; out: () => string; err: () => string } {
    const io = sharedFakeIo({ signal, cwd: process.cwd() });
    return { io, out: () => io.out.text, err: () => io.err.text };
  }

  it("on Windows the example is PowerShell's: the variables set first, then the command", async () => {
    const ac = new AbortController();
    const io = sharedFakeIo({ signal: ac.signal, cwd: process.cwd(), platform: 'win32' });
    const done = runSandboxCommand({ port: 0, quota: 50, window: 3600, key: 'sk_cmd_test' }, io);
    for (let i = 0; i < 100 && !io.err.text.includes('Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 10));
    const url = /listening on (\S+)/.exec(io.out.text)![1]!;
    expect(io.out.text.split('\n')[3]).toBe(`Try: $env:IDV_BASE_URL='${url}'; $env:IDV_API_KEY='sk_cmd_test'; idv emails ${join(ROOT, 'examples', 'sample.csv')}`);
    ac.abort('SIGINT');
    await done;
  });

  it('prints the URL, key, quota and an example, serves until aborted, then closes', async () => {
    const ac = new AbortController();
    const { io, out, err } = fakeIo(ac.signal);
    const done = runSandboxCommand({ port: 0, quota: 50, window: 3600, key: 'sk_cmd_test' }, io);
    await vi.waitFor(() => expect(err()).toContain('Ctrl-C'), { timeout: 20_000 }); // listening
    const lines = out().split('\n');
    const m = /^idv sandbox listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(lines[0]!);
    expect(m).not.toBeNull();
    const url = m![1]!;
    expect(lines.slice(1)).toEqual([
      'key: sk_cmd_test',
      'quota: 50 validations per 1h',
      `Try: IDV_BASE_URL=${url} IDV_API_KEY=sk_cmd_test idv emails ${join(ROOT, 'examples', 'sample.csv')}`,
      '',
    ]);
    expect(err()).toBe('Press Ctrl-C to stop.\n');
    const r = await fetch(url + '/emails/validate', {
      method: 'POST',
      headers: { Authorization: 'Bearer sk_cmd_test', 'Content-Type': 'application/json' },
      body: JSON.stringify({ emails: ['a@example.com'] }),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit')).toMatch(/r=49;/);
    ac.abort('SIGINT');
    await done;
    await expect(fetch(url + '/emails/validate', { method: 'POST' })).rejects.toThrow();
  });

  it('says "quota: unlimited" for --quota 0 and refuses bad options', async () => {
    const ac = new AbortController();
    ac.abort('SIGINT');
    const { io, out } = fakeIo(ac.signal);
    await runSandboxCommand({ port: 0, quota: 0, window: 3600 }, io);
    expect(out()).toMatch(/^key: sk_sandbox_[0-9a-f]{16}$/m);
    expect(out()).toContain('\nquota: unlimited\n');
    // Ranges are checked once, by the flags' parsers, before the command runs.
    for (const [flag, value, says] of [
      ['--port', '70000', '--port "70000": give a whole number from 0 to 65535.'],
      ['--quota', '-1', '--quota "-1": give a whole number of at least 0.'],
      ['--window', '0', '--window "0" is too short: give at least 1s.'],
      ['--window', '1.5s', '--window "1.5s" is not a whole number of seconds.'],
      ['--window', '90', null],
      ['--window', '1h', null],
    ]) {
      const r = await runCli(['sandbox', flag!, value!, '--port', '-1']);
      // Each refused value is one line; a window that is right lets the run get as far as the bad port.
      expect(r.stderr).toBe(`idv: ${says ?? '--port "-1": give a whole number from 0 to 65535.'}\n`);
      expect(r.exitCode).toBe(2);
    }
  });

  it('--latency, --faults and --seed: said when it starts, each request logged on standard error (-q: none)', async () => {
    const ac = new AbortController();
    const { io, out, err } = fakeIo(ac.signal);
    const done = runSandboxCommand(
      { port: 0, quota: 50, window: 3600, key: 'sk_cmd_test_0000', latency: { min: 10, max: 40 }, faults: [{ kind: 'status', status: 503, rate: 1 }], seed: 42, quiet: false },
      io,
    );
    for (let i = 0; i < 100 && !err().includes('Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 10));
    const lines = out().split('\n');
    expect(lines.slice(1, 6)).toEqual(['key: sk_cmd_test_0000', 'quota: 50 validations per 1h', 'latency: 10ms to 40ms before each answer', 'faults: 503 100%', 'seed: 42 (--seed 42 replays them)']);
    const url = lines[0]!.split(' ').pop()!;
    const r = await fetch(url + '/emails/validate', {
      method: 'POST',
      headers: { Authorization: 'Bearer sk_cmd_test_0000', 'Content-Type': 'application/json' },
      body: JSON.stringify({ emails: ['a@example.com'] }),
    });
    expect(r.status).toBe(503);
    for (let i = 0; i < 100 && !err().includes('validate'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(err()).toMatch(/^Press Ctrl-C to stop\.\n\d{4}-\d\d-\d\dT[\d:.]+Z POST \/emails\/validate 1 item → 503 in \d+ ms \(fault: 503\); key \*\*\*\*0000\n$/);
    ac.abort('SIGINT');
    await done;

    const quiet = new AbortController();
    const q = fakeIo(quiet.signal);
    const running = runSandboxCommand({ port: 0, quota: 50, window: 3600, key: 'sk_cmd_test_0000', quiet: true, latency: undefined, faults: undefined, seed: undefined }, q.io);
    for (let i = 0; i < 100 && !q.out().includes('Try:'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(q.out()).not.toMatch(/^(latency|faults|seed):/m); // nothing to replay: no seed said
    await fetch(q.out().split('\n')[0]!.split(' ').pop()! + '/nope');
    quiet.abort('SIGINT');
    await running;
    expect(q.err()).toBe(''); // -q: neither the note nor the request log
  });

  it('refuses a latency, a fault list or a seed it cannot read, in one line (exit 2)', async () => {
    for (const [flag, value, says] of [
      ['--faults', '5xx=10', '--faults: "5xx=10": give the rate in percent, like 5xx=10%.'],
      ['--faults', '404=1%', '--faults: "404=1%": no fault is called "404"; give 5xx, a status from 500 to 599, timeout, reset or 429.'],
      ['--faults', '5xx=60%,timeout=60%', '--faults: the rates add up to 120%, more than 100%.'],
      ['--faults', '429=1%/soon', '--faults takes a duration like 90s, 30m, 2h or 7d, not "soon".'],
      ['--latency', '2s-1s', '--latency "2s-1s": give the shorter wait first (1s-2s).'],
      ['--latency', '11m', '--latency "11m" is too long: give at most 10m.'],
      ['--latency', '300', '--latency "300" has no unit: write 300ms or 300s.'],
      ['--latency', '-1s', '--latency takes a duration (300ms) or a range (100ms-2s), not "-1s".'],
      ['--latency', '1s-', '--latency takes a duration (300ms) or a range (100ms-2s), not "1s-".'],
      ['--latency', '1s-2s-3s', '--latency takes a duration (300ms) or a range (100ms-2s), not "1s-2s-3s".'],
      ['--seed', '-1', '--seed "-1": give a whole number from 0 to 4294967295.'],
    ]) {
      const r = await runCli(['sandbox', flag!, value!]);
      expect(r.stderr, `${flag} ${value}`).toBe(`idv: ${says}\n`);
      expect(r.exitCode).toBe(2);
    }
  });
});

