// What a file is, from its first bytes (src/input/bytes/sniff.ts), and the one-line refusal of what idv does not read.
import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { notAList, sniff, SNIFF_BYTES, type FileKind } from '../../../src/input/bytes/sniff.js';
import { readFileSync } from 'node:fs';
import { fixture, withHome, sandbox, sentItems } from '../../helpers.js';
import { run } from '../../fake-io.js';

const bytes = (...parts: Array<string | number[] | Buffer>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
/** A zip archive's start: a local file header naming `name` (the rest of the header's fields zero). */
const zip = (...names: string[]) => bytes(...names.flatMap((n) => [[0x50, 0x4b, 0x03, 0x04], Buffer.alloc(22), [n.length, 0, 0, 0], n, 'data']));
const kindOf = (b: Buffer) => sniff(b, true)?.kind;

describe('sniff', () => {
  it.each<[string, Buffer, FileKind]>([
    ['gzip', gzipSync('a@b.com\n'), 'gzip'],
    ['an Excel workbook (a zip holding xl/)', zip('[Content_Types].xml', 'xl/workbook.xml'), 'xlsx'],
    ['an OpenDocument spreadsheet', zip('mimetypeapplication/vnd.oasis.opendocument.spreadsheet'), 'ods'],
    ['a Word document', zip('word/document.xml'), 'docx'],
    ['another zip', zip('contacts.csv'), 'zip'],
    ['PDF', bytes('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n'), 'pdf'],
    ['PNG', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], Buffer.alloc(8)), 'image'],
    ['JPEG', bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF\0'), 'image'],
    ['GIF', bytes('GIF89a', [1, 0, 1, 0]), 'image'],
    ['WebP', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'image'],
    ['Excel 97-2003', bytes([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], Buffer.alloc(8)), 'ole'],
    ['SQLite', bytes('SQLite format 3\0', Buffer.alloc(8)), 'sqlite'],
    ['ELF', bytes([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), 'executable'],
    ['bzip2', bytes('BZh91AY&SY', Buffer.alloc(4)), 'bzip2'],
    ['xz', bytes([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], Buffer.alloc(4)), 'xz'],
    ['zstd', bytes([0x28, 0xb5, 0x2f, 0xfd], Buffer.alloc(6)), 'zstd'],
    ['7-Zip', bytes([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], Buffer.alloc(4)), '7z'],
    ['RAR', bytes('Rar!\x1a\x07\x01\x00'), 'rar'],
    ['RTF', bytes('{\\rtf1\\ansi jane@x.com}'), 'rtf'],
    ['HTML', bytes('\n  <!DOCTYPE html><html><td>jane@x.com</td>'), 'html'],
    ['XML', bytes('<?xml version="1.0"?><Workbook>'), 'xml'],
    ['UTF-16LE with a BOM', bytes([0xff, 0xfe], Buffer.from('a@b.com\n', 'utf16le')), 'utf-16le'],
    ['UTF-16BE with a BOM', bytes([0xfe, 0xff], Buffer.from('a@b.com\n', 'utf16le').swap16()), 'utf-16be'],
    ['UTF-16LE without one', Buffer.from('email\nann@example.com\n', 'utf16le'), 'utf-16le'],
    ['UTF-16BE without one', Buffer.from('email\nann@example.com\n', 'utf16le').swap16(), 'utf-16be'],
    ['UTF-32LE', bytes([0xff, 0xfe, 0, 0], [0x61, 0, 0, 0]), 'utf-32le'],
    ['UTF-8 with a BOM', bytes([0xef, 0xbb, 0xbf], 'email\n'), 'text'],
    ['text', bytes('ann@example.com\nBZ holdings <bz@x.com>\n'), 'text'],
    ['text starting like a bzip2 stream', bytes('BZh9 Ltd,bz@x.com\n'), 'text'],
    ['NUL bytes in no pattern', bytes('a@b.com\n\0\0\0\nx\0@y.com\n'), 'binary'],
  ])('%s', (_what, b, kind) => {
    expect(kindOf(b)).toBe(kind);
  });

  it('the byte-order mark is dropped, nothing else', () => {
    expect(sniff(bytes([0xef, 0xbb, 0xbf], 'email\n'), true)?.bom).toBe(3);
    expect(sniff(bytes([0xff, 0xfe], 'a\0'), true)?.bom).toBe(2);
    expect(sniff(bytes('email\n'), true)?.bom).toBe(0);
  });

  it('waits for more bytes only when it cannot tell yet: fewer than 8, or the start of a zip', () => {
    expect(sniff(bytes('a@b.c'), false)).toBeNull();
    expect(sniff(bytes('a@b.c'), true)?.kind).toBe('text');
    expect(sniff(zip('xl/workbook.xml').subarray(0, 100), false)).toBeNull();
    expect(sniff(Buffer.concat([zip('xl/workbook.xml'), Buffer.alloc(SNIFF_BYTES)]), false)?.kind).toBe('xlsx');
  });

  it('every kind that is no text has a refusal; text kinds have none', () => {
    for (const k of ['text', 'utf-16le', 'utf-16be', 'utf-32le', 'utf-32be'] as const) expect(notAList(k, 'idv emails')).toBeNull();
    expect(notAList('gzip', 'idv domains')?.fix).toBe('decompress it first: gzip -dc FILE | idv domains -');
  });
});

describe('files idv does not read, named for what they are (exit 2, nothing sent)', () => {
  it.each<[string, Buffer, string]>([
    ['contacts.xls', readFileSync(fixture('workbooks/libreoffice.xls')), 'is an Excel 97-2003 workbook (.xls), which idv does not read; save it as an Excel Workbook (.xlsx) or as CSV UTF-8, and give that file.'],
    ['contacts.ods', readFileSync(fixture('workbooks/libreoffice.ods')), 'is an OpenDocument spreadsheet, not a list or CSV file; save it as an Excel Workbook (.xlsx) or as CSV (File > Save As) and give that file.'],
    ['notes.docx', zip('[Content_Types].xml', 'word/document.xml'), 'is a Word document, not a list or CSV file; copy its addresses into a text file, one a line, and give that file.'],
    ['list.csv.bz2', bytes('BZh91AY&SY', Buffer.alloc(40)), 'is a bzip2-compressed file, not a list or CSV file; decompress it first: bzip2 -dc FILE | idv emails -.'],
    ['report.pdf', bytes('%PDF-1.4\n'), 'is a PDF document, not a list or CSV file; export the list as CSV from the program that made the PDF, or copy the addresses into a text file.'],
    ['export.zip', zip('contacts.csv'), 'is a zip archive, not a list or CSV file; unzip it and give the list or CSV file inside.'],
    ['photo.jpg', bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF\0\0\0'), 'is an image, not a list or CSV file; give a text list (one address a line) or a CSV export.'],
  ])('%s', async (name, content, message) => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({}, home);
      try {
        const f = join(home.dir, name);
        await writeFile(f, content);
        const r = await run(['emails', f, '-q'], { env });
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toBe(`idv: ${f} ${message}\n`);
        expect(r.stdout).toBe('');
        expect(sentItems(sb)).toEqual([]);
        // by content, not by name: also from standard input
        const piped = await run(['emails', '-q'], { env, input: content });
        expect(piped.stderr).toBe(`idv: standard input ${message}\n`);
      } finally {
        await sb.close();
      }
    });
  });
});
