// A property of the whole input side: whatever shape an export or a paste takes — headers in several languages and
// products' styles, notes above the header, a report's footer, quoting, line breaks inside cells, dropped
// trailing delimiters, a code page, mailbox forms, pasted recipients — every address in it comes out as a
// record of its own, in order, or the run ends with exit 2 before any request. fast-check generates the
// exports from a known list of addresses (a fixed seed, a bounded number of runs: part of npm test).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sandboxForFile, sentItems, type Home } from '../helpers.js';
import { run } from '../fake-io.js';
import { createXlsxWriter } from '../../src/xlsx/writer.js';
import type { TestSandbox as Sandbox } from '../sandbox/test-sandbox.js';

let home: Home;
let sb: Sandbox;
let env: Record<string, string>;
sandboxForFile({ quota: 0 }, (made) => ({ home, sb, env } = made));

/** Code pages with names written in them (the text around the addresses), and the line end their programs write. */
const ENCODINGS = {
  'utf-8': { names: ['Ann Lee', 'Zoë Brontë', 'Иван Петров', '山田太郎', 'Ayşe Yılmaz'], nl: ['\n', '\r\n', '\r'] },
  'utf-8-bom': { names: ['Renée Lefèvre', 'Jürgen Müller'], nl: ['\r\n'] },
  'utf-16le': { names: ['José Núñez', '佐藤花子'], nl: ['\r\n'] },
  'windows-1252': { names: ['Renée Lefèvre', 'Jürgen Müller', 'José Núñez', 'Søren Ørsted', 'François Dupré'], nl: ['\r\n'] },
  'windows-1251': { names: ['Иван Петров', 'Мария Сидорова', 'Ольга Кузнецова', 'Алексей Смирнов'], nl: ['\r\n'] },
  'windows-1250': { names: ['Jiří Dvořák', 'Łukasz Wójcik', 'Žofie Šťastná', 'Tomáš Novák'], nl: ['\r\n'] },
  shift_jis: { names: ['山田太郎', '佐藤花子', '鈴木一郎', '高橋美咲'], nl: ['\r\n'] },
  gbk: { names: ['张伟', '李娜', '王芳', '刘洋'], nl: ['\r\n'] },
  macintosh: { names: ['Renée Lefèvre', 'Zoë Café', 'Jürgen Müller'], nl: ['\r'] },
} as const;
type Encoding = keyof typeof ENCODINGS;

/** Names of the email column as products and people write them, by what the code page can hold. */
const HEADERS: Record<'latin' | 'any', readonly string[]> = {
  latin: ['Email', 'E-mail Address', 'Email Address', 'EMAIL', 'user_email', 'Primary Email', 'E-Mail-Adresse', 'Courriel', 'Correo electrónico', 'E-posta'],
  any: ['メールアドレス', '电子邮件', 'Электронная почта', '이메일'],
};
const encodable = (e: Encoding, text: string) => e.startsWith('utf') || iconv.decode(iconv.encode(text, e), e) === text;

const address = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,6}(?:[._+-][a-z0-9]{1,5})?$/), fc.constantFrom('example.com', 'gmail.com', 'yopmail.com', 'example.org', 'fake.com', 'mail.example.net'))
  .map(([local, domain]) => ({ local, domain }));
const addresses = fc.uniqueArray(address, { minLength: 1, maxLength: 9, selector: (a) => a.local }).map((as) => as.map((a, i) => `${a.local}${i}@${a.domain}`));

/** How an address is written: bare, or a mailbox form; with format characters copied around it, maybe. */
const form = fc.record({
  kind: fc.constantFrom('bare', 'bare', 'angle', 'quoted', 'comment', 'mailto', 'brackets'),
  format: fc.constantFrom('', '', '', '\u200b', '\u200e', '\ufeff'),
});
const written = (addr: string, name: string, f: { kind: string; format: string }) => {
  const a = f.format ? `${addr}${f.format}` : addr;
  switch (f.kind) {
    case 'angle':
      return `${name} <${a}>`;
    case 'quoted':
      return `"${name.split(' ').reverse().join(', ')}" <${a}>`;
    case 'comment':
      return `${a} (${name})`;
    case 'mailto':
      return `mailto:${a}?subject=Hello`;
    case 'brackets':
      return `<${a}>`;
    default:
      return a;
  }
};

