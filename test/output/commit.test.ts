// commitTogether (src/output/commit.ts): a run's output files are put in place together or not at all.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { promises as fsp } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileSink, stdoutSink, type Sink } from '../../src/output/sink.js';
import { commitTogether } from '../../src/output/commit.js';

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
    await expect(commitTogether(sinks)).rejects.toThrow(`Cannot write ${paths[2]}: no space left on the device (ENOSPC); the previous file is left as it was.`);
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
    await expect(commitTogether(sinks)).rejects.toThrow(
      `Cannot write ${paths[1]}: permission denied (EACCES); the previous file is left as it was; also left as they were: ${paths[2]}; already replaced by this run: ${paths[0]}.`,
    );
    expect(await contents(paths)).toEqual(['this run\n', 'earlier\n', 'earlier\n']);
    expect((await readdir(dir)).sort()).toEqual(['fake.csv', 'ok.csv', 'out.csv']);
  });
});
