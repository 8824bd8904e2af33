// The parts of a workbook's zip, read through its central directory by yauzl (the directory is the one
// authority on what the zip holds: entries written with data descriptors have no sizes before their data,
// and Excel puts the shared strings after the sheets). yauzl finds the directory (ZIP64 too) and each part's
// local header; what it does not do is done here: the part inflated by node:zlib in large chunks, its CRC-32
// checked, a part that inflates past its stated size refused as soon as it does (a zip bomb never fills
// memory or disk), a stop heard within a chunk, and every damage said in one line.
import { close, fstat, open, read } from 'node:fs';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { promisify } from 'node:util';
import { createInflateRaw, crc32 } from 'node:zlib';
import yauzl from 'yauzl';

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

/** What tells a reading of the workbook to stop (the run's AbortSignal). */
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

const CHUNK = 256 * 1024;
/** The directory's small reads (two a part) come from one block read ahead: a million parts are not two million reads. */
const BLOCK = 1024 * 1024;

/** Far beyond any workbook (a few parts a sheet): a zip that says it holds more is refused before its directory is read. */
export const MAX_PARTS = 100_000;

const damaged = (what: string) => new WorkbookError(`the workbook is damaged (${what}); open it in a spreadsheet program and save it again`);
const encrypted = () => new WorkbookError('the workbook is encrypted (password-protected); save an unprotected copy');

/** Where yauzl met the damage: opening (the directory's end), the directory, or a part (its name). */
type Phase = 'open' | 'directory' | { part: string };

/** yauzl's words for a damaged zip, in ours (short, one line, no offsets); `%s` is the part's name. */
const WORDS: [RegExp, string][] = [
  [/^End of central directory record signature not found/, 'no zip directory at its end'],
  [/^Invalid comment length/, 'bytes after its zip directory'],
  [/^invalid zip64 end of central directory record signature/, 'a ZIP64 directory not where its locator says'],
  [/^multi-disk/, 'a zip split over several disks'],
  [/^zip64 extended information extra field/, 'a ZIP64 entry without its sizes'],
  [/^extra field length exceeds/, 'an entry of its zip directory is cut short'],
  [/^invalid local file header signature/, '%s is not where the zip directory says'],
  [/^file data overflows file bounds/, '%s runs past the end of the file'],
];

/** An error met reading the zip, as the workbook's word: ours passed on, the system's as they are, yauzl's said in ours. */
function said(err: Error, phase: Phase, entryCount = 0): Error {
  if (passedOn(err) || 'syscall' in err) return err;
  if (/^strong encryption/.test(err.message)) return encrypted();
  const part = typeof phase === 'object' ? phase.part : '';
  const words = WORDS.find(([yauzl]) => yauzl.test(err.message))?.[1];
  if (words !== undefined) return damaged(words.replace('%s', part));
  if (/^(unexpected EOF|invalid central directory file header signature)/.test(err.message)) {
    // The directory ran out: at open, the ZIP64 record is past the end; in it, fewer entries than the end says
    // (65,535 without ZIP64's records: a ZIP64 zip that lost them); in a part, its header runs past the end.
    if (phase === 'open') return damaged('a ZIP64 directory not where its locator says');
    if (phase === 'directory') return damaged(entryCount === 0xffff ? 'a ZIP64 directory without its locator' : 'its zip directory is cut short');
    return damaged(`${part} runs past the end of the file`);
  }
  // node:zlib's words for a broken deflate stream are short already.
  return damaged(part ? `${part}: ${err.message}` : err.message.split('\n')[0]);
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

/** The file as yauzl reads it: small reads through a block read ahead, a part's bytes in large chunks. */
class FileReader extends yauzl.RandomAccessReader {
  private block = Buffer.alloc(0);
  private blockAt = 0;
  constructor(private readonly fd: number) {
    super();
  }
  override _readStreamForRange(start: number, end: number): Readable {
    // Positioned reads of the one descriptor (a file stream on it would close it when destroyed): yauzl closes it
    // once the archive and every part's stream let go.
    let at = start;
    const fd = this.fd;
    return new Readable({
      highWaterMark: CHUNK,
      read() {
        const n = Math.min(CHUNK, end - at);
        if (n <= 0) return void this.push(null);
        read(fd, Buffer.allocUnsafe(n), 0, n, at, (err, bytesRead, buffer) => {
          if (err) return this.destroy(err);
          if (bytesRead === 0) return this.destroy(damaged('it ends early'));
          at += bytesRead;
          this.push(buffer.subarray(0, bytesRead));
        });
      },
    });
  }
  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null, bytesRead?: number) => void): void {
    const cached = () => {
      const n = Math.max(0, Math.min(length, this.blockAt + this.block.length - position));
      this.block.copy(buffer, offset, position - this.blockAt, position - this.blockAt + n);
      callback(null, n);
    };
    if (position >= this.blockAt && position + length <= this.blockAt + this.block.length) return cached();
    const block = Buffer.allocUnsafe(Math.max(BLOCK, length));
    read(this.fd, block, 0, block.length, position, (err, n) => {
      if (err) return callback(err);
      this.block = block.subarray(0, n);
      this.blockAt = position;
      cached();
    });
  }
  override close(callback: (err: Error | null) => void): void {
    close(this.fd, callback);
  }
}

