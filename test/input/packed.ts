// Compressed inputs built byte by byte for tests: data that inflates to gigabytes from kilobytes (a deflate
// block repeated), gzip around it, and zips whose parts and stated sizes a test chooses (a workbook whose
// shared strings would take minutes to read, or say they are larger than any limit).
import { constants, crc32, deflateRawSync, gzipSync } from 'node:zlib';

/**
 * Raw deflate data that inflates to `unit` repeated `times` times: one block compressed alone (a full flush
 * forgets what came before, so the same bytes serve again), repeated; `end` adds the final block.
 */
export function repeatedDeflate(unit: Buffer | string, times: number, end = true): Buffer {
  const block = deflateRawSync(unit, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const parts = Array<Buffer>(times).fill(block);
  if (end) parts.push(deflateRawSync(Buffer.alloc(0)));
  return Buffer.concat(parts);
}

/** A gzip member around raw deflate data; without its trailer (CRC and size) when `size` is not given: cut short. */
export function gzipAround(deflated: Buffer, trailer?: { crc: number; size: number }): Buffer {
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  if (!trailer) return Buffer.concat([header, deflated]);
  const end = Buffer.alloc(8);
  end.writeUInt32LE(trailer.crc >>> 0, 0);
  end.writeUInt32LE(trailer.size % 2 ** 32, 4);
  return Buffer.concat([header, deflated, end]);
}

/**
 * Gzip inside gzip of `unit` repeated `times` times (the inner one cut short: it never reaches its end): a few
 * kilobytes on disk for gigabytes of text.
 */
export function nestedGzip(unit: Buffer | string, times: number): Buffer {
  return gzipSync(gzipAround(repeatedDeflate(unit, times, false)), { level: 9 });
}

export interface RawPart {
  name: string;
  /** Its bytes as stored (deflated when `method` is 8). */
  data: Buffer;
  method: 0 | 8;
  /** What the zip's directory states: its inflated size and CRC-32. */
  size: number;
  crc: number;
}

/** A part of text, deflated, with its true size and checksum. */
export function textPart(name: string, text: string): RawPart {
  const bytes = Buffer.from(text);
  return { name, data: deflateRawSync(bytes), method: 8, size: bytes.length, crc: crc32(bytes) };
}

/** A zip of these parts, each as given (its data, and the sizes its directory states). */
export function zipOf(parts: RawPart[]): Buffer {
  const out: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const p of parts) {
    const name = Buffer.from(p.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(p.method, 8);
    local.writeUInt32LE(p.crc >>> 0, 14);
    local.writeUInt32LE(p.data.length, 18);
    local.writeUInt32LE(p.size, 22);
    local.writeUInt16LE(name.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(p.method, 10);
    entry.writeUInt32LE(p.crc >>> 0, 16);
    entry.writeUInt32LE(p.data.length, 20);
    entry.writeUInt32LE(p.size, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE(offset, 42);
    out.push(local, name, p.data);
    central.push(entry, name);
    offset += 30 + name.length + p.data.length;
  }
  const dir = Buffer.concat(central);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(parts.length, 8);
  eocd.writeUInt16LE(parts.length, 10);
  eocd.writeUInt32LE(dir.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...out, dir, eocd]);
}

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A sheet's XML around rows (`<row>` elements). */
export const sheetXml = (rows: string) => `<worksheet xmlns="${NS}"><sheetData>${rows}</sheetData></worksheet>`;

/**
 * A workbook of one sheet, its parts in Excel's order ([Content_Types].xml first, so that its first bytes say
 * "workbook"); `sheet` is the sheet's part, `strings` the shared strings' (none when absent).
 */
export function workbookOf(sheet: RawPart | string, strings?: RawPart | string): Buffer {
  const part = (name: string, p: RawPart | string) => (typeof p === 'string' ? textPart(name, p) : { ...p, name });
  const rels = `<Relationship Id="rId1" Type="${R}/worksheet" Target="worksheets/sheet1.xml"/>` + (strings === undefined ? '' : `<Relationship Id="rId2" Type="${R}/sharedStrings" Target="sharedStrings.xml"/>`);
  return zipOf([
    textPart('[Content_Types].xml', '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    textPart('_rels/.rels', `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/officeDocument" Target="xl/workbook.xml"/></Relationships>`),
    textPart('xl/workbook.xml', `<workbook xmlns="${NS}" xmlns:r="${R}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    textPart('xl/_rels/workbook.xml.rels', `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`),
    ...(strings === undefined ? [] : [part('xl/sharedStrings.xml', strings)]),
    part('xl/worksheets/sheet1.xml', sheet),
  ]);
}

/** A part of `head`, then `unit` repeated `times` times, never ending (it states `size` bytes, a wrong checksum). */
export function endlessPart(head: string, unit: string, times: number, size: number): RawPart {
  const data = Buffer.concat([deflateRawSync(head, { finishFlush: constants.Z_FULL_FLUSH }), repeatedDeflate(unit, times, false)]);
  return { name: '', data, method: 8, size, crc: 0 };
}

/** A whole part of `head`, `unit` repeated `times` times, then `tail`, deflated from kilobytes, its size and checksum true. */
export function repeatedPart(head: string, unit: string, times: number, tail: string): RawPart {
  const flushed = (text: string) => deflateRawSync(text, { finishFlush: constants.Z_FULL_FLUSH });
  const data = Buffer.concat([flushed(head), repeatedDeflate(unit, times, false), deflateRawSync(tail)]);
  let crc = crc32(head);
  for (let i = 0; i < times; i++) crc = crc32(unit, crc);
  crc = crc32(tail, crc);
  const size = Buffer.byteLength(head) + Buffer.byteLength(unit) * times + Buffer.byteLength(tail);
  return { name: '', data, method: 8, size, crc };
}

/** The zip with its end rewritten as ZIP64's saying it holds `count` parts, whatever its directory holds. */
export function claimingParts(zip: Buffer, count: number): Buffer {
  const end = Buffer.from(zip.subarray(zip.length - 22));
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(end.readUInt32LE(12)), 40);
  record.writeBigUInt64LE(BigInt(end.readUInt32LE(16)), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(zip.length - 22), 8);
  locator.writeUInt32LE(1, 16);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  return Buffer.concat([zip.subarray(0, zip.length - 22), record, locator, end]);
}
