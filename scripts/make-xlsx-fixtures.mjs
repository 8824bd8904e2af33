#!/usr/bin/env node
// Writes the generated workbooks of fixtures/workbooks/ (see fixtures/README.md): each shaped as its
// product writes one, down to the zip's headers, so that a reader is tested on what it will meet:
//   excel.xlsx          Excel for Microsoft 365: shared strings after the sheets, styles whose cellStyleXfs
//                       differ from cellXfs, dates in a built-in and a custom format, a `00000` zip code,
//                       text with leading zeros, formulas with cached values (plain, shared, string, error),
//                       rich and phonetic text, two sheets, a missing row, formatting below the data;
//   google-sheets.xlsx  Google Sheets' download: Java-written zip (data descriptors, UTF-8 flag),
//                       [Content_Types].xml last, numbers as Java writes doubles (`42.0`, `1.0E7`),
//                       sheets behind rId4/rId5, attributes in alphabetical order;
//   openxml-sdk.xlsx    what the Open XML SDK writes (Power BI, .NET exports): prefixed `x:` elements,
//                       inline strings, rows and cells without references, `t="d"` dates, absolute
//                       relationship targets, no shared strings or styles part.
// Run: node scripts/make-xlsx-fixtures.mjs (rewrites the three files; the output is the same every time).
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateRawSync } from 'node:zlib';

const OUT = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'fixtures', 'workbooks');
const DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n';
const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PR = 'http://schemas.openxmlformats.org/package/2006/relationships';
const CT = 'application/vnd.openxmlformats-officedocument';

// ── zip ──────────────────────────────────────────────────────────────────────────────────────────────
/**
 * A zip of `parts` ([name, text] in order). `style`: excel (flags 6, "super fast" deflate, 1980-01-01, sizes
 * in the local headers) or java (flags 0x808: UTF-8 names and data descriptors after each entry).
 */
function zip(parts, style) {
  const java = style === 'java';
  const flags = java ? 0x0808 : 0x0006;
  const [time, date] = java ? [0x5a00, 0x5d74] : [0, 0x21]; // java: 2026-11-20 11:16
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const [name, text] of parts) {
    const data = Buffer.from(text, 'utf8');
    const packed = deflateRawSync(data, { level: java ? 6 : 1 });
    const crc = crc32(data) >>> 0;
    const nameBytes = Buffer.from(name, 'utf8');
    const local = Buffer.alloc(30 + nameBytes.length);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    if (!java) {
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(packed.length, 18);
      local.writeUInt32LE(data.length, 22);
    }
    local.writeUInt16LE(nameBytes.length, 26);
    nameBytes.copy(local, 30);
    const descriptor = Buffer.alloc(java ? 16 : 0);
    if (java) {
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(packed.length, 8);
      descriptor.writeUInt32LE(data.length, 12);
    }
    locals.push(local, packed, descriptor);
    const central = Buffer.alloc(46 + nameBytes.length);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    nameBytes.copy(central, 46);
    centrals.push(central);
    offset += local.length + packed.length + descriptor.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

// ── shared strings ───────────────────────────────────────────────────────────────────────────────────
/** A shared string table: `s(text)` gives a plain string's index; `rich(xml)` adds an <si> as written. */
function sharedStrings() {
  const items = [];
  const index = new Map();
  let count = 0;
  const add = (key, xml) => {
    count++;
    if (!index.has(key)) {
      index.set(key, items.length);
      items.push(xml);
    }
    return index.get(key);
  };
  // Excel's escapes: markup as entities; a CR, which XML would turn into a LF, and a literal `_xHHHH_` its own way.
  const esc = (t) =>
    t.replace(/_x([0-9A-Fa-f]{4})_/g, '_x005F_x$1_').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '_x000D_');
  return {
    s: (text) => add(text, /^\s|\s$/.test(text) ? `<si><t xml:space="preserve">${esc(text)}</t></si>` : `<si><t>${esc(text)}</t></si>`),
    rich: (key, xml) => add(key, `<si>${xml}</si>`),
    xml: (head) => `${head} count="${count}" uniqueCount="${items.length}">${items.join('')}</sst>`,
  };
}

