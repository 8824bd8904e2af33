// Records as an Excel workbook, written as they come: a header row, then one row a record, each cell a text,
// a number or a date (a serial with its number format, so Excel shows it as it was read) or a boolean.
// Text goes inline (t="inlineStr"): a shared strings table would hold every distinct text until the end.
// A sheet holds at most Excel's 1,048,576 rows (and under 4 GiB of XML); the records go on in a next sheet,
// "NAME (2)", under the same header: a workbook never drops a record Excel could not show.
import type { TypedCell } from './cell.js';
import { createZip, MAX_ENTRY, type ZipEntryWriter, type ZipWriter } from './zip-writer.js';

/** A cell to write: a string is text; a cell read from a workbook (cell.ts) is written as read. */
export type WriteCell = string | TypedCell;

export interface XlsxWriter {
  /** One row (a record); resolves once the writer can take more. */
  write(row: readonly WriteCell[]): Promise<void>;
  /** Finish the workbook: the file at `path` is complete once this resolves. */
  end(): Promise<void>;
  /** Stop: the file is closed as it is (the caller removes it). */
  abort(): Promise<void>;
}

export interface XlsxWriterOptions {
  /** The first sheet's name (default `Sheet1`). */
  sheetName?: string;
  /** Rows a sheet holds, the header included (Excel's maximum unless a test says less). */
  maxRows?: number;
}

export const EXCEL_MAX_ROWS = 1_048_576;
/** A sheet's XML stops short of the 4 GiB an entry may hold, whatever its last row's size. */
const MAX_SHEET_BYTES = MAX_ENTRY - 64 * 1024 * 1024;
const FLUSH_AT = 256 * 1024;
/** Number formats a workbook gets before further ones fall back to the default of their type. */
const MAX_FORMATS = 1000;
const DATE = 'yyyy-mm-dd';
const DATE_TIME = 'yyyy-mm-dd hh:mm:ss';

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n';

/** A writer of a workbook at `path` (created or truncated; the caller's temporary file) whose rows are under `header`. */
export async function createXlsxWriter(path: string, header: readonly string[], options: XlsxWriterOptions = {}): Promise<XlsxWriter> {
  const zip = await createZip(path);
  try {
    await zip.add('_rels/.rels', packageRels());
  } catch (err) {
    await zip.abort();
    throw err;
  }
  return new Writer(zip, header, sheetName(options.sheetName ?? 'Sheet1'), options.maxRows ?? EXCEL_MAX_ROWS);
}

class Writer implements XlsxWriter {
  private readonly sheets: string[] = [];
  private sheet: ZipEntryWriter | null = null;
  private row = 0; // rows written to the current sheet
  private buffer = '';
  private readonly formats = new Map<string, number>(); // format code → cell style (1-based: 0 is General)
  private readonly columns: string[] = [];
  private done = false;

  constructor(
    private readonly zip: ZipWriter,
    private readonly header: readonly string[],
    private readonly name: string,
    private readonly maxRows: number,
  ) {}

  async write(cells: readonly WriteCell[]): Promise<void> {
    const xml = this.rowXml(cells, this.row + 2);
    if (this.sheet === null || this.row + 1 >= this.maxRows || this.sheet.size + this.buffer.length * 3 + xml.length * 3 > MAX_SHEET_BYTES) {
      await this.nextSheet();
      return this.write(cells);
    }
    this.buffer += xml;
    this.row++;
    if (this.buffer.length >= FLUSH_AT) await this.flush();
  }

  async end(): Promise<void> {
    if (this.done) return;
    if (this.sheet === null) await this.nextSheet();
    await this.closeSheet();
    const zip = this.zip;
    await zip.add('xl/workbook.xml', workbookXml(this.sheets));
    await zip.add('xl/_rels/workbook.xml.rels', workbookRels(this.sheets.length));
    await zip.add('xl/styles.xml', stylesXml([...this.formats.keys()]));
    await zip.add('[Content_Types].xml', contentTypes(this.sheets.length));
    await zip.finish();
    this.done = true;
  }

  async abort(): Promise<void> {
    this.done = true;
    await this.zip.abort();
  }

  private async flush(): Promise<void> {
    if (this.buffer === '' || this.sheet === null) return;
    const text = this.buffer;
    this.buffer = '';
    await this.sheet.write(text);
  }

  private async closeSheet(): Promise<void> {
    if (this.sheet === null) return;
    this.buffer += '</sheetData></worksheet>';
    await this.flush();
    await this.sheet.end();
    this.sheet = null;
  }

  /** The next sheet, under the header: "NAME", then "NAME (2)"… */
  private async nextSheet(): Promise<void> {
    await this.closeSheet();
    const n = this.sheets.length + 1;
    const suffix = n === 1 ? '' : ` (${n})`;
    this.sheets.push(this.name.slice(0, 31 - suffix.length) + suffix);
    this.sheet = this.zip.entry(`xl/worksheets/sheet${n}.xml`);
    this.row = 0;
    this.buffer =
      `${DECL}<worksheet xmlns="${NS}" xmlns:r="${REL_NS}"><sheetViews><sheetView ${n === 1 ? 'tabSelected="1" ' : ''}workbookViewId="0"/></sheetViews>` +
      `<sheetFormatPr defaultRowHeight="15"/><sheetData>` +
      this.rowXml(this.header, 1);
  }

  private column(i: number): string {
    let letters = this.columns[i];
    if (letters === undefined) {
      letters = '';
      for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
      this.columns[i] = letters;
    }
    return letters;
  }

