// The parts of a workbook that say where its sheets are and what their cells mean: the package's and the
// workbook's relationships, the workbook (sheet names, order, visibility, date system), the styles (each
// cell style's number format) and the shared strings (every distinct text of the workbook, in one table).
import { posix } from 'node:path';
import { attr, parseXml } from './xml.js';
import { builtinFormat, numberFormat, type NumberFormat } from './number-format.js';
import { LimitError, type ZipArchive, WorkbookError } from './zip-reader.js';

export interface Relationship {
  readonly type: string; // the last segment of the type URI: worksheet, sharedStrings, styles, officeDocument…
  readonly target: string; // a part name
}

/** The part a relationship in `source`'s .rels points to (targets are relative to the source's folder). */
function resolveTarget(source: string, target: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return target; // an external link
  const path = target.startsWith('/') ? target : posix.join(posix.dirname(source), target);
  return posix.normalize(path).replace(/^\/+/, '');
}

/** The relationships of part `source` (`''` for the package's own), by id; none when the .rels part is missing. */
export async function relationships(zip: ZipArchive, source: string): Promise<Map<string, Relationship>> {
  const relsName = source === '' ? '_rels/.rels' : posix.join(posix.dirname(source), '_rels', `${posix.basename(source)}.rels`);
  const entry = zip.entry(relsName);
  const rels = new Map<string, Relationship>();
  if (!entry) return rels;
  await parseXml(zip.stream(entry), entry.name, {
    open(name, a) {
      const id = attr(a, 'Id');
      const target = attr(a, 'Target');
      if (name !== 'Relationship' || id === undefined || target === undefined || attr(a, 'TargetMode') === 'External') return;
      rels.set(id, { type: (attr(a, 'Type') ?? '').split('/').pop() ?? '', target: resolveTarget(source || '/', target) });
    },
  });
  return rels;
}

export interface SheetEntry {
  readonly name: string;
  readonly hidden: boolean;
  /** The sheet's part, or null when its relationship is missing. */
  readonly part: string | null;
  /** 'worksheet', or what else it is (a chartsheet, a dialogsheet, a macro sheet): those hold no table. */
  readonly kind: string;
}

export interface WorkbookPart {
  readonly sheets: SheetEntry[];
  readonly date1904: boolean;
  readonly rels: Map<string, Relationship>;
}

export async function workbookPart(zip: ZipArchive, part: string): Promise<WorkbookPart> {
  const entry = zip.entry(part);
  if (!entry) throw new WorkbookError(`the workbook has no ${part}; it is not an Excel workbook idv can read`);
  const rels = await relationships(zip, entry.name);
  const sheets: SheetEntry[] = [];
  let date1904 = false;
  await parseXml(zip.stream(entry), entry.name, {
    open(name, a) {
      if (name === 'workbookPr') date1904 = ['1', 'true'].includes(attr(a, 'date1904') ?? '');
      if (name !== 'sheet') return;
      const rel = rels.get(attr(a, 'id') ?? '');
      const state = attr(a, 'state');
      sheets.push({
        name: attr(a, 'name') ?? `Sheet${sheets.length + 1}`,
        hidden: state === 'hidden' || state === 'veryHidden',
        part: rel?.target ?? null,
        kind: rel?.type ?? 'worksheet',
      });
    },
  });
  return { sheets, date1904, rels };
}

/** Each cell style's number format (by the cell's `s`), and its code when it is not General. */
export interface Styles {
  format(style: number): { code: string; format: NumberFormat } | null;
}

const MAX_STYLES = 1_000_000;

export async function stylesPart(zip: ZipArchive, part: string | undefined): Promise<Styles> {
  const entry = part === undefined ? undefined : zip.entry(part);
  const codes = new Map<number, string>();
  const xfFormats: number[] = [];
  if (entry) {
    let inCellXfs = false;
    await parseXml(zip.stream(entry), entry.name, {
      open(name, a) {
        if (name === 'numFmt') codes.set(Number(attr(a, 'numFmtId')), attr(a, 'formatCode') ?? 'General');
        else if (name === 'cellXfs') inCellXfs = true;
        else if (name === 'xf' && inCellXfs) {
          // Excel holds at most 64,000 cell formats; far more is a damaged or hostile workbook.
          if (xfFormats.length >= MAX_STYLES) throw new WorkbookError(`the workbook is damaged (${entry.name} has more than ${MAX_STYLES} cell formats)`);
          xfFormats.push(Number(attr(a, 'numFmtId') ?? 0));
        }
      },
      close(name) {
        if (name === 'cellXfs') inCellXfs = false;
      },
    });
  }
  const byStyle = xfFormats.map((id) => {
    const code = codes.get(id) ?? builtinFormat(id);
    return code === null || /^general$/i.test(code.trim()) ? null : { code, format: numberFormat(code) };
  });
  return { format: (style) => byStyle[style] ?? null };
}

