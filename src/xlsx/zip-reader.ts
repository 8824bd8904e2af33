// The parts of a workbook's zip, read through its central directory (the one authority on what the zip
// holds: entries written with data descriptors have no sizes before their data, and Excel puts the shared
// strings after the sheets, so a zip read front to back cannot be parsed in one pass). Each part is a
// stream inflated by node:zlib as it is read, its size and CRC-32 checked at the end; a part that inflates
// past its stated size is refused as soon as it does (a zip bomb never fills memory or disk).
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { createInflateRaw, crc32 } from 'node:zlib';

/** What a workbook cannot be read for: one line, for the caller to prefix with the file's name. */
export class WorkbookError extends Error {
  override readonly name = 'WorkbookError';
}

/**
 * A bound the caller set was passed (openWorkbook's OpenOptions): a row's or a text's characters (`row`), the
 * shared strings' bytes (`shared`), a copy's bytes (`copy`). `what` names where (`row 3 of sheet "S"`), `size`
 * how much there is (or would be), `max` the bound.
 */
export class LimitError extends WorkbookError {
  constructor(
    readonly limit: 'row' | 'shared' | 'copy',
    readonly what: string,
    readonly size: number,
    readonly max: number,
  ) {
    super(`${what} is larger than the ${max} allowed (${limit})`);
  }
}

/** What tells a reading of the workbook to stop (an AbortSignal, or idv's own StopSignal). */
export interface Halt {
  readonly aborted: boolean;
  readonly reason?: unknown;
}

/** The reading stopped because `halt` aborted: passed on as it is, never taken for damage. */
export class ReadStopped extends Error {
  override readonly name = 'ReadStopped';
  constructor(readonly reason: unknown) {
    super('the reading of the workbook was stopped');
  }
}

/** Throws ReadStopped once `halt` has aborted. */
export function checkHalt(halt: Halt | undefined): void {
  if (halt?.aborted) throw new ReadStopped(halt.reason);
}

/** An error met while reading a part that is the workbook's own word (refused, stopped), not damage to say as such. */
export const passedOn = (err: unknown): boolean => err instanceof WorkbookError || err instanceof ReadStopped;

export interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly offset: number;
}

export interface ZipArchive {
  /** The entry of a part name (case-insensitive, as OPC part names are), or undefined. */
  entry(name: string): ZipEntry | undefined;
  readonly names: readonly string[];
  /** The part's bytes, inflated as they are read. */
  stream(entry: ZipEntry): Readable;
  close(): Promise<void>;
}

const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_COMMENT = 0xffff;
const CHUNK = 256 * 1024;
/** Far beyond any workbook's central directory (a million parts); a larger one is a damaged or hostile zip. */
const MAX_DIRECTORY = 256 * 1024 * 1024;

const damaged = (what: string) => new WorkbookError(`the workbook is damaged (${what}); open it in a spreadsheet program and save it again`);

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  if (bytesRead < length) throw damaged('it ends early');
  return buf;
}

/** Where the central directory is and how many entries it has (ZIP64 too). */
async function directory(fh: FileHandle, size: number): Promise<{ offset: number; length: number; count: number }> {
  const tailLength = Math.min(size, 22 + MAX_COMMENT);
  const tail = await readAt(fh, size - tailLength, tailLength);
  let at = -1;
  for (let i = tailLength - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD) {
      at = i;
      break;
    }
  }
  if (at < 0) throw damaged('no zip directory at its end');
  let count = tail.readUInt16LE(at + 10);
  let length = tail.readUInt32LE(at + 12);
  let offset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || length === 0xffffffff || offset === 0xffffffff) {
    const locatorAt = size - tailLength + at - 20;
    const locator = locatorAt >= 0 ? await readAt(fh, locatorAt, 20) : null;
    if (locator === null || locator.readUInt32LE(0) !== EOCD64_LOCATOR) throw damaged('a ZIP64 directory without its locator');
    const record = await readAt(fh, Number(locator.readBigUInt64LE(8)), 56);
    if (record.readUInt32LE(0) !== EOCD64) throw damaged('a ZIP64 directory not where its locator says');
    count = Number(record.readBigUInt64LE(32));
    length = Number(record.readBigUInt64LE(40));
    offset = Number(record.readBigUInt64LE(48));
  }
  if (length > MAX_DIRECTORY || offset + length > size) throw damaged('a zip directory larger than the file');
  return { offset, length, count };
}

/** The ZIP64 extra field's values, for the 32-bit fields that are 0xFFFFFFFF. */
function zip64(extra: Buffer, wanted: { size: boolean; compressed: boolean; offset: boolean }): bigint[] {
  for (let p = 0; p + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(p);
    const len = extra.readUInt16LE(p + 2);
    if (id === 0x0001) {
      const values: bigint[] = [];
      const n = Number(wanted.size) + Number(wanted.compressed) + Number(wanted.offset);
      for (let i = 0; i < n && 8 * (i + 1) <= len; i++) values.push(extra.readBigUInt64LE(p + 4 + 8 * i));
      return values;
    }
    p += 4 + len;
  }
  return [];
}

