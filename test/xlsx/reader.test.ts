// Workbooks read as rows of cells, as Excel shows them: the generated Excel, Google Sheets and Open XML SDK
// shapes and two workbooks LibreOffice wrote (fixtures/workbooks/, fixtures/README.md), then what a damaged
// or hostile workbook gets.
import { createReadStream, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnOf, openWorkbook, UNCOMPUTED, WorkbookError, type Row, type Workbook } from '../../src/xlsx/reader.js';
import { createZip } from '../../src/xlsx/zip-writer.js';
import { fixture, ROOT } from '../helpers.js';
import { onlyOn } from '../platforms.js';

const book = (name: string) => fixture(join('workbooks', name));

async function texts(wb: Workbook, choice?: string): Promise<string[][]> {
  const out: string[][] = [];
  for await (const block of wb.rows(wb.sheet(choice))) for (const row of block) out.push(row.map((c) => c.text));
  return out;
}

async function cells(path: string, choice?: string): Promise<Row[]> {
  const wb = await openWorkbook(path);
  try {
    const out: Row[] = [];
    for await (const block of wb.rows(wb.sheet(choice))) out.push(...block);
    return out;
  } finally {
    await wb.close();
  }
}

async function read(path: string | Readable, choice?: string): Promise<string[][]> {
  const wb = await openWorkbook(path);
  try {
    return await texts(wb, choice);
  } finally {
    await wb.close();
  }
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-xlsx-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A workbook of the given parts beside a minimal package (one sheet, unless `workbook` says more). */
async function workbookWith(name: string, parts: Record<string, string | null>): Promise<string> {
  const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const all: Record<string, string | null> = {
    '[Content_Types].xml': '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    '_rels/.rels': `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<workbook xmlns="${NS}" xmlns:r="${R}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${R}/styles" Target="styles.xml"/><Relationship Id="rId3" Type="${R}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    ...parts,
  };
  const path = join(dir, name);
  const zip = await createZip(path);
  for (const [part, text] of Object.entries(all)) if (text !== null) await zip.add(part, text);
  await zip.finish();
  return path;
}
const sheetXml = (rows: string) => `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows}</sheetData></worksheet>`;

describe('a workbook as Excel writes it', () => {
  const CONTACTS = [
    ['Name', 'Email', 'Zip', 'Customer ID', 'Signed up', 'Renewal', 'Amount', 'Share', 'Phone', 'Doubled', 'Active', 'Note'],
    ['Ada Lovelace', 'ada@example.com', '02134', '00123', '2023-03-15', '15-Mar-2024', '1,234.50', '12.50%', '(555) 123-4567', '2469', 'TRUE', 'Line 1\nLine 2'],
    ['Zoë Müller', 'ZOE@Example.COM', '00501', '00042', '2023-03-16', '16-Mar-2024', '0.10', '100.00%', '(212) 555-0199', '0.2', 'FALSE', 'Tab\there, CR\r\nhere'],
    [],
    ['山田 太郎', 'yamada@example.jp', '98101', '7', '2023-01-01', '', '10,000,000.00', '', '', '20000000'],
    ['Grace Hopper', '  grace@example.org ', '10000000', '0.3', '', '', '', '', '', '#N/A', 'id_x0041_', 'zoe@example.com'],
  ];

  it('reads every cell of the first sheet as Excel shows it; the missing row is blank; formatting below the data is no row', async () => {
    expect(await read(book('excel.xlsx'))).toEqual(CONTACTS);
  });

  it('gives each cell its type, value and format', async () => {
    const rows = await cells(book('excel.xlsx'));
    expect(rows[1][2]).toEqual({ type: 'number', text: '02134', value: 2134, format: '00000' });
    expect(rows[1][3]).toEqual({ type: 'text', text: '00123' });
    expect(rows[1][4]).toEqual({ type: 'date', text: '2023-03-15', value: 45000, format: 'yyyy-mm-dd' });
    expect(rows[1][5]).toEqual({ type: 'date', text: '15-Mar-2024', value: 45366, format: '[$-409]d\\-mmm\\-yyyy;@' });
    expect(rows[1][9]).toEqual({ type: 'number', text: '2469', value: 2469 });
    expect(rows[1][10]).toEqual({ type: 'boolean', text: 'TRUE' });
    expect(rows[3]).toEqual([]);
    expect(rows[4][5]).toEqual({ type: 'empty', text: '' });
  });

  it('lists the sheets and reads one by name (exact, else ignoring case) or by number', async () => {
    const wb = await openWorkbook(book('excel.xlsx'));
    try {
      expect(wb.sheets).toEqual([
        { name: 'Contacts', number: 1, hidden: false },
        { name: 'Lists', number: 2, hidden: false },
      ]);
      expect(await texts(wb, 'Lists')).toEqual([['Unsubscribed'], ['old@example.com']]);
      expect(await texts(wb, 'lists')).toEqual([['Unsubscribed'], ['old@example.com']]);
      expect(await texts(wb, '2')).toEqual([['Unsubscribed'], ['old@example.com']]);
      expect(await texts(wb, '1')).toEqual(CONTACTS);
      expect(await wb.hasData(wb.sheets[1])).toBe(true);
      expect(() => wb.sheet('Leads')).toThrow(new WorkbookError('it has no sheet "Leads"; its sheets: "Contacts", "Lists"'));
      expect(() => wb.sheet('3')).toThrow(WorkbookError);
    } finally {
      await wb.close();
    }
  });

  onlyOn('owners').it('reads the same from a stream (standard input, a decompressed file) through a temporary copy it removes', async () => {
    const seen: string[] = [];
    const wb = await openWorkbook(Readable.from([readFileSync(book('excel.xlsx'))]), {
      tempFile: { opened: (p) => seen.push(`opened ${p}`), gone: (p) => seen.push(`gone ${p}`) },
    });
    expect(await texts(wb)).toEqual(CONTACTS);
    const copy = seen[0].slice('opened '.length);
    expect(existsSync(copy)).toBe(true);
    expect(statSync(copy).mode & 0o777).toBe(0o600); // the list may be private
    expect(dirname(copy)).toBe(tmpdir());
    await wb.close();
    expect(existsSync(copy)).toBe(false);
    expect(seen).toEqual([`opened ${copy}`, `gone ${copy}`]);
  });

  it('stops reading when the caller stops, and reads again from the start', async () => {
    const wb = await openWorkbook(createReadStream(book('excel.xlsx')));
    try {
      for await (const block of wb.rows(wb.sheet())) {
        expect(block[0][0].text).toBe('Name');
        break;
      }
      expect((await texts(wb)).length).toBe(CONTACTS.length);
    } finally {
      await wb.close();
    }
  });
});

describe('the built dist/xlsx.cjs, which the bundled program requires on first use (scripts/bundle.mjs)', () => {
  it('reads a workbook as the module does', async () => {
    const built = createRequire(import.meta.url)(join(ROOT, 'dist', 'xlsx.cjs')) as { input: { openWorkbook: typeof openWorkbook } };
    const wb = await built.input.openWorkbook(book('excel.xlsx'));
    try {
      expect(await texts(wb)).toEqual(await read(book('excel.xlsx')));
    } finally {
      await wb.close();
    }
  });
});

describe('other products', () => {
  it('Google Sheets: numbers as Java writes them (42.0, 1.0E7) shown as Excel shows them, sheets behind rId4 and rId5', async () => {
    expect(await read(book('google-sheets.xlsx'))).toEqual([
      ['Name', 'Email address', 'Zip', 'Joined', 'Visits', 'Score', 'Big', 'Opted in', 'Handle'],
      ['Ada Lovelace', 'ada@example.com', '02134', '3/15/2023', '42', '0.30', '10000000', 'TRUE', 'ada lovelace'],
      ['Linus', 'linus@mailinator.com', '01234', '3/15/2024', '12345678901', '-1.50', '0.00001', 'FALSE', '84'],
      [],
      ['Grace', 'grace@example.org'],
    ]);
    expect(await read(book('google-sheets.xlsx'), 'Imported')).toEqual([['Imported'], ['x@example.com']]);
  });

  it('the Open XML SDK: prefixed elements, inline strings, no cell references, t="d" dates', async () => {
    expect(await read(book('openxml-sdk.xlsx'))).toEqual([
      ['Customer', 'E-mail', 'Orders', 'Last order'],
      ['Contoso', 'buyer@contoso.example', '12', '2023-03-15'],
      ['Fabrikam & Co', 'orders@fabrikam.com', '3.5', '2024-01-02 13:45:00'],
    ]);
  });

  it('LibreOffice, from a CSV: text zip codes, ISO dates, percentages, formulas, a blank row', async () => {
    expect(await read(book('libreoffice.xlsx'))).toEqual([
      ['Name', 'Email', 'Zip', 'Joined', 'Amount', 'Share', 'Doubled'],
      ['Ada Lovelace', 'ada@example.com', '02134', '2023-03-15', '1234.5', '12.50%', '2469'],
      ['Zoë Müller', 'zoe@example.com', '00501', '2024-01-02', '0.1', '100.00%', '0.2'],
      [],
      ['Grace Hopper', 'grace@example.org', '98101', '2022-12-31', '10000000', '0.00%', '20000000'],
    ]);
  });

  it('LibreOffice, the Excel workbook saved again: its own styles and shared strings, both sheets', async () => {
    const rows = await read(book('libreoffice-resaved.xlsx'));
    expect(rows[1]).toEqual(['Ada Lovelace', 'ada@example.com', '02134', '00123', '3/15/2023', '15-Mar-2024', '1,234.50', '12.50%', '(555) 123-4567', '2469', 'TRUE', 'Line 1\nLine 2']);
    expect(rows[3]).toEqual([]);
    expect(rows[5]).toEqual(['Grace Hopper', '  grace@example.org ', '10000000', '0.3', '', '', '', '', '', '#N/A', 'id_x0041_', 'zoe@example.com']);
    expect(await read(book('libreoffice-resaved.xlsx'), 'Lists')).toEqual([['Unsubscribed'], ['old@example.com']]);
  });
});

describe('cells and rows', () => {
  it('places cells by their reference, fills the gaps, and numbers rows from 1', async () => {
    const path = await workbookWith('gaps.xlsx', {
      'xl/worksheets/sheet1.xml': sheetXml('<row r="3"><c r="C3" t="inlineStr"><is><t>c</t></is></c><c r="E3"><v>5</v></c><c r="F3" s="0"/></row><row r="4" spans="1:3"/>'),
    });
    expect(await read(path)).toEqual([[], [], ['', '', 'c', '', '5']]);
  });

  it('reads a 1904 workbook (Excel for Mac) on the 1900 calendar', async () => {
    const path = await workbookWith('mac.xlsx', {
      'xl/workbook.xml':
        '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><workbookPr date1904="1"/><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
      'xl/styles.xml': '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>',
      'xl/worksheets/sheet1.xml': sheetXml('<row r="1"><c r="A1" s="1"><v>43538</v></c><c r="B1"><v>43538</v></c></row>'),
    });
    const [[date, number]] = await cells(path);
    expect(date).toEqual({ type: 'date', text: '2023-03-15', value: 45000, format: 'yyyy-mm-dd' });
    expect(number).toEqual({ type: 'number', text: '43538', value: 43538 });
  });

  it('reads t="d" cells (ISO 8601 in the XML): a date, a date and time, a time alone, in the cell\'s format when it has one', async () => {
    const path = await workbookWith('iso.xlsx', {
      'xl/styles.xml': '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="d mmm yyyy"/></numFmts><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164"/></cellXfs></styleSheet>',
      'xl/worksheets/sheet1.xml': sheetXml(
        '<row r="1"><c r="A1" t="d"><v>2023-03-15</v></c><c r="B1" t="d"><v>2023-03-15T18:30:05Z</v></c><c r="C1" t="d"><v>1899-12-30T13:45:00</v></c><c r="D1" t="d" s="1"><v>2023-03-15</v></c><c r="E1" t="d"><v>soon</v></c></row>',
      ),
    });
    const [row] = await cells(path);
    expect(row.map((c) => [c.type, c.text])).toEqual([
      ['date', '2023-03-15'],
      ['date', '2023-03-15 18:30:05'],
      ['date', '13:45:00'],
      ['date', '15 Mar 2023'],
      ['text', 'soon'],
    ]);
    expect(row[0].value).toBe(45000);
  });

  it('reads Strict Open XML (ISO 29500 Strict: other namespaces and relationship types)', async () => {
    const R = 'http://purl.oclc.org/ooxml/officeDocument/relationships';
    const NS = 'http://purl.oclc.org/ooxml/spreadsheetml/main';
    const path = await workbookWith('strict.xlsx', {
      '_rels/.rels': `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/officeDocument" Target="xl/book.xml"/></Relationships>`,
      'xl/workbook.xml': null,
      'xl/_rels/workbook.xml.rels': null,
      'xl/book.xml': `<workbook xmlns="${NS}" xmlns:r="${R}"><sheets><sheet name="Strict" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      'xl/_rels/book.xml.rels': `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${R}/sharedStrings" Target="strings.xml"/></Relationships>`,
      'xl/strings.xml': `<sst xmlns="${NS}"><si><t>strict@example.com</t></si></sst>`,
      'xl/worksheets/sheet1.xml': `<worksheet xmlns="${NS}"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="d"><v>2023-03-15</v></c></row></sheetData></worksheet>`,
    });
    expect(await read(path)).toEqual([['strict@example.com', '2023-03-15']]);
  });

  it('skips a hidden first sheet unless it is asked for', async () => {
    const path = await workbookWith('hidden.xlsx', {
      'xl/workbook.xml':
        '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Lookup" sheetId="1" state="hidden" r:id="rId1"/><sheet name="Data" sheetId="2" r:id="rId4"/></sheets></workbook>',
      'xl/_rels/workbook.xml.rels':
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId4" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="/xl/worksheets/data.xml"/></Relationships>',
      'xl/worksheets/sheet1.xml': sheetXml('<row r="1"><c r="A1" t="inlineStr"><is><t>lookup</t></is></c></row>'),
      'xl/worksheets/data.xml': sheetXml('<row r="1"><c r="A1" t="inlineStr"><is><t>data</t></is></c></row>'),
    });
    expect(await read(path)).toEqual([['data']]);
    expect(await read(path, 'Lookup')).toEqual([['lookup']]);
  });

  it('reads an empty sheet as no rows', async () => {
    const path = await workbookWith('empty.xlsx', { 'xl/worksheets/sheet1.xml': sheetXml('') });
    const wb = await openWorkbook(path);
    try {
      expect(await texts(wb)).toEqual([]);
      expect(await wb.hasData(wb.sheets[0])).toBe(false);
    } finally {
      await wb.close();
    }
  });

  it("reads a formula's cached value as its text; one stored without a value (no <v>, or an empty one) is UNCOMPUTED, and its row no blank row", async () => {
    const path = await workbookWith('formulas.xlsx', {
      'xl/worksheets/sheet1.xml': sheetXml(
        '<row r="1"><c r="A1" t="str"><f>LOWER("A@X.COM")</f><v>a@x.com</v></c><c r="B1"><f>1+1</f><v>2</v></c><c r="C1" t="str"><f>""</f><v></v></c></row>' +
          '<row r="2"><c r="A2"><f>"b@x.com"</f></c></row><row r="3"><c r="A3"><f t="shared" si="0"/><v/></c></row>' +
          // Typed as text by its writer, but no <v> at all: never computed either.
          '<row r="4"><c r="A4" t="str"><f>LOWER(B4)</f></c></row>',
      ),
    });
    const rows = await cells(path);
    expect(rows.map((r) => r.map((c) => c.text))).toEqual([['a@x.com', '2'], [''], [''], ['']]);
    expect([rows[1]![0], rows[2]![0], rows[3]![0]]).toEqual([UNCOMPUTED, UNCOMPUTED, UNCOMPUTED]);
    expect(rows[0]!.some((c) => c.uncomputed)).toBe(false);
  });

  it('knows column letters up to XFD', () => {
    expect([columnOf('A1'), columnOf('Z9'), columnOf('AA1'), columnOf('XFD1048576'), columnOf('12')]).toEqual([0, 25, 26, 16383, -1]);
  });
});

describe('what idv does not read', () => {
  const refused = async (path: string | Readable, message: RegExp) => {
    const err = await openWorkbook(path)
      .then(async (wb) => {
        try {
          await texts(wb);
        } finally {
          await wb.close();
        }
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(WorkbookError);
    expect((err as Error).message).toMatch(message);
  };

  it('a file cut short', async () => {
    const bytes = readFileSync(book('excel.xlsx'));
    const path = join(dir, 'cut.xlsx');
    writeFileSync(path, bytes.subarray(0, bytes.length - 100));
    await refused(path, /damaged/);
  });

  it('a part whose bytes were changed: its deflated data, or its checksum', async () => {
    const xml = sheetXml('<row r="1"><c r="A1" t="inlineStr"><is><t>hello world hello world</t></is></c></row>');
    const name = Buffer.from('xl/worksheets/sheet1.xml');
    const path = await workbookWith('flipped.xlsx', { 'xl/worksheets/sheet1.xml': xml });
    const bytes = Buffer.from(readFileSync(path));
    bytes[bytes.indexOf(name) + name.length + 20] ^= 0xff; // a byte of the deflated data
    writeFileSync(path, bytes);
    await refused(path, /damaged \(xl\/worksheets\/sheet1\.xml: invalid/);
    const crc = await workbookWith('crc.xlsx', { 'xl/worksheets/sheet1.xml': xml });
    const zip = Buffer.from(readFileSync(crc));
    const central = zip.lastIndexOf(name) - 46;
    zip.writeUInt32LE(zip.readUInt32LE(central + 16) ^ 1, central + 16);
    writeFileSync(crc, zip);
    await refused(crc, /sheet1\.xml fails its checksum/);
  });

  it('a part larger than its zip entry says (a zip bomb)', async () => {
    const path = await workbookWith('bomb.xlsx', { 'xl/worksheets/sheet1.xml': sheetXml('<row r="1">' + '<c><v>1</v></c>'.repeat(1000) + '</row>') });
    const bytes = Buffer.from(readFileSync(path));
    const name = Buffer.from('xl/worksheets/sheet1.xml');
    const central = bytes.lastIndexOf(name) - 46; // its central directory entry
    bytes.writeUInt32LE(100, central + 24); // the stated size
    writeFileSync(path, bytes);
    await refused(path, /larger than the zip says/);
  });

  it('a zip that is no workbook, an OpenDocument spreadsheet, a binary workbook, XML that is not well-formed', async () => {
    await refused(await workbookWith('plain.zip', { '_rels/.rels': null, 'xl/workbook.xml': null }), /no xl\/workbook\.xml; it is not an Excel workbook/);
    await refused(await workbookWith('sheet.ods', { mimetype: 'application/vnd.oasis.opendocument.spreadsheet', 'content.xml': '<x/>' }), /OpenDocument/);
    await refused(await workbookWith('sheet.xlsb', { 'xl/workbook.bin': 'x' }), /\.xlsb/);
    await refused(await workbookWith('broken.xlsx', { 'xl/worksheets/sheet1.xml': '<worksheet><sheetData><row></sheetData></worksheet>' }), /not well-formed XML/);
    await refused(Readable.from([Buffer.from('PK\x03\x04 not really a zip')]), /damaged/);
  });

  it('rows that each reach far right with nothing between (a few bytes of XML, thousands of cells each)', async () => {
    let rows = '';
    for (let r = 1; r <= 200; r++) rows += `<row r="${r}"><c r="A${r}"><v>1</v></c><c r="XFD${r}"><v>1</v></c></row>`;
    await refused(await workbookWith('spread.xlsx', { 'xl/worksheets/sheet1.xml': sheetXml(rows) }), /spreads its values over 16384 columns with nothing between them \(row 114\)/);
  });

  it('a cell past column XFD, a row past row 1,048,576, a shared string that is not there', async () => {
    await refused(await workbookWith('wide.xlsx', { 'xl/worksheets/sheet1.xml': sheetXml('<row r="1"><c r="XFE1"><v>1</v></c></row>') }), /past column XFD/);
    await refused(await workbookWith('long.xlsx', { 'xl/worksheets/sheet1.xml': sheetXml('<row r="1"><c><v>1</v></c></row><row r="999999999"><c><v>1</v></c></row>') }), /row past Excel's last, 1048576/);
    await refused(
      await workbookWith('strings.xlsx', {
        'xl/sharedStrings.xml': '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>a</t></si></sst>',
        'xl/worksheets/sheet1.xml': sheetXml('<row r="1"><c r="A1" t="s"><v>1</v></c></row>'),
      }),
      /shared string 1/,
    );
  });
});
