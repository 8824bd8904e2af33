// A workbook's zip (src/xlsx/zip-reader.ts): parts found through the central directory (case-insensitive, as OPC
// names them), stored or deflated, each checked as it is read: no byte past its stated size (a zip bomb is refused
// as soon as it passes it), its length and CRC-32 at the end; a damaged, encrypted or hostile zip is one line; a
// stop is heard within a chunk. The zips here are made byte by byte, so that every field can be what a test needs.
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { MAX_PARTS, normalName, openZip, ReadStopped, WorkbookError, type ZipArchive } from '../../src/xlsx/zip-reader.js';
import { homeForEachTest } from '../helpers.js';
import { claimingParts } from '../input/packed.js';

const home = homeForEachTest();

interface Part {
  name: string;
  data: Buffer;
  /** 8 (deflate, the default) or 0 (stored), or another method number. */
  method?: number;
  flags?: number;
  /** What the directory says, when it must differ from the truth. */
  size?: number;
  crc?: number;
  /** Sizes and offset in a ZIP64 extra field (the 32-bit fields 0xFFFFFFFF). */
  zip64?: boolean;
}

/** A zip of `parts`: local headers and data, the central directory, its end (ZIP64's too when asked). */
function zip(parts: Part[], o: { zip64End?: boolean } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const p of parts) {
    const method = p.method ?? 8;
    const body = method === 8 ? deflateRawSync(p.data) : p.data;
    const name = Buffer.from(p.name);
    const crc = p.crc ?? crc32(p.data);
    const size = p.size ?? p.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(p.flags ?? 0, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const extra = p.zip64 ? Buffer.alloc(4 + 24) : Buffer.alloc(0);
    if (p.zip64) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(24, 2);
      extra.writeBigUInt64LE(BigInt(size), 4);
      extra.writeBigUInt64LE(BigInt(body.length), 12);
      extra.writeBigUInt64LE(BigInt(offset), 20);
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE((p.flags ?? 0) | 0x800, 8); // names in UTF-8
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(p.zip64 ? 0xffffffff : body.length, 20);
    central.writeUInt32LE(p.zip64 ? 0xffffffff : size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(extra.length, 30);
    central.writeUInt32LE(p.zip64 ? 0xffffffff : offset, 42);
    centrals.push(central, name, extra);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const tail: Buffer[] = [];
  if (o.zip64End) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeBigUInt64LE(BigInt(parts.length), 24);
    record.writeBigUInt64LE(BigInt(parts.length), 32);
    record.writeBigUInt64LE(BigInt(cd.length), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + cd.length), 8);
    tail.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(o.zip64End ? 0xffff : parts.length, 8);
  end.writeUInt16LE(o.zip64End ? 0xffff : parts.length, 10);
  end.writeUInt32LE(o.zip64End ? 0xffffffff : cd.length, 12);
  end.writeUInt32LE(o.zip64End ? 0xffffffff : offset, 16);
  return Buffer.concat([...locals, cd, ...tail, end]);
}

let n = 0;
async function opened(bytes: Buffer, halt?: { aborted: boolean; reason?: unknown }): Promise<ZipArchive> {
  const path = join(home.dir, `${n++}.xlsx`);
  await writeFile(path, bytes);
  return openZip(path, halt);
}

/** A part's bytes, or the error its stream ends with. */
async function bytesOf(z: ZipArchive, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of z.stream(z.entry(name)!)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
const failure = (p: Promise<unknown>) => p.then(() => null, (e: Error) => e);
const DAMAGED = (what: string) => `the workbook is damaged (${what}); open it in a spreadsheet program and save it again`;

describe('a zip read through its directory', () => {
  it('gives each part, stored or deflated, byte for byte; names as OPC writes them, found in any case', async () => {
    const sheet = Buffer.from('<worksheet>' + '<row/>'.repeat(50_000) + '</worksheet>');
    const z = await opened(zip([
      { name: '[Content_Types].xml', data: Buffer.from('<Types/>'), method: 0 },
      { name: 'xl/worksheets/sheet1.xml', data: sheet },
      { name: '\\xl\\sharedStrings.xml', data: Buffer.from('<sst>é</sst>') },
      { name: 'xl/empty.xml', data: Buffer.alloc(0), method: 0 },
    ]));
    try {
      expect(z.names).toEqual(['[Content_Types].xml', 'xl/worksheets/sheet1.xml', 'xl/sharedStrings.xml', 'xl/empty.xml']);
      expect((await bytesOf(z, 'XL/Worksheets/SHEET1.xml')).equals(sheet)).toBe(true);
      expect((await bytesOf(z, '/xl/sharedStrings.xml')).toString()).toBe('<sst>é</sst>');
      expect((await bytesOf(z, '[content_types].xml')).toString()).toBe('<Types/>');
      expect((await bytesOf(z, 'xl/empty.xml')).length).toBe(0);
      expect(z.entry('xl/missing.xml')).toBeUndefined();
    } finally {
      await z.close();
    }
  });

  it('ZIP64: sizes and offsets in the extra field and a ZIP64 directory end are read as the 32-bit ones', async () => {
    const z = await opened(zip([{ name: 'a.xml', data: Buffer.from('<a/>'), zip64: true }, { name: 'b.xml', data: Buffer.from('<b/>') }], { zip64End: true }));
    try {
      expect(z.names).toEqual(['a.xml', 'b.xml']);
      expect((await bytesOf(z, 'a.xml')).toString()).toBe('<a/>');
      expect((await bytesOf(z, 'b.xml')).toString()).toBe('<b/>');
    } finally {
      await z.close();
    }
  });

  it('exactly 65,535 parts without ZIP64 records: read (0xFFFF is a count here, not the ZIP64 marker)', async () => {
    const parts = Array.from({ length: 0xffff }, (_, i) => ({ name: `p${i}.xml`, data: Buffer.from(`<p${i}/>`), method: 0 }));
    const z = await opened(zip(parts));
    try {
      expect(z.names.length).toBe(0xffff);
      expect((await bytesOf(z, 'p65534.xml')).toString()).toBe('<p65534/>');
    } finally {
      await z.close();
    }
  });

  it('normalName: no leading slash, forward slashes', () => {
    expect(['/xl/workbook.xml', 'xl\\worksheets\\sheet1.xml', '//x.xml', 'a/b.xml'].map(normalName)).toEqual(['xl/workbook.xml', 'xl/worksheets/sheet1.xml', 'x.xml', 'a/b.xml']);
  });
});

describe('each part is checked as it is read', () => {
  it('a part that inflates past its stated size (a zip bomb) is refused as soon as it does, not inflated whole', async () => {
    const bomb = Buffer.alloc(64 * 1024 * 1024); // 64 MiB of zeros: a few KiB deflated
    const z = await opened(zip([{ name: 'xl/worksheets/sheet1.xml', data: bomb, size: 1000 }]));
    try {
      let passed = 0;
      const stream = z.stream(z.entry('xl/worksheets/sheet1.xml')!);
      const err = await failure((async () => {
        for await (const chunk of stream) passed += (chunk as Buffer).length;
      })());
      expect(err).toBeInstanceOf(WorkbookError);
      expect(err!.message).toBe(DAMAGED('xl/worksheets/sheet1.xml is larger than the zip says'));
      expect(passed).toBeLessThanOrEqual(1000);
    } finally {
      await z.close();
    }
  });

  it('a part shorter than its stated size, or whose CRC-32 differs: damaged, named', async () => {
    const data = Buffer.from('<sst><si><t>ann@x.com</t></si></sst>');
    const z = await opened(zip([
      { name: 'short.xml', data, size: data.length + 10 },
      { name: 'crc.xml', data, crc: (crc32(data) ^ 1) >>> 0 },
    ]));
    try {
      expect((await failure(bytesOf(z, 'short.xml')))!.message).toBe(DAMAGED('short.xml is cut short'));
      expect((await failure(bytesOf(z, 'crc.xml')))!.message).toBe(DAMAGED('crc.xml fails its checksum'));
    } finally {
      await z.close();
    }
  });

  it('a method idv does not read (bzip2, 12): one line saying so', async () => {
    const z = await opened(zip([{ name: 'x.xml', data: Buffer.from('x'), method: 12 }]));
    try {
      const err = await failure(bytesOf(z, 'x.xml'));
      expect(err).toBeInstanceOf(WorkbookError);
      expect(err!.message).toBe('x.xml is compressed with method 12, which idv does not read; save the workbook again');
    } finally {
      await z.close();
    }
  });

  it('a stop is heard by a part being read: the stream ends with ReadStopped carrying the reason, never as damage', async () => {
    const halt = { aborted: false, reason: undefined as unknown };
    const z = await opened(zip([{ name: 'big.xml', data: Buffer.alloc(4 * 1024 * 1024, 'a') }]), halt);
    try {
      const stream = z.stream(z.entry('big.xml')!);
      const err = await failure((async () => {
        for await (const _ of stream) Object.assign(halt, { aborted: true, reason: 'SIGINT' });
      })());
      expect(err).toBeInstanceOf(ReadStopped);
      expect((err as ReadStopped).reason).toBe('SIGINT');
    } finally {
      await z.close();
    }
  });
});

describe('what is no workbook zip is one line', () => {
  const good = () => zip([{ name: 'a.xml', data: Buffer.from('<a/>') }]);

  it.each([
    ['not a zip at all', () => Buffer.from('email\nann@x.com\n'), 'no zip directory at its end'],
    ['cut before its directory ends', () => good().subarray(0, good().length - 30), 'no zip directory at its end'],
    ['a directory said to be larger than the file', () => {
      const b = good();
      b.writeUInt32LE(1_000_000, b.length - 22 + 12);
      return b;
    }, 'a zip directory larger than the file'],
    ['a directory cut short (it says two entries, holds one)', () => {
      const b = good();
      b.writeUInt16LE(2, b.length - 22 + 10);
      return b;
    }, 'its zip directory is cut short'],
    ['a ZIP64 end without its locator', () => {
      const b = good();
      b.writeUInt16LE(0xffff, b.length - 22 + 10);
      return b;
    }, 'a ZIP64 directory without its locator'],
  ])('%s: damaged, at open', async (_, bytes, what) => {
    const err = await failure(opened(bytes()));
    expect(err).toBeInstanceOf(WorkbookError);
    expect(err!.message).toBe(DAMAGED(what));
  });

  it.each([
    ['junk', Buffer.from('trailing')],
    ['NUL padding, as a download padded to a block leaves', Buffer.alloc(4096)],
    ['a ZIP64 zip, then junk', Buffer.from('PK\x05\x06 not an end')],
  ])('bytes after its end (%s): read as the zip they follow, as Excel and LibreOffice read it', async (name, extra) => {
    const base = name.startsWith('a ZIP64') ? zip([{ name: 'a.xml', data: Buffer.from('<a/>'), zip64: true }], { zip64End: true }) : good();
    const z = await opened(Buffer.concat([base, extra]));
    try {
      expect(z.names).toEqual(['a.xml']);
      expect((await bytesOf(z, 'a.xml')).toString()).toBe('<a/>');
    } finally {
      await z.close();
    }
  });

  it('an encrypted part: the workbook is password-protected, said at open', async () => {
    const err = await failure(opened(zip([{ name: 'EncryptedPackage', data: Buffer.from('x'), flags: 0x1 }])));
    expect(err).toBeInstanceOf(WorkbookError);
    expect(err!.message).toBe('the workbook is encrypted (password-protected); save an unprotected copy');
  });

  it('a part under strong encryption: password-protected too, said at open', async () => {
    const err = await failure(opened(zip([{ name: 'EncryptedPackage', data: Buffer.from('x'), flags: 0x1 | 0x40 }])));
    expect(err).toBeInstanceOf(WorkbookError);
    expect(err!.message).toBe('the workbook is encrypted (password-protected); save an unprotected copy');
  });

  it(`a zip that says it holds more than ${MAX_PARTS} parts: refused before its directory is read; up to that many, the directory is read`, async () => {
    const one = zip([{ name: 'a.xml', data: Buffer.from('<a/>') }]);
    const err = await failure(opened(claimingParts(one, MAX_PARTS + 1)));
    expect(err).toBeInstanceOf(WorkbookError);
    expect(err!.message).toBe(DAMAGED(`its zip says it holds ${MAX_PARTS + 1} parts, more than the ${MAX_PARTS} a workbook may have`));
    // At the bound the directory is read, and found to hold one part where its end says 100,000.
    expect((await failure(opened(claimingParts(one, MAX_PARTS))))!.message).toBe(DAMAGED('its zip directory is cut short'));
    const z = await opened(claimingParts(one, 1));
    await z.close();
    expect(z.names).toEqual(['a.xml']);
  });

  it('a part whose local header is not where the directory says: damaged, when it is read', async () => {
    const b = good();
    b.writeUInt32LE(0xdeadbeef, 0); // the local header's signature
    const z = await opened(b);
    try {
      expect((await failure(bytesOf(z, 'a.xml')))!.message).toBe(DAMAGED('a.xml is not where the zip directory says'));
    } finally {
      await z.close();
    }
  });

  it('a part said to start past the end of the file: damaged, when it is read', async () => {
    const b = good();
    b.writeUInt32LE(1_000_000, b.length - 22 - 'a.xml'.length - 46 + 42); // the directory's offset of its local header
    const z = await opened(b);
    try {
      expect((await failure(bytesOf(z, 'a.xml')))!.message).toBe(DAMAGED('a.xml runs past the end of the file'));
    } finally {
      await z.close();
    }
  });
});
