// A live stream on standard input is answered as it arrives: the layout is decided on what has come
// once the input pauses, each record waits only a moment for others to fill its batch, and each result is
// written the moment it is known. A file on disk, or input that arrives all at once, keeps its full batches.
// Each test writes a line only once the output shows the results of the lines before it (stream-steps.ts),
// and ends the input only after the last result is out: a result held back for more input hangs the test.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/main.js';
import { fakeIo } from '../fake-io.js';
import { sandboxForFile, sentBatches } from '../helpers.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { feedInStep, ndjsonSteps, untilShown, type Step } from './stream-steps.js';

let sb: Sandbox;
let env: Record<string, string>;
sandboxForFile({}, (made) => ({ sb, env } = made));

/**
 * `idv emails …args` in this process, its standard input fed step by step in step with its output (each step's
 * output shown before the next is written; the input ended after the last): the exit code, the batches sent.
 */
async function stream(args: string[], steps: Step[]) {
  sb.requests.length = 0;
  const stdin = new PassThrough();
  const io = fakeIo({ env, input: stdin });
  const running = runCli(['emails', '-q', '--no-cache', ...args], io);
  try {
    await feedInStep(stdin, () => io.out.text, steps);
  } finally {
    stdin.end(); // a step that failed: the run still ends
  }
  const exitCode = await running;
  return { exitCode, out: io.out.text, stderr: io.err.text, batches: sentBatches(sb) };
}

describe('a live stream on standard input', () => {
  it('a plain list, a line at a time: each result is out before the next line comes, each line its own request', async () => {
    const lines = ['ann@example.com', 'bob@example.org', 'carol@example.net', 'dan@example.com'];
    const r = await stream(['-f', 'ndjson'], ndjsonSteps(lines));
    expect(r.exitCode).toBe(0);
    expect(r.out).toBe(lines.map((l) => JSON.stringify({ email: l, status: 'ok' }) + '\n').join(''));
    expect(r.batches).toEqual(lines.map((l) => [l]));
  });

  it('lines that come together go in one request, without waiting for more input or its end', async () => {
    const r = await stream(['-f', 'csv'], [
      ['ann@example.com\n', 'email,status\nann@example.com,ok\n'],
      ['bob@example.org\ncarol@example.net\ndan@example.com\n', 'email,status\nann@example.com,ok\nbob@example.org,ok\ncarol@example.net,ok\ndan@example.com,ok\n'],
      ['erin@example.com\n', 'email,status\nann@example.com,ok\nbob@example.org,ok\ncarol@example.net,ok\ndan@example.com,ok\nerin@example.com,ok\n'],
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.batches).toEqual([['ann@example.com'], ['bob@example.org', 'carol@example.net', 'dan@example.com'], ['erin@example.com']]);
  });

  it('a CSV stream: its header and first row decide the layout, and every row is answered as it comes', async () => {
    const r = await stream(['-f', 'csv', '--keep-columns'], [
      ['name,email\nAnn,ann@example.com\n', 'name,email,status\nAnn,ann@example.com,ok\n'],
      ['Bob,bob@example.org\n', 'name,email,status\nAnn,ann@example.com,ok\nBob,bob@example.org,ok\n'],
      ['Carol,carol@example.net\n', 'name,email,status\nAnn,ann@example.com,ok\nBob,bob@example.org,ok\nCarol,carol@example.net,ok\n'],
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.batches).toEqual([['ann@example.com'], ['bob@example.org'], ['carol@example.net']]);
  });

  it('json stays one valid array, its records written as they come', async () => {
    sb.requests.length = 0;
    const stdin = new PassThrough();
    const io = fakeIo({ env, input: stdin });
    const running = runCli(['emails', '-q', '--no-cache', '-f', 'json'], io);
    stdin.write('ann@example.com\n');
    // The first record is out while the input is open (the array's end waits for the input's).
    await untilShown(() => io.out.text, (text) => text.includes('ann@example.com'));
    expect(io.out.text).not.toContain(']');
    stdin.end('bob@example.org\n');
    expect(await running).toBe(0);
    expect(JSON.parse(io.out.text)).toEqual(['ann@example.com', 'bob@example.org'].map((email) => ({ email, status: 'ok' })));
  });

  it('a table on a terminal shows each record as it comes, not after 500 of them', async () => {
    sb.requests.length = 0;
    const stdin = new PassThrough();
    const io = fakeIo({ env, input: stdin, stdoutIsTTY: true, columns: 80 });
    const running = runCli(['emails', '-q', '--no-cache'], io);
    await feedInStep(stdin, () => io.out.text, [['ann@example.com\n', 'EMAIL            STATUS\nann@example.com  ok\n']]);
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
