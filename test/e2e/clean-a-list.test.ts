// Cleaning a list, on every export fixture: --keep-columns (exact bytes), the cleaned file re-importing with
// csv-parse, JSON/NDJSON with --keep-columns, --only / --exclude, --dry-run (no request, cache-aware), the summary
// on standard error; --split into a file per status, --safe-csv. Expected output: test/e2e/fixture-expectations.ts.
import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fixture, sandbox, sentItems, homeForEachTest } from '../helpers.js';
import { run } from '../fake-io.js';
import { KNOWN, counts, FIXTURES, input, expectedStatus, expectedRows, names, expectedCsv, parseOut, expectSummary, cachedCount, sentCount } from './fixture-expectations.js';

const home = homeForEachTest();
const list = home.list;

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
      // An export that began with the UTF-8 byte-order mark (Excel's "CSV UTF-8") is cleaned into a file with it: Excel reads it back as UTF-8.
      const bom = (await readFile(file)).subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])) ? '\ufeff' : '';
      expect(text).toBe(bom + expectedCsv(fx, (s) => !excluded.has(s)));
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

    it('a status name idv does not know (--exclude spamtrap) is refused in one line listing the known statuses; marked new:spamtrap it runs', async () => {
      const r = await run(['emails', file, '--sandbox', '--keep-columns', '--exclude', 'spamtrap'], { env: home.env });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')).toHaveLength(2);
      for (const s of KNOWN) expect(r.stderr).toContain(s);
      expect(r.stderr).toContain('new:spamtrap');
      const marked = await run(['emails', file, '--sandbox', '--keep-columns', '--exclude', 'new:spamtrap'], { env: home.env });
      expect(marked.exitCode).toBe(0);
      expect(marked.stdout).toBe(expectedCsv(fx)); // nothing excluded
      expectSummary(String(marked.stderr), fx.counts, fx.records);
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

    it('summary on stderr (not stdout): each status with count and percentage, what was sent, no cache line for --sandbox', async () => {
      const out = join(home.dir, 'out.csv');
      const r = await run(['emails', file, '--sandbox', '--keep-columns', '-o', out], { env: home.env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('');
      const err = String(r.stderr);
      expectSummary(err, fx.counts, fx.records);
      expect(cachedCount(err)).toBeNull(); // --sandbox uses no cache: the summary says nothing of one
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

describe('--split', () => {
  it('one file per status, byte-exact rows with --keep-columns, beside the main output', async () => {
    const dir = join(home.dir, 'split');
    const out = join(home.dir, 'all.csv');
    const r = await run(['emails', fixture('newsletter.csv'), '--sandbox', '-q', '--keep-columns', '--split', dir, '-o', out]);
    expect(r.exitCode).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(['alias.csv', 'disposable.csv', 'error.csv', 'fake.csv', 'invalid.csv', 'ok.csv', 'quota_exceeded.csv']);
    const main = await readFile(out, 'utf8');
    const header = main.slice(0, main.indexOf('\n') + 1);
    for (const status of ['ok', 'alias', 'disposable', 'fake', 'invalid']) {
      const file = await readFile(join(dir, `${status}.csv`), 'utf8');
      expect(file.startsWith(header)).toBe(true);
      const rows = file.slice(header.length);
      // Each split file holds exactly the main output's records of its status, in order, byte for byte.
      const expected = recordsOf(main.slice(header.length)).filter((rec) => rec.endsWith(`,${status}\n`)).join('');
      expect(rows).toBe(expected);
    }
    expect(await readFile(join(dir, 'error.csv'), 'utf8')).toBe(header);
  });

  it('to a terminal with no -o: the files are the output, no table', async () => {
    const dir = join(home.dir, 'split');
    const r = await run(['emails', fixture('emails.txt'), '--sandbox', '-q', '--split', dir], { stdoutIsTTY: true });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(await readFile(join(dir, 'alias.csv'), 'utf8')).toMatch(/^email,status\n.*\+.*,alias\n/);
  });

  it('a failed run leaves earlier split files as they were', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const dir = join(home.dir, 'split');
      await run(['emails', await list(['a@example.com']), '-q', '--split', dir], { env });
      const before = await readFile(join(dir, 'ok.csv'), 'utf8');
      sb.inject({ kind: 'status', status: 401 });
      const r = await run(['emails', await list(['b@example.com']), '-q', '--split', dir], { env });
      expect(r.exitCode).toBe(3);
      expect(await readFile(join(dir, 'ok.csv'), 'utf8')).toBe(before);
      expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

/** CSV text → its records (a quoted cell may hold line breaks), each with its line end. */
function recordsOf(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') quoted = !quoted;
    else if (text[i] === '\n' && !quoted) {
      out.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  return out;
}

describe('--safe-csv', () => {
  it('formula-like cells get a leading quote mark in CSV (main output and split files); other formats keep data', async () => {
    const dir = join(home.dir, 'split');
    const file = await list(['name,phone,email', '=HYPERLINK("http://x"),+44 20 7946,jo@example.com', '@SUM(A1),-1,al@example.com'], 'f.csv');
    const r = await run(['emails', file, '--sandbox', '-q', '--keep-columns', '--safe-csv', '--split', dir]);
    const expected = `name,phone,email,status\n"'=HYPERLINK(""http://x"")",'+44 20 7946,jo@example.com,ok\n'@SUM(A1),'-1,al@example.com,ok\n`;
    expect(r.stdout).toBe(expected);
    expect(await readFile(join(dir, 'ok.csv'), 'utf8')).toBe(expected);
    const plain = await run(['emails', file, '--sandbox', '-q', '--keep-columns']);
    expect(plain.stdout).toBe('name,phone,email,status\n"=HYPERLINK(""http://x"")",+44 20 7946,jo@example.com,ok\n@SUM(A1),-1,al@example.com,ok\n');
    const json = await run(['emails', file, '--sandbox', '-q', '--keep-columns', '--safe-csv', '-f', 'ndjson']);
    expect(json.stdout.split('\n')[0]).toBe('{"name":"=HYPERLINK(\\"http://x\\")","phone":"+44 20 7946","email":"jo@example.com","status":"ok"}');
  });
});