// ── Excel ────────────────────────────────────────────────────────────────────────────────────────────
/** Excel's two sheets, their cells' strings going into `ss` as Excel numbers them. */
function excelSheets(ss) {
  const s = (ref, style, text) => `<c r="${ref}"${style ? ` s="${style}"` : ''} t="s"><v>${ss.s(text)}</v></c>`;
  const n = (ref, style, v) => `<c r="${ref}"${style ? ` s="${style}"` : ''}><v>${v}</v></c>`;
  const dy = ' x14ac:dyDescent="0.25"';
  const row = (r, cells, extra = '') => `<row r="${r}" spans="1:12"${extra}${dy}>${cells.join('')}</row>`;
  const header = ['Name', 'Email', 'Zip', 'Customer ID', 'Signed up', 'Renewal', 'Amount', 'Share', 'Phone', 'Doubled', 'Active', 'Note'];
  const cols = 'ABCDEFGHIJKL';
  // Styles (cellXfs): 0 General, 1 bold, 2 00000, 3 built-in short date (14), 4 d-mmm-yyyy, 5 text (@),
  // 6 #,##0.00, 7 0.00%, 8 (###) ###-####, 9 wrapped text.
  const sheet1Rows = [
    row(1, header.map((h, i) => s(`${cols[i]}1`, 1, h))),
    row(2, [
      s('A2', 0, 'Ada Lovelace'),
      s('B2', 0, 'ada@example.com'),
      n('C2', 2, 2134),
      s('D2', 5, '00123'),
      n('E2', 3, 45000),
      n('F2', 4, 45366),
      n('G2', 6, 1234.5),
      n('H2', 7, 0.125),
      n('I2', 8, 5551234567),
      '<c r="J2"><f>G2*2</f><v>2469</v></c>',
      '<c r="K2" t="b"><v>1</v></c>',
      s('L2', 9, 'Line 1\nLine 2'),
    ]),
    row(3, [
      `<c r="A3" t="s"><v>${ss.rich('Zoë Müller', '<r><t xml:space="preserve">Zoë </t></r><r><rPr><b/><sz val="11"/><color theme="1"/><rFont val="Calibri"/><family val="2"/><scheme val="minor"/></rPr><t>Müller</t></r>')}</v></c>`,
      s('B3', 0, 'ZOE@Example.COM'),
      n('C3', 2, 501),
      s('D3', 5, '00042'),
      n('E3', 3, 45001.5),
      n('F3', 4, 45367),
      n('G3', 6, 0.1),
      n('H3', 7, 1),
      n('I3', 8, 2125550199),
      '<c r="J3"><f t="shared" ref="J3:J5" si="0">G3*2</f><v>0.2</v></c>',
      '<c r="K3" t="b"><v>0</v></c>',
      s('L3', 0, 'Tab\there, CR\r\nhere'),
    ]),
    // Row 4 is empty: Excel writes no <row> for it.
    row(5, [
      `<c r="A5" t="s"><v>${ss.rich('山田 太郎', '<t>山田 太郎</t><rPh sb="0" eb="2"><t>ヤマダ</t></rPh><rPh sb="3" eb="5"><t>タロウ</t></rPh><phoneticPr fontId="1"/>')}</v></c>`,
      s('B5', 0, 'yamada@example.jp'),
      n('C5', 2, 98101),
      n('D5', 5, 7),
      n('E5', 3, 44927),
      n('G5', 6, 10000000),
      '<c r="J5"><f t="shared" si="0"/><v>20000000</v></c>',
    ]),
    row(6, [
      s('A6', 0, 'Grace Hopper'),
      s('B6', 0, '  grace@example.org '),
      n('C6', 0, 10000000),
      n('D6', 0, 0.30000000000000004),
      '<c r="J6" t="e"><f>NA()</f><v>#N/A</v></c>',
      s('K6', 0, 'id_x0041_'),
      '<c r="L6" t="str"><f>LOWER(B3)</f><v>zoe@example.com</v></c>',
    ]),
    // Formatting below the data, as when a whole block was formatted: no values, not a record.
    `<row r="7" spans="1:12" s="2" customFormat="1"${dy}><c r="C7" s="2"/></row>`,
  ];
  const worksheetHead =
    `${DECL}<worksheet xmlns="${NS}" xmlns:r="${R}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x14ac xr xr2 xr3" ` +
    'xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac" xmlns:xr="http://schemas.microsoft.com/office/spreadsheetml/2014/revision" ' +
    'xmlns:xr2="http://schemas.microsoft.com/office/spreadsheetml/2015/revision2" xmlns:xr3="http://schemas.microsoft.com/office/spreadsheetml/2016/revision3"';
  const sheet1 =
    `${worksheetHead} xr:uid="{3A9C4F55-1D2B-4E8A-9C1F-6B0D2E7A8F10}"><dimension ref="A1:L7"/>` +
    '<sheetViews><sheetView tabSelected="1" workbookViewId="0"><selection activeCell="B2" sqref="B2"/></sheetView></sheetViews>' +
    `<sheetFormatPr defaultRowHeight="15"${dy}/><cols><col min="1" max="1" width="14.140625" bestFit="1" customWidth="1"/>` +
    '<col min="2" max="2" width="19.7109375" bestFit="1" customWidth="1"/><col min="5" max="6" width="11.42578125" customWidth="1"/></cols>' +
    `<sheetData>${sheet1Rows.join('')}</sheetData>` +
    '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>';
  const sheet2 =
    `${worksheetHead} xr:uid="{7E21B0C4-5F3A-4D6E-8B92-0A1C3D5E7F90}"><dimension ref="A1:A2"/>` +
    `<sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetFormatPr defaultRowHeight="15"${dy}/><sheetData>` +
    `<row r="1" spans="1:1"${dy}>${s('A1', 1, 'Unsubscribed')}</row><row r="2" spans="1:1"${dy}>${s('A2', 0, 'old@example.com')}</row>` +
    '</sheetData><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>';
  return { sheet1, sheet2 };
}