const shape = fc.record({
  encoding: fc.constantFrom(...(Object.keys(ENCODINGS) as Encoding[])),
  layout: fc.constantFrom('plain', 'recipients', 'csv', 'csv', 'csv'),
  nlPick: fc.nat(),
  header: fc.nat(),
  withHeader: fc.boolean(),
  delimiter: fc.constantFrom(',', ';', '\t', '|'),
  quoteAll: fc.boolean(),
  column: fc.nat(),
  extra: fc.array(fc.constantFrom('Name', 'Phone', 'Company', 'Notes', 'City', 'Owner Email', 'Email Opt Out', 'Fax'), { maxLength: 4 }),
  // A report's title lines above the header (Salesforce: title, date, company, a blank line), or a note.
  preamble: fc.constantFrom(
    [],
    [],
    ['Table 1'], ['Notes:'], ['Export of all contacts'], ['Contacts with Email Report', 'As of 11/25/2026', 'Acme Corp', ''],
    ['Contacts with Email Report', 'Filtered By:', '  Email not equal to', '  Lead Source equals Web', 'As of 11/25/2026', 'Acme Corp', ''],
  ),
  footer: fc.constantFrom('', '', 'Grand Totals', 'Grand Totals (9 records)', 'Copyright (c) 2024 Acme Corp'),
  dropTrailing: fc.boolean(),
  // ...and from the first row on (a script's export; a column no row fills)
  dropFromFirst: fc.boolean(),
  forms: fc.array(form, { minLength: 9, maxLength: 9 }),
  perLine: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 9, maxLength: 9 }),
  separator: fc.constantFrom(', ', '; ', ','),
  blankLines: fc.boolean(),
});
type Shape = typeof shape extends fc.Arbitrary<infer T> ? T : never;

/** One cell as CSV writes it. */
function cell(v: string, s: Shape): string {
  const needs = v.includes(s.delimiter) || v.includes('"') || /[\r\n]/.test(v) || v !== v.trim();
  return s.quoteAll || needs ? `"${v.replace(/"/g, '""')}"` : v;
}

/**
 * The export's text (its lines joined with `nl`), and whether the records must be exactly the addresses: a table
 * of two columns or more, whose other lines (header, notes above it, a footer) are recognised; a one-column file
 * is a plain list, where a line that is not exactly a header name is a record (an invalid one).
 */
function exportText(list: string[], s: Shape): { text: string; rows?: string[][]; exact: boolean } {
  const { names, nl } = ENCODINGS[s.encoding];
  const lineEnd = nl[s.nlPick % nl.length]!;
  const name = (i: number) => names[i % names.length]!;
  const lines: string[] = [];
  if (s.layout !== 'csv') {
    if (s.withHeader) lines.push('Email');
    let i = 0;
    for (let l = 0; i < list.length; l++) {
      const n = s.layout === 'plain' ? 1 : s.perLine[l % 9]!;
      const group = list.slice(i, i + n).map((a, k) => written(a, name(i + k), s.forms[(i + k) % 9]!));
      i += n;
      lines.push(group.join(s.separator) + (s.layout === 'recipients' && s.separator !== ',' && l % 2 ? ';' : ''));
      if (s.blankLines && l % 3 === 1) lines.push('');
    }
    return { text: lines.join(lineEnd) + lineEnd, exact: true };
  }
  const latin = s.encoding !== 'windows-1251' && s.encoding !== 'shift_jis' && s.encoding !== 'gbk';
  const choices = [...HEADERS.latin, ...(s.encoding.startsWith('utf') ? HEADERS.any : [])].filter((h) => encodable(s.encoding, h) || !latin);
  const header = choices.filter((h) => encodable(s.encoding, h))[s.header % choices.length] ?? 'Email';
  // Without a header, an owner's address beside a single contact's is a coin toss: only more rows tell them apart.
  const columns = [...new Set(s.extra)].filter((c) => s.withHeader || list.length > 1 || c !== 'Owner Email');
  const at = s.column % (columns.length + 1);
  columns.splice(at, 0, header);
  const value = (col: string, i: number, addr: string): string => {
    switch (col) {
      case 'Name':
        return name(i);
      case 'Phone':
        return i % 3 === 0 ? '' : `+1 555 01${String(i).padStart(2, '0')}`;
      case 'Company':
        return i % 2 ? 'Acme, Inc.' : '';
      case 'Notes':
        return i % 4 === 1 ? `Met at the fair${lineEnd}said "call me"` : '';
      case 'City':
        return 'Paris';
      case 'Owner Email':
        return 'owner@acme-staff.com';
      case 'Email Opt Out':
        return i % 2 ? 'true' : 'false';
      case 'Fax':
        return '';
      default:
        return written(addr, name(i), { ...s.forms[i % 9]!, kind: s.forms[i % 9]!.kind === 'angle' ? 'angle' : 'bare' });
    }
  };
  const rows: string[][] = [];
  if (s.withHeader) rows.push(...s.preamble.map((l) => (l === '' ? [] : [l])), columns);
  list.forEach((addr, i) => {
    const cells = columns.map((c) => value(c, i, addr));
    // Excel stops writing the delimiters of empty end cells after its first rows.
    if (s.dropTrailing && !s.quoteAll && i >= (s.dropFromFirst ? 0 : 3)) while (cells.length > 1 && cells[cells.length - 1] === '') cells.pop();
    rows.push(cells);
  });
  if (s.footer && s.withHeader) rows.push([], [s.footer]);
  const text = rows.map((r) => r.map((c) => cell(c, s)).join(s.delimiter)).join(lineEnd) + lineEnd;
  return { text, rows, exact: columns.length > 1 };
}

