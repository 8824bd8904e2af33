// Bytes → text. UTF-8 with or without BOM; what is not valid UTF-8 is read as Windows-1252 (what
// spreadsheet programs on Windows save), or as Mac Roman when its lines end in a lone CR (what Excel for Mac
// saves as "Comma Separated Values" or "Tab Delimited Text"), so no character is ever replaced by U+FFFD. UTF-16 with a BOM
// (Excel's "Unicode text") is read as such. NUL bytes in UTF-8 input mean a binary file: an input error.
// Each chunk is decoded as it comes, at a cost linear in its size: only the bytes of a character cut at a
// chunk's end (at most 3) wait for the next one, so a 32 MB line is read as fast as 32 MB of short lines.
import type { Readable } from 'node:stream';
import { inputError } from '../errors.js';

type Encoding = 'utf-8' | 'windows-1252' | 'macintosh' | 'utf-16le' | 'utf-16be';

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
        // Not UTF-8: from here on, read as Windows-1252, or Mac Roman where lines end in a lone CR (no
        // Windows program writes those; Excel for Mac does). Earlier blocks were valid UTF-8, which for
        // the ASCII that such files mostly hold reads the same.
        encoding = bytes.indexOf(0x0d) !== -1 && bytes.indexOf(0x0a) === -1 ? 'macintosh' : 'windows-1252';
      }
    }
    return encoding === 'macintosh' ? decodeMacRoman(bytes) : decodeCp1252(bytes);
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

// Mac Roman's upper half (Apple's mapping, 0xDB = €), ours for the same reason as Windows-1252's: Node
// built with small ICU has no TextDecoder('macintosh').
const MAC_ROMAN_HIGH =
  '\u00c4\u00c5\u00c7\u00c9\u00d1\u00d6\u00dc\u00e1\u00e0\u00e2\u00e4\u00e3\u00e5\u00e7\u00e9\u00e8' +
  '\u00ea\u00eb\u00ed\u00ec\u00ee\u00ef\u00f1\u00f3\u00f2\u00f4\u00f6\u00f5\u00fa\u00f9\u00fb\u00fc' +
  '\u2020\u00b0\u00a2\u00a3\u00a7\u2022\u00b6\u00df\u00ae\u00a9\u2122\u00b4\u00a8\u2260\u00c6\u00d8' +
  '\u221e\u00b1\u2264\u2265\u00a5\u00b5\u2202\u2211\u220f\u03c0\u222b\u00aa\u00ba\u03a9\u00e6\u00f8' +
  '\u00bf\u00a1\u00ac\u221a\u0192\u2248\u2206\u00ab\u00bb\u2026\u00a0\u00c0\u00c3\u00d5\u0152\u0153' +
  '\u2013\u2014\u201c\u201d\u2018\u2019\u00f7\u25ca\u00ff\u0178\u2044\u20ac\u2039\u203a\ufb01\ufb02' +
  '\u2021\u00b7\u201a\u201e\u2030\u00c2\u00ca\u00c1\u00cb\u00c8\u00cd\u00ce\u00cf\u00cc\u00d3\u00d4' +
  '\uf8ff\u00d2\u00da\u00db\u00d9\u0131\u02c6\u02dc\u00af\u02d8\u02d9\u02da\u00b8\u02dd\u02db\u02c7';
const HIGH = /[\u0080-\u00ff]/g;

export function decodeMacRoman(bytes: Buffer): string {
  return bytes.toString('latin1').replace(HIGH, (c) => MAC_ROMAN_HIGH[c.charCodeAt(0) - 0x80]!);
}
