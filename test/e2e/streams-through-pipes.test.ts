// A live stream through a real pipe or a FIFO, to the built program: each result is written the moment it is
// known, and a signal is heard while idv waits for the next line. (In-process streams: streams.test.ts.) Each
// line is written only once the output shows the result of the line before it (stream-steps.ts).
import { execa } from 'execa';
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IDV, sandboxForFile, sentBatches, type Home, interruptedLine } from '../helpers.js';
import { untilWaiting } from '../process-wait.js';
import { feedInStep, ndjsonSteps, STEP_DEADLINE_MS, untilShown, type Step } from './stream-steps.js';
import { withSandbox } from './helpers.js';
import { onlyOn } from '../platforms.js';

let home: Home;
let env: Record<string, string>;
sandboxForFile({}, (made) => ({ home, env } = made));

onlyOn('fifo').describe('through a real pipe and a FIFO (the built program)', () => {
  /** The built idv reading standard input, or the FIFO `fifo`: lines written in step with their results; the exit code and the output. */
  async function spawned(fifo: string | null, lines: string[]) {
    const child = execa('node', [IDV, 'emails', '-q', '-f', 'ndjson', fifo ?? '-'], { env, extendEnv: false, reject: false, stdin: fifo ? 'ignore' : 'pipe', stripFinalNewline: false });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    const into = fifo ? createWriteStream(fifo) : child.stdin!;
    try {
      await feedInStep(into, () => out, ndjsonSteps(lines));
    } finally {
      into.end(); // a step that failed: the run still ends
    }
    const r = await child;
    return { exitCode: r.exitCode, out: String(r.stdout), stderr: String(r.stderr) };
  }

  it('standard input from a pipe: each result is out before the next line comes', async () => {
    const lines = ['ann@example.com', 'bob@example.org', 'carol@example.net'];
    const r = await spawned(null, lines);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.out).toBe(lines.map((l) => JSON.stringify({ email: l, status: 'ok' }) + '\n').join(''));
  });

  for (const [signal, code, line] of [['SIGINT', 130, 'ann@example.com'], ['SIGTERM', 143, null]] as const) {
    it(`${signal} is heard while idv waits for the next line of a stream that does not end${line ? ', after a result' : ', before any line'}`, async () => {
      const child = execa('node', [IDV, 'emails', '-q', '-f', 'csv', '--sandbox'], { env, extendEnv: false, reject: false, stdin: 'pipe', stripFinalNewline: false });
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => void (out += chunk.toString()));
      if (line) {
        child.stdin!.write(line + '\n');
        await untilShown(() => out, `email,status\n${line},ok\n`);
      }
      // Loaded, its handlers installed, asleep on the open input: a signal sent sooner would find Node's default.
      await untilWaiting(child.pid!, 1000);
      child.kill(signal); // idv alone: its standard input stays open, as a supervisor stopping it would leave it
      const r = await child; // a run that did not hear it would wait for ever: the test's time-out ends that
      expect(r.signal, 'ended by the signal itself: its handler was not there').toBeUndefined();
      expect(r.exitCode).toBe(code);
      expect(r.stderr).toMatch(interruptedLine(signal));
      // Stopped before any answer: nothing written, not even the header (it waits for the first record).
      expect(out).toBe(line ? `email,status\n${line},ok\n` : '');
      child.stdin!.destroy();
    });
  }

  it('a FIFO named as the file: the same', async () => {
    const fifo = join(home.dir, 'signups.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const lines = ['ann@example.com', 'bob@example.org'];
    const r = await spawned(fifo, lines);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.out).toBe(lines.map((l) => JSON.stringify({ email: l, status: 'ok' }) + '\n').join(''));
  });

  it('a FIFO named after another file: opened once, so its one writer\'s records are all read after the file\'s', async () => {
    await writeFile(join(home.dir, 'first.txt'), 'ann@example.com\n');
    const fifo = join(home.dir, 'later.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const options = { env, extendEnv: false, reject: false, cwd: home.dir, stdin: 'ignore', stripFinalNewline: false, timeout: 25_000 } as const;
    const child = execa('node', [IDV, 'emails', '-q', 'first.txt', fifo], options);
    await writeFile(fifo, 'bob@example.org\ncy@example.net\n'); // one writer, once: a second open would wait for another
    const r = await child;
    expect([r.timedOut, r.exitCode, r.stdout, r.stderr]).toEqual([false, 0, 'email,status\nann@example.com,ok\nbob@example.org,ok\ncy@example.net,ok\n', '']);
  });
});

