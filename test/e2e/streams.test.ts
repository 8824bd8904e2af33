// A live stream on standard input is answered as it arrives: the layout is decided on what has come
// once the input pauses, each record waits at most ~200 ms for others to fill its batch, and each result is
// written the moment it is known. A file on disk, or input that arrives all at once, keeps its full batches.
// Each test writes lines on a timer and holds every result's arrival against its line's.
import { PassThrough } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/main.js';
import { fakeIo } from '../fake-io.js';
import { sandboxForFile, sentBatches } from '../helpers.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { delays, sleep, type Timed } from './stream-timing.js';

let sb: Sandbox;
let env: Record<string, string>;
sandboxForFile({}, (made) => ({ sb, env } = made));
beforeAll(async () => {
  // One run first: the modules a run loads are loaded before any test times a stream.
  await runCli(['emails', '-q', '--no-cache'], fakeIo({ env, input: 'warm@example.com\n' }));
});

/**
 * `idv emails …args` in this process, its standard input fed `lines` one at a time, `gapMs` apart (then ended):
 * when each line was written, and each line of standard output with when it came.
 */
async function stream(args: string[], lines: string[], gapMs: number) {
  sb.requests.length = 0;
  const stdin = new PassThrough();
  const io = fakeIo({ env, input: stdin });
  const out: Timed[] = [];
  const chunks: Timed[] = [];
  let partial = '';
  const write = io.out._write.bind(io.out);
  io.out._write = (chunk, enc, cb) => {
    const at = performance.now();
    chunks.push({ at, text: chunk.toString() });
    partial += chunk.toString();
    const parts = partial.split('\n');
    partial = parts.pop()!;
    for (const text of parts) out.push({ at, text });
    write(chunk, enc, cb);
  };
  const written: Timed[] = [];
  const running = runCli(['emails', '-q', '--no-cache', ...args], io);
  for (const line of lines) {
    written.push({ at: performance.now(), text: line });
    stdin.write(line + '\n');
    await sleep(gapMs);
  }
  stdin.end();
  const exitCode = await running;
  return { exitCode, written, out, chunks, stderr: io.err.text, batches: sentBatches(sb) };
}

describe('a live stream on standard input', () => {
  it('a plain list, a line a second apart: each result within moments of its line, each line its own request', async () => {
    const lines = ['ann@example.com', 'bob@example.org', 'carol@example.net', 'dan@example.com'];
    const r = await stream(['-f', 'ndjson'], lines, 600);
    expect(r.exitCode).toBe(0);
    expect(r.out.map((o) => o.text)).toEqual(lines.map((l) => JSON.stringify({ email: l, status: 'ok' })));
    // Each answered before the next line comes (the first after the ~200 ms the layout waits; the others go the
    // moment they come: live.test.ts times that closely).
    for (const ms of delays(r.written, r.out)) expect(ms).toBeLessThan(450);
    expect(r.batches).toEqual(lines.map((l) => [l]));
  });

  it('ten lines a second: a record waits ~200 ms at most for its batch, so a few lines go together', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `user${i}@example.com`);
    const r = await stream(['-f', 'csv'], lines, 100);
    expect(r.out.map((o) => o.text)).toEqual(['email,status', ...lines.map((l) => `${l},ok`)]);
    for (const ms of delays(r.written, r.out, 1)) expect(ms).toBeLessThan(500);
    expect(r.batches.flat()).toEqual(lines);
    expect(r.batches.length).toBeGreaterThan(2); // not one batch at the end
    expect(r.batches.length).toBeLessThan(lines.length); // nor a request a line
  });

  it('a CSV stream: its header and first row decide the layout, and every row is answered as it comes', async () => {
    const lines = ['name,email', 'Ann,ann@example.com', 'Bob,bob@example.org', 'Carol,carol@example.net'];
    const r = await stream(['-f', 'csv', '--keep-columns'], lines, 600);
    expect(r.out.map((o) => o.text)).toEqual(['name,email,status', 'Ann,ann@example.com,ok', 'Bob,bob@example.org,ok', 'Carol,carol@example.net,ok']);
    // Each row answered before the next is written (the first after the ~200 ms the layout waits).
    console.log("DELAYS", delays(r.written, r.out, 0), delays(r.written.slice(1), r.out, 1));
    for (const ms of delays(r.written.slice(1), r.out, 1)) expect(ms).toBeLessThan(500);
  });

  it('json stays one valid array, its records written as they come', async () => {
    const lines = ['ann@example.com', 'bob@example.org'];
    const r = await stream(['-f', 'json'], lines, 400);
    expect(JSON.parse(r.out.map((o) => o.text).join('\n'))).toEqual(lines.map((email) => ({ email, status: 'ok' })));
    const firstRecord = r.chunks.find((o) => o.text.includes('ann@example.com'))!;
    expect(firstRecord.at).toBeLessThan(r.written[1]!.at); // before the next line was even written
  });

  it('a table on a terminal shows each record as it comes, not after 500 of them', async () => {
    sb.requests.length = 0;
    const stdin = new PassThrough();
    const io = fakeIo({ env, input: stdin, stdoutIsTTY: true, columns: 80 });
    const running = runCli(['emails', '-q', '--no-cache'], io);
    stdin.write('ann@example.com\n');
    await sleep(500);
    expect(io.out.text).toBe('EMAIL            STATUS\nann@example.com  ok\n');
    stdin.end('bob@example.org\n');
    expect(await running).toBe(0);
    expect(io.out.text).toBe('EMAIL            STATUS\nann@example.com  ok\nbob@example.org  ok\n');
  });

  it('input that comes all at once keeps full batches', async () => {
    sb.requests.length = 0;
    const lines = Array.from({ length: 250 }, (_, i) => `user${i}@example.com`);
    const io = fakeIo({ env, input: lines.join('\n') + '\n' });
    expect(await runCli(['emails', '-q', '--no-cache', '--batch-size', '100'], io)).toBe(0);
    expect(sentBatches(sb).map((b) => b.length)).toEqual([100, 100, 50]);
  });
});