function excelStyles() {
  const styles =
    `${DECL}<styleSheet xmlns="${NS}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x14ac x16r2 xr" ` +
    'xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac" xmlns:x16r2="http://schemas.microsoft.com/office/spreadsheetml/2015/02/main" ' +
    'xmlns:xr="http://schemas.microsoft.com/office/spreadsheetml/2014/revision">' +
    '<numFmts count="3"><numFmt numFmtId="164" formatCode="00000"/><numFmt numFmtId="165" formatCode="[$-409]d\\-mmm\\-yyyy;@"/>' +
    '<numFmt numFmtId="166" formatCode="\\(###\\)\\ ###\\-####"/></numFmts>' +
    '<fonts count="2" x14ac:knownFonts="1"><font><sz val="11"/><color theme="1"/><name val="Calibri"/><family val="2"/><scheme val="minor"/></font>' +
    '<font><b/><sz val="11"/><color theme="1"/><name val="Calibri"/><family val="2"/><scheme val="minor"/></font></fonts>' +
    '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
    // A named style (Comma) makes cellStyleXfs differ from cellXfs: a cell's s indexes cellXfs only.
    '<cellStyleXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/><xf numFmtId="43" fontId="0" fillId="0" borderId="0" applyFont="0" applyFill="0" applyBorder="0" applyAlignment="0" applyProtection="0"/></cellStyleXfs>' +
    '<cellXfs count="10"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>' +
    '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
    '<xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="49" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
    '<xf numFmtId="4" fontId="0" fillId="0" borderId="0" xfId="1" applyNumberFormat="1"/><xf numFmtId="10" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
    '<xf numFmtId="166" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0" applyAlignment="1"><alignment wrapText="1"/></xf></cellXfs>' +
    '<cellStyles count="2"><cellStyle name="Comma" xfId="1" builtinId="3"/><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
    '<dxfs count="0"/><tableStyles count="0" defaultTableStyle="TableStyleMedium2" defaultPivotStyle="PivotStyleLight16"/>' +
    '<extLst><ext uri="{EB79DEF2-80B8-43e5-95BD-54CBDDF9020C}" xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main"><x14:slicerStyles defaultSlicerStyle="SlicerStyleLight1"/></ext>' +
    '<ext uri="{9260A510-F301-46a8-8635-F512D64BE5F5}" xmlns:x15="http://schemas.microsoft.com/office/spreadsheetml/2010/11/main"><x15:timelineStyles defaultTimelineStyle="TimeSlicerStyleLight1"/></ext></extLst></styleSheet>';
  return styles;
}

