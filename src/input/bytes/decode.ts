// Bytes → text, in one encoding from the first byte to the last: a byte-order mark's or UTF-16 told without one
// (sniff.ts), --encoding's, else UTF-8 while the bytes are. At the first bytes beyond ASCII that are not, the
// code page detected on them (encodings.ts) reads the whole file: the ASCII before reads the same in any. Mostly
// UTF-8 bytes stay UTF-8, each stray byte read as its Windows-1252 character (never U+FFFD: WHATWG's C1 control
// where it has none) and said by line; a code page's undecodable bytes are SUB.
import type { Readable } from 'node:stream';
import { inputError } from '../../core/errors.js';
import { followedBy } from './content.js';
import { detectCodePage, encodingFlag, loadIconv } from './encodings.js';
import { notAList, sniff, SNIFF_BYTES, type Sniffed } from './sniff.js';

export interface EncodingInfo {
  /** As idv names it: utf-8, utf-16le, windows-1251, shift_jis, macintosh… */
  name: string;
  /** How it was chosen: a byte-order mark, --encoding, detected, or UTF-8 because the bytes are. */
  how: 'bom' | 'given' | 'detected' | 'utf-8';
  /** Detection was not sure: the code page that would read the text otherwise. */
  alternative: string | null;
}

/** A byte that is not UTF-8 in a UTF-8 file: where in its block, and the character it was read as. */
export interface Stray {
  at: number;
  byte: number;
  char: string;
}

/** What decoding chose from the first bytes, the text it reads, and the stray bytes it finds in the text. */
export interface Decoded {
  /** Chosen from the first bytes (`how: 'utf-8'`: a code page found further on is told to onDetected). */
  readonly encoding: EncodingInfo;
  /** The text, a block per chunk. */
  readonly blocks: AsyncGenerator<string>;
  /** Stray bytes by the number of the block (0, 1, … as yielded) that holds them: a block's are here once it is yielded. */
  readonly strays: ReadonlyMap<number, Stray[]>;
}

/** UTF-8 because the bytes are: a text with no mark, no --encoding, and nothing beyond ASCII that is not UTF-8. */
export const UTF8: EncodingInfo = Object.freeze({ name: 'utf-8', how: 'utf-8', alternative: null });

interface DecodeOptions {
  /** For messages: the file's name, and `idv emails` or `idv domains`. */
  name: string;
  command?: string;
  encoding?: string;
  /** Told the code page found at the first text beyond ASCII that is not UTF-8: the whole text's (the ASCII before reads the same). */
  onDetected?(encoding: EncodingInfo): void;
  /** What the first chunk is, already sniffed (content.ts): the first chunk holds the bytes it was told from. */
  sniffed?: Sniffed;
}

/** Where the last complete UTF-8 character of `buf` ends (a lead byte near the end may start a cut one). */
function completeUtf8(buf: Uint8Array): number {
  const n = buf.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = buf[n - back]!;
    if (b < 0x80) return n; // ASCII: nothing cut
    if (b >= 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return back >= need ? n : n - back;
    }
  }
  return n; // only continuation bytes: the decoder will say what they are
}

/** The encoding of `stream`, chosen from its first bytes, and its text, a block per chunk as it comes. */
export async function decodeText(stream: Readable | AsyncIterable<Buffer>, o: DecodeOptions): Promise<Decoded> {
  const it = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const { head, sniffed, ended } = await sniffHead(it, o.sniffed);
  const refused = notAList(sniffed.kind, o.command ?? 'idv emails');
  if (refused) throw inputError(`${o.name} is ${refused.what}, not a list or CSV file; ${refused.fix}.`);
  const first = head.subarray(sniffed.bom);
  const rest = followedBy(first.length ? [first] : [], ended ? null : it);
  const given = o.encoding !== undefined ? await encodingFlag(o.encoding) : null;
  const wide = sniffed.kind === 'text' ? null : sniffed.kind;
  const strays = new Map<number, Stray[]>();
  if (given && given.iconv !== 'utf-8') {
    return { encoding: { name: given.label, how: 'given', alternative: null }, blocks: codePage(rest, given.iconv, o.name), strays };
  }
  if (wide && !given) {
    return { encoding: { name: wide, how: sniffed.bom ? 'bom' : 'detected', alternative: null }, blocks: codePage(rest, wide, o.name, true), strays };
  }
  const how = given ? 'given' : sniffed.bom ? 'bom' : 'utf-8';
  return { encoding: how === 'utf-8' ? UTF8 : { name: 'utf-8', how, alternative: null }, blocks: utf8OrCodePage(rest, o, how !== 'utf-8', strays), strays };
}

