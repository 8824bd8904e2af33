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
    return decodeCp1252(bytes);
  }
}

// Windows-1252 differs from Latin-1 only in 0x80–0x9F. Node 20's TextDecoder('windows-1252') decodes
// those bytes as Latin-1 control characters, so the table is ours (WHATWG's mapping; the five unused
// bytes map to the same code point, as WHATWG does).
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const C1 = /[\u0080-\u009f]/g;

export function decodeCp1252(bytes: Buffer): string {
  const latin1 = bytes.toString('latin1');
  return latin1.replace(C1, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);
}
