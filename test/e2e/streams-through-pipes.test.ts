// A live stream through a real pipe or a FIFO, to the built program: each result is written the moment it is
// known, and a signal is heard while idv waits for the next line. (In-process streams: streams.test.ts.)
import { execa } from 'execa';
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IDV, sandboxForFile, type Home } from '../helpers.js';
import { delays, sleep, type Timed } from './stream-timing.js';
import { onlyOn } from '../platforms.js';

let home: Home;
let env: Record<string, string>;
sandboxForFile({}, (made) => ({ home, env } = made));

onlyOn('fifo').describe('through a real pipe and a FIFO (the built program)', () => {
  /** The built idv reading standard input, or the FIFO `fifo`: lines written `gapMs` apart, results with their times. */
  async function spawned(fifo: string | null, lines: string[], gapMs: number) {
    const child = execa('node', [IDV, 'emails', '-q', '-f', 'ndjson', fifo ?? '-'], { env, extendEnv: false, reject: false, buffer: false, stdin: fifo ? 'ignore' : 'pipe' });
    const out: Timed[] = [];
    let partial = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const at = performance.now();
      partial += chunk.toString();
      const parts = partial.split('\n');
      partial = parts.pop()!;
      for (const text of parts) out.push({ at, text });
    });
    const into = fifo ? createWriteStream(fifo) : child.stdin!;
    await sleep(300); // the program starts
    const written: Timed[] = [];
    for (const line of lines) {
      written.push({ at: performance.now(), text: line });
      into.write(line + '\n');
      await sleep(gapMs);
    }
    into.end();
    const r = await child;
    return { exitCode: r.exitCode, written, out };
  }

  it('standard input from a pipe: each result within moments of its line', { timeout: 20_000 }, async () => {
    const lines = ['ann@example.com', 'bob@example.org', 'carol@example.net'];
    const r = await spawned(null, lines, 600);
    expect(r.exitCode).toBe(0);
    expect(r.out.map((o) => o.text)).toEqual(lines.map((l) => JSON.stringify({ email: l, status: 'ok' })));
    const d = delays(r.written, r.out);
    expect(d[0]).toBeLessThan(500);
    for (const ms of d.slice(1)) expect(ms).toBeLessThan(300);
  });

  it('a signal is heard while idv waits for the next line of a stream that does not end', { timeout: 20_000 }, async () => {
    for (const [signal, code, line] of [['SIGINT', 130, 'ann@example.com'], ['SIGTERM', 143, null]] as const) {
      const child = execa('node', [IDV, 'emails', '-q', '-f', 'csv', '--sandbox'], { env, extendEnv: false, reject: false, stdin: 'pipe', stripFinalNewline: false });
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => void (out += chunk.toString()));
      await sleep(300);
      if (line) {
        child.stdin!.write(line + '\n');
        await expect.poll(() => out, { timeout: 5_000 }).toBe(`email,status\n${line},ok\n`);
      }
      const sent = performance.now();
      child.kill(signal); // idv alone: its standard input stays open, as a supervisor stopping it would leave it
      const r = await child;
      expect(performance.now() - sent).toBeLessThan(3_000);
      expect(r.exitCode).toBe(code);
      expect(r.stderr).toBe(`idv: Interrupted (${signal}); results received so far are kept in the cache.\n`);
      // Stopped before any answer: nothing written, not even the header (it waits for the first record).
      expect(out).toBe(line ? `email,status\n${line},ok\n` : '');
      child.stdin!.destroy();
    }
  });

  it('a FIFO named as the file: the same', { timeout: 20_000 }, async () => {
    const fifo = join(home.dir, 'signups.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const lines = ['ann@example.com', 'bob@example.org'];
    const r = await spawned(fifo, lines, 600);
    expect(r.exitCode).toBe(0);
    expect(r.out.map((o) => o.text)).toEqual(lines.map((l) => JSON.stringify({ email: l, status: 'ok' })));
    const d = delays(r.written, r.out);
    expect(d[0]).toBeLessThan(500);
    expect(d[1]).toBeLessThan(300);
  });
});