/** The workbook, its relationships, and the package's: what says where the sheets are. */
function excelPackage() {
  const workbook =
    `${DECL}<workbook xmlns="${NS}" xmlns:r="${R}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x15 xr xr6 xr10 xr2" ` +
    'xmlns:x15="http://schemas.microsoft.com/office/spreadsheetml/2010/11/main" xmlns:xr="http://schemas.microsoft.com/office/spreadsheetml/2014/revision" ' +
    'xmlns:xr6="http://schemas.microsoft.com/office/spreadsheetml/2016/revision6" xmlns:xr10="http://schemas.microsoft.com/office/spreadsheetml/2016/revision10" ' +
    'xmlns:xr2="http://schemas.microsoft.com/office/spreadsheetml/2015/revision2"><fileVersion appName="xl" lastEdited="7" lowestEdited="7" rupBuild="27425"/>' +
    '<workbookPr defaultThemeVersion="166925"/><xr:revisionPtr revIDLastSave="0" documentId="13_ncr:1_{5B6C1E2A-8D4F-4A3B-9E7C-2F1D0A9B8C7D}" xr6:coauthVersionLast="47" xr6:coauthVersionMax="47" xr10:uidLastSave="{00000000-0000-0000-0000-000000000000}"/>' +
    '<bookViews><workbookView xWindow="-120" yWindow="-120" windowWidth="29040" windowHeight="15720" xr2:uid="{1F0E2D3C-4B5A-6978-8A9B-0C1D2E3F4A5B}"/></bookViews>' +
    `<sheets><sheet name="Contacts" sheetId="1" r:id="rId1"/><sheet name="Lists" sheetId="2" r:id="rId2"/></sheets><calcPr calcId="191029"/></workbook>`;
  const workbookRels =
    `${DECL}<Relationships xmlns="${PR}"><Relationship Id="rId3" Type="${R}/theme" Target="theme/theme1.xml"/>` +
    `<Relationship Id="rId2" Type="${R}/worksheet" Target="worksheets/sheet2.xml"/><Relationship Id="rId1" Type="${R}/worksheet" Target="worksheets/sheet1.xml"/>` +
    `<Relationship Id="rId6" Type="${R}/calcChain" Target="calcChain.xml"/><Relationship Id="rId5" Type="${R}/sharedStrings" Target="sharedStrings.xml"/>` +
    `<Relationship Id="rId4" Type="${R}/styles" Target="styles.xml"/></Relationships>`;
  const types =
    `${DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
    `<Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="${CT}.spreadsheetml.sheet.main+xml"/>` +
    `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="${CT}.spreadsheetml.worksheet+xml"/><Override PartName="/xl/worksheets/sheet2.xml" ContentType="${CT}.spreadsheetml.worksheet+xml"/>` +
    `<Override PartName="/xl/theme/theme1.xml" ContentType="${CT}.theme+xml"/><Override PartName="/xl/styles.xml" ContentType="${CT}.spreadsheetml.styles+xml"/>` +
    `<Override PartName="/xl/sharedStrings.xml" ContentType="${CT}.spreadsheetml.sharedStrings+xml"/><Override PartName="/xl/calcChain.xml" ContentType="${CT}.spreadsheetml.calcChain+xml"/>` +
    `<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/><Override PartName="/docProps/app.xml" ContentType="${CT}.extended-properties+xml"/></Types>`;
  const rels =
    `${DECL}<Relationships xmlns="${PR}"><Relationship Id="rId3" Type="${R}/extended-properties" Target="docProps/app.xml"/>` +
    `<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>` +
    `<Relationship Id="rId1" Type="${R}/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
  return { workbook, workbookRels, types, rels };
}

