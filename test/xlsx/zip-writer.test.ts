// A zip written as its entries are produced: sizes and CRC-32 in every local header (no data descriptors),
// Excel's fixed date, readable by idv's reader and by independent ones (Python's zipfile, Info-ZIP).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openZip } from '../../src/xlsx/zip-reader.js';
import { createZip } from '../../src/xlsx/zip-writer.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-zip-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function sample(name: string): Promise<string> {
  const path = join(dir, name);
  const zip = await createZip(path);
  await zip.add('a.txt', 'hello');
  const big = zip.entry('dir/big.xml');
  for (let i = 0; i < 2000; i++) await big.write(`<row r="${i}">${'x'.repeat(i % 700)}é</row>`);
  expect(big.size).toBeGreaterThan(700_000);
  await big.end();
  await zip.add('empty', '');
  await zip.finish();
  return path;
}

describe('the zip writer', () => {
  it('writes every entry with its sizes and CRC-32 in its local header, dated 1980-01-01', async () => {
    const path = await sample('headers.zip');
    const bytes = readFileSync(path);
    const zip = await openZip(path);
    try {
      expect(zip.names).toEqual(['a.txt', 'dir/big.xml', 'empty']);
      for (const name of zip.names) {
        const e = zip.entry(name)!;
        const local = bytes.subarray(e.offset, e.offset + 30);
        expect(local.readUInt32LE(0)).toBe(0x04034b50);
        expect(local.readUInt16LE(6) & 0x8).toBe(0); // no data descriptor
        expect([local.readUInt16LE(10), local.readUInt16LE(12)]).toEqual([0, 0x21]);
        expect([local.readUInt32LE(14), local.readUInt32LE(18), local.readUInt32LE(22)]).toEqual([e.crc, e.compressedSize, e.size]);
      }
      let text = '';
      for await (const chunk of zip.stream(zip.entry('a.txt')!)) text += chunk;
      expect(text).toBe('hello');
      let big = 0;
      for await (const chunk of zip.stream(zip.entry('dir/big.xml')!)) big += (chunk as Buffer).length;
      expect(big).toBe(zip.entry('dir/big.xml')!.size);
    } finally {
      await zip.close();
    }
  });

  const python = spawnSync('python3', ['-c', 'import zipfile'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!python)("is read by Python's zipfile, every CRC checked", async () => {
    const path = await sample('python.zip');
    const r = spawnSync('python3', ['-c', 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.testzip(), [i.filename for i in z.infolist()])', path], { encoding: 'utf8' });
    expect(r.stdout.trim()).toBe("None ['a.txt', 'dir/big.xml', 'empty']");
  });

  const unzip = spawnSync('unzip', ['-v'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!unzip)('is read by Info-ZIP unzip', async () => {
    const r = spawnSync('unzip', ['-t', await sample('infozip.zip')], { encoding: 'utf8' });
    expect(r.stdout).toContain('No errors detected');
  });

  it('writes one entry at a time', async () => {
    const zip = await createZip(join(dir, 'one.zip'));
    zip.entry('a');
    expect(() => zip.entry('b')).toThrow('one entry at a time');
    await zip.abort();
  });
});