function parseEntries(cd: Buffer, count: number): Map<string, ZipEntry> {
  const entries = new Map<string, ZipEntry>();
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL) throw damaged('its zip directory is cut short');
    const flags = cd.readUInt16LE(p + 8);
    const nameLength = cd.readUInt16LE(p + 28);
    const extraLength = cd.readUInt16LE(p + 30);
    const commentLength = cd.readUInt16LE(p + 32);
    const rawName = cd.subarray(p + 46, p + 46 + nameLength);
    const extra = cd.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength);
    let size = cd.readUInt32LE(p + 24);
    let compressedSize = cd.readUInt32LE(p + 20);
    let offset = cd.readUInt32LE(p + 42);
    const big = { size: size === 0xffffffff, compressed: compressedSize === 0xffffffff, offset: offset === 0xffffffff };
    const values = zip64(extra, big);
    if (big.size) size = Number(values.shift() ?? -1);
    if (big.compressed) compressedSize = Number(values.shift() ?? -1);
    if (big.offset) offset = Number(values.shift() ?? -1);
    if (size < 0 || compressedSize < 0 || offset < 0) throw damaged('a ZIP64 entry without its sizes');
    if (flags & 0x1) throw new WorkbookError('the workbook is encrypted (password-protected); save an unprotected copy');
    const name = normalName(rawName.toString(flags & 0x800 ? 'utf8' : 'latin1'));
    entries.set(name.toLowerCase(), { name, method: cd.readUInt16LE(p + 10), crc: cd.readUInt32LE(p + 16), compressedSize, size, offset });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** A part name as OPC writes it: no leading slash, forward slashes (a few Windows tools write backslashes). */
export function normalName(name: string): string {
  return name.replace(/\\/g, '/').replace(/^\/+/, '');
}

/**
 * Counts and checks what an entry inflates to: no byte past its stated size, and its CRC-32 at the end; once
 * `halt` aborts, the next chunk ends it (ReadStopped): a part's reader hears a stop within a chunk.
 */
class Checked extends Transform {
  private crc = 0;
  private seen = 0;
  constructor(
    private readonly entry: ZipEntry,
    private readonly halt: Halt | undefined,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.halt?.aborted) return done(new ReadStopped(this.halt.reason));
    this.seen += chunk.length;
    if (this.seen > this.entry.size) return done(damaged(`${this.entry.name} is larger than the zip says`));
    this.crc = crc32(chunk, this.crc);
    done(null, chunk);
  }
  override _flush(done: TransformCallback): void {
    if (this.seen !== this.entry.size) return done(damaged(`${this.entry.name} is cut short`));
    if (this.crc >>> 0 !== this.entry.crc >>> 0) return done(damaged(`${this.entry.name} fails its checksum`));
    done();
  }
}

/** The bytes from `start` to `end` of the file (positioned reads: the handle stays open for the next part). */
function range(fh: FileHandle, start: number, end: number): Readable {
  let at = start;
  return new Readable({
    highWaterMark: CHUNK,
    read() {
      const n = Math.min(CHUNK, end - at);
      if (n <= 0) {
        this.push(null);
        return;
      }
      fh.read(Buffer.allocUnsafe(n), 0, n, at).then(
        ({ bytesRead, buffer }) => {
          if (bytesRead === 0) return this.destroy(damaged('it ends early'));
          at += bytesRead;
          this.push(buffer.subarray(0, bytesRead));
        },
        (err: Error) => this.destroy(err),
      );
    },
  });
}

/** The zip at `path` (a regular file: its parts are read where they are); `halt` stops every part's reading. */
export async function openZip(path: string, halt?: Halt): Promise<ZipArchive> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const dir = await directory(fh, size);
    const entries = parseEntries(await readAt(fh, dir.offset, dir.length), dir.count);
    return archive(fh, size, entries, halt);
  } catch (err) {
    await fh.close();
    throw err;
  }
}

function archive(fh: FileHandle, fileSize: number, entries: Map<string, ZipEntry>, halt: Halt | undefined): ZipArchive {
  return {
    entry: (name) => entries.get(normalName(name).toLowerCase()),
    names: [...entries.values()].map((e) => e.name),
    stream(entry) {
      const checked = new Checked(entry, halt);
      void (async () => {
        const local = await readAt(fh, entry.offset, 30);
        if (local.readUInt32LE(0) !== LOCAL) throw damaged(`${entry.name} is not where the zip directory says`);
        const start = entry.offset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
        if (start + entry.compressedSize > fileSize) throw damaged(`${entry.name} runs past the end of the file`);
        if (entry.method !== 0 && entry.method !== 8) {
          throw new WorkbookError(`${entry.name} is compressed with method ${entry.method}, which idv does not read; save the workbook again`);
        }
        if (entry.compressedSize === 0) {
          checked.end();
          return;
        }
        const raw = range(fh, start, start + entry.compressedSize);
        const source = entry.method === 8 ? raw.pipe(createInflateRaw({ chunkSize: CHUNK })) : raw;
        const fail = (err: Error) => checked.destroy(passedOn(err) ? err : damaged(`${entry.name}: ${err.message}`));
        raw.on('error', fail);
        source.on('error', fail);
        source.pipe(checked);
        checked.on('close', () => {
          raw.destroy();
          if (source !== raw) source.destroy();
        });
      })().catch((err: Error) => checked.destroy(err));
      return checked;
    },
    close: () => fh.close(),
  };
}
