// Bytes → text. UTF-8 with or without BOM; what is not valid UTF-8 is read as Windows-1252 (what
// spreadsheet programs on Windows save), so no character is ever replaced by U+FFFD. UTF-16 with a BOM
// (Excel's "Unicode text") is read as such. NUL bytes in UTF-8 input mean a binary file: an input error.
// Each chunk is decoded as it comes, at a cost linear in its size: only the bytes of a character cut at a
// chunk's end (at most 3) wait for the next one, so a 32 MB line is read as fast as 32 MB of short lines.
import type { Readable } from 'node:stream';
import { inputError } from '../errors.js';

type Encoding = 'utf-8' | 'windows-1252' | 'utf-16le' | 'utf-16be';

/** Where the last complete UTF-8 character of `buf` ends (a lead byte near the end may start a cut one). */
function completeUtf8(buf: Buffer): number {
  const n = buf.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = buf[n - back]!;
    if (b < 0x80) return n; // ASCII: nothing cut
    if (b >= 0xc0) {
      // A lead byte: is its sequence whole?
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return back >= need ? n : n - back;
    }
  }
  return n; // only continuation bytes: not UTF-8 anyway; the decoder will say so
}

/** Yields decoded text in blocks, as it comes (consumers carry partial lines and records over). */
export async function* decodeText(stream: Readable, name: string): AsyncGenerator<string> {
  let encoding: Encoding | null = null;
  let wide: TextDecoder | null = null;
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let carry: Buffer | null = null;
  const binary = () => inputError(`${name} is not a text list or CSV file (it contains NUL bytes).`);

  const decodeNarrow = (bytes: Buffer): string => {
    if (bytes.indexOf(0) !== -1) throw binary();
    if (encoding === 'utf-8') {
      try {
        return utf8.decode(bytes);
      } catch {
        // Not UTF-8: from here on, read as Windows-1252. Earlier blocks were valid UTF-8, which for
        // the ASCII that such files mostly hold reads the same.
        encoding = 'windows-1252';
      }
    }
    return decodeCp1252(bytes);
  };

  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let buf: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
    carry = null;
    if (encoding === null) {
      if (buf.length < 3 && (buf[0] === 0xef || buf[0] === 0xff || buf[0] === 0xfe)) {
        carry = buf; // too short to tell a BOM yet
        continue;
      }
      if (buf[0] === 0xff && buf[1] === 0xfe) encoding = 'utf-16le';
      else if (buf[0] === 0xfe && buf[1] === 0xff) encoding = 'utf-16be';
      else {
        if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
        encoding = 'utf-8';
      }
      if (encoding !== 'utf-8') wide = new TextDecoder(encoding, { ignoreBOM: false });
    }
    if (wide) {
      const text = wide.decode(buf, { stream: true });
      if (text) yield text;
      continue;
    }
    const end = encoding === 'utf-8' ? completeUtf8(buf) : buf.length;
    if (end < buf.length) carry = buf.subarray(end);
    if (end > 0) {
      const text = decodeNarrow(buf.subarray(0, end));
      if (text) yield text;
    }
  }
  if (wide) {
    const rest = wide.decode();
    if (rest) yield rest;
  } else if (carry && carry.length > 0) {
    encoding ??= 'utf-8';
    yield decodeNarrow(carry); // a cut character at the very end is no UTF-8: Windows-1252
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