function toEntry(raw: yauzl.Entry): ZipEntry {
  if (raw.generalPurposeBitFlag & 0x1) throw encrypted();
  // Names as bytes: yauzl's own decoding refuses a leading slash, which a few writers put on part names.
  const name = normalName(raw.fileNameRaw.toString(raw.generalPurposeBitFlag & 0x800 ? 'utf8' : 'latin1'));
  return { name, method: raw.compressionMethod, crc: raw.crc32, compressedSize: raw.compressedSize, size: raw.uncompressedSize, offset: raw.relativeOffsetOfLocalHeader };
}

/**
 * The zip at `file` (a regular file's path, or its open descriptor, which the archive takes over and closes): its
 * parts are read where they are, all through one descriptor; `halt` stops every part's reading.
 */
export async function openZip(file: string | number, halt?: Halt): Promise<ZipArchive> {
  const fd = typeof file === 'number' ? file : await promisify(open)(file, 'r');
  const size = await zipEnd(fd, (await promisify(fstat)(fd)).size);
  const reader = new FileReader(fd);
  // Sizes are checked by Checked, so that a lie about them is said in our words and ends the stream.
  const options = { autoClose: false, decodeStrings: false, validateEntrySizes: false };
  const zip = await yauzl.fromRandomAccessReaderPromise(reader, size, options).catch(async (err: Error) => {
    await promisify(close)(fd);
    throw said(err, 'open');
  });
  try {
    if (zip.entryCount > MAX_PARTS) throw damaged(`its zip says it holds ${zip.entryCount} parts, more than the ${MAX_PARTS} a workbook may have`);
    await checkDirectoryEnd(reader, size, zip);
    const entries = new Map<string, ZipEntry>();
    for await (const raw of zip.eachEntry()) {
      const entry = toEntry(raw);
      entries.set(entry.name.toLowerCase(), entry);
    }
    return archive(zip, entries, halt);
  } catch (err) {
    await closed(zip);
    throw said(err as Error, 'directory', zip.entryCount);
  }
}

/**
 * Where the zip ends: after its end-of-directory record and comment, which bytes may follow (a download padded
 * with NULs, a copy with junk after it: Excel and LibreOffice open those). The file's size when none is found.
 */
async function zipEnd(fd: number, size: number): Promise<number> {
  const tail = Buffer.alloc(Math.min(size, 22 + 0xffff));
  const { bytesRead } = await promisify(read)(fd, tail, 0, tail.length, size - tail.length).catch(() => ({ bytesRead: 0 }));
  if (bytesRead !== tail.length) return size;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== 0x06054b50) continue;
    const end = i + 22 + tail.readUInt16LE(i + 20);
    if (end <= tail.length) return size - tail.length + end;
  }
  return size;
}

/** The directory's stated size, which yauzl does not read: a directory said to run past the file is damage. */
async function checkDirectoryEnd(reader: FileReader, size: number, zip: yauzl.ZipFile): Promise<void> {
  const end = Buffer.alloc(22);
  await promisify(reader.read.bind(reader))(end, 0, 22, size - 22 - (zip.comment as unknown as Buffer).length);
  const [length, offset] = [end.readUInt32LE(12), end.readUInt32LE(16)];
  if (length !== 0xffffffff && offset !== 0xffffffff && offset + length > size) throw damaged('a zip directory larger than the file');
}

function closed(zip: yauzl.ZipFile): Promise<void> {
  if (!zip.isOpen) return Promise.resolve();
  return new Promise((resolve, reject) => {
    zip.once('close', resolve);
    zip.once('error', reject);
    zip.close();
  });
}

/** A part's bytes as stored, found through its local header, inflated when deflated; only our entry is kept. */
async function opened(zip: yauzl.ZipFile, entry: ZipEntry): Promise<Readable> {
  const at = Object.assign(new yauzl.Entry(), { relativeOffsetOfLocalHeader: entry.offset, compressedSize: entry.compressedSize });
  const { fileDataStart } = await zip.readLocalFileHeaderPromise(at, { minimal: true });
  // The callback form: yauzl 3.4.0's openReadStreamLowLevelPromise calls openReadStream instead.
  const raw = await new Promise<Readable>((resolve, reject) =>
    zip.openReadStreamLowLevel(fileDataStart, entry.compressedSize, 0, entry.compressedSize, false, null, (err, stream) => (err ? reject(err) : resolve(stream))),
  );
  if (entry.method !== 8) return raw;
  // Inflated here in 256 KiB chunks: yauzl's own inflate gives 16 KiB ones, twice the time for a large part.
  const inflated = createInflateRaw({ chunkSize: CHUNK });
  raw.on('error', (err) => inflated.destroy(err));
  inflated.on('close', () => raw.destroy());
  return raw.pipe(inflated);
}

function archive(zip: yauzl.ZipFile, entries: Map<string, ZipEntry>, halt: Halt | undefined): ZipArchive {
  return {
    entry: (name) => entries.get(normalName(name).toLowerCase()),
    names: [...entries.values()].map((e) => e.name),
    stream(entry) {
      const checked = new Checked(entry, halt);
      if (entry.method !== 0 && entry.method !== 8) {
        process.nextTick(() => checked.destroy(new WorkbookError(`${entry.name} is compressed with method ${entry.method}, which idv does not read; save the workbook again`)));
        return checked;
      }
      opened(zip, entry).then(
        (source) => {
          source.on('error', (err: Error) => checked.destroy(said(err, { part: entry.name })));
          source.pipe(checked);
          checked.on('close', () => {
            source.unpipe(checked);
            source.destroy();
          });
        },
        (err: Error) => checked.destroy(said(err, { part: entry.name })),
      );
      return checked;
    },
    close: () => closed(zip),
  };
}
