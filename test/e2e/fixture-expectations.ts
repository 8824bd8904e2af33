// Each export fixture's expected results, computed apart from idv: the input decoded here (UTF-8 / BOM / a real
// Windows-1252 table), the Excel `sep=` line dropped, the rows parsed with csv-parse, each item checked (the
// contract's "invalid" rules) and classified with the sandbox rules; the counts are those of fixtures/README.md.
import { expect } from 'vitest';
import { parse } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import { fixture, type Home } from '../helpers.js';
import { classifyEmail } from '../../src/sandbox/rules.js';

export const KNOWN = ['ok', 'alias', 'disposable', 'fake', 'quota_exceeded', 'invalid', 'error'];
export const STATUS_ORDER = ['ok', 'alias', 'disposable', 'fake', 'invalid'];

/** A --dry-run's JSON: the counts alone (the layouts go to standard error). */
export const counts = (json: unknown): Record<string, unknown> => JSON.parse(String(json)) as Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Fixtures and the expected results (counts from fixtures/README.md).

export interface Fx {
  file: string;
  delimiter: string;
  header: boolean;
  /** 0-based index of the item column. */
  item: number;
  records: number;
  counts: Record<string, number>;
  sent: number;
  /** Lines that must appear literally (as whole lines) in the --keep-columns CSV output. */
  lines: string[];
}

export const FIXTURES: Fx[] = [
  {
    file: 'newsletter.csv',
    delimiter: ',',
    header: true,
    item: 0,
    records: 11,
    counts: { ok: 6, alias: 1, disposable: 2, fake: 1, invalid: 1 },
    sent: 9,
    lines: [
      'Email Address,First Name,Last Name,Address,Phone Number,MEMBER_RATING,OPTIN_TIME,OPTIN_IP,CONFIRM_TIME,CONFIRM_IP,LATITUDE,LONGITUDE,GMTOFF,DSTOFF,TIMEZONE,CC,REGION,LAST_CHANGED,LEID,EUID,NOTES,TAGS,status',
      'carlos.mendez@northwind.io,Carlos,Méndez,"Av. Reforma 222, Piso 5, Juárez, CDMX 06600, MX",+52 55 5555 0199,5,2023-08-23 16:30:00,189.203.44.12,2023-08-23 09:15:42,189.203.44.12,19.4326,-99.1332,-6,-6,America/Mexico_City,MX,CMX,2024-02-14 10:12:45,183920815,e3b8f0a2c6,"Asked to ""pause"" emails until spring.\nPrefers plain text.",Customer,ok',
      'test.user@test.com,Test,User,,,1,2023-09-09 11:11:11,10.0.0.5,2023-09-09 09:15:42,10.0.0.5,,,,,,,,2023-09-09 11:11:11,183920904,f6c2d7e1b3,"QA signup, do not mail",,fake',
      ' aisha.bello@yahoo.com ,Aisha,Bello,,,3,2024-01-20 19:27:33,102.89.33.71,2024-01-20 09:15:42,102.89.33.71,6.5244,3.3792,1,1,Africa/Lagos,NG,LA,2024-01-20 19:27:33,183921240,2c7a0e9f4b,,Newsletter,ok',
    ],
  },
  {
    file: 'crm.csv',
    delimiter: ',',
    header: true,
    item: 5,
    records: 11,
    counts: { ok: 5, alias: 1, disposable: 1, fake: 2, invalid: 2 },
    sent: 8,
    lines: [
      'Record ID,First Name,Last Name,Company Name,Job Title,E-mail,Phone,Website,Lifecycle Stage,Create Date,status',
      '5012348802,Zoë,Clarke,Globex Corporation,"VP, Sales",zoe.clarke@globex.com,+1 415-555-0187,https://www.globex.com,Opportunity,2024-02-12 09:41,ok',
      '5012348804,Aoife,Ní Bhriain,Initech,Office Manager,,+353 1 555 0166,initech.com,Subscriber,2024-02-13 11:02,invalid',
    ],
  },
  {
    file: 'google-contacts.csv',
    delimiter: ',',
    header: true,
    item: 30,
    records: 11,
    counts: { ok: 6, alias: 1, disposable: 1, fake: 2, invalid: 1 },
    sent: 9,
    lines: [
      'Name,Given Name,Additional Name,Family Name,Yomi Name,Given Name Yomi,Additional Name Yomi,Family Name Yomi,Name Prefix,Name Suffix,Initials,Nickname,Short Name,Maiden Name,Birthday,Gender,Location,Billing Information,Directory Server,Mileage,Occupation,Hobby,Sensitivity,Priority,Subject,Notes,Language,Photo,Group Membership,E-mail 1 - Type,E-mail 1 - Value,E-mail 2 - Type,E-mail 2 - Value,Phone 1 - Type,Phone 1 - Value,status',
      'Plumber,Plumber,,,,,,,,,,,,,,,,,,,,,,,,"Fixed the boiler, Jan 2024",,,* myContacts,,,,,Work,+1 555-0199,invalid',
      'Peter Quill,Peter,,Quill,,,,,,,,,,,,,,,,,,,,,,,,,* myContacts,Other,starlord77@guerrillamail.com,* Home,peter.quill@gmail.com,,,disposable',
    ],
  },
  {
    file: 'spreadsheet-semicolon.csv',
    delimiter: ';',
    header: true,
    item: 2,
    records: 10,
    counts: { ok: 5, alias: 1, disposable: 2, fake: 1, invalid: 1 },
    sent: 8,
    lines: [
      'Nom;Prénom;Courriel;Ville;status',
      'Rousseau;Jérôme;jerome.rousseau@laposte.net;"Nantes; Saint-Herblain";ok',
      'N\u2019Diaye;Aïssatou;aissatou.ndiaye@acme-corp.com;Paris;ok',
      'Girard;François;francois.girard@;Saint-Étienne;invalid',
    ],
  },
  {
    file: 'contacts.tsv',
    delimiter: '\t',
    header: true,
    item: 1,
    records: 10,
    counts: { ok: 5, alias: 1, disposable: 2, fake: 1, invalid: 1 },
    sent: 8,
    lines: [
      'name\temail\tsignup_date\tstatus',
      'Amelia Jones\t amelia.jones@NorthWind.io \t2024-03-06\tok',
      'Grace Lee\tgrace lee@gmail.com\t2024-03-05\tinvalid',
    ],
  },
  {
    file: 'no-header.csv',
    delimiter: ',',
    header: false,
    item: 1,
    records: 9,
    counts: { ok: 5, alias: 1, disposable: 1, fake: 1, invalid: 1 },
    sent: 7,
    lines: ['Jane Doe,jane@northwind.io,2023-01-04,ok', 'Mark Stone,mark.stone.at.gmail.com,2023-02-01,invalid'],
  },
];