/** The first bytes, gathered until what they are can be told (a chunk may be shorter than a byte-order mark). */
async function sniffHead(it: AsyncIterator<Buffer>, known: Sniffed | undefined): Promise<{ head: Buffer; sniffed: Sniffed; ended: boolean }> {
  let head: Buffer = Buffer.alloc(0);
  for (;;) {
    const next = await it.next();
    const ended = next.done === true;
    if (!ended) head = head.length === 0 ? next.value : Buffer.concat([head, next.value]);
    const sniffed = head.length === 0 && ended ? { kind: 'text' as const, bom: 0 } : (known ?? sniff(head.subarray(0, SNIFF_BYTES), ended));
    if (sniffed !== null) return { head, sniffed, ended };
  }
}

/** Text in a code page (or UTF-16/32) from the first byte on; NUL bytes refused unless `wide`. */
async function* codePage(chunks: AsyncIterable<Buffer>, name: string, file: string, wide = false, offset = 0): AsyncGenerator<string> {
  const decoder = (await loadIconv()).getDecoder(name, { stripBOM: false });
  const nuls = wide ? null : nulBound(file);
  let at = offset;
  for await (const chunk of chunks) {
    nuls?.add(chunk, at);
    at += chunk.length;
    const text = decoder.write(chunk);
    if (text) yield noReplacement(text);
  }
  nuls?.end();
  const last = decoder.end();
  if (last) yield noReplacement(last);
}

/**
 * A byte sequence the code page has no character for is SUB (U+001A), the control meant for it, never U+FFFD: an
 * item holding one is invalid (never sent), and notes show it escaped.
 */
const noReplacement = (text: string) => text.replaceAll('\ufffd', '\u001a');

/** Past the first bytes (sniff.ts refuses a file that starts with NULs), a stretch this long that is NULs by NUL_SHARE is binary data. */
const NUL_WINDOW = 64 * 1024;
const NUL_SHARE = 1 / 8;

/**
 * NUL bytes in text already read as such are control characters in their cells (a notes field a database
 * export left one in), as long as they are few: a stretch of NUL_WINDOW bytes an eighth NULs is binary data
 * (UTF-16 without a mark, a dump appended), refused from its first NUL.
 */
function nulBound(file: string): { add(bytes: Uint8Array, offset: number): void; end(): void } {
  let bytes = 0;
  let nuls = 0;
  let first = 0;
  const check = () => {
    if (nuls > bytes * NUL_SHARE) {
      throw inputError(
        `${file} holds binary data from byte ${first.toLocaleString('en-US')} on (NUL bytes, ${nuls.toLocaleString('en-US')} of ${bytes.toLocaleString('en-US')}): it is no text list or CSV file there; ` +
          `if it is UTF-16 text, give --encoding utf-16le (or utf-16be); otherwise cut the file before that byte.`,
      );
    }
    bytes = nuls = 0;
  };
  return {
    add(chunk, offset) {
      for (let at = chunk.indexOf(0); at !== -1; at = chunk.indexOf(0, at + 1)) if (nuls++ === 0) first = offset + at;
      bytes += chunk.length;
      if (bytes >= NUL_WINDOW) check();
    },
    end: () => (bytes >= SNIFF_BYTES ? check() : undefined),
  };
}

/**
 * UTF-8 (nothing else once a character beyond ASCII has been UTF-8, or when `fixed`: a mark or --encoding said
 * so), or the code page of the first bytes that are not; stray bytes go to `strays`, by block.
 */
