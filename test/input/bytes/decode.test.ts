// Bytes to text (src/input/bytes/decode.ts): byte-order marks, UTF-8 cut across chunks, code pages, NUL bytes.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Readable } from 'node:stream';
import { decodeText, mostlyUtf8, UTF8, type EncodingInfo, type Stray } from '../../../src/input/bytes/decode.js';
import iconv from 'iconv-lite';
import { homeForEachTest } from '../../helpers.js';
import { run } from '../../fake-io.js';

const home = homeForEachTest();
const file = home.file;

/** What decoding told a caller: its value's encoding, or the code page it found later (onDetected), and the stray bytes. */
interface Told {
  encoding: EncodingInfo;
  strays: ReadonlyMap<number, Stray[]>;
}
const told = (): Told => ({ encoding: UTF8, strays: new Map() });

/** The text of `chunks`, decoded; `state` keeps what decoding told. */
async function collect(chunks: Buffer[], state: Told = told(), encoding?: string): Promise<string> {
  return (await blocks(chunks, state, encoding)).join('');
}
/** `bytes` in blocks of `size`, as a file is read (FileBlocks, open-file.ts: 64 KiB). */
const inBlocks = (bytes: Buffer, size: number) => Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
const BLOCK = 64 * 1024;
/**
 * ASCII lines of `bytes` bytes in all, then `tail`: a character of `tail` starts where the filler ends. With the
 * filler ending `into` bytes before a block's end, that character is cut by the block boundary, far past the
 * first bytes (SNIFF_BYTES), which are gathered whole before anything is decoded.
 */
