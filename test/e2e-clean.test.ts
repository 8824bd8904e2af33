// End-to-end tests of the list-cleaning workflow (issue 4) on every export fixture: --keep-columns
// (exact bytes), the cleaned file re-importing with csv-parse, JSON/NDJSON with --keep-columns,
// --only / --exclude, --dry-run (no request, cache-aware), `idv domains` with addresses and URLs,
// and the summary on standard error.
//
// Expected output is computed independently: the input is decoded here (UTF-8 / BOM / a real
// Windows-1252 table), the Excel `sep=` line is dropped, the rows are parsed with csv-parse, each
// item is checked (the contract's "invalid" rules) and classified with the sandbox rules; the counts
// are cross-checked against fixtures/README.md.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixture, idv, makeHome, sandbox, sentItems, type Home } from './helpers.js';
import { run } from './fake-io.js';
import { classifyEmail } from '../src/sandbox/rules.js';

let home: Home;
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  await home.cleanup();
});

const KNOWN = ['ok', 'alias', 'disposable', 'fake', 'quota_exceeded', 'invalid', 'error'];
const STATUS_ORDER = ['ok', 'alias', 'disposable', 'fake', 'invalid'];

/** A --dry-run's JSON: the counts alone (the layouts go to standard error). */
const counts = (json: unknown): Record<string, unknown> => JSON.parse(String(json)) as Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Fixtures and the expected results (counts from fixtures/README.md).

