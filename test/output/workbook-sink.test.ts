// A workbook through the sinks every output uses (src/output/workbook-sink.ts): built in the temporary file of a
// file replaced whole and put in place with the others, or, for standard output, complete before its first byte
// is written; a stopped run leaves the old file and no temporary file.
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkbook, type Row } from '../../src/xlsx/reader.js';
import { commitTogether } from '../../src/output/commit.js';
import { fileSink, stdoutSink, writeChunk } from '../../src/output/sink.js';
import { workbookSink } from '../../src/output/workbook-sink.js';
import { tempPathBeside } from '../../src/system/temp-files.js';
import { onlyOn } from '../platforms.js';

let dir: string;
let tmp: string;
const savedTmp = process.env.TMPDIR;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-workbook-sink-'));
  // A temporary folder of this file's own: other test files running at once make their own temporary files.
  tmp = await mkdtemp(join(tmpdir(), 'idv-workbook-sink-tmp-'));
  process.env.TMPDIR = tmp;
});
afterAll(async () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await rm(dir, { recursive: true, force: true });
  await rm(tmp, { recursive: true, force: true });
});

async function rows(path: string): Promise<string[][]> {
  const wb = await openWorkbook(path);
  try {
    const out: Row[] = [];
    for await (const block of wb.rows(wb.sheet())) out.push(...block);
    return out.map((r) => r.map((c) => c.text));
  } finally {
    await wb.close();
  }
}

const ours = async () => (await readdir(tmp)).filter((f) => f.startsWith('.idv-workbook-out.xlsx.'));

describe('a workbook sink', () => {
  it('to a file: built in its temporary file, in place only once committed with the others', async () => {
    const path = join(dir, 'clean.xlsx');
    const sink = workbookSink(fileSink(path), { sheetName: 'Contacts' });
    await sink.ready();
    await writeChunk(sink, { header: ['email', 'status'], rows: [] });
    await writeChunk(sink, { rows: [['ann@example.com', 'ok'], [{ type: 'number', text: '02134', value: 2134, format: '00000' }, 'ok']] });
    expect(existsSync(path)).toBe(false);
    await commitTogether([sink]);
    expect(await rows(path)).toEqual([['email', 'status'], ['ann@example.com', 'ok'], ['02134', 'ok']]);
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('stopped: the file it would replace is left as it was, and no temporary file', async () => {
    const path = join(dir, 'kept.xlsx');
    await writeFile(path, 'before');
    const sink = workbookSink(fileSink(path));
    await writeChunk(sink, { header: ['email'], rows: [['ann@example.com']] });
    await sink.abort();
    expect(readFileSync(path, 'utf8')).toBe('before');
    expect((await readdir(dir)).filter((f) => f.includes('kept.xlsx.'))).toEqual([]);
  });

  it('to standard output: nothing until the workbook is complete, then all of it; the private copy removed', async () => {
    const chunks: Buffer[] = [];
    const out = new Writable({
      write(chunk: Buffer, _enc, cb) {
        chunks.push(Buffer.from(chunk));
        cb();
      },
    });
    const sink = workbookSink(stdoutSink(out));
    await sink.ready();
    expect(await ours()).toHaveLength(1);
    await writeChunk(sink, { header: ['email', 'status'], rows: [['bob@example.org', 'fake']] });
    expect(chunks).toEqual([]);
    await sink.commit();
    const path = join(dir, 'piped.xlsx');
    await writeFile(path, Buffer.concat(chunks));
    expect(await rows(path)).toEqual([['email', 'status'], ['bob@example.org', 'fake']]);
    expect(await ours()).toEqual([]);
  });

  onlyOn('proc').it('to standard output: the private copy a run killed outright left (its process gone) is removed; a live run\'s stays', async () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!; // a process that has ended
    const ns = readlinkSync('/proc/self/ns/pid').replace(/\D/g, '');
    const dead = `.idv-workbook-out.xlsx.${ns}-${gone}-12345.abcd1234.tmp`;
    const live = tempPathBeside(join(tmp, 'idv-workbook-out.xlsx')).slice(tmp.length + 1);
    await writeFile(join(tmp, dead), 'left by kill -9');
    await writeFile(join(tmp, live), 'another run of this process, still writing');
    const sink = workbookSink(stdoutSink(new Writable({ write: (_c, _e, cb) => cb() })));
    await sink.ready();
    expect(await ours()).not.toContain(dead);
    expect(await ours()).toContain(live);
    await sink.abort();
    await rm(join(tmp, live));
  });

  it('stopped on its way to standard output: nothing written, the private copy removed', async () => {
    const chunks: Buffer[] = [];
    const out = new Writable({
      write(chunk: Buffer, _enc, cb) {
        chunks.push(chunk);
        cb();
      },
    });
    const sink = workbookSink(stdoutSink(out));
    await writeChunk(sink, { header: ['email'], rows: [['ann@example.com']] });
    await sink.abort();
    expect(chunks).toEqual([]);
    expect(await ours()).toEqual([]);
  });
});