function filler(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size + 40 < bytes; i++) {
    const line = `user${i}@example.com\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('') + 'x'.repeat(bytes - size - 1) + '\n';
}

/** Blocks as decoded, one per chunk; `state` keeps what decoding told. */
async function blocks(chunks: Buffer[], state: Told, encoding?: string): Promise<string[]> {
  const decoded = await decodeText(Readable.from(chunks), { name: 'test', encoding, onDetected: (e) => (state.encoding = e) });
  state.encoding = decoded.encoding;
  state.strays = decoded.strays;
  const out: string[] = [];
  for await (const t of decoded.blocks) out.push(t);
  return out;
}

describe('decodeText', () => {
  it('drops a UTF-8 BOM and keeps a character cut by a 64 KiB block boundary, however the boundary cuts it', async () => {
    for (const char of ['ë', '€', '😀']) {
      const size = Buffer.byteLength(char);
      for (let into = 1; into < size; into++) {
        // The BOM, ASCII lines, then "zo" and the character, `into` of its bytes before the block's end.
        const text = filler(BLOCK - 3 - 2 - into) + `zo${char}@x.com\nb@y.com\n`;
        const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
        expect(bytes.subarray(BLOCK - into, BLOCK - into + size).toString(), `${char}, ${into} byte(s) in the first block`).toBe(char);
        const state = told();
        expect(await collect(inBlocks(bytes, BLOCK), state), `${char}, ${into} byte(s) in the first block`).toBe(text);
        expect(state.encoding).toEqual({ name: 'utf-8', how: 'bom', alternative: null });
      }
    }
  });
  it('a file of ASCII lines whose first character beyond it is cut by the 64 KiB boundary is UTF-8, not a code page (zoë, not zoÃ«)', async () => {
    const text = filler(BLOCK - 3) + 'zoë@x.com\n'; // ë's first byte the block's last
    const state = told();
    expect(await collect(inBlocks(Buffer.from(text), BLOCK), state)).toBe(text);
    expect(state.encoding).toEqual({ name: 'utf-8', how: 'utf-8', alternative: null });
    expect(state.strays.size).toBe(0);
  });
  it('any text, cut in blocks of any size: the same text, UTF-8 to its end (property)', async () => {
    const char = fc.constantFrom('a', '\n', ',', 'ë', 'ł', '€', '中', '😀', '\u200b');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 6000 }), fc.array(char, { minLength: 1, maxLength: 400 }), fc.integer({ min: 1, max: 9000 }), async (ascii, chars, size) => {
        // Past the first 4 KiB (gathered whole before anything is decoded) too: ASCII first, as a long list has.
        const text = filler(ascii + 41) + chars.join('');
        const state = told();
        expect(await collect(inBlocks(Buffer.from(text), size), state)).toBe(text);
        expect(state.strays.size).toBe(0);
      }),
      { seed: 20261128, numRuns: 300 },
    );
  });
  it('reads what is not UTF-8 as Windows-1252', async () => {
    expect(await collect([Buffer.from([0x4c, 0xe9, 0x61, 0x92, 0x0d, 0x0a])])).toBe('Léa\u2019\r\n');
  });
  it('reads UTF-16LE with a BOM', async () => {
    const b = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a@b.com\n', 'utf16le')]);
    expect(await collect([b])).toBe('a@b.com\n');
  });
  it('refuses NUL bytes', async () => {
    await expect(collect([Buffer.from([0x61, 0, 0x62])])).rejects.toThrow(/NUL bytes/);
  });
  it('NUL bytes past the first bytes, a few in any place, are kept as text, in UTF-8 or a code page (property)', async () => {
    const rows = (names: string) => Array.from({ length: 6000 }, (_, i) => `${names} ${i},u${i}@example.com\n`).join('');
    const texts = [
      { text: rows('Zoë Müller'), encode: (t: string) => Buffer.from(t) },
      { text: rows('Иван Петров'), encode: (t: string) => iconv.encode(t, 'windows-1251') },
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...texts), fc.uniqueArray(fc.integer({ min: 4096, max: 150_000 }), { minLength: 1, maxLength: 40 }), async ({ text, encode }, at) => {
        const chars = [...text];
        for (const i of at) chars[i % chars.length] = '\0';
        const withNuls = chars.join('');
        expect(await collect(inBlocks(encode(withNuls), BLOCK))).toBe(withNuls);
      }),
      { seed: 39, numRuns: 60 },
    );
  });
  it('a stretch of NUL bytes past the first bytes (binary data appended, UTF-16 misread) is refused from its first NUL', async () => {
    const text = Buffer.from(Array.from({ length: 5000 }, (_, i) => `u${i}@example.com\n`).join(''));
    // Its first NUL is the high byte of its first character, one byte in.
    const utf16 = Buffer.from('Name,Email\nZoë,zoe@example.com\n'.repeat(4000), 'utf16le');
    await expect(collect(inBlocks(Buffer.concat([text, utf16]), BLOCK))).rejects.toMatchObject({
      kind: 'input',
      message: expect.stringMatching(new RegExp(`^test holds binary data from byte ${(text.length + 1).toLocaleString('en-US')} on \\(NUL bytes, `)),
    });
  });
  it('reads UTF-16 without a byte-order mark, by its NUL bytes, and UTF-32 with one', async () => {
    const state = told();
    expect(await collect([Buffer.from('email\r\nann@x.com\r\n', 'utf16le')], state)).toBe('email\r\nann@x.com\r\n');
    expect(state.encoding).toEqual({ name: 'utf-16le', how: 'detected', alternative: null });
    // Past the first bytes (gathered whole): 😀's two code units either side of the 64 KiB boundary, or one
    // code unit cut in two (a pipe's odd chunk).
    const text = filler((BLOCK - 2 - 2 - 2) / 2) + 'b😀@y.org\n';
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
    expect(Buffer.from(be.subarray(BLOCK - 2, BLOCK + 2)).swap16().toString('utf16le')).toBe('😀');
    expect(await collect(inBlocks(be, BLOCK))).toBe(text);
    expect(await collect([be.subarray(0, BLOCK + 1), be.subarray(BLOCK + 1)])).toBe(text);
    expect(await collect([Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), iconv.encode('ü@x.de\n', 'utf-32le')])])).toBe('ü@x.de\n');
  });
  it('names how it chose: a byte-order mark, UTF-8 by its bytes, --encoding', async () => {
    const bom = told();
    await collect([Buffer.from('\ufeffa@b.com\n')], bom);
    expect(bom.encoding).toEqual({ name: 'utf-8', how: 'bom', alternative: null });
    const plain = told();
    await collect([Buffer.from('zoë@x.com\n')], plain);
    expect(plain.encoding).toEqual({ name: 'utf-8', how: 'utf-8', alternative: null });
    const given = told();
    expect(await collect([iconv.encode('Иван,a@x.ru\n', 'koi8-r')], given, 'koi8-r')).toBe('Иван,a@x.ru\n');
    expect(given.encoding).toEqual({ name: 'koi8-r', how: 'given', alternative: null });
  });
});

describe('what decoding chose is the value it returns, before any text is read', () => {
  /** The encoding decodeText returns, its blocks left unread. */
  const chosen = async (bytes: Buffer, encoding?: string) => (await decodeText(Readable.from([bytes]), { name: 'test', encoding })).encoding;
  it('a byte-order mark: UTF-8, UTF-16LE, UTF-16BE', async () => {
    expect(await chosen(Buffer.from('\ufeffa@b.com\n'))).toEqual({ name: 'utf-8', how: 'bom', alternative: null });
    expect(await chosen(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a@b.com\n', 'utf16le')]))).toEqual({ name: 'utf-16le', how: 'bom', alternative: null });
    expect(await chosen(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('a@b.com\n', 'utf16le').swap16()]))).toEqual({ name: 'utf-16be', how: 'bom', alternative: null });
  });
  it('UTF-16 without a mark, told by its NUL bytes; --encoding; else UTF-8 while the bytes are', async () => {
    expect(await chosen(Buffer.from('email\r\nann@x.com\r\n', 'utf16le'))).toEqual({ name: 'utf-16le', how: 'detected', alternative: null });
    expect(await chosen(iconv.encode('Иван,a@x.ru\n', 'koi8-r'), 'koi8-r')).toEqual({ name: 'koi8-r', how: 'given', alternative: null });
    expect(await chosen(Buffer.from('a@b.com\n'), 'utf-8')).toEqual({ name: 'utf-8', how: 'given', alternative: null });
    expect(await chosen(iconv.encode('Иван,a@x.ru\n', 'windows-1251'))).toEqual(UTF8); // nothing decoded yet
  });
  it('a code page found in the text is told to onDetected as its block is read, once', async () => {
    const heard: EncodingInfo[] = [];
    const ascii = Buffer.from('a@b.com\n'.repeat(100));
    const decoded = await decodeText(Readable.from([ascii, iconv.encode('Иван Петров <a@x.ru>\nМария Сидорова <b@x.ru>\n', 'windows-1251')]), { name: 'test', onDetected: (e) => heard.push(e) });
    const it = decoded.blocks[Symbol.asyncIterator]();
    await it.next();
    expect(heard).toEqual([]); // ASCII so far
    await it.next();
    expect(heard).toEqual([{ name: 'windows-1251', how: 'detected', alternative: null }]);
    expect(decoded.encoding).toEqual(UTF8); // the value chosen first is not changed
  });
  it('what cannot be a list is refused when decoding begins, before any block is asked for', async () => {
    await expect(decodeText(Readable.from([Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n', 'latin1')]), { name: 'x.pdf' })).rejects.toThrow(/^x\.pdf is /);
  });
});

describe('decoding never switches in the middle of a file', () => {
  it('a UTF-8 file with stray bytes stays UTF-8: each stray byte is read as its Windows-1252 character and reported by block and place', async () => {
    const state = told();
    const first = Buffer.from('Jürgen,j@bücher.de\n');
    const second = Buffer.concat([Buffer.from('Zoë,z@x.com\nRen'), Buffer.from([0xe9]), Buffer.from('e,r@x.com\nM'), Buffer.from([0xfc]), Buffer.from('ller,m@x.de\n')]);
    expect(await blocks([first, second], state)).toEqual(['Jürgen,j@bücher.de\n', 'Zoë,z@x.com\nRenée,r@x.com\nMüller,m@x.de\n']);
    expect(state.encoding.name).toBe('utf-8');
    expect(state.strays).toEqual(new Map([[1, [{ at: 15, byte: 0xe9, char: 'é' }, { at: 27, byte: 0xfc, char: 'ü' }]]]));
  });
  it('a stray byte Windows-1252 has no character for (0x81, 0x8D, 0x8F, 0x90, 0x9D) is its C1 control, as WHATWG reads it, never U+FFFD', async () => {
    const state = told();
    const utf8 = 'Zoë Jürgen Łucja Müller Renée,z@x.com\n';
    const bytes = Buffer.concat([Buffer.from(utf8 + 'Bad,b'), Buffer.from([0x81]), Buffer.from('d@x.com\nM'), Buffer.from([0x9d, 0x8d, 0x8f, 0x90]), Buffer.from('x,m@x.com\n')]);
    expect(await collect([bytes], state)).toBe(utf8 + 'Bad,b\x81d@x.com\nM\x9d\x8d\x8f\x90x,m@x.com\n');
    expect([...state.strays.values()].flat().map((s) => s.char)).toEqual(['\x81', '\x9d', '\x8d', '\x8f', '\x90']);
  });
  it('any stray bytes in UTF-8 text read back as Windows-1252 (C1 controls where it has no character), never U+FFFD (property)', async () => {
    const cp1252 = (b: number) => (b >= 0x80 && b <= 0x9f && [0x81, 0x8d, 0x8f, 0x90, 0x9d].includes(b) ? String.fromCharCode(b) : iconv.decode(Buffer.from([b]), 'windows-1252'));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom('Zoë', 'Jürgen', 'Ann', 'b@x.com', 'Łucja', ','), fc.option(fc.integer({ min: 0x80, max: 0xbf }), { nil: undefined })), { minLength: 1, maxLength: 8 }),
        async (parts) => {
          const utf8 = 'Zoë Jürgen Łucja Müller Renée José Ørsted Åsa Dvořák,'; // more UTF-8 characters than strays: the file stays UTF-8
          const bytes = Buffer.concat([Buffer.from(utf8), ...parts.flatMap(([t, b]) => [Buffer.from(t), Buffer.from(b === undefined ? [] : [b])]), Buffer.from('\n')]);
          const expected = utf8 + parts.map(([t, b]) => t + (b === undefined ? '' : cp1252(b))).join('') + '\n';
          const text = await collect([bytes]);
          expect(text).toBe(expected);
          expect(text).not.toContain('\ufffd');
        },
      ),
      { seed: 36, numRuns: 200 },
    );
  });
  it('--encoding NAME: a byte sequence the code page cannot decode is SUB (U+001A), never U+FFFD, whatever the bytes (property)', async () => {
    const cut = Buffer.concat([iconv.encode('氏名,メール\r\n山田,y@x.jp\r\n', 'shift_jis'), Buffer.from([0x8e, 0x52, 0x82]), Buffer.from(',b@x.jp\r\n')]);
    expect(await collect([cut], told(), 'shift_jis')).toBe('氏名,メール\r\n山田,y@x.jp\r\n山\x1a,b@x.jp\r\n');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('shift_jis', 'gb18030', 'big5', 'euc-kr', 'windows-1252', 'windows-1253', 'windows-874'),
        fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => Buffer.from(b.map((x) => x || 0x20))),
        async (encoding, bytes) => {
          const text = await collect([Buffer.concat([Buffer.from('x,'), bytes])], told(), encoding);
          expect(text).not.toContain('\ufffd');
        },
      ),
      { seed: 37, numRuns: 300 },
    );
  });
  it('text beyond ASCII that is not UTF-8 at the start: the code page of the whole file', async () => {
    const state = told();
    const text = 'Имя,Фамилия,Email\nИван,Петров,a@x.ru\nМария,Сидорова,b@x.ru\nОльга,Кузнецова,c@x.ru\n';
    expect(await collect([iconv.encode(text, 'windows-1251')], state)).toBe(text);
    expect(state.encoding).toEqual({ name: 'windows-1251', how: 'detected', alternative: null });
  });
  it('ASCII first, then a code page: the code page from there on (the ASCII before reads the same in it)', async () => {
    const state = told();
    const ascii = Buffer.from(Array.from({ length: 3000 }, (_, i) => `user${i}@example.com\n`).join(''));
    const text = 'Иван Петров <a@x.ru>\nМария Сидорова <b@x.ru>\nОльга Кузнецова <c@x.ru>\n';
    const out = await blocks([ascii, iconv.encode(text, 'windows-1251')], state);
    expect(out.join('')).toBe(ascii.toString() + text);
    expect(state.encoding.name).toBe('windows-1251');
    expect(state.strays.size).toBe(0);
  });
  it('UTF-8 first, then a block mostly in a code page: still UTF-8, every byte that is not read as its Windows-1252 character', async () => {
    const state = told();
    const utf8 = Buffer.from('Zoë,z@x.com\n');
    const later = iconv.encode('Renée Lefèvre,r@x.fr\nJürgen Müller,j@x.de\nJosé Núñez,n@x.es\n', 'windows-1252');
    expect(await collect([utf8, later], state)).toBe('Zoë,z@x.com\nRenée Lefèvre,r@x.fr\nJürgen Müller,j@x.de\nJosé Núñez,n@x.es\n');
    expect(state.encoding.name).toBe('utf-8');
    expect([...state.strays.values()].flat().length).toBe(7);
  });
  it('ASCII first, then UTF-8 with a stray byte or two: still UTF-8', async () => {
    const state = told();
    const ascii = Buffer.from('a@b.com\n'.repeat(100));
    const utf8 = Buffer.from('Zoë,z@x.com\n');
    expect(await collect([ascii, Buffer.concat([utf8, Buffer.from([0x4c, 0xe9, 0x61, 0x0a])])], state)).toBe(ascii.toString() + 'Zoë,z@x.com\nLéa\n');
    expect(state.encoding.name).toBe('utf-8');
  });
  it('mostlyUtf8: some good multi-byte character, and as many as bad bytes or two bad bytes at most', () => {
    expect(mostlyUtf8(Buffer.concat([Buffer.from('ü'), Buffer.from([0x61, 0xe9, 0x62, 0xfc])]))).toBe(true);
    expect(mostlyUtf8(Buffer.from([0x61, 0xe9, 0x62, 0xfc]))).toBe(false); // not one UTF-8 character: a code page
    expect(mostlyUtf8(Buffer.from([0x5a, 0x6f, 0x91]))).toBe(false);
    expect(mostlyUtf8(Buffer.concat([Buffer.from('ü é ö'), Buffer.from([0xe9, 0xe9, 0xe9])]))).toBe(true);
    expect(mostlyUtf8(iconv.encode('Иван Петров', 'windows-1251'))).toBe(false);
    expect(mostlyUtf8(Buffer.from([0xc0, 0xaf, 0xe0, 0x80, 0xaf, 0xed, 0xa0, 0x80]))).toBe(false); // overlong forms, a surrogate
  });
});


describe('encodings', () => {
  it('Excel for Mac "Comma Separated Values" (Mac Roman, lone CR line ends) is read as Mac Roman, not Windows-1252', async () => {
    // Renée Lefèvre, Café Noir; “Zoë” — é=0x8E, è=0x8F, ë=0x91, curly quotes 0xD2/0xD3 in Mac Roman.
    const bytes = Buffer.from('Name,Email,Company\rRen\x8ee Lef\x8fvre,renee@x.com,Caf\x8e Noir\r\xd2Zo\x91\xd3,zoe@fake.com,\r', 'latin1');
    const f = await file('mac.csv', bytes);
    const r = await run(['emails', f, '--sandbox', '-q', '--keep-columns']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('Name,Email,Company,status\nRenée Lefèvre,renee@x.com,Café Noir,ok\n“Zoë”,zoe@fake.com,,fake\n');
    // The same bytes with Windows line ends are what Excel on Windows writes: Windows-1252 (0x8E is Ž there).
    const win = await file('win.csv', Buffer.from('Name,Email\r\n\x8eeljko,z@x.com\r\n', 'latin1'));
    expect((await run(['emails', win, '--sandbox', '-q', '--keep-columns'])).stdout).toBe('Name,Email,status\nŽeljko,z@x.com,ok\n');
  });
});

describe('Mac Roman with LF or CRLF line ends', () => {
  it('is read as Mac Roman: the domains sent are the ones written', async () => {
    const f = await file('m.csv', iconv.encode('Company,Website\nBücher GmbH,bücher.de\nCafé Paris,café.fr\n', 'macintosh'));
    const r = await run(['domains', f, '--sandbox', '--no-cache', '--keep-columns', '-f', 'csv', '--dry-run', '--format', 'json']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(`${f}\n  encoding   macintosh\n`);
    const sent = await run(['domains', f, '--sandbox', '--no-cache', '--keep-columns', '-f', 'csv', '-q']);
    expect(sent.stdout).toBe('Company,Website,status\nBücher GmbH,bücher.de,ok\nCafé Paris,café.fr,ok\n');
    const crlf = await file('m2.csv', iconv.encode('Name,Email\r\nFrançoise Lefèvre,f@example.com\r\nZoë Ådams,z@example.com\r\n', 'macintosh'));
    expect((await run(['emails', crlf, '--sandbox', '--no-cache', '--keep-columns', '-f', 'csv', '-q'])).stdout).toBe(
      'Name,Email,status\nFrançoise Lefèvre,f@example.com,ok\nZoë Ådams,z@example.com,ok\n',
    );
  });
});

describe('a file with no UTF-8 character at all is read in its code page, however few its bytes beyond ASCII', () => {
  const read = async (bytes: Buffer) => {
    const state = told();
    const text = await collect([bytes], state);
    return { text, encoding: state.encoding.name, strays: state.strays.size };
  };
  it('one accented name in Mac Roman with lone CR line ends (Excel 2011 for Mac): Zoë, not Zo‘', async () => {
    const r = await read(Buffer.from('First Name,Last Name,Email\rZo\x91,Martin,zoe@x.com\rTom,Baker,tom@x.com\r', 'latin1'));
    expect(r).toEqual({ text: 'First Name,Last Name,Email\rZoë,Martin,zoe@x.com\rTom,Baker,tom@x.com\r', encoding: 'macintosh', strays: 0 });
  });
  it('one or two Polish names in Windows-1250 (Excel on Polish Windows): Paweł and Łucja, not Pawe³ and £ucja', async () => {
    const one = await read(iconv.encode('Imie;Nazwisko;Email\r\nPaweł;Nowak;pawel@x.pl\r\nJan;Wrona;jan@x.pl\r\n', 'windows-1250'));
    expect(one).toEqual({ text: 'Imie;Nazwisko;Email\r\nPaweł;Nowak;pawel@x.pl\r\nJan;Wrona;jan@x.pl\r\n', encoding: 'windows-1250', strays: 0 });
    const two = await read(iconv.encode('Imie;Nazwisko;Email\r\nPaweł;Nowak;pawel@x.pl\r\nŁucja;Kowalska;lucja@x.pl\r\n', 'windows-1250'));
    expect(two.text).toBe('Imie;Nazwisko;Email\r\nPaweł;Nowak;pawel@x.pl\r\nŁucja;Kowalska;lucja@x.pl\r\n');
    expect(two.encoding).toBe('windows-1250');
  });
  it('any one or two accented names among ASCII rows come out as written (property)', async () => {
    // One short name is little to detect from: a name whose bytes happen to form UTF-8 (Пётр: 0xCF 0xB8 is ϸ) or
    // read as letters in another code page as well (Jiří as Baltic Jiųķ) is left out; these come out right.
    const pages: Array<{ page: string; eol: string; names: string[] }> = [
      { page: 'windows-1252', eol: '\r\n', names: ['Renée', 'Müller', 'François', 'Zoë', 'Søren', 'José', 'Björk', 'Ángel', 'Dubé', 'Günter'] },
      { page: 'windows-1250', eol: '\r\n', names: ['Paweł', 'Łucja', 'Dvořák', 'Šťastná', 'Wójcik', 'Żaneta', 'Ślązak', 'Grzegorz Brzęczyszczykiewicz'] },
      { page: 'windows-1251', eol: '\r\n', names: ['Иван', 'Мария', 'Ольга Кузнецова', 'Дмитрий'] },
      { page: 'macintosh', eol: '\r', names: ['Zoë', 'Renée', 'Müller', 'François', 'Björk', 'Ângela'] },
    ];
    const ascii = ['Tom Baker', 'Ann Lee', 'Bob Ray', 'Kim Park', 'Lee Chan', 'Sam Hill'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...pages),
        fc.integer({ min: 0, max: 100 }),
        fc.array(fc.constantFrom(...ascii), { minLength: 0, maxLength: 12 }),
        fc.integer({ min: 1, max: 2 }),
        fc.nat(),
        async ({ page, eol, names }, pick, plain, count, at) => {
          const accented = Array.from({ length: count }, (_, i) => names[(pick + i * 3) % names.length]!);
          const people = [...plain];
          accented.forEach((n, i) => people.splice((at + i) % (people.length + 1), 0, n));
          const text = ['Name,Email', ...people.map((n, i) => `${n},p${i}@example.com`)].join(eol) + eol;
          const r = await read(iconv.encode(text, page));
          expect(r.text).toBe(text); // Wójcik reads the same in Windows-1252: the text is what counts
          expect(r.strays).toBe(0);
        },
      ),
      { seed: 38, numRuns: 300 },
    );
  });
});
