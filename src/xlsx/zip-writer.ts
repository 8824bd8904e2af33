// A zip written to a file as its entries are produced: each entry deflated by node:zlib as it is written,
// its sizes and CRC-32 patched into its local header once it ends (the file is seekable, so no data
// descriptors, which some readers handle badly), the central directory at the end. ZIP64 records are added
// only where an offset or the number of entries needs them; an entry itself must stay under 4 GiB (the
// workbook writer starts a new sheet before that).
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { createDeflateRaw, crc32 } from 'node:zlib';

export interface ZipEntryWriter {
  /** Add text (UTF-8) to the entry; resolves once it may be given more. */
  write(text: string): Promise<void>;
  /** Uncompressed bytes so far. */
  readonly size: number;
  end(): Promise<void>;
}

export interface ZipWriter {
  /** Start an entry (one at a time). */
  entry(name: string): ZipEntryWriter;
  /** A whole entry at once. */
  add(name: string, text: string): Promise<void>;
  /** Write the central directory and close the file. */
  finish(): Promise<void>;
  /** Close the file as it is (the caller removes it). */
  abort(): Promise<void>;
}

/** Past this, an entry's sizes do not fit the 32-bit fields this writer gives entries. */
export const MAX_ENTRY = 0xffffffff;
/** Excel's own: every entry dated 1980-01-01 00:00 (MS-DOS time 0, date 0x21), so equal input gives equal bytes. */
const DOS_TIME = 0;
const DOS_DATE = 0x21;
const FLUSH_AT = 1024 * 1024;

interface Written {
  name: Buffer;
  offset: number;
  crc: number;
  compressedSize: number;
  size: number;
}

export async function createZip(path: string): Promise<ZipWriter> {
  return new ZipFile(await open(path, 'w'));
}

class ZipFile implements ZipWriter {
  private position = 0; // bytes written to the file
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly written: Written[] = [];
  private busy = false;

  constructor(private readonly fh: FileHandle) {}

  entry(name: string): ZipEntryWriter {
    if (this.busy) throw new Error('zip-writer: one entry at a time');
    this.busy = true;
    const nameBytes = Buffer.from(name, 'utf8');
    const offset = this.position + this.pendingBytes;
    const started = this.put(localHeader(nameBytes));
    const deflate = createDeflateRaw({ level: 6, chunkSize: 256 * 1024 });
    const sums = { crc: 0, size: 0, compressedSize: 0 };
    let failed: Error | null = null;
    const drained = (async () => {
      for await (const chunk of deflate as AsyncIterable<Buffer>) {
        sums.compressedSize += chunk.length;
        await this.put(chunk);
      }
    })().catch((err: Error) => {
      failed = err;
    });
    return {
      get size() {
        return sums.size;
      },
      write: async (text) => {
        await started;
        if (failed) throw failed;
        const bytes = Buffer.from(text, 'utf8');
        sums.size += bytes.length;
        if (sums.size > MAX_ENTRY) throw new Error(`zip-writer: ${name} passed 4 GiB`);
        sums.crc = crc32(bytes, sums.crc);
        if (!deflate.write(bytes)) await new Promise<void>((resolve) => deflate.once('drain', resolve));
      },
      end: async () => {
        await started;
        deflate.end();
        await drained;
        if (failed) throw failed;
        await this.ended({ name: nameBytes, offset, crc: sums.crc >>> 0, compressedSize: sums.compressedSize, size: sums.size });
      },
    };
  }

  async add(name: string, text: string): Promise<void> {
    const e = this.entry(name);
    await e.write(text);
    await e.end();
  }

  async finish(): Promise<void> {
    const start = this.position + this.pendingBytes;
    for (const w of this.written) await this.put(centralHeader(w));
    const end = this.position + this.pendingBytes;
    await this.put(endRecords(this.written.length, start, end - start, end));
    await this.flush();
    await this.fh.close();
  }

  async abort(): Promise<void> {
    await this.fh.close().catch(() => undefined);
  }

