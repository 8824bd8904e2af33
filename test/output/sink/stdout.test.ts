// Sinks (src/output/sink.ts) for standard output (which paths are it: test/output/destination.test.ts): written in blocks, and a reader that goes
// away, stops reading or fails ends every wait.
import { describe, expect, it, vi } from 'vitest';
import { getEventListeners } from 'node:events';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { fileSink, sinkFor, stdoutSink, writeChunk } from '../../../src/output/sink.js';
import { dir, useTestFolder, writeThrough, recordingStdout } from './harness.js';
import { onlyOn } from '../../platforms.js';

useTestFolder();

describe('standard output is written in blocks', () => {
  it('small writes are gathered into one block, handed over when the output is put in place', async () => {
    const { stream, blocks } = recordingStdout();
    const sink = sinkFor({ given: null, path: null }, { stdout: stream, signal: new AbortController().signal });
    await sink.write('email,status\n');
    await sink.write('a@example.com,ok\n');
    expect(blocks).toEqual([]);
    await sink.commit();
    expect(blocks).toEqual(['email,status\na@example.com,ok\n']);
  });

  it('a block goes as soon as it holds 64 KiB, not a byte before', async () => {
    const { stream, blocks } = recordingStdout();
    const sink = stdoutSink(stream);
    await sink.write('x'.repeat(64 * 1024 - 1));
    expect(blocks).toEqual([]);
    await sink.write('y');
    expect(blocks.map((b) => b.length)).toEqual([64 * 1024]);
    await sink.write('z');
    await sink.prepare();
    expect(blocks.map((b) => b.length)).toEqual([64 * 1024, 1]);
  });

  it('text held 250 ms goes out with the next write, however little (a reader gone, `| head`, is found early)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const { stream, blocks } = recordingStdout();
      const sink = stdoutSink(stream);
      await sink.write('email,status\n');
      vi.advanceTimersByTime(249);
      await sink.write('a@example.com,ok\n');
      expect(blocks).toEqual([]);
      vi.advanceTimersByTime(1);
      await sink.write('b@example.com,ok\n');
      expect(blocks).toEqual(['email,status\na@example.com,ok\nb@example.com,ok\n']);
      await sink.write('c@example.com,ok\n');
      expect(blocks).toHaveLength(1);
      // Held since its own first write, not since the sink was made: a header written late (a run stopped
      // before any record) is not sent at once, and an aborted output leaves nothing behind.
      const late = recordingStdout();
      const lateSink = stdoutSink(late.stream);
      vi.advanceTimersByTime(5000);
      await lateSink.write('email,status\n');
      expect(late.blocks).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('live (a stream read as it comes): each write goes at once', async () => {
    const { stream, blocks } = recordingStdout();
    const sink = stdoutSink(stream, undefined, true);
    await sink.write('email,status\n');
    await sink.write('a@example.com,ok\n');
    expect(blocks).toEqual(['email,status\n', 'a@example.com,ok\n']);
  });

  it('bytes (a workbook) go after the text before them, as they are', async () => {
    const { stream, blocks } = recordingStdout();
    const sink = stdoutSink(stream);
    await sink.write('abc');
    await sink.write(new Uint8Array([0x50, 0x4b, 0x03, 0x04]));
    await sink.write('def');
    await sink.prepare();
    expect(blocks).toEqual(['abc', 'PK\x03\x04', 'def']);
  });

  it('a reader that went away (EPIPE) is no error: the sink says it is closed, and nothing more is handed over', async () => {
    let handed = 0;
    const stream = new Writable({
      write(_chunk, _enc, cb) {
        handed++;
        cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const sink = stdoutSink(stream, undefined, true);
    expect(sink.closed).toBe(false);
    await sink.write('a\n');
    await new Promise((r) => setImmediate(r));
    expect(sink.closed).toBe(true);
    await sink.write('b\n');
    await sink.write(new Uint8Array([1, 2]));
    await sink.commit();
    expect(handed).toBe(1);
  });

  it('a standard output that fails for another reason (a full disk) is an error in one line, at the write and at the end', async () => {
    const stream = new Writable({
      write(_chunk, _enc, cb) {
        cb(Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' }));
      },
    });
    const sink = stdoutSink(stream, undefined, true);
    await sink.write('a\n').catch(() => undefined);
    await new Promise((r) => setImmediate(r));
    expect(sink.closed).toBe(false);
    const message = 'Cannot write to standard output: no space left on the device (ENOSPC).';
    await expect(sink.write('b\n')).rejects.toMatchObject({ kind: 'failed', message });
    await expect(sink.commit()).rejects.toMatchObject({ kind: 'failed', message });
  });

  it('a reader that stops reading holds no stopped run: the signal ends the wait for it to drain', async () => {
    const stream = new Writable({ highWaterMark: 1, write: () => undefined }); // never reads
    const ac = new AbortController();
    const sink = stdoutSink(stream, ac.signal, true);
    let done = false;
    const p = sink.write('a\n').then(() => (done = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(done).toBe(false);
    ac.abort();
    await p;
    expect(done).toBe(true);
    await sink.write('b\n'); // the run is stopping: no wait at all
  });

  it('a reader that closes while idv waits for it to drain ends the wait', async () => {
    const stream = new Writable({ highWaterMark: 1, write: () => undefined });
    const ac = new AbortController();
    const sink = stdoutSink(stream, ac.signal, true);
    const errorListeners = stream.listenerCount('error');
    const p = sink.write('a\n');
    await new Promise((r) => setTimeout(r, 10));
    stream.destroy();
    await p;
    // the wait's listeners are gone with it: a long run waits thousands of times
    expect([stream.listenerCount('drain'), stream.listenerCount('close'), stream.listenerCount('error')]).toEqual([0, 0, errorListeners]);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });
});

describe('what a sink says of itself', () => {
  onlyOn('devFiles').it('only standard output is closed by its reader, and only a replaced file counts as replaced', async () => {
    const file = fileSink(join(dir, 'out.csv'));
    await writeThrough(file, 'a\n');
    const device = fileSink('/dev/null');
    await writeThrough(device, 'a\n');
    const stdout = stdoutSink(new PassThrough());
    expect([file.closed, file.replaces, device.closed, device.replaces, stdout.closed, stdout.replaces]).toEqual([false, true, false, false, false, false]);
  });

  it('a workbook\'s rows handed to a text sink: an error naming the sink, nothing written', async () => {
    const { stream, blocks } = recordingStdout();
    const sink = stdoutSink(stream, undefined, true);
    expect(() => writeChunk(sink, { rows: [] } as never)).toThrow('standard output takes no workbook rows');
    expect(blocks).toEqual([]);
  });
});

describe('standard output that fails or closes ends every wait', () => {
  it('closed before a write (destroyed, with no error): no wait and no error; the sink says closed, nothing handed over', async () => {
    const { stream, blocks } = recordingStdout();
    stream.destroy();
    await new Promise((r) => stream.once('close', r)); // closed some time before: no 'close' is to come
    const sink = stdoutSink(stream, undefined, true);
    await sink.write('a\n');
    expect(sink.closed).toBe(true);
    await sink.write('b\n');
    await sink.commit();
    expect(blocks).toEqual([]);
  });

  it('an output that fails and stays open (no close after its error): the wait for it to drain ends with the failure, and nothing more is handed over', async () => {
    let handed = 0;
    const stream = new Writable({
      highWaterMark: 1,
      autoDestroy: false,
      write: (_chunk, _enc, cb) => void (handed++, setTimeout(() => cb(Object.assign(new Error('write EIO'), { code: 'EIO' })), 1)),
    });
    const sink = stdoutSink(stream, undefined, true);
    const message = 'Cannot write to standard output: an input/output error (EIO).';
    await expect(sink.write('a\n')).rejects.toMatchObject({ kind: 'failed', message });
    expect(sink.closed).toBe(false);
    await expect(sink.write('b\n')).rejects.toMatchObject({ kind: 'failed', message });
    expect(handed).toBe(1);
  });

  it('what was written live is all handed over at the end: the end hands over no empty block', async () => {
    const { stream, blocks } = recordingStdout();
    const sink = stdoutSink(stream, undefined, true);
    await sink.write('a\n');
    await sink.commit();
    expect(blocks).toEqual(['a\n']);
  });
});
