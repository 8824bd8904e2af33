// A live stream through a real pipe or a FIFO, to the built program: each result is written the moment it is
// known, and a signal is heard while idv waits for the next line. (In-process streams: streams.test.ts.) Each
// line is written only once the output shows the result of the line before it (stream-steps.ts).
import { execa } from 'execa';
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { IDV, sandboxForFile, type Home, interruptedLine } from '../helpers.js';
import { untilWaiting } from '../process-wait.js';
import { feedInStep, ndjsonSteps, untilShown } from './stream-steps.js';
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