async function* utf8OrCodePage(chunks: AsyncIterable<Buffer>, o: DecodeOptions, fixed: boolean, strays: Map<number, Stray[]>): AsyncGenerator<string> {
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let asciiSoFar = !fixed;
  let carry: Buffer | null = null;
  let offset = 0;
  let block = 0;
  const it = chunks[Symbol.asyncIterator]();
  const nuls = nulBound(o.name);
  for (let next = await it.next(); ; next = await it.next()) {
    const last = next.done === true;
    const buf: Buffer = last ? carry ?? Buffer.alloc(0) : carry ? Buffer.concat([carry, next.value]) : next.value;
    carry = null;
    if (buf.length === 0) {
      if (last) return nuls.end();
      continue;
    }
    const end = last ? buf.length : completeUtf8(buf);
    if (end < buf.length) carry = buf.subarray(end);
    const bytes = buf.subarray(0, end);
    nuls.add(bytes, offset);
    let text: string | null;
    try {
      text = utf8.decode(bytes);
      if (asciiSoFar && text.length !== bytes.length) asciiSoFar = false; // a character beyond ASCII, and UTF-8
    } catch {
      text = null;
    }
    if (text === null && asciiSoFar && !mostlyUtf8(bytes)) {
      // The first text beyond ASCII is not UTF-8: the file's code page, from here to its end.
      const found = await detectCodePage(buf);
      o.onDetected?.({ name: found.label, how: 'detected', alternative: found.alternative });
      yield* codePage(followedBy([buf], last ? null : it), found.iconv, o.name, false, offset);
      return;
    }
    if (text === null) {
      asciiSoFar = false;
      const read = await withStrays(bytes);
      text = read.text;
      if (read.strays.length) strays.set(block, read.strays);
    }
    offset += end;
    if (text) {
      yield text;
      block++;
    }
    if (last) return nuls.end();
  }
}

/**
 * Whether bytes that are not valid UTF-8 are still mostly UTF-8: some well-formed multi-byte character (text in a
 * code page forms one only by chance), and as many of them as bad bytes, or two bad bytes at most.
 */
export function mostlyUtf8(bytes: Uint8Array): boolean {
  let good = 0;
  let bad = 0;
  for (let i = 0; i < bytes.length; ) {
    const n = sequenceLength(bytes, i);
    if (n === 0) {
      bad++;
      i++;
    } else {
      if (n > 1) good++;
      i += n;
    }
  }
  return good > 0 && (bad <= 2 || good >= bad);
}

/** The length of the well-formed UTF-8 character at `i`, or 0 when the byte there starts none. */
function sequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number) => i + k < b.length && (b[i + k]! & 0xc0) === 0x80;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const c1 = b[i + 1] ?? 0;
    if ((c === 0xe0 && c1 < 0xa0) || (c === 0xed && c1 > 0x9f)) return 0; // overlong, or a surrogate
    return cont(1) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const c1 = b[i + 1] ?? 0;
    if ((c === 0xf0 && c1 < 0x90) || (c === 0xf4 && c1 > 0x8f)) return 0;
    return cont(1) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

let windows1252: string | null = null;

/** UTF-8 text whose stray bytes are read as the Windows-1252 characters they would be. */
async function withStrays(bytes: Uint8Array): Promise<{ text: string; strays: Stray[] }> {
  // Bytes Windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) are their C1 controls, as WHATWG reads them: never U+FFFD.
  windows1252 ??= [...(await loadIconv()).decode(Buffer.from(Array.from({ length: 128 }, (_, i) => 0x80 + i)), 'windows-1252')]
    .map((c, i) => (c === '\ufffd' ? String.fromCharCode(0x80 + i) : c))
    .join('');
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const strays: Stray[] = [];
  let text = '';
  let from = 0;
  for (let i = 0; i < bytes.length; ) {
    const n = sequenceLength(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    text += buf.toString('utf8', from, i);
    const char = windows1252[bytes[i]! - 0x80]!;
    strays.push({ at: text.length, byte: bytes[i]!, char });
    text += char;
    from = ++i;
  }
  return { text: text + buf.toString('utf8', from), strays };
}
