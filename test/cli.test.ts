// The last net at the CLI edge (src/cli.cts), in a real process: a run whose event loop empties unfinished exits 1
// with one line, never 0 with records unwritten; an error nothing caught is one masked line, exit 1, -o intact.
import { describe, expect, it, vi } from 'vitest';
import { execa } from 'execa';
import { join } from 'node:path';
import { fixture, IDV, makeHome, ROOT, sandbox, homeForEachTest, interruptedLine } from './helpers.js';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { run } from './fake-io.js';

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

describe('standard input', () => {
  it('is made only when a run reads it: a run from a file does not build process.stdin at its start', async () => {
    const home = await makeHome();
    try {
      const args = ['--require', join(ROOT, 'test', 'watch-stdin.cjs'), IDV, 'emails', '--sandbox', '-q'];
      const opts = { env: home.env, extendEnv: false, reject: false, timeout: 20_000 } as const;
      const fromFile = await execa('node', [...args, fixture('emails.txt')], opts);
      expect([fromFile.exitCode, fromFile.stderr]).toEqual([0, 'stdin made: false']);
      const fromStdin = await execa('node', [...args, '-'], { ...opts, input: 'ann@example.com\n' });
      expect([fromStdin.exitCode, fromStdin.stdout, fromStdin.stderr]).toEqual([0, 'email,status\nann@example.com,ok', 'stdin made: true']);
    } finally {
      await home.cleanup();
    }
  });
});

describe('the last net at the CLI edge: an error nothing caught', () => {
  const home = homeForEachTest();
  const list = home.list;
  it('an error nothing caught, quoting the key: one masked line, exit 1, -o intact, no .tmp, never Node\'s raw stack with the key', async () => {
    const { sb, env } = await sandbox({}, home);
    const release = sb.hold(); // the request stays in flight until the error has ended the run
    try {
      const file = await list(['a@example.com', 'b@example.com']);
      const out = join(home.dir, 'out.csv');
      await writeFile(out, 'old\n');
      const trigger = join(home.dir, 'throw-now');
      const running = execa('node', ['--require', join(ROOT, 'test', 'throws-later.cjs'), IDV, 'emails', file, '-o', out], {
        env: { ...env, IDV_TEST_TRIGGER: trigger },
        extendEnv: false,
        reject: false,
      });
      await vi.waitFor(() => expect(sb.requests).toHaveLength(1), { timeout: 20_000 }); // at work
      await writeFile(trigger, '');
      const r = await running.finally(release);
      expect(r.stderr).toBe('idv: unexpected error: boom: Authorization: Bearer **** (set IDV_DEBUG=1 for details)');
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(await readFile(out, 'utf8')).toBe('old\n');
      expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

describe("Ctrl-Break (Windows' SIGBREAK)", () => {
  const home = homeForEachTest();
  it('is heard as Ctrl-C: no new requests, -o as it was, one line, exit 130', async () => {
    const { sb, env } = await sandbox({}, home);
    const release = sb.hold(); // the request is in flight when Ctrl-Break comes, and stays so
    try {
      const file = await home.list(['a@example.com', 'b@example.com']);
      const out = join(home.dir, 'out.csv');
      await writeFile(out, 'old\n');
      const trigger = join(home.dir, 'break-now');
      const running = execa('node', ['--require', join(ROOT, 'test', 'breaks-later.cjs'), IDV, 'emails', file, '-o', out], {
        env: { ...env, IDV_TEST_TRIGGER: trigger },
        extendEnv: false,
        reject: false,
      });
      await vi.waitFor(() => expect(sb.requests).toHaveLength(1), { timeout: 20_000 }); // at work
      await writeFile(trigger, '');
      const r = await running.finally(release);
      expect([r.exitCode, r.stdout, r.stderr]).toEqual([130, '', expect.stringMatching(interruptedLine('SIGINT', ''))]);
      expect(await readFile(out, 'utf8')).toBe('old\n');
      expect(sb.requests).toHaveLength(1);
    } finally {
      await sb.close();
    }
  });
});