interface Fx {
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

const FIXTURES: Fx[] = [
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
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function decode(buf: Buffer): string {
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    let s = '';
    for (const b of buf) s += String.fromCodePoint(b >= 0x80 && b <= 0x9f ? CP1252_HIGH[b - 0x80]! : b);
    return s;
  }
}

interface Input {
  header: string[] | null;
  rows: string[][];
}

const inputs = new Map<string, Input>();
function input(fx: Fx): Input {
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
function expectedStatus(raw: string): string {
  const s = raw.trim();
  const at = s.lastIndexOf('@');
  if (s === '' || at <= 0 || at === s.length - 1 || /\s/.test(s) || !s.slice(at + 1).includes('.')) return 'invalid';
  return classifyEmail(s);
}

/** Input rows + their expected status, in input order. */
function expectedRows(fx: Fx): string[][] {
  return input(fx).rows.map((r) => [...r, expectedStatus(r[fx.item]!)]);
}

function names(fx: Fx): string[] {
  const i = input(fx);
  return [...(i.header ?? i.rows[0]!.map((_, n) => `column${n + 1}`)), 'status'];
}

/** RFC 4180: quote a field holding the delimiter, a quote, CR or LF; double the quotes. */
function csvLine(fields: string[], d: string): string {
  const q = (f: string) => (f.includes(d) || /["\r\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f);
  return fields.map(q).join(d) + '\n';
}

function expectedCsv(fx: Fx, keep: (status: string) => boolean = () => true): string {
  const i = input(fx);
  let out = i.header ? csvLine([...i.header, 'status'], fx.delimiter) : '';
  for (const r of expectedRows(fx)) if (keep(r[r.length - 1]!)) out += csvLine(r, fx.delimiter);
  return out;
}

function parseOut(text: string, fx: Fx): string[][] {
  return parse(text, { delimiter: fx.delimiter, bom: true, skip_empty_lines: true });
}

function pctAlternatives(n: number, total: number): string {
  const p = (n * 100) / total;
  return [p.toFixed(1), p.toFixed(0)].map((x) => x.replace('.', '\\.')).join('|');
}

/** Each status with its count and percentage, on standard error. */
function expectSummary(stderr: string, counts: Record<string, number>, records: number) {
  expect(stderr).toMatch(new RegExp(`\\b${records}\\s+records?\\b`));
  for (const [s, n] of Object.entries(counts)) {
    if (n === 0) continue;
    expect(stderr, `summary line for ${s}`).toMatch(
      new RegExp(`^\\s*${s}\\b[^\\n]*?\\b${n}\\b[^\\n]*?(${pctAlternatives(n, records)})\\s*%`, 'm'),
    );
  }
}

function cachedCount(stderr: string): number | null {
  const m = /(\d[\d,]*)\s+(?:results?|items?|records?)?\s*(?:came\s+)?from the cache/i.exec(stderr);
  return m ? Number(m[1]!.replace(/,/g, '')) : null;
}
function sentCount(stderr: string): number | null {
  const m = /(\d[\d,]*)\s+items?\s+sent/i.exec(stderr);
  return m ? Number(m[1]!.replace(/,/g, '')) : null;
}

// ---------------------------------------------------------------------------------------------

describe('expected values used by these tests', () => {
  it.each(FIXTURES.map((f) => [f.file, f] as const))('%s: independent expectation matches fixtures/README.md', (_, fx) => {
    const rows = expectedRows(fx);
    expect(rows.length).toBe(fx.records);
    const counts: Record<string, number> = {};
    for (const r of rows) counts[r[r.length - 1]!] = (counts[r[r.length - 1]!] ?? 0) + 1;
    expect(counts).toEqual(fx.counts);
    const width = names(fx).length - 1;
    for (const r of input(fx).rows) expect(r.length).toBe(width);
  });
});

for (const fx of FIXTURES) {
  describe(`cleaning ${fx.file}`, () => {
    const file = fixture(fx.file);
    const expectedStatuses = () => expectedRows(fx).map((r) => r[r.length - 1]!);

    it('--keep-columns to csv: exact bytes (header, delimiter, column order, RFC 4180 quoting, status last)', async () => {
      const r = await run(['emails', file, '--sandbox', '--keep-columns'], { env: home.env });
      expect(r.exitCode).toBe(0);
      const out = String(r.stdout);
      // parsed: input rows + status, header (when there is one) + status
      const parsed = parseOut(out, fx);
      const wantRows = expectedRows(fx);
      expect(parsed).toEqual(fx.header ? [names(fx), ...wantRows] : wantRows);
      // literal lines
      for (const line of fx.lines) expect(('\n' + out).includes('\n' + line + '\n'), `line ${JSON.stringify(line)}`).toBe(true);
      // no BOM, no Excel sep= line, no replacement character
      expect(out.startsWith('\uFEFF')).toBe(false);
      expect(out).not.toMatch(/^sep=/m);
      expect(out).not.toContain('\uFFFD');
      // the exact bytes
      expect(out).toBe(expectedCsv(fx));
      // rows with an empty (or unusable) item are kept, with invalid
      const invalidRows = wantRows.filter((w) => w[w.length - 1] === 'invalid');
      expect(invalidRows.length).toBe(fx.counts.invalid);
    });

    it('the cleaned file (--exclude disposable,fake,invalid -o clean.csv) re-imports with csv-parse', async () => {
      const out = join(home.dir, 'clean.csv');
      const excluded = new Set(['disposable', 'fake', 'invalid']);
      const r = await run(['emails', file, '--sandbox', '--keep-columns', '--exclude', 'disposable,fake,invalid', '-o', out], {
        env: home.env,
      });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('');
      const text = await readFile(out, 'utf8');
      const rows = parseOut(text, fx);
      const want = expectedRows(fx).filter((w) => !excluded.has(w[w.length - 1]!));
      expect(want.length).toBe(fx.counts.ok! + fx.counts.alias!);
      if (fx.header) {
        expect(rows[0]).toEqual(names(fx));
        expect(rows.slice(1)).toEqual(want);
        // as objects keyed by the input header, as an importer would read it
        const objs: Record<string, string>[] = parse(text, { delimiter: fx.delimiter, bom: true, columns: true });
        expect(Object.keys(objs[0]!)).toEqual(names(fx));
        expect(objs.map((o) => o.status)).toEqual(want.map((w) => w[w.length - 1]));
      } else {
        expect(rows).toEqual(want);
      }
      expect(text).toBe(expectedCsv(fx, (s) => !excluded.has(s)));
    });

    it('--keep-columns -f json: one array of objects keyed by header names, plus status', async () => {
      const r = await run(['emails', file, '--sandbox', '--keep-columns', '-f', 'json'], { env: home.env });
      expect(r.exitCode).toBe(0);
      const arr = JSON.parse(String(r.stdout)) as Record<string, string>[];
      expect(Array.isArray(arr)).toBe(true);
      expect(arr.length).toBe(fx.records);
      const keys = names(fx);
      const want = expectedRows(fx);
      arr.forEach((o, i) => {
        expect(Object.keys(o)).toEqual(keys);
        expect(Object.values(o)).toEqual(want[i]);
      });
    });

    it('--keep-columns -f ndjson: one object per line keyed by header names, plus status', async () => {
      const r = await run(['emails', file, '--sandbox', '--keep-columns', '-f', 'ndjson'], { env: home.env });
      expect(r.exitCode).toBe(0);
      const out = String(r.stdout);
      expect(out.endsWith('\n')).toBe(true);
      const lines = out.slice(0, -1).split('\n');
      expect(lines.length).toBe(fx.records);
      const keys = names(fx);
      const want = expectedRows(fx);
      lines.forEach((line, i) => {
        const o = JSON.parse(line) as Record<string, string>;
        expect(Object.keys(o)).toEqual(keys);
        expect(Object.values(o)).toEqual(want[i]);
      });
    });

    it('--only ok,alias and --exclude filter written records; the summary still counts every record', async () => {
      const only = await run(['emails', file, '--sandbox', '--keep-columns', '--only', 'ok,alias'], { env: home.env });
      expect(only.exitCode).toBe(0);
      expect(only.stdout).toBe(expectedCsv(fx, (s) => s === 'ok' || s === 'alias'));
      expectSummary(String(only.stderr), fx.counts, fx.records);

      const ex = await run(['emails', file, '--sandbox', '--keep-columns', '--exclude', 'ok'], { env: home.env });
      expect(ex.exitCode).toBe(0);
      expect(ex.stdout).toBe(expectedCsv(fx, (s) => s !== 'ok'));
      expectSummary(String(ex.stderr), fx.counts, fx.records);

      // without --keep-columns: email,status records, filtered
      const plain = await run(['emails', file, '--sandbox', '--only', 'disposable', '-f', 'ndjson', '-q'], { env: home.env });
      expect(plain.exitCode).toBe(0);
      const recs = String(plain.stdout).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { email: string; status: string });
      expect(recs.map((x) => x.status)).toEqual(expectedStatuses().filter((s) => s === 'disposable'));
      expect(recs.map((x) => x.email)).toEqual(
        input(fx).rows.filter((row) => expectedStatus(row[fx.item]!) === 'disposable').map((row) => row[fx.item]!.trim()),
      );
    });

    it('a status name no slip of a known one (--exclude spamtrap: the service may add it) warns on one stderr line listing the known statuses, and still runs', async () => {
      const r = await run(['emails', file, '--sandbox', '--keep-columns', '--exclude', 'spamtrap'], { env: home.env });
      expect(r.exitCode).toBe(0);
      const warnings = String(r.stderr).split('\n').filter((l) => l.includes('spamtrap'));
      expect(warnings.length).toBe(1);
      for (const s of KNOWN) expect(warnings[0]).toContain(s);
      expect(r.stdout).not.toContain('spamtrap');
      expect(r.stdout).toBe(expectedCsv(fx)); // nothing excluded
      expectSummary(String(r.stderr), fx.counts, fx.records);
    });

    it('--dry-run: records/unique/invalid/cached/quota on stdout, zero requests, exit 0, with and without a key', async () => {
      const { sb, env } = await sandbox({}, home);
      try {
        const want = { records: fx.records, unique: fx.sent, invalid: fx.counts.invalid, cached: 0, quota: fx.sent };
        const j = await run(['emails', file, '--dry-run', '--format', 'json'], { env });
        expect(j.exitCode).toBe(0);
        const text = String(j.stdout).trim();
        expect(text.split('\n').length).toBe(1);
        const obj = JSON.parse(text) as Record<string, number>;
        expect(Object.keys(obj)).toEqual(['records', 'unique', 'invalid', 'cached', 'quota']);
        expect(obj).toEqual(want);
        // The layout, for a person, beside the object: on standard error.
        expect(String(j.stderr)).toMatch(new RegExp(`^${file}\\n  encoding   (utf-8|windows-1252)\\n`, 'm'));
        expect(String(j.stderr)).toContain(`\n  records    ${fx.records}\n`);

        const c = await run(['emails', file, '--dry-run'], { env });
        expect(c.exitCode).toBe(0);
        const out = String(c.stdout);
        for (const [k, v] of Object.entries(want)) expect(out).toMatch(new RegExp(k));
        expect(out).toBe(`records,unique,invalid,cached,quota\n${Object.values(want).join(',')}\n`); // README: two-line CSV in a pipe

        const noKey = { ...env };
        delete noKey.IDV_API_KEY;
        const k = await run(['emails', file, '--dry-run', '-f', 'json'], { env: noKey });
        expect(k.exitCode).toBe(0);
        expect(JSON.parse(String(k.stdout))).toEqual(want);

        expect(sb.requests.length).toBe(0);
      } finally {
        await sb.close();
      }
    });

    it('--dry-run after a real run (cache filled): cached = unique, quota 0, no request', async () => {
      const { sb, env } = await sandbox({}, home);
      try {
        const real = await run(['emails', file, '-q'], { env });
        expect(real.exitCode).toBe(0);
        expect(sentItems(sb).length).toBe(fx.sent);
        const before = sb.requests.length;
        const j = await run(['emails', file, '--dry-run', '-f', 'json'], { env });
        expect(j.exitCode).toBe(0);
        expect(counts(j.stdout)).toEqual({
          records: fx.records,
          unique: fx.sent,
          invalid: fx.counts.invalid,
          cached: fx.sent,
          quota: 0,
        });
        expect(sb.requests.length).toBe(before);
      } finally {
        await sb.close();
      }
    });

    it('summary on stderr (not stdout): each status with count and percentage, cached vs sent', async () => {
      const out = join(home.dir, 'out.csv');
      const r = await run(['emails', file, '--sandbox', '--keep-columns', '-o', out], { env: home.env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('');
      const err = String(r.stderr);
      expectSummary(err, fx.counts, fx.records);
      expect(cachedCount(err)).toBe(0);
      expect(sentCount(err)).toBe(fx.sent);
      // and with output on stdout, none of the summary is mixed into it
      const s = await run(['emails', file, '--sandbox', '--keep-columns'], { env: home.env });
      expect(String(s.stdout)).not.toMatch(/records in|from the cache|%/);
      expectSummary(String(s.stderr), fx.counts, fx.records);
    });
  });
}

describe('spreadsheet-semicolon.csv specifics', () => {
  const fx = FIXTURES.find((f) => f.file === 'spreadsheet-semicolon.csv')!;

  it('the Excel sep=; line is not written back (not header, not data); ; stays the delimiter', async () => {
    // Choice (README "Choices", consistent with the contract's "header and delimiter are kept"): the
    // `sep=` line is an Excel directive, neither the header nor a row; keeping it would make csv-parse and
    // most importers read `sep=` as the header, and makes Excel ignore UTF-8. The delimiter itself is kept.
    const r = await run(['emails', fixture(fx.file), '--sandbox', '--keep-columns', '-q'], { env: home.env });
    expect(r.exitCode).toBe(0);
    const out = String(r.stdout);
    expect(out.split('\n')[0]).toBe('Nom;Prénom;Courriel;Ville;status');
    expect(out).not.toContain('sep=');
    expect(out.split('\n').filter(Boolean).length).toBe(1 + fx.records);
    for (const line of out.split('\n').filter(Boolean)) expect(line).not.toMatch(/^[^"]*,[^"]*$/); // no comma-delimited line
  });

  it('Windows-1252 input is written as UTF-8 (é=0xE9 → é, ’=0x92 → U+2019), never as C1 controls or �', async () => {
    const r = await run(['emails', fixture(fx.file), '--sandbox', '--keep-columns', '-q'], { env: home.env, });
    expect(r.exitCode).toBe(0);
    const bytes = Buffer.from(String(r.stdout), 'utf8');
    const out = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    expect(out).toContain('Lefèvre;Camille;camille.lefevre@orange.fr;Besançon;ok');
    expect(out).toContain('N\u2019Diaye;Aïssatou;');
    expect(out).not.toMatch(/[\u0080-\u009f]/);
    expect(out).not.toContain('\uFFFD');
  });
});

describe('--dry-run on emails.txt (the contract example)', () => {
  it('prints exactly {"records":19,"unique":14,"invalid":3,"cached":0,"quota":14} and sends nothing', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const r = await run(['emails', fixture('emails.txt'), '--dry-run', '--format', 'json'], { env });
      expect(r.exitCode).toBe(0);
      const text = String(r.stdout).trim();
      expect(counts(text)).toEqual({ records: 19, unique: 14, invalid: 3, cached: 0, quota: 14 });
      expect(Object.keys(JSON.parse(text))).toEqual(['records', 'unique', 'invalid', 'cached', 'quota']);
      expect(sb.requests.length).toBe(0);
    } finally {
      await sb.close();
    }
  });

  it('after a real run: cached = unique = 14, quota 0; the rerun sends nothing and the summary says so', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const first = await run(['emails', fixture('emails.txt')], { env });
      expect(first.exitCode).toBe(0);
      expect(sentItems(sb).length).toBe(14);
      expect(cachedCount(String(first.stderr))).toBe(0);
      expect(sentCount(String(first.stderr))).toBe(14);
      expectSummary(String(first.stderr), { ok: 8, alias: 2, disposable: 3, fake: 3, invalid: 3 }, 19);

      const n = sb.requests.length;
      const dry = await run(['emails', fixture('emails.txt'), '--dry-run', '-f', 'json'], { env });
      expect(dry.exitCode).toBe(0);
      expect(sb.requests.length).toBe(n);

      const again = await run(['emails', fixture('emails.txt')], { env });
      expect(again.exitCode).toBe(0);
      expect(sb.requests.length).toBe(n);
      expect(sentCount(String(again.stderr))).toBe(0);
      // "results from the cache": per distinct item (14) or per valid record (16) are both readable
      expect([14, 16]).toContain(cachedCount(String(again.stderr)));
      expect(again.stdout).toBe(first.stdout);

      expect(counts(dry.stdout)).toEqual({ records: 19, unique: 14, invalid: 3, cached: 14, quota: 0 });
    } finally {
      await sb.close();
    }
  });
});

describe('idv domains with addresses and URLs', () => {
  type Rec = { domain: string; status: string };
  const ndjson = (s: unknown) =>
    String(s)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Rec);

  function expectDistinct(sent: string[]) {
    const lower = sent.map((s) => s.toLowerCase());
    expect(new Set(lower).size).toBe(lower.length);
    for (const s of sent) expect(s).not.toContain('@');
  }

  it('emails.txt: one request item per distinct domain; each record is its domain part', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const r = await run(['domains', fixture('emails.txt'), '-f', 'ndjson'], { env });
      expect(r.exitCode).toBe(0);
      const recs = ndjson(r.stdout);
      const want: [string | null, string][] = [
        ['gmail.com', 'ok'],
        ['acme-corp.com', 'ok'],
        ['outlook.com', 'ok'],
        ['northwind.io', 'ok'],
        ['gmail.com', 'ok'],
        ['mailinator.com', 'disposable'],
        ['guerrillamail.com', 'disposable'],
        ['fake.com', 'fake'],
        ['shop.test', 'fake'],
        ['noah.garcia.gmail.com', 'ok'], // no @: a domain
        ['yahoo.com', 'ok'],
        ['Outlook.COM', 'ok'], // as written
        ['northwind.io', 'ok'], // trimmed
        ['yahoo.com', 'ok'],
        [null, 'invalid'], // @outlook.com
        [null, 'invalid'], // tom.baker@localhost
        ['yopmail.com', 'disposable'],
        ['acme-corp.com', 'ok'],
        ['nowhere.org', 'fake'],
      ];
      expect(recs.map((x) => x.status)).toEqual(want.map((w) => w[1]));
      recs.forEach((x, i) => {
        if (want[i]![0] !== null) expect(x.domain).toBe(want[i]![0]);
      });
      const sent = sentItems(sb);
      expectDistinct(sent);
      expect(sent.map((s) => s.toLowerCase()).sort()).toEqual(
        [
          'gmail.com', 'acme-corp.com', 'outlook.com', 'northwind.io', 'mailinator.com', 'guerrillamail.com',
          'fake.com', 'shop.test', 'noah.garcia.gmail.com', 'yahoo.com', 'yopmail.com', 'nowhere.org',
        ].sort(),
      );
      for (const req of sb.requests) expect(req.path).toMatch(/\/domains\/validate$/);
    } finally {
      await sb.close();
    }
  });

  it('crm.csv (--column E-mail): one item per distinct domain; domain field is the domain part; --keep-columns keeps the row', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const r = await run(['domains', fixture('crm.csv'), '--column', 'E-mail', '-f', 'ndjson'], { env });
      expect(r.exitCode).toBe(0);
      const recs = ndjson(r.stdout);
      expect(recs).toEqual([
        { domain: 'northwind.io', status: 'ok' },
        { domain: 'globex.com', status: 'ok' },
        { domain: 'mueller-gmbh.de', status: 'ok' },
        { domain: '', status: 'invalid' },
        { domain: 'acme-corp.com', status: 'ok' },
        { domain: '10minutemail.com', status: 'disposable' },
        { domain: 'fakemail.net', status: 'fake' },
        { domain: 'Globex.com', status: 'ok' },
        { domain: recs[8]!.domain, status: 'invalid' }, // soren.k@umbrella health.com
        { domain: 'outlook.com', status: 'ok' },
        { domain: 'vandelay.example', status: 'fake' },
      ]);
      const sent = sentItems(sb);
      expectDistinct(sent);
      expect(sent.map((s) => s.toLowerCase()).sort()).toEqual(
        ['northwind.io', 'globex.com', 'mueller-gmbh.de', 'acme-corp.com', '10minutemail.com', 'fakemail.net', 'outlook.com', 'vandelay.example'].sort(),
      );

      const k = await run(['domains', fixture('crm.csv'), '--column', 'E-mail', '--keep-columns', '-q'], { env });
      expect(k.exitCode).toBe(0);
      const lines = String(k.stdout).split('\n');
      expect(lines[0]).toBe('Record ID,First Name,Last Name,Company Name,Job Title,E-mail,Phone,Website,Lifecycle Stage,Create Date,status');
      expect(lines[6]).toBe('5012348806,Chen,Wei,,,chenwei88@10minutemail.com,,,Lead,2024-02-14 23:59,disposable');
    } finally {
      await sb.close();
    }
  });

  it('websites.csv: URLs → host, one item per distinct host', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const r = await run(['domains', fixture('websites.csv'), '-f', 'ndjson'], { env });
      expect(r.exitCode).toBe(0);
      const recs = ndjson(r.stdout);
      const want: [string | null, string][] = [
        ['acme-corp.com', 'ok'],
        ['www.northwind.io', 'ok'],
        ['globex.com', 'ok'],
        ['www.initech.com', 'ok'],
        ['umbrella-health.co.uk', 'ok'],
        ['mailinator.com', 'disposable'],
        ['10minutemail.com', 'disposable'],
        ['dundermifflin.test', 'fake'],
        ['fake.com', 'fake'],
        [null, 'invalid'],
        [null, 'invalid'],
        ['ACME-CORP.COM', 'ok'],
        ['hooli.xyz', 'ok'],
      ];
      expect(recs.map((x) => x.status)).toEqual(want.map((w) => w[1]));
      recs.forEach((x, i) => {
        if (want[i]![0] !== null) expect(x.domain).toBe(want[i]![0]);
      });
      const sent = sentItems(sb);
      expectDistinct(sent);
      for (const s of sent) expect(s).not.toMatch(/[/:?]/);
      expect(sent.map((s) => s.toLowerCase()).sort()).toEqual(
        ['acme-corp.com', 'www.northwind.io', 'globex.com', 'www.initech.com', 'umbrella-health.co.uk', 'mailinator.com', '10minutemail.com', 'dundermifflin.test', 'fake.com', 'hooli.xyz'].sort(),
      );
    } finally {
      await sb.close();
    }
  });

  it('a website written without its scheme (www.globex.com/about) is validated by its host, once', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const input = 'website\nwww.Globex.com/about\nwww.globex.com\nhooli.xyz?ref=mail\nlocalhost/admin\n';
      const r = await run(['domains', '-', '-f', 'csv', '-q'], { env, input });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('domain,status\nwww.Globex.com,ok\nwww.globex.com,ok\nhooli.xyz,ok\nlocalhost/admin,invalid\n');
      expect(sentItems(sb)).toEqual(['www.globex.com', 'hooli.xyz']); // what is sent is the canonical form
    } finally {
      await sb.close();
    }
  });

  it('`idv domains --help` says it accepts addresses', async () => {
    const r = await idv(['domains', '--help'], { env: home.env });
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toMatch(/address/i);
  });
});