/** Theme, calculation chain and document properties: parts a reader passes by. */
function excelExtras() {
  const theme =
    `${DECL}<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Office Theme"><a:themeElements><a:clrScheme name="Office">` +
    '<a:dk1><a:sysClr val="windowText" lastClr="000000"/></a:dk1><a:lt1><a:sysClr val="window" lastClr="FFFFFF"/></a:lt1><a:dk2><a:srgbClr val="44546A"/></a:dk2>' +
    '<a:lt2><a:srgbClr val="E7E6E6"/></a:lt2><a:accent1><a:srgbClr val="4472C4"/></a:accent1><a:accent2><a:srgbClr val="ED7D31"/></a:accent2>' +
    '<a:accent3><a:srgbClr val="A5A5A5"/></a:accent3><a:accent4><a:srgbClr val="FFC000"/></a:accent4><a:accent5><a:srgbClr val="5B9BD5"/></a:accent5>' +
    '<a:accent6><a:srgbClr val="70AD47"/></a:accent6><a:hlink><a:srgbClr val="0563C1"/></a:hlink><a:folHlink><a:srgbClr val="954F72"/></a:folHlink></a:clrScheme>' +
    '<a:fontScheme name="Office"><a:majorFont><a:latin typeface="Calibri Light" panose="020F0302020204030204"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont>' +
    '<a:minorFont><a:latin typeface="Calibri" panose="020F0502020204030204"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme>' +
    '<a:fmtScheme name="Office"><a:fillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:fillStyleLst>' +
    '<a:lnStyleLst><a:ln w="6350"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln><a:ln w="12700"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln><a:ln w="19050"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln></a:lnStyleLst>' +
    '<a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst>' +
    '<a:bgFillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:bgFillStyleLst></a:fmtScheme>' +
    '</a:themeElements><a:objectDefaults/><a:extraClrSchemeLst/></a:theme>';
  const calcChain = `${DECL}<calcChain xmlns="${NS}"><c r="J2" i="1" l="1"/><c r="J3"/><c r="J5"/><c r="J6"/><c r="L6"/></calcChain>`;
  const core =
    `${DECL}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" ` +
    'xmlns:dcterms="http://purl.org/dc/terms/" xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    '<dc:creator>Jane Doe</dc:creator><cp:lastModifiedBy>Jane Doe</cp:lastModifiedBy><dcterms:created xsi:type="dcterms:W3CDTF">2026-11-20T09:12:31Z</dcterms:created>' +
    '<dcterms:modified xsi:type="dcterms:W3CDTF">2026-11-20T09:40:02Z</dcterms:modified></cp:coreProperties>';
  const app =
    `${DECL}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">` +
    '<Application>Microsoft Excel</Application><DocSecurity>0</DocSecurity><ScaleCrop>false</ScaleCrop><HeadingPairs><vt:vector size="2" baseType="variant">' +
    '<vt:variant><vt:lpstr>Worksheets</vt:lpstr></vt:variant><vt:variant><vt:i4>2</vt:i4></vt:variant></vt:vector></HeadingPairs>' +
    '<TitlesOfParts><vt:vector size="2" baseType="lpstr"><vt:lpstr>Contacts</vt:lpstr><vt:lpstr>Lists</vt:lpstr></vt:vector></TitlesOfParts>' +
    '<LinksUpToDate>false</LinksUpToDate><SharedDoc>false</SharedDoc><HyperlinksChanged>false</HyperlinksChanged><AppVersion>16.0300</AppVersion></Properties>';
  return { theme, calcChain, core, app };
}