// Windows-1252 0x80–0x9F (undefined bytes map to the C1 control, as WHATWG does).
export const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

export function decode(buf: Buffer): string {
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    let s = '';
    for (const b of buf) s += String.fromCodePoint(b >= 0x80 && b <= 0x9f ? CP1252_HIGH[b - 0x80]! : b);
    return s;
  }
}

export interface Input {
  header: string[] | null;
  rows: string[][];
}

export const inputs = new Map<string, Input>();
export function input(fx: Fx): Input {
  let got = inputs.get(fx.file);
  if (got) return got;
  let text = decode(readFileSync(fixture(fx.file)));
  const sep = /^sep=(.)\r?\n/.exec(text);
  if (sep) {
    expect(sep[1]).toBe(fx.delimiter);
    text = text.slice(sep[0].length);
  }
  const all: string[][] = parse(text, { delimiter: fx.delimiter, skip_empty_lines: true });
  got = fx.header ? { header: all[0]!, rows: all.slice(1) } : { header: null, rows: all };
  inputs.set(fx.file, got);
  return got;
}

/** The contract's "cannot be an address" rules, then the sandbox's classification. */
export function expectedStatus(raw: string): string {
  const s = raw.trim();
  const at = s.lastIndexOf('@');
  if (s === '' || at <= 0 || at === s.length - 1 || /\s/.test(s) || !s.slice(at + 1).includes('.')) return 'invalid';
  return classifyEmail(s);
}

/** Input rows + their expected status, in input order. */
export function expectedRows(fx: Fx): string[][] {
  return input(fx).rows.map((r) => [...r, expectedStatus(r[fx.item]!)]);
}

export function names(fx: Fx): string[] {
  const i = input(fx);
  return [...(i.header ?? i.rows[0]!.map((_, n) => `column${n + 1}`)), 'status'];
}

/** RFC 4180: quote a field holding the delimiter, a quote, CR or LF; double the quotes. */
export function csvLine(fields: string[], d: string): string {
  const q = (f: string) => (f.includes(d) || /["\r\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f);
  return fields.map(q).join(d) + '\n';
}

export function expectedCsv(fx: Fx, keep: (status: string) => boolean = () => true): string {
  const i = input(fx);
  let out = i.header ? csvLine([...i.header, 'status'], fx.delimiter) : '';
  for (const r of expectedRows(fx)) if (keep(r[r.length - 1]!)) out += csvLine(r, fx.delimiter);
  return out;
}

export function parseOut(text: string, fx: Fx): string[][] {
  return parse(text, { delimiter: fx.delimiter, bom: true, skip_empty_lines: true });
}

export function pctAlternatives(n: number, total: number): string {
  const p = (n * 100) / total;
  return [p.toFixed(1), p.toFixed(0)].map((x) => x.replace('.', '\\.')).join('|');
}

/** Each status with its count and percentage, on standard error. */
export function expectSummary(stderr: string, counts: Record<string, number>, records: number) {
  expect(stderr).toMatch(new RegExp(`\\b${records}\\s+records?\\b`));
  for (const [s, n] of Object.entries(counts)) {
    if (n === 0) continue;
    expect(stderr, `summary line for ${s}`).toMatch(
      new RegExp(`^\\s*${s}\\b[^\\n]*?\\b${n}\\b[^\\n]*?(${pctAlternatives(n, records)})\\s*%`, 'm'),
    );
  }
}

export function cachedCount(stderr: string): number | null {
  const m = /(\d[\d,]*)\s+(?:results?|items?|records?)?\s*(?:came\s+)?from the cache/i.exec(stderr);
  return m ? Number(m[1]!.replace(/,/g, '')) : null;
}
export function sentCount(stderr: string): number | null {
  if (/\bnothing sent\b/.test(stderr)) return 0;
  const m = /(\d[\d,]*)\s+items?\s+sent/i.exec(stderr);
  return m ? Number(m[1]!.replace(/,/g, '')) : null;
}