function bytesOf(text: string, e: Encoding): Buffer {
  if (e === 'utf-8') return Buffer.from(text);
  if (e === 'utf-8-bom') return Buffer.from('\ufeff' + text);
  if (e === 'utf-16le') return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  return iconv.encode(text, e);
}

describe('any export', () => {
  it('every address comes out as a record of its own, in order, or the run ends exit 2 before any request', async () => {
    let runs = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(addresses, shape, async (list, s) => {
        const { text, exact } = exportText(list, s);
        fc.pre(encodable(s.encoding, text));
        const f = join(home.dir, `export-${runs++}.csv`);
        await writeFile(f, bytesOf(text, s.encoding));
        const before = sentItems(sb).length;
        const r = await run(['emails', f, '-f', 'ndjson', '-q', '--no-cache'], { env });
        if (r.exitCode === 2) {
          refused++;
          expect(r.stderr).toMatch(/^idv: [^\n]+\n$/);
          expect(sentItems(sb).length).toBe(before);
          return;
        }
        expect(r.exitCode, r.stderr).toBe(0);
        const records = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { email: string; status: string });
        const addressed = records.filter((x) => x.status !== 'invalid').map((x) => x.email);
        expect(exact ? records.map((x) => x.email) : addressed, JSON.stringify(text)).toEqual(list);
        expect(sentItems(sb).slice(before).filter((x) => !/^[\x21-\x7e]+$/.test(x))).toEqual([]); // nothing sent with text around it
      }),
      { seed: 20240522, numRuns: 150, endOnFailure: true },
    );
    // Refusing is for what idv cannot read with confidence, not a way out: the generated exports are readable.
    expect(refused / runs).toBeLessThan(0.05);
  }, 120_000);

  it('the same table saved as a workbook (empty cells not written, as Excel saves them): every address out, in order', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(addresses, shape, async (list, shaped) => {
        const { rows, exact } = exportText(list, { ...shaped, layout: 'csv' });
        const f = join(home.dir, `export-${runs++}.xlsx`);
        const book = await createXlsxWriter(f, rows![0]!);
        for (const r of rows!.slice(1)) await book.write(r);
        await book.end();
        const before = sentItems(sb).length;
        const r = await run(['emails', f, '-f', 'ndjson', '-q', '--no-cache'], { env });
        expect(r.exitCode, r.stderr + JSON.stringify(rows)).toBe(0);
        const records = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { email: string; status: string });
        const addressed = records.filter((x) => x.status !== 'invalid').map((x) => x.email);
        expect(exact ? records.map((x) => x.email) : addressed, JSON.stringify(rows)).toEqual(list);
        expect(sentItems(sb).slice(before).filter((x) => !/^[\x21-\x7e]+$/.test(x))).toEqual([]);
      }),
      { seed: 20240522, numRuns: 100, endOnFailure: true },
    );
  }, 120_000);
});
