// What an input's bytes are, by content and never by name: compressed (decompressed here as it is read, and
// looked at again), a zip (workbook.ts), an old Office file (OLE2: named for what it is), or text for decode.ts.
import { pipeline, Readable } from 'node:stream';
import { IdvError, inputError, interruptedError } from '../../core/errors.js';
import { formatSize } from '../../core/size.js';
import { sniff, SNIFF_BYTES, type Sniffed } from './sniff.js';

/** How long a live input may be silent before idv decides on what has arrived. */
export const PAUSE_MS = 200;
/** A compressed file inside a compressed file is unwrapped too, this many times at most. */
const MAX_LAYERS = 3;

/**
 * What an input may unpack to before its first record (--max-unpacked), and, past EXPAND_GRACE, how many times
 * its compressed bytes: a bomb of blank lines expands far more than text or a workbook, which show a record soon.
 */
const MAX_UNPACKED = 1024 ** 3;
const EXPAND_RATIO = 100;
const EXPAND_GRACE = 16 * 1024 * 1024;

/** How much an input has unpacked so far, and what it may: one per source, shared by its layers of compression. */
export interface Unpacking {
  readonly max: number;
  /** None when --max-unpacked says how much is trusted. */
  readonly ratio: number | null;
  /** Bytes of the compressed file read, by its outermost decompression. */
  packed: number;
  /** Set once a record is read: from then on, what it holds is records. */
  recordRead: boolean;
}

/** The bounds of a source's reading. */
export function unpacking(maxUnpacked?: number): Unpacking {
  return { max: maxUnpacked ?? MAX_UNPACKED, ratio: maxUnpacked === undefined ? EXPAND_RATIO : null, packed: 0, recordRead: false };
}

/** `4GiB`: a size to suggest in a message, four times the one refused. */
export const largerSize = (bytes: number) => formatSize(bytes * 4).replace(' ', '');

export type Content =
  /** Text (or a kind decode.ts refuses by name), its first bytes already sniffed. */
  | { kind: 'text'; sniffed: Sniffed; chunks: AsyncIterable<Buffer> }
  /**
   * A zip: a workbook, or what the workbook reader says it is. `inPlace`: the file itself may be read (no copy).
   * `workbook`: its first entries' names are a workbook's (else a zip that cannot be opened is no workbook either).
   */
  | { kind: 'zip'; chunks: AsyncIterable<Buffer>; inPlace: boolean; workbook: boolean };

interface ContentOptions {
  /** For messages: the file, and `idv emails` or `idv domains`. */
  name: string;
  command: string;
  /** Standard input or a FIFO: the first bytes are decided on after a pause (PAUSE_MS) instead of waiting for more. */
  live: boolean;
  signal?: AbortSignal;
  /** None: no bound. */
  unpacking?: Unpacking;
}

/** The content of `chunks` (a source's bytes), decompressed as many times as it is compressed. */
export async function contentOf(chunks: AsyncIterable<Buffer>, o: ContentOptions): Promise<Content> {
  let layers = 0;
  let kind: 'gzip' | 'zstd' | undefined; // the outermost compression
  for (;;) {
    const head = await headOf(chunks, o.live);
    const sniffed = sniff(head.bytes.subarray(0, SNIFF_BYTES), true)!;
    const decompress = sniffed.kind === 'gzip' || sniffed.kind === 'zstd' ? await decompressor(sniffed.kind, o) : null;
    if (decompress && layers < MAX_LAYERS) {
      layers++;
      chunks = inflate(head.chunks, decompress, sniffed.kind, o, layers === 1);
      kind ??= sniffed.kind as 'gzip' | 'zstd';
      continue;
    }
    // A zip that is no workbook by its first bytes, inside compression: nothing to read, and copying it out to
    // find out would write all it expands to.
    if (sniffed.kind === 'zip' && kind !== undefined) throw zipInside(kind, o.name);
    // A zip's own directory says what it is (its first bytes may not): the workbook reader looks.
    if (sniffed.kind === 'zip' || sniffed.kind === 'xlsx') return { kind: 'zip', chunks: head.chunks, inPlace: layers === 0, workbook: sniffed.kind === 'xlsx' };
    if (sniffed.kind === 'ole') throw await oleError(head.chunks, o.name);
    return { kind: 'text', sniffed, chunks: head.chunks };
  }
}

interface Head {
  /** The first bytes: enough for sniff() to tell what they are, all there are, or (live) what came before a pause. */
  bytes: Buffer;
  /** Every byte, the head first. */
  chunks: AsyncIterable<Buffer>;
}

