#!/usr/bin/env node
// Workbooks at scale: a 1,000,000-row sheet read, and 1,000,000 records written, each in a process
// of its own through dist/xlsx.cjs (what the program requires when it meets a workbook), with its time and
// peak RSS. Target: each within ~300 MB (the largest sheet Excel allows is 1,048,576 rows).
//
//   node bench/xlsx.mjs              1,000,000 rows (~30 s on an idle 2-core machine, generating the input included)
//   node bench/xlsx.mjs --rows 1000  any size
//
// The sheet read is shaped as Excel writes one: every text in the shared strings table, stored after the
// sheet (a million distinct addresses, a thousand names), a date in the built-in short date, an amount in
// #,##0.00 and a zip code in 00000. The records written are what `--keep-columns -o clean.xlsx` writes for
// it: the same cells, typed, and a status. Files go to bench/out/ (gitignored). Run after `npm run build`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench', 'out');
const BUNDLE = join(ROOT, 'dist', 'xlsx.cjs');
const TARGET_MB = 300;

const FIRST = ['Ada', 'Grace', 'Linus', 'Ken', 'Barbara', 'Edsger', 'Donald', 'Frances', 'Alan', 'Margaret'];
const LAST = ['Lovelace', 'Hopper', 'Torvalds', 'Thompson', 'Liskov', 'Dijkstra', 'Knuth', 'Allen', 'Turing', 'Hamilton'];
const email = (i) => `user${i}@example${i % 97}.com`;
const name = (i) => `${FIRST[i % 10]} ${LAST[Math.floor(i / 10) % 10]} ${Math.floor(i / 100) % 10}`;
const serial = (i) => 43831 + (i % 2000); // from 2020-01-01
const amount = (i) => (i % 100000) / 100;
const zip = (i) => i % 99999;

// ── the children ─────────────────────────────────────────────────────────────────────────────────────
async function readChild(file) {
  const { openWorkbook } = createRequire(import.meta.url)(BUNDLE).input;
  const started = performance.now();
  const wb = await openWorkbook(file);
  let rows = 0;
  let chars = 0;
  for await (const block of wb.rows(wb.sheet())) {
    for (const row of block) {
      rows++;
      for (const cell of row) chars += cell.text.length;
    }
  }
  await wb.close();
  return { ms: performance.now() - started, rows, chars };
}

async function writeChild(file, n) {
  const { createXlsxWriter } = createRequire(import.meta.url)(BUNDLE).output;
  const started = performance.now();
  const w = await createXlsxWriter(file, ['email', 'name', 'signup', 'amount', 'zip', 'status']);
  for (let i = 0; i < n; i++) {
    await w.write([
      email(i),
      name(i),
      { type: 'date', text: '', value: serial(i), format: 'yyyy-mm-dd' },
      { type: 'number', text: '', value: amount(i), format: '#,##0.00' },
      { type: 'number', text: '', value: zip(i), format: '00000' },
      i % 7 === 0 ? 'disposable' : 'ok',
    ]);
  }
  await w.end();
  return { ms: performance.now() - started, rows: n + 1 };
}