  /** An entry is complete: its CRC-32 and sizes go into its local header. */
  private async ended(w: Written): Promise<void> {
    if (w.compressedSize > MAX_ENTRY) throw new Error(`zip-writer: ${w.name.toString()} passed 4 GiB`);
    await this.flush();
    const sizes = Buffer.alloc(12);
    sizes.writeUInt32LE(w.crc, 0);
    sizes.writeUInt32LE(w.compressedSize, 4);
    sizes.writeUInt32LE(w.size, 8);
    await writeAll(this.fh, sizes, w.offset + 14);
    this.written.push(w);
    this.busy = false;
  }

  private async put(data: Buffer): Promise<void> {
    this.pending.push(data);
    this.pendingBytes += data.length;
    if (this.pendingBytes >= FLUSH_AT) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const data = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    const at = this.position;
    this.position += data.length; // before the write completes: offsets taken meanwhile stay right
    await writeAll(this.fh, data, at);
  }
}

async function writeAll(fh: FileHandle, data: Buffer, at: number): Promise<void> {
  for (let done = 0; done < data.length; ) {
    const { bytesWritten } = await fh.write(data, done, data.length - done, at + done);
    done += bytesWritten;
  }
}

function localHeader(name: Buffer): Buffer {
  const h = Buffer.alloc(30 + name.length);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
  h.writeUInt16LE(0x0800, 6); // names in UTF-8
  h.writeUInt16LE(8, 8); // deflate
  h.writeUInt16LE(DOS_TIME, 10);
  h.writeUInt16LE(DOS_DATE, 12);
  // CRC-32 and sizes (14–25) are patched in when the entry ends.
  h.writeUInt16LE(name.length, 26);
  name.copy(h, 30);
  return h;
}

function centralHeader(w: Written): Buffer {
  const big = w.offset > MAX_ENTRY;
  const h = Buffer.alloc(46 + w.name.length + (big ? 12 : 0));
  h.writeUInt32LE(0x02014b50, 0);
  h.writeUInt16LE(big ? 45 : 20, 4); // made by (MS-DOS)
  h.writeUInt16LE(big ? 45 : 20, 6); // needed
  h.writeUInt16LE(0x0800, 8);
  h.writeUInt16LE(8, 10);
  h.writeUInt16LE(DOS_TIME, 12);
  h.writeUInt16LE(DOS_DATE, 14);
  h.writeUInt32LE(w.crc, 16);
  h.writeUInt32LE(w.compressedSize, 20);
  h.writeUInt32LE(w.size, 24);
  h.writeUInt16LE(w.name.length, 28);
  h.writeUInt16LE(big ? 12 : 0, 30);
  h.writeUInt32LE(big ? 0xffffffff : w.offset, 42);
  w.name.copy(h, 46);
  if (big) {
    const at = 46 + w.name.length;
    h.writeUInt16LE(0x0001, at);
    h.writeUInt16LE(8, at + 2);
    h.writeBigUInt64LE(BigInt(w.offset), at + 4);
  }
  return h;
}

/** The end of central directory record, after a ZIP64 one and its locator when the numbers need 64 bits. */
function endRecords(count: number, cdOffset: number, cdSize: number, at: number): Buffer {
  const big = count > 0xffff || cdOffset > MAX_ENTRY || cdSize > MAX_ENTRY;
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(big ? 0xffff : count, 8);
  eocd.writeUInt16LE(big ? 0xffff : count, 10);
  eocd.writeUInt32LE(big ? 0xffffffff : cdSize, 12);
  eocd.writeUInt32LE(big ? 0xffffffff : cdOffset, 16);
  if (!big) return eocd;
  const rec = Buffer.alloc(56 + 20);
  rec.writeUInt32LE(0x06064b50, 0);
  rec.writeBigUInt64LE(44n, 4);
  rec.writeUInt16LE(45, 12);
  rec.writeUInt16LE(45, 14);
  rec.writeBigUInt64LE(BigInt(count), 24);
  rec.writeBigUInt64LE(BigInt(count), 32);
  rec.writeBigUInt64LE(BigInt(cdSize), 40);
  rec.writeBigUInt64LE(BigInt(cdOffset), 48);
  rec.writeUInt32LE(0x07064b50, 56);
  rec.writeBigUInt64LE(BigInt(at), 64);
  rec.writeUInt32LE(1, 72);
  return Buffer.concat([rec, eocd]);
}