async function headOf(chunks: AsyncIterable<Buffer>, live: boolean): Promise<Head> {
  const it = chunks[Symbol.asyncIterator]();
  const parts: Buffer[] = [];
  let size = 0;
  let ended = false;
  let pending: Promise<IteratorResult<Buffer>> | null = null;
  while (!ended && (size === 0 || sniff(Buffer.concat(parts).subarray(0, SNIFF_BYTES), false) === null)) {
    pending ??= it.next();
    const next = live && size > 0 ? await within(pending, PAUSE_MS) : await pending;
    if (next === null) break; // a pause: decide on what came
    pending = null;
    if (next.done) ended = true;
    else {
      parts.push(next.value);
      size += next.value.length;
    }
  }
  const bytes = Buffer.concat(parts);
  const all = followedBy(bytes.length ? [bytes] : [], ended ? null : it, pending);
  return { bytes, chunks: wrapReturn(all, it) };
}

/** `first`, then what is left of `it` (`pending`: its next result, asked for already). */
export async function* followedBy<T>(
  first: Iterable<T>,
  it: AsyncIterator<T> | null,
  pending: Promise<IteratorResult<T>> | null = null,
): AsyncGenerator<T> {
  yield* first;
  if (it === null) return;
  for (let next = await (pending ?? it.next()); !next.done; next = await it.next()) yield next.value;
}

/** An iterator's result, or null if it takes longer than `ms`. */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `gen`, whose return() also ends `source` (a generator paused in an await would not pass it on). */
function wrapReturn<T>(gen: AsyncGenerator<T>, source: AsyncIterator<unknown>): AsyncGenerator<T> {
  const ret = gen.return.bind(gen);
  gen.return = async (value) => {
    void source.return?.();
    return ret(value as never);
  };
  return gen;
}

type Make = () => NodeJS.ReadWriteStream;

/** How to decompress `kind`; a zstd stream on a Node without zstd is refused, saying what to do. */
async function decompressor(kind: 'gzip' | 'zstd', o: ContentOptions): Promise<Make> {
  const zlib = await import('node:zlib'); // loaded only for compressed input: a plain run's start-up does not pay for it
  if (kind === 'gzip') return () => zlib.createGunzip();
  const zstd = (zlib as unknown as { createZstdDecompress?: Make }).createZstdDecompress;
  if (typeof zstd === 'function') return () => zstd.call(zlib);
  throw inputError(
    `${o.name} is a zstd-compressed file, which this version of Node cannot decompress (Node 22.15 or later can); decompress it first: zstd -dc FILE | ${o.command} -`,
  );
}

function zipInside(kind: 'gzip' | 'zstd', name: string): Error {
  return inputError(
    `${name} is a zip archive inside ${kind} compression, not a list or CSV file; decompress and unzip it, and give the list or CSV file inside ` +
      `(a workbook: ${kind} -dc FILE > book.xlsx, and give book.xlsx).`,
  );
}

/**
 * The decompressed bytes of `chunks`, as they come. A signal and the bounds are heard at each block: a few kilobytes
 * can inflate to gigabytes of blank lines, no record to stop at (`outer`: this layer counts the file's bytes).
 */
async function* inflate(chunks: AsyncIterable<Buffer>, make: Make, kind: string, o: ContentOptions, outer: boolean): AsyncGenerator<Buffer> {
  const { name, signal, unpacking: u } = o;
  let readFailure: unknown = null; // the file's own read error, said as such (read.ts), not as damaged data
  async function* source(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of chunks) {
        if (outer && u) u.packed += chunk.length;
        yield chunk;
      }
    } catch (err) {
      readFailure = err;
      throw err;
    }
  }
  const z = make();
  let failed: unknown = null;
  pipeline(Readable.from(source(), { objectMode: false }), z, (err) => void (failed ??= err ?? null));
  let unpacked = 0;
  try {
    for await (const out of z as AsyncIterable<Buffer>) {
      if (signal?.aborted) throw interruptedError(signal.reason);
      unpacked += out.length;
      if (u && !u.recordRead) refuseUnpacked(u, unpacked, name);
      yield out;
    }
  } catch (err) {
    if (err instanceof IdvError) throw err;
    throw readFailure ?? damagedStream(failed ?? err, kind, name);
  } finally {
    (z as unknown as Readable).destroy();
  }
  if (failed) throw readFailure ?? damagedStream(failed, kind, name);
}