// ── the input: a workbook as Excel writes it ─────────────────────────────────────────────────────────
export async function excelShaped(file, n) {
  const { createZip } = await import(pathToFileURL(join(ROOT, 'dist', 'xlsx', 'zip-writer.js')).href);
  const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const decl = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n';
  const zipFile = await createZip(file);
  await zipFile.add(
    '[Content_Types].xml',
    `${decl}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
      ['/xl/workbook.xml:sheet.main', '/xl/worksheets/sheet1.xml:worksheet', '/xl/styles.xml:styles', '/xl/sharedStrings.xml:sharedStrings']
        .map((o) => `<Override PartName="${o.split(':')[0]}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.${o.split(':')[1]}+xml"/>`)
        .join('') +
      '</Types>',
  );
  await zipFile.add('_rels/.rels', `${decl}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/officeDocument" Target="xl/workbook.xml"/></Relationships>`);
  await zipFile.add('xl/workbook.xml', `${decl}<workbook xmlns="${NS}" xmlns:r="${R}"><sheets><sheet name="Contacts" sheetId="1" r:id="rId1"/></sheets></workbook>`);
  await zipFile.add(
    'xl/_rels/workbook.xml.rels',
    `${decl}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${R}/styles" Target="styles.xml"/><Relationship Id="rId3" Type="${R}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
  );
  // Shared strings in order of first use, as Excel numbers them: the header, then each row's address and name.
  const strings = ['email', 'name', 'signup', 'amount', 'zip'];
  const names = new Map();
  const sheet = zipFile.entry('xl/worksheets/sheet1.xml');
  let xml = `${decl}<worksheet xmlns="${NS}"><sheetData><row r="1" spans="1:5">${strings.map((_, c) => `<c r="${'ABCDE'[c]}1" t="s"><v>${c}</v></c>`).join('')}</row>`;
  for (let i = 0; i < n; i++) {
    const r = i + 2;
    strings.push(email(i));
    const e = strings.length - 1;
    let k = names.get(name(i));
    if (k === undefined) {
      strings.push(name(i));
      k = strings.length - 1;
      names.set(name(i), k);
    }
    xml += `<row r="${r}" spans="1:5"><c r="A${r}" t="s"><v>${e}</v></c><c r="B${r}" t="s"><v>${k}</v></c><c r="C${r}" s="1"><v>${serial(i)}</v></c><c r="D${r}" s="2"><v>${amount(i)}</v></c><c r="E${r}" s="3"><v>${zip(i)}</v></c></row>`;
    if (xml.length > 1 << 18) {
      await sheet.write(xml);
      xml = '';
    }
  }
  await sheet.write(`${xml}</sheetData></worksheet>`);
  await sheet.end();
  await zipFile.add(
    'xl/styles.xml',
    `${decl}<styleSheet xmlns="${NS}"><numFmts count="2"><numFmt numFmtId="164" formatCode="00000"/><numFmt numFmtId="165" formatCode="#,##0.00"/></numFmts><cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/><xf numFmtId="165" applyNumberFormat="1"/><xf numFmtId="164" applyNumberFormat="1"/></cellXfs></styleSheet>`,
  );
  const sst = zipFile.entry('xl/sharedStrings.xml');
  let text = `${decl}<sst xmlns="${NS}" count="${5 + 2 * n}" uniqueCount="${strings.length}">`;
  for (const s of strings) {
    text += `<si><t>${s}</t></si>`;
    if (text.length > 1 << 18) {
      await sst.write(text);
      text = '';
    }
  }
  await sst.write(`${text}</sst>`);
  await sst.end();
  await zipFile.finish();
}

// ── the parent ───────────────────────────────────────────────────────────────────────────────────────
function measured(args) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`bench/xlsx.mjs --child ${args.join(' ')} ended ${r.status ?? r.signal}: ${r.stderr.trim()}`);
  return JSON.parse(r.stdout);
}

const fmtN = (n) => n.toLocaleString('en-US');
const line = (what, r) => {
  const mb = r.rssKB / 1024;
  const time = `${(r.ms / 1000).toFixed(1)} s (cpu ${(r.cpuMs / 1000).toFixed(1)} s)`;
  console.log(`xlsx ${what} ${time.padStart(19)}  peak RSS ${mb.toFixed(0).padStart(4)} MB  target ≤ ${TARGET_MB} MB  ${mb <= TARGET_MB ? 'ok' : 'MISSED'}`);
};

/** Both measurements; `say` gets each line. */
export async function benchXlsx(rows = 1_000_000) {
  if (!existsSync(BUNDLE)) throw new Error('bench/xlsx.mjs: dist/xlsx.cjs is missing; run `npm run build` first');
  mkdirSync(OUT, { recursive: true });
  const input = join(OUT, `excel-${rows}.xlsx`);
  const output = join(OUT, `written-${rows}.xlsx`);
  await excelShaped(input, rows);
  const read = measured(['read', input]);
  if (read.rows !== rows + 1) throw new Error(`bench/xlsx.mjs: read ${read.rows} rows of ${rows + 1}`);
  line(`read  ${fmtN(rows).padStart(9)} rows (Excel-shaped, shared strings)  `, read);
  const written = measured(['write', output, String(rows)]);
  line(`write ${fmtN(rows).padStart(9)} records (6 typed columns)            `, written);
  rmSync(input, { force: true });
  rmSync(output, { force: true });
  return { read, written };
}

const argv = process.argv.slice(2);
if (argv[0] === '--child') {
  const result = argv[1] === 'read' ? await readChild(argv[2]) : await writeChild(argv[2], Number(argv[3]));
  const usage = process.resourceUsage();
  process.stdout.write(JSON.stringify({ ...result, rssKB: usage.maxRSS, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = argv.indexOf('--rows');
  const rows = at >= 0 ? Number(argv[at + 1]) : 1_000_000;
  if (!(Number.isInteger(rows) && rows > 0 && rows < 1_048_576)) {
    console.error('bench/xlsx.mjs: --rows takes a whole number of data rows below 1,048,576 (a header row comes on top)');
    process.exit(2);
  }
  await benchXlsx(rows);
}
