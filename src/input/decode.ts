// Bytes → text. UTF-8 with or without BOM; what is not valid UTF-8 is read as Windows-1252 (what
// spreadsheet programs on Windows save), so no character is ever replaced by U+FFFD. UTF-16 with a BOM
// (Excel's "Unicode text") is read as such. NUL bytes in UTF-8 input mean a binary file: an input error.
import type { Readable } from 'node:stream';
import { inputError } from '../errors.js';

const LF = 0x0a;

/**
 * Yields decoded text in blocks. UTF-8 blocks end at line boundaries (a multi-byte character is never
 * cut); consumers must still carry partial lines over, since UTF-16 blocks end anywhere.
 */
export async function* decodeText(stream: Readable, name: string): AsyncGenerator<string> {
  let encoding: 'utf-8' | 'windows-1252' | 'utf-16le' | 'utf-16be' | null = null;
  let utf8: TextDecoder | null = null;
  let wide: TextDecoder | null = null;
  let carry: Buffer | null = null;
  let first = true;

  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let buf: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
    carry = null;
    if (first) {
      if (buf.length < 3 && buf.length > 0 && (buf[0] === 0xef || buf[0] === 0xff || buf[0] === 0xfe)) {
        carry = buf; // too short to tell a BOM yet
        continue;
      }
      first = false;
      if (buf[0] === 0xff && buf[1] === 0xfe) encoding = 'utf-16le';
      else if (buf[0] === 0xfe && buf[1] === 0xff) encoding = 'utf-16be';
      if (encoding) {
        wide = new TextDecoder(encoding, { ignoreBOM: false });
      } else {
        if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
        encoding = 'utf-8';
      }
    }
    if (wide) {
      const text = wide.decode(buf, { stream: true });
      if (text) yield text;
      continue;
    }
    if (buf.indexOf(0) !== -1) {
      throw inputError(`${name} is not a text list or CSV file (it contains NUL bytes).`);
    }
    const end = buf.lastIndexOf(LF);
    if (end === -1) {
      carry = buf;
      continue;
    }
    if (end < buf.length - 1) carry = buf.subarray(end + 1);
    yield decodeBlock(buf.subarray(0, end + 1));
  }
  if (carry && carry.length > 0) {
    if (first && encoding === null) {
      // a file of one or two bytes
      if (carry.indexOf(0) !== -1) throw inputError(`${name} is not a text list or CSV file (it contains NUL bytes).`);
      encoding = 'utf-8';
    }
    if (wide) {
      const text = wide.decode(carry, { stream: true });
      if (text) yield text;
    } else {
      if (carry.indexOf(0) !== -1) {
        throw inputError(`${name} is not a text list or CSV file (it contains NUL bytes).`);
      }
      yield decodeBlock(carry);
    }
  }
  if (wide) {
    const rest = wide.decode();
    if (rest) yield rest;
  }

  function decodeBlock(bytes: Buffer): string {
    if (encoding === 'utf-8') {
      utf8 ??= new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
      try {
        return utf8.decode(bytes);
      } catch {
        // Not UTF-8: from here on, read as Windows-1252. Earlier blocks were valid UTF-8, which for
        // the ASCII that such files mostly hold reads the same.
        encoding = 'windows-1252';
      }
    }
    return cp1252.decode(bytes);
  }
}

const cp1252 = new TextDecoder('windows-1252');