/** What a source unpacked to before its first record, past its bounds: an input error naming --max-unpacked. */
function refuseUnpacked(u: Unpacking, unpacked: number, name: string): void {
  if (unpacked > u.max) {
    throw inputError(`${name} expands to more than ${formatSize(u.max)} before its first record; if it is a file you trust, give a larger --max-unpacked (e.g. --max-unpacked ${largerSize(u.max)}).`);
  }
  if (u.ratio !== null && unpacked > EXPAND_GRACE && unpacked > u.ratio * u.packed) {
    throw inputError(
      `${name} expands to more than ${u.ratio} times its compressed size before its first record (${formatSize(unpacked)} from ${formatSize(u.packed)} so far): ` +
        `a decompression bomb, or little but blank lines; if it is a file you trust, give --max-unpacked SIZE to read up to SIZE of it (e.g. --max-unpacked ${largerSize(u.max)}).`,
    );
  }
}

function damagedStream(err: unknown, kind: string, name: string): Error {
  const message = (err as Error)?.message ?? String(err);
  const why = /unexpected end|premature|truncat/i.test(message) ? 'it ends early (the file is cut short)' : `its compressed data is damaged (${message})`;
  const test = kind === 'gzip' ? 'gzip -t' : 'zstd -t';
  return inputError(`${name} is a ${kind}-compressed file that cannot be read to its end: ${why}; check the file (${test} FILE says the same) or copy it again.`);
}

// ── Old Office files (OLE2 compound files) ──────────────────────────────────────────────────────────────

/** Directory entries of a compound file sit at multiples of 128 bytes; their names, in UTF-16LE, say what it holds. */
const OLE_NAMES: ReadonlyArray<[string, 'encrypted' | 'xls' | 'doc' | 'ppt' | 'msg']> = [
  ['EncryptedPackage', 'encrypted'],
  ['EncryptionInfo', 'encrypted'],
  ['Workbook', 'xls'],
  ['Book', 'xls'],
  ['WordDocument', 'doc'],
  ['PowerPoint Document', 'ppt'],
  ['__properties_version1.0', 'msg'],
];
/** Past this, an old Office file is named without looking further. */
const OLE_SCAN_MAX = 256 * 1024 * 1024;

/** The one-line refusal of an OLE2 file: a password-protected workbook, an .xls, or another old Office file. */
async function oleError(chunks: AsyncIterable<Buffer>, name: string): Promise<Error> {
  const kind = await oleKind(chunks);
  switch (kind) {
    case 'encrypted':
      return inputError(
        `${name} is a password-protected (encrypted) workbook, which idv cannot read; in Excel, save a copy without the password (File > Info > Protect Workbook > Encrypt with Password, emptied) and give that file.`,
      );
    case 'xls':
      return inputError(`${name} is an Excel 97-2003 workbook (.xls), which idv does not read; save it as an Excel Workbook (.xlsx) or as CSV UTF-8, and give that file.`);
    case 'doc':
    case 'ppt':
      return inputError(`${name} is a ${kind === 'doc' ? 'Word 97-2003 document' : 'PowerPoint 97-2003 presentation'}, not a list or CSV file; copy its addresses into a text file, one a line, and give that file.`);
    case 'msg':
      return inputError(`${name} is an Outlook message (.msg), not a list or CSV file; copy its addresses into a text file, one a line, and give that file.`);
    default:
      return inputError(`${name} is an old Office file (an OLE2 compound file), not a list or CSV file; save it as .xlsx or CSV UTF-8 and give that file.`);
  }
}

async function oleKind(chunks: AsyncIterable<Buffer>): Promise<(typeof OLE_NAMES)[number][1] | null> {
  const wanted = OLE_NAMES.map(([n, k]) => ({ name: Buffer.from(n + '\0', 'utf16le'), kind: k }));
  let carry: Buffer = Buffer.alloc(0);
  let offset = 0; // of carry's first byte in the file
  for await (const chunk of chunks) {
    const buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    let at = (128 - (offset % 128)) % 128;
    for (; at + 128 <= buf.length; at += 128) {
      const length = buf.readUInt16LE(at + 64);
      const type = buf[at + 66];
      if (type !== 1 && type !== 2) continue; // a storage or a stream
      for (const w of wanted) if (length === w.name.length && buf.compare(w.name, 0, w.name.length, at, at + w.name.length) === 0) return w.kind;
    }
    carry = buf.subarray(at);
    offset += buf.length - carry.length;
    if (offset > OLE_SCAN_MAX) return null;
  }
  return null;
}