/** `_x000D_` and the like: how OOXML writes characters XML cannot hold (and `_x005F_` a literal `_`). */
export function unescapeOoxml(text: string): string {
  return text.indexOf('_x') < 0 ? text : text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * The shared strings, held as UTF-8 in one growing buffer with a 4-byte offset each: the one part of a
 * workbook that must be held while a sheet is read (cells point into it in any order). A string costs its
 * UTF-8 length plus 4 bytes, against ~30 bytes of overhead as a JavaScript string in an array.
 */
export class SharedStrings {
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
  private ends = new Uint32Array(1024);
  private n = 0;
  /** Past these, the workbook is refused: more text than any spreadsheet program writes. */
  static readonly MAX_BYTES = 2 ** 31;
  static readonly MAX_COUNT = 50_000_000;

  private readonly maxBytes: number;
  /** `maxBytes`: their UTF-8 bytes are counted as they come, and refused (LimitError) past it (and past MAX_BYTES). */
  constructor(maxBytes = SharedStrings.MAX_BYTES) {
    this.maxBytes = Math.min(maxBytes, SharedStrings.MAX_BYTES);
  }

  get count(): number {
    return this.n;
  }
  get byteLength(): number {
    return this.used;
  }
  add(text: string): void {
    if (this.n >= SharedStrings.MAX_COUNT) throw new WorkbookError(`the workbook holds more than ${SharedStrings.MAX_COUNT} shared texts; save the sheet as CSV`);
    const need = Buffer.byteLength(text);
    if (this.used + need > this.maxBytes) throw new LimitError('shared', 'its shared strings', this.used + need, this.maxBytes);
    if (this.used + need > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.maxBytes, Math.max(this.bytes.length * 2, this.used + need)));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    this.used += this.bytes.write(text, this.used);
    if (this.n === this.ends.length) {
      const grown = new Uint32Array(this.ends.length * 2);
      grown.set(this.ends);
      this.ends = grown;
    }
    this.ends[this.n++] = this.used;
  }
  get(i: number): string | undefined {
    if (!(i >= 0 && i < this.n)) return undefined;
    return this.bytes.toString('utf8', i === 0 ? 0 : this.ends[i - 1], this.ends[i]);
  }
}

/**
 * The shared strings, within `bounds`: refused before they are read when the zip states more bytes than
 * `sharedBytes` (and counted as they are read all the same), and at a text longer than `rowChars`.
 */
export async function sharedStringsPart(zip: ZipArchive, part: string | undefined, bounds: { rowChars: number; sharedBytes: number }): Promise<SharedStrings> {
  const strings = new SharedStrings(bounds.sharedBytes);
  const entry = part === undefined ? undefined : zip.entry(part);
  if (!entry) return strings;
  if (entry.size > bounds.sharedBytes) throw new LimitError('shared', 'its shared strings', entry.size, bounds.sharedBytes);
  // An item's text is its <t> and its runs' <t>s; a phonetic reading (<rPh>, Japanese ruby) is not shown.
  let text = '';
  let inT = false;
  let phonetic = 0;
  await parseXml(zip.stream(entry), entry.name, {
    open(name) {
      if (name === 'si') text = '';
      else if (name === 't') inT = phonetic === 0;
      else if (name === 'rPh') phonetic++;
    },
    close(name) {
      if (name === 'si') strings.add(unescapeOoxml(text));
      else if (name === 't') inT = false;
      else if (name === 'rPh') phonetic--;
    },
    text(t) {
      if (!inT) return;
      text += t;
      if (text.length > bounds.rowChars) throw new LimitError('row', 'a text of its shared strings', text.length, bounds.rowChars);
    },
  }, { max: bounds.rowChars, what: () => 'a text of its shared strings' });
  return strings;
}