onlyOn('devices').it("a pipe named as a file after another, as bash's <(…) gives it: its records are read, none lost to a first look", async () => {
  await writeFile(join(home.dir, 'first.txt'), 'ann@example.com\n');
  const command = `"${process.execPath}" "${IDV}" emails -q first.txt <(printf 'bob@example.org\\ncy@example.net\\n')`;
  const r = await execa('bash', ['-c', command], { env, extendEnv: false, reject: false, cwd: home.dir, stdin: 'ignore', stripFinalNewline: false, timeout: 25_000 });
  expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, 'email,status\nann@example.com,ok\nbob@example.org,ok\ncy@example.net,ok\n', '']);
});

describe('a quota stop on standard input (the built program)', () => {
  const lines = [1, 2, 3, 4, 5, 6].map((i) => `l${i}@example.com`);
  const record = (email: string, status: string) => JSON.stringify({ email, status }) + '\n';
  const written = lines.map((l, i) => record(l, i < 3 ? 'ok' : 'quota_exceeded')).join('');
  const stopLine = /^idv: Quota used up: 3 records not validated \(quota_exceeded\)\. It resets in \S+( \S+)? \(at [^)]+\); run the same command again then: results already received are cached and not paid for twice\.$/;

  it('a stream that stays open ends at its pause after the stop: every record read written, the unsent quota_exceeded, exit 4 with the reset', async () => {
    await withSandbox({ quota: 3 }, async ({ sb, env }) => {
      // The deadline only stops a run that would wait for the end of an input that never ends.
      const child = execa('node', [IDV, 'emails', '-f', 'ndjson', '-'], { env, extendEnv: false, reject: false, stdin: 'pipe', stripFinalNewline: false, timeout: STEP_DEADLINE_MS });
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => void (out += chunk.toString()));
      // Three lines one at a time, each paid for; then three in one write: the first finds the quota used up (r=0).
      const steps: Step[] = [...ndjsonSteps(lines.slice(0, 3)), [lines.slice(3).join('\n') + '\n', written]];
      try {
        await feedInStep(child.stdin!, () => out, steps);
        const r = await child; // the input stays open: only the stop can end the run
        expect(r.timedOut, 'idv waited for the end of an input that never ends').toBe(false);
        expect(r.exitCode, String(r.stderr)).toBe(4);
        expect(r.stdout).toBe(written);
        expect(String(r.stderr).trimEnd().split('\n').at(-1)).toMatch(stopLine);
        expect(sentBatches(sb)).toEqual([[lines[0]], [lines[1]], [lines[2]]]);
      } finally {
        child.stdin!.destroy();
      }
    });
  });

  for (const via of ['a file', 'a pipe that ends'] as const) {
    it(`${via} under the same quota: every record written, then exit 4 with the reset`, async () => {
      await withSandbox({ quota: 3 }, async ({ sb, env, home }) => {
        const text = lines.join('\n') + '\n';
        const file = join(home.dir, 'signups.txt');
        await writeFile(file, text);
        const args = [IDV, 'emails', '-f', 'ndjson', via === 'a file' ? file : '-'];
        const r = await execa('node', args, { env, extendEnv: false, reject: false, stripFinalNewline: false, timeout: STEP_DEADLINE_MS, ...(via === 'a file' ? { stdin: 'ignore' as const } : { input: text }) });
        expect(r.exitCode, String(r.stderr)).toBe(4);
        expect(r.stdout).toBe(written);
        expect(String(r.stderr).trimEnd().split('\n').at(-1)).toMatch(stopLine);
        expect(sentBatches(sb)).toEqual([lines]); // one request: the service validated three, the rest came back quota_exceeded
      });
    });
  }
});
