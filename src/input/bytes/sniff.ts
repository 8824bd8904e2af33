// What a file is, from its first bytes: text (and which Unicode form), or a kind idv does not read as a list,
// named with the one thing to do (content.ts reads gzip, zstd and zip first; decode.ts refuses the rest).

export type FileKind =
  | 'text'
  | 'utf-16le'
  | 'utf-16be'
  | 'utf-32le'
  | 'utf-32be'
  | 'gzip'
  | 'bzip2'
  | 'xz'
  | 'zstd'
  | '7z'
  | 'rar'
  | 'zip'
  | 'xlsx'
  | 'ods'
  | 'docx'
  | 'ole'
  | 'pdf'
  | 'rtf'
  | 'html'
  | 'xml'
  | 'image'
  | 'executable'
  | 'sqlite'
  | 'binary';

export interface Sniffed {
  kind: FileKind;
  /** Bytes of a byte-order mark to drop (text kinds). */
  bom: number;
}

/** How many bytes sniff() wants to see before it decides (fewer at the end of the input). */
export const SNIFF_BYTES = 4096;

const starts = (b: Uint8Array, sig: readonly number[], at = 0) => sig.every((x, i) => b[at + i] === x);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** File signatures that no list or CSV can start with. */
const MAGIC: ReadonlyArray<[FileKind, readonly number[], number?]> = [
  ['gzip', [0x1f, 0x8b]],
  ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['zstd', [0x28, 0xb5, 0x2f, 0xfd]],
  ['7z', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ['rar', ascii('Rar!\x1a\x07')],
  ['bzip2', ascii('BZh'), undefined],
  ['ole', [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]],
  ['pdf', ascii('%PDF-')],
  ['rtf', ascii('{\\rtf')],
  ['image', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image', [0xff, 0xd8, 0xff]],
  ['image', ascii('GIF87a')],
  ['image', ascii('GIF89a')],
  ['executable', [0x7f, 0x45, 0x4c, 0x46]],
  ['sqlite', ascii('SQLite format 3\0')],
];

/**
 * The kind of input whose first bytes are `head` (at least SNIFF_BYTES of them, or all there is: `whole`);
 * null when more bytes are needed to tell.
 */
export function sniff(head: Uint8Array, whole: boolean): Sniffed | null {
  if (head.length < 8 && !whole) return null;
  if (starts(head, [0xff, 0xfe, 0, 0])) return { kind: 'utf-32le', bom: 4 };
  if (starts(head, [0, 0, 0xfe, 0xff])) return { kind: 'utf-32be', bom: 4 };
  if (starts(head, [0xff, 0xfe])) return { kind: 'utf-16le', bom: 2 };
  if (starts(head, [0xfe, 0xff])) return { kind: 'utf-16be', bom: 2 };
  if (starts(head, [0xef, 0xbb, 0xbf])) return { kind: 'text', bom: 3 };
  for (const [kind, sig] of MAGIC) {
    if (!starts(head, sig)) continue;
    if (kind === 'bzip2' && !(head[3]! >= 0x31 && head[3]! <= 0x39 && starts(head, [0x31, 0x41, 0x59, 0x26, 0x53, 0x59], 4))) continue;
    return { kind, bom: 0 };
  }
  if (starts(head, ascii('RIFF')) && starts(head, ascii('WEBP'), 8)) return { kind: 'image', bom: 0 };
  if (starts(head, ascii('ftyp'), 4) && /^(heic|heix|mif1|avif)/.test(String.fromCharCode(...head.subarray(8, 12)))) return { kind: 'image', bom: 0 };
  if (starts(head, [0x50, 0x4b]) && (head[2] === 3 || head[2] === 5 || head[2] === 7)) {
    if (head.length < SNIFF_BYTES && !whole) return null;
    return { kind: zipKind(head), bom: 0 };
  }
  const markup = markupKind(head);
  if (markup) return { kind: markup, bom: 0 };
  if (head.indexOf(0) !== -1) return { kind: utf16WithoutBom(head) ?? 'binary', bom: 0 };
  return { kind: 'text', bom: 0 };
}

/** A zip archive's kind, from the names of the files at its start. */
function zipKind(head: Uint8Array): FileKind {
  const names = Buffer.from(head.buffer, head.byteOffset, head.length).toString('latin1');
  if (names.includes('opendocument.spreadsheet')) return 'ods';
  if (names.includes('xl/')) return 'xlsx';
  if (names.includes('word/')) return 'docx';
  return 'zip';
}

/** An HTML page or an XML document (a spreadsheet some web apps save as ".xls"), by its first tag. */
function markupKind(head: Uint8Array): FileKind | null {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, 512)).toString('latin1').trimStart().toLowerCase();
  if (text.startsWith('<!doctype html') || text.startsWith('<html')) return 'html';
  if (text.startsWith('<?xml')) return 'xml';
  return null;
}