  private rowXml(cells: readonly WriteCell[], r: number): string {
    let xml = `<row r="${r}">`;
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i];
      const ref = `${this.column(i)}${r}`;
      if (typeof cell === 'string') {
        if (cell !== '') xml += textCell(ref, cell);
        continue;
      }
      xml += this.cellXml(ref, cell);
    }
    return xml + '</row>';
  }

  private cellXml(ref: string, cell: Exclude<WriteCell, string>): string {
    const value = cell.value;
    switch (cell.type) {
      case 'number':
      case 'date': {
        if (value === undefined || !Number.isFinite(value)) return cell.text === '' ? '' : textCell(ref, cell.text);
        const format = cell.format ?? (cell.type === 'date' ? (Number.isInteger(value) ? DATE : DATE_TIME) : undefined);
        const style = format === undefined ? 0 : this.styleOf(format, cell.type);
        return `<c r="${ref}"${style ? ` s="${style}"` : ''}><v>${String(value).replace('e', 'E')}</v></c>`;
      }
      case 'boolean':
        return `<c r="${ref}" t="b"><v>${/^(true|1)$/i.test(cell.text) ? 1 : 0}</v></c>`;
      case 'empty':
        return '';
      default:
        return cell.text === '' ? '' : textCell(ref, cell.text);
    }
  }

  private styleOf(format: string, type: 'number' | 'date'): number {
    if (/^general$/i.test(format)) return 0;
    let style = this.formats.get(format);
    if (style === undefined) {
      if (this.formats.size >= MAX_FORMATS) return type === 'date' ? this.styleOf(DATE, 'date') : 0;
      style = this.formats.size + 1;
      this.formats.set(format, style);
    }
    return style;
  }
}

// ── Text ─────────────────────────────────────────────────────────────────────────────────────────────

/** What XML cannot hold as it is: markup, control characters (a CR too, which XML would turn into a LF), lone surrogates, and OOXML's own `_xHHHH_`. */
const NEEDS_ESCAPE = /[&<>\u0000-\u0008\u000b-\u001f\ufffe\uffff]|_x[0-9a-f]{4}_|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/i;
const ESCAPES = new RegExp(NEEDS_ESCAPE.source, 'gi');

const hex4 = (code: number) => code.toString(16).toUpperCase().padStart(4, '0');

/** Text as SpreadsheetML holds it: `&` `<` `>` as entities, other unwritable characters as `_xHHHH_` (Excel's way). */
export function escapeText(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(ESCAPES, (c) => {
    if (c === '&') return '&amp;';
    if (c === '<') return '&lt;';
    if (c === '>') return '&gt;';
    if (c.length > 1) return `_x005F_${c.slice(1)}`; // a literal `_x0041_`, kept as written
    return `_x${hex4(c.charCodeAt(0))}_`;
  });
}

function textCell(ref: string, text: string): string {
  const space = /^\s|\s$/.test(text) ? ' xml:space="preserve"' : '';
  return `<c r="${ref}" t="inlineStr"><is><t${space}>${escapeText(text)}</t></is></c>`;
}

const escapeAttr = (s: string) => escapeText(s).replace(/"/g, '&quot;');

/** A name Excel takes for a sheet: 1–31 characters, none of : \ / ? * [ ], not starting or ending with '. */
export function sheetName(name: string): string {
  const clean = name.replace(/[:\\/?*[\]\u0000-\u001f]/g, '_').replace(/^'+|'+$/g, '').slice(0, 31);
  return clean === '' ? 'Sheet1' : clean;
}

// ── The workbook's other parts ───────────────────────────────────────────────────────────────────────

function packageRels(): string {
  return (
    `${DECL}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
    `<Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`
  );
}

function workbookXml(sheets: string[]): string {
  const list = sheets.map((name, i) => `<sheet name="${escapeAttr(name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('');
  return `${DECL}<workbook xmlns="${NS}" xmlns:r="${REL_NS}"><bookViews><workbookView activeTab="0"/></bookViews><sheets>${list}</sheets></workbook>`;
}

function workbookRels(count: number): string {
  let rels = '';
  for (let i = 1; i <= count; i++) rels += `<Relationship Id="rId${i}" Type="${REL_NS}/worksheet" Target="worksheets/sheet${i}.xml"/>`;
  rels += `<Relationship Id="rId${count + 1}" Type="${REL_NS}/styles" Target="styles.xml"/>`;
  return `${DECL}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`;
}

function stylesXml(formats: string[]): string {
  const numFmts = formats.length
    ? `<numFmts count="${formats.length}">${formats.map((code, i) => `<numFmt numFmtId="${164 + i}" formatCode="${escapeAttr(code)}"/>`).join('')}</numFmts>`
    : '';
  const xfs = ['<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>']
    .concat(formats.map((_, i) => `<xf numFmtId="${164 + i}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`))
    .join('');
  return (
    `${DECL}<styleSheet xmlns="${NS}">${numFmts}` +
    '<fonts count="1"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
    '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
    `<cellXfs count="${formats.length + 1}">${xfs}</cellXfs>` +
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'
  );
}

function contentTypes(sheets: number): string {
  let overrides = '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>';
  for (let i = 1; i <= sheets; i++) {
    overrides += `<Override PartName="/xl/worksheets/sheet${i}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`;
  }
  overrides += '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>';
  return (
    `${DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    `<Default Extension="xml" ContentType="application/xml"/>${overrides}</Types>`
  );
}
