// commitTogether (src/output/commit.ts): a run's output files are put in place together or not at all.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { promises as fsp } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileSink, HeldOpen, stdoutSink, type Sink } from '../../src/output/sink.js';
import { commitTogether, OutputsNotPut } from '../../src/output/commit.js';
import { IdvError } from '../../src/core/errors.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-commit-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

/** Three files from an earlier run, and a sink over each holding this run's text. */
async function threeOutputs(): Promise<{ paths: string[]; sinks: Sink[] }> {
  const paths = ['out.csv', 'ok.csv', 'fake.csv'].map((n) => join(dir, n));
  const sinks: Sink[] = [];
  for (const p of paths) {
    await writeFile(p, 'earlier\n');
    const sink = fileSink(p);
    await sink.ready();
    await sink.write('this run\n');
    sinks.push(sink);
  }
  return { paths, sinks };
}

const contents = async (paths: string[]) => Promise.all(paths.map((p) => readFile(p, 'utf8')));

/** An output that records what was done to it; `fails` makes its rename throw `err`. */
function fakeSink(name: string, replaces: boolean, done: string[], err?: Error): Sink {
  return {
    ready: async () => undefined,
    write: async () => undefined,
    prepare: async () => void done.push(`prepare ${name}`),
    commit: async () => {
      if (err) throw err;
      done.push(`commit ${name}`);
    },
    abort: async () => void done.push(`abort ${name}`),
    closed: false,
    replaces,
    name,
  };
}

/** What `p` rejected with (a test must see the value itself: `rejects.toThrow(text)` passes on `undefined`). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('resolved, but it should have failed');
    },
    (err: unknown) => err,
  );
}

describe('commitTogether', () => {
  it('puts every file in place; standard output among them is flushed', async () => {
    const { paths, sinks } = await threeOutputs();
    const out = new PassThrough();
    let text = '';
    out.on('data', (c) => (text += c));
    const stdout = stdoutSink(out);
    await stdout.write('records\n');
    await commitTogether([stdout, ...sinks]);
    expect(await contents(paths)).toEqual(['this run\n', 'this run\n', 'this run\n']);
    expect(text).toBe('records\n');
    expect((await readdir(dir)).sort()).toEqual(['fake.csv', 'ok.csv', 'out.csv']);
  });

  it('one that cannot be flushed (the disk filled at the end): none is put in place, the real cause is given, no .tmp', async () => {
    const { paths, sinks } = await threeOutputs();
    const probe = await fsp.open(join(dir, '.probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    await rm(join(dir, '.probe'));
    const real = proto.sync;
    let calls = 0;
    vi.spyOn(proto, 'sync').mockImplementation(async function (this: unknown) {
      if (++calls === 3) throw Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' });
      return real.call(this);
    });
    const err = await rejection(commitTogether(sinks));
    expect(err).toBeInstanceOf(OutputsNotPut);
    expect(err).toMatchObject({
      kind: 'failed',
      message: `Cannot write ${paths[2]}: no space left on the device (ENOSPC); the previous file is left as it was; no other output of this run was put in place either.`,
    });
    expect(await contents(paths)).toEqual(['earlier\n', 'earlier\n', 'earlier\n']);
    expect((await readdir(dir)).sort()).toEqual(['fake.csv', 'ok.csv', 'out.csv']);
  });

  it('a rename that fails part-way: the message says exactly which files are this run\'s and which were left', async () => {
    const { paths, sinks } = await threeOutputs();
    const rename = fsp.rename.bind(fsp);
    vi.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (to === paths[1]) throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
      return rename(from, to);
    });
    expect(await rejection(commitTogether(sinks))).toMatchObject({
      kind: 'failed',
      message: `Cannot write ${paths[1]}: permission denied (EACCES); the previous file is left as it was; also left as they were: ${paths[2]}; already replaced by this run: ${paths[0]}.`,
    });
    expect(await contents(paths)).toEqual(['this run\n', 'earlier\n', 'earlier\n']);
    expect((await readdir(dir)).sort()).toEqual(['fake.csv', 'ok.csv', 'out.csv']);
  });
});

describe('commitTogether: what a failed rename says (exit 1)', () => {
  const renameFailed = () => new IdvError('failed', 'Cannot write c.csv: permission denied (EACCES); the previous file is left as it was.');

  it('the only file, or the first with nothing after it: its own message, as outputs not put in place', async () => {
    const done: string[] = [];
    const got = await rejection(commitTogether([fakeSink('c.csv', true, done, renameFailed())]));
    expect(got).toBeInstanceOf(OutputsNotPut);
    expect(got).toMatchObject({ kind: 'failed', message: renameFailed().message });
    expect(done).toEqual(['prepare c.csv']);
  });

  it('a file held open by another program, alone: its own error, untouched (run.ts says what to do about it)', async () => {
    const done: string[] = [];
    const err = new HeldOpen('c.csv', 'Cannot write c.csv: another program has it open (EBUSY); close it there.');
    expect(await rejection(commitTogether([fakeSink('c.csv', true, done, err)]))).toBe(err);
  });

  it('an unexpected error (a bug, not a file system’s answer): untouched', async () => {
    const err = new TypeError('x is not a function');
    expect(await rejection(commitTogether([fakeSink('c.csv', true, [], err), fakeSink('d.csv', true, [])]))).toBe(err);
  });

  it('the last of several: which files this run already replaced, in order', async () => {
    const done: string[] = [];
    const got = await rejection(commitTogether([fakeSink('a.csv', true, done), fakeSink('b.csv', true, done), fakeSink('c.csv', true, done, renameFailed())]));
    expect(got).toBeInstanceOf(IdvError);
    expect(got).toMatchObject({
      kind: 'failed',
      message: 'Cannot write c.csv: permission denied (EACCES); the previous file is left as it was; already replaced by this run: a.csv, b.csv.',
    });
    expect(done).toEqual(['prepare a.csv', 'prepare b.csv', 'prepare c.csv', 'commit a.csv', 'commit b.csv']);
  });

  it('the first of several: which files were left as they were; each is given up', async () => {
    const done: string[] = [];
    const got = await rejection(commitTogether([fakeSink('c.csv', true, done, renameFailed()), fakeSink('d.csv', true, done), fakeSink('e.csv', true, done)]));
    expect(got).toMatchObject({
      kind: 'failed',
      message: 'Cannot write c.csv: permission denied (EACCES); the previous file is left as it was; also left as they were: d.csv, e.csv.',
    });
    expect(done.slice(3)).toEqual(['abort d.csv', 'abort e.csv']);
  });

  it('an output written in place as it went (standard output, a device) is named neither replaced nor left', async () => {
    const done: string[] = [];
    const sinks = [
      fakeSink('standard output', false, done),
      fakeSink('a.csv', true, done),
      fakeSink('c.csv', true, done, renameFailed()),
      fakeSink('/dev/null', false, done),
      fakeSink('e.csv', true, done),
    ];
    expect(await rejection(commitTogether(sinks))).toMatchObject({
      kind: 'failed',
      message: 'Cannot write c.csv: permission denied (EACCES); the previous file is left as it was; also left as they were: e.csv; already replaced by this run: a.csv.',
    });
  });

  it('nothing else but outputs written in place: the failed rename’s own message', async () => {
    const done: string[] = [];
    const got = await rejection(commitTogether([fakeSink('standard output', false, done), fakeSink('c.csv', true, done, renameFailed()), fakeSink('/dev/null', false, done)]));
    expect(got).toMatchObject({ kind: 'failed', message: renameFailed().message });
  });
});