/**
 * UTF-16 written without a byte-order mark: text mostly of ASCII characters has a NUL in every other byte
 * (the high one: odd bytes in little-endian, even bytes in big-endian) and almost none in the others.
 */
function utf16WithoutBom(head: Uint8Array): FileKind | null {
  let even = 0;
  let odd = 0;
  const n = head.length - (head.length % 2);
  for (let i = 0; i < n; i += 2) {
    if (head[i] === 0) even++;
    if (head[i + 1] === 0) odd++;
  }
  const half = n / 2;
  if (half < 2) return null;
  if (odd > half * 0.6 && even < half * 0.05) return 'utf-16le';
  if (even > half * 0.6 && odd < half * 0.05) return 'utf-16be';
  return null;
}

type Compressed = 'gzip' | 'bzip2' | 'xz' | 'zstd';
const COMPRESSED: Record<Compressed, string> = {
  gzip: 'a gzip-compressed file',
  bzip2: 'a bzip2-compressed file',
  xz: 'an xz-compressed file',
  zstd: 'a zstd-compressed file',
};
const TEXT_LIST = 'give a text list (one address a line) or a CSV export';
/** What a file of a kind idv does not read is, and the one thing to do. */
type TextKind = 'text' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be';
const NOT_A_LIST: Record<Exclude<FileKind, TextKind | Compressed>, [string, string]> = {
  xlsx: ['an Excel workbook', 'save it as CSV (in Excel: File > Save As > CSV UTF-8) and give that file'],
  ods: [
    'an OpenDocument spreadsheet',
    'save it as an Excel Workbook (.xlsx) or as CSV (File > Save As) and give that file',
  ],
  ole: ['an Excel 97-2003 workbook (or another old Office file)', 'save it as CSV UTF-8 and give that file'],
  docx: ['a Word document', 'copy its addresses into a text file, one a line, and give that file'],
  zip: ['a zip archive', 'unzip it and give the list or CSV file inside'],
  '7z': ['a 7-Zip archive', 'extract it and give the list or CSV file inside'],
  rar: ['a RAR archive', 'extract it and give the list or CSV file inside'],
  pdf: [
    'a PDF document',
    'export the list as CSV from the program that made the PDF, or copy the addresses into a text file',
  ],
  rtf: ['an RTF document', 'save it as plain text (.txt) and give that file'],
  html: ['an HTML page', 'open it in a spreadsheet program and save it as CSV'],
  xml: ['an XML document', 'open it in a spreadsheet program and save it as CSV'],
  image: ['an image', TEXT_LIST],
  executable: ['a program', TEXT_LIST],
  sqlite: ['an SQLite database', 'export the table as CSV (sqlite3 -header -csv DB "SELECT ...") and give that file'],
  binary: ['a binary file (it holds NUL bytes)', TEXT_LIST],
};

/** What a file of a kind idv does not read is, and the one thing to do; `command` is `idv emails` or `idv domains`. */
export function notAList(kind: FileKind, command: string): { what: string; fix: string } | null {
  if (kind in COMPRESSED) {
    return { what: COMPRESSED[kind as Compressed], fix: `decompress it first: ${kind} -dc FILE | ${command} -` };
  }
  const known = NOT_A_LIST[kind as keyof typeof NOT_A_LIST];
  return known ? { what: known[0], fix: known[1] } : null;
}