function excel() {
  const ss = sharedStrings();
  const { sheet1, sheet2 } = excelSheets(ss);
  const { workbook, workbookRels, types, rels } = excelPackage();
  const { theme, calcChain, core, app } = excelExtras();
  const strings = ss.xml(`${DECL}<sst xmlns="${NS}"`);
  return zip(
    [
      ['[Content_Types].xml', types],
      ['_rels/.rels', rels],
      ['xl/workbook.xml', workbook],
      ['xl/_rels/workbook.xml.rels', workbookRels],
      ['xl/worksheets/sheet1.xml', sheet1],
      ['xl/worksheets/sheet2.xml', sheet2],
      ['xl/theme/theme1.xml', theme],
      ['xl/styles.xml', excelStyles()],
      ['xl/sharedStrings.xml', strings],
      ['xl/calcChain.xml', calcChain],
      ['docProps/core.xml', core],
      ['docProps/app.xml', app],
    ],
    'excel',
  );
}

// ── Google Sheets ────────────────────────────────────────────────────────────────────────────────────
function google() {
  const decl = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
  const ss = sharedStrings();
  const s = (ref, style, text) => `<c r="${ref}" s="${style}" t="s"><v>${ss.s(text)}</v></c>`;
  const n = (ref, style, v) => `<c r="${ref}" s="${style}"><v>${v}</v></c>`;
  const head =
    `${decl}<worksheet xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main" xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac" ` +
    'xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main" xmlns:mv="urn:schemas-microsoft-com:mac:vml" ' +
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:mx="http://schemas.microsoft.com/office/mac/excel/2008/main" ' +
    `xmlns:r="${R}" xmlns="${NS}"><sheetPr><outlinePr summaryBelow="0" summaryRight="0"/></sheetPr><sheetViews><sheetView workbookViewId="0"/></sheetViews>` +
    '<sheetFormatPr customHeight="1" defaultColWidth="12.63" defaultRowHeight="15.75"/>';
  // Styles: 0 default, 1 bold, 2 plain (Google's own xf for typed cells), 3 m/d/yyyy, 4 00000, 5 0.00.
  const sheet1 =
    `${head}<cols><col customWidth="1" min="2" max="2" width="22.5"/></cols><sheetData>` +
    `<row r="1">${['Name', 'Email address', 'Zip', 'Joined', 'Visits', 'Score', 'Big', 'Opted in', 'Handle'].map((h, i) => s(`${'ABCDEFGHI'[i]}1`, 1, h)).join('')}</row>` +
    `<row r="2">${s('A2', 2, 'Ada Lovelace')}${s('B2', 2, 'ada@example.com')}${n('C2', 4, '2134.0')}${n('D2', 3, '45000.0')}${n('E2', 2, '42.0')}${n('F2', 5, '0.30000000000000004')}${n('G2', 2, '1.0E7')}<c r="H2" s="2" t="b"><v>1</v></c><c r="I2" s="2" t="str"><f>LOWER(A2)</f><v>ada lovelace</v></c></row>` +
    `<row r="3">${s('A3', 2, 'Linus')}${s('B3', 2, 'linus@mailinator.com')}${s('C3', 2, '01234')}${n('D3', 3, '45366.0')}${n('E3', 2, '1.2345678901E10')}${n('F3', 5, '-1.5')}${n('G3', 2, '1.0E-5')}<c r="H3" s="2" t="b"><v>0</v></c><c r="I3" s="2"><f>E2*2</f><v>84.0</v></c></row>` +
    '<row r="4"/>' +
    `<row r="5">${s('A5', 2, 'Grace')}${s('B5', 2, 'grace@example.org')}</row>` +
    '</sheetData></worksheet>';
  const sheet2 = `${head}<sheetData><row r="1">${s('A1', 1, 'Imported')}</row><row r="2">${s('A2', 2, 'x@example.com')}</row></sheetData></worksheet>`;
  const styles =
    `${decl}<styleSheet xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns="${NS}">` +
    '<numFmts count="3"><numFmt numFmtId="164" formatCode="m/d/yyyy"/><numFmt numFmtId="165" formatCode="00000"/><numFmt numFmtId="166" formatCode="0.00"/></numFmts>' +
    '<fonts count="3"><font><sz val="10.0"/><color rgb="FF000000"/><name val="Arial"/><scheme val="minor"/></font>' +
    '<font><b/><color theme="1"/><name val="Arial"/><scheme val="minor"/></font><font><color theme="1"/><name val="Arial"/><scheme val="minor"/></font></fonts>' +
    '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="lightGray"/></fill></fills>' +
    '<borders count="1"><border/></borders><cellStyleXfs count="1"><xf borderId="0" fillId="0" fontId="0" numFmtId="0" applyAlignment="1" applyFont="1"/></cellStyleXfs>' +
    '<cellXfs count="6"><xf borderId="0" fillId="0" fontId="0" numFmtId="0" xfId="0" applyAlignment="1" applyFont="1"><alignment readingOrder="0" shrinkToFit="0" vertical="bottom" wrapText="0"/></xf>' +
    '<xf borderId="0" fillId="0" fontId="1" numFmtId="0" xfId="0" applyAlignment="1" applyFont="1"><alignment readingOrder="0"/></xf>' +
    '<xf borderId="0" fillId="0" fontId="2" numFmtId="0" xfId="0" applyAlignment="1" applyFont="1"><alignment readingOrder="0"/></xf>' +
    '<xf borderId="0" fillId="0" fontId="2" numFmtId="164" xfId="0" applyAlignment="1" applyFont="1" applyNumberFormat="1"><alignment horizontal="right" readingOrder="0"/></xf>' +
    '<xf borderId="0" fillId="0" fontId="2" numFmtId="165" xfId="0" applyAlignment="1" applyFont="1" applyNumberFormat="1"><alignment horizontal="right" readingOrder="0"/></xf>' +
    '<xf borderId="0" fillId="0" fontId="2" numFmtId="166" xfId="0" applyAlignment="1" applyFont="1" applyNumberFormat="1"><alignment readingOrder="0"/></xf></cellXfs>' +
    '<cellStyles count="1"><cellStyle xfId="0" name="Normal" builtinId="0"/></cellStyles><dxfs count="0"/></styleSheet>';
  const workbook =
    `${decl}<workbook xmlns:xr="http://schemas.microsoft.com/office/spreadsheetml/2014/revision" xmlns:xr6="http://schemas.microsoft.com/office/spreadsheetml/2016/revision6" ` +
    'xmlns:xr10="http://schemas.microsoft.com/office/spreadsheetml/2016/revision10" xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main" ' +
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:mx="http://schemas.microsoft.com/office/mac/excel/2008/main" ' +
    `xmlns:r="${R}" xmlns="${NS}"><workbookPr/><sheets><sheet state="visible" name="Contacts" sheetId="1" r:id="rId4"/>` +
    '<sheet state="visible" name="Imported" sheetId="2" r:id="rId5"/></sheets><definedNames/><calcPr/></workbook>';
  const workbookRels =
    `${decl}<Relationships xmlns="${PR}"><Relationship Id="rId1" Type="${R}/theme" Target="theme/theme1.xml"/>` +
    `<Relationship Id="rId2" Type="${R}/styles" Target="styles.xml"/><Relationship Id="rId3" Type="${R}/sharedStrings" Target="sharedStrings.xml"/>` +
    `<Relationship Id="rId4" Type="${R}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId5" Type="${R}/worksheet" Target="worksheets/sheet2.xml"/></Relationships>`;
  const theme = `${decl}<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Sheets"><a:themeElements/></a:theme>`;
  const rels = `${decl}<Relationships xmlns="${PR}"><Relationship Id="rId1" Type="${R}/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
  const types =
    `${decl}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default ContentType="application/xml" Extension="xml"/>` +
    '<Default ContentType="application/vnd.openxmlformats-package.relationships+xml" Extension="rels"/>' +
    `<Override ContentType="${CT}.spreadsheetml.worksheet+xml" PartName="/xl/worksheets/sheet1.xml"/><Override ContentType="${CT}.spreadsheetml.worksheet+xml" PartName="/xl/worksheets/sheet2.xml"/>` +
    `<Override ContentType="${CT}.spreadsheetml.sharedStrings+xml" PartName="/xl/sharedStrings.xml"/><Override ContentType="${CT}.spreadsheetml.styles+xml" PartName="/xl/styles.xml"/>` +
    `<Override ContentType="${CT}.spreadsheetml.sheet.main+xml" PartName="/xl/workbook.xml"/><Override ContentType="${CT}.theme+xml" PartName="/xl/theme/theme1.xml"/></Types>`;
  return zip(
    [
      ['xl/_rels/workbook.xml.rels', workbookRels],
      ['xl/workbook.xml', workbook],
      ['xl/styles.xml', styles],
      ['xl/theme/theme1.xml', theme],
      ['xl/worksheets/sheet1.xml', sheet1],
      ['xl/worksheets/sheet2.xml', sheet2],
      ['xl/sharedStrings.xml', ss.xml(`${decl}<sst xmlns="${NS}"`)],
      ['_rels/.rels', rels],
      ['[Content_Types].xml', types],
    ],
    'java',
  );
}

// ── Open XML SDK ─────────────────────────────────────────────────────────────────────────────────────
function openXmlSdk() {
  const decl = '<?xml version="1.0" encoding="utf-8"?>';
  const str = (t) => `<x:c t="inlineStr"><x:is><x:t>${t}</x:t></x:is></x:c>`;
  const sheet =
    `${decl}<x:worksheet xmlns:x="${NS}"><x:sheetData>` +
    `<x:row>${str('Customer')}${str('E-mail')}${str('Orders')}${str('Last order')}</x:row>` +
    `<x:row>${str('Contoso')}${str('buyer@contoso.example')}<x:c><x:v>12</x:v></x:c><x:c t="d"><x:v>2023-03-15T00:00:00</x:v></x:c></x:row>` +
    `<x:row>${str('Fabrikam &amp; Co')}${str('orders@fabrikam.com')}<x:c><x:v>3.5</x:v></x:c><x:c t="d"><x:v>2024-01-02T13:45:00</x:v></x:c></x:row>` +
    '</x:sheetData></x:worksheet>';
  const workbook =
    `${decl}<x:workbook xmlns:r="${R}" xmlns:x="${NS}"><x:sheets><x:sheet name="Export" sheetId="1" r:id="R5e2a6c1f0b3d4e7a"/></x:sheets></x:workbook>`;
  const workbookRels = `${decl}<Relationships xmlns="${PR}"><Relationship Type="${R}/worksheet" Target="/xl/worksheets/sheet1.xml" Id="R5e2a6c1f0b3d4e7a"/></Relationships>`;
  const rels = `${decl}<Relationships xmlns="${PR}"><Relationship Type="${R}/officeDocument" Target="/xl/workbook.xml" Id="R9a7b3c2d1e0f4a5b"/></Relationships>`;
  const types =
    `${decl}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/>` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    `<Override PartName="/xl/workbook.xml" ContentType="${CT}.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="${CT}.spreadsheetml.worksheet+xml"/></Types>`;
  return zip(
    [
      ['xl/workbook.xml', workbook],
      ['xl/_rels/workbook.xml.rels', workbookRels],
      ['xl/worksheets/sheet1.xml', sheet],
      ['_rels/.rels', rels],
      ['[Content_Types].xml', types],
    ],
    'java',
  );
}

writeFileSync(join(OUT, 'excel.xlsx'), excel());
writeFileSync(join(OUT, 'google-sheets.xlsx'), google());
writeFileSync(join(OUT, 'openxml-sdk.xlsx'), openXmlSdk());
