// End-to-end tests of what a person sees on a terminal: the built idv (bin/idv.js) run under a
// pseudo-terminal made by util-linux `script`, against a sandbox started in this process.
//
//   script -qfec "<command line>" /dev/null
//
// runs the command with stdin, stdout and stderr on a pty; everything it prints comes back merged on
// script's stdout, with \r\n line ends (the pty's onlcr). To check that stdout and stderr are kept apart,
// some command lines redirect one of them to a file inside the command line itself.
//
// The pty is given a size with `stty cols … rows …` before idv starts: a pty that `script` makes without
// a controlling terminal of its own is 0×0, and Node reports such a stream's `columns` as 0 (see the
// "0-column pty" test at the end).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa, type Result } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter as PATH_SEP, join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { fixture, IDV, makeHome, ROOT, sandbox, sentBatches, sentItems, type Home } from './helpers.js';
import type { TestSandboxOptions } from './sandbox/test-sandbox.js';

// ---------------------------------------------------------------------------------------------
// Is `script` (util-linux) here? Say so loudly when it is not: these tests are the only check of the
// terminal behaviours.
function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(PATH_SEP)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}
const SCRIPT = findOnPath('script');
const hasScript = SCRIPT !== null;
if (!hasScript) {
  console.warn(
    '\n*** test/e2e-tty.test.ts: SKIPPED — util-linux `script` is not on PATH, so the terminal ' +
      'behaviours (table, colour, spinner, --wait countdown, Ctrl-C) are NOT tested. ' +
      'Install util-linux (Debian: bsdutils) to run them. ***\n',
  );
}

// ---------------------------------------------------------------------------------------------
// ANSI escape codes.
const ESC = '\x1b';
/** SGR (colour, bold…) sequences: ESC [ params m. */
const SGR = /\x1b\[[0-9;]*m/g;
/** Any CSI sequence (SGR, cursor moves, line clears, private modes like ?25l / ?2026h). */
const CSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
const stripSgr = (s: string) => s.replace(SGR, '');
const stripAnsi = (s: string) => s.replace(CSI, '');
/** Frames of ora's default `dots` spinner. */
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** What only a live spinner writes: hide the cursor, go to column 1, clear the line. */
const SPINNER_CONTROL = [`${ESC}[?25l`, `${ESC}[1G`, `${ESC}[0K`];

// chalk level 1 (16 colours), as src/output/format.ts statusColour() chooses them.
const COLOUR: Record<string, string> = { ok: '32', alias: '36', disposable: '35', fake: '31', invalid: '90' };
const coloured = (status: string, text = status) => `${ESC}[${COLOUR[status]}m${text}${ESC}[39m`;
const bold = (text: string) => `${ESC}[1m${text}${ESC}[22m`;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The run's elapsed time in the summary: `2.4 s` under ten seconds, `12s`, `1m 5s` from there (a busy machine). */
const ELAPSED = '(?:\\d+\\.\\d s|\\d+m \\d+s|\\d+[ms])';
const crlf = (s: string) => s.replace(/\n/g, '\r\n');
/** The lines the spinner drew: each frame's text between the escapes that clear and redraw it. */
const spinnerLines = (transcript: string) =>
  transcript
    .replace(CSI, '\n')
    .split(/\r?\n|\r/)
    .filter((l) => FRAMES.includes(l[0] ?? '') && l[1] === ' ');

// ---------------------------------------------------------------------------------------------
// The harness.

/** Single-quote a word for sh. Every word here is a repo path, a temp path or a fixed flag. */
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

interface TtyRun {
  /** idv's arguments (after `node bin/idv.js`). */
  args: string[];
  env: Record<string, string>;
  /** Redirections appended to the command line, e.g. `2>${q(path)}`. */
  redirect?: string;
  /** Terminal size set with stty before idv starts (null: leave the pty as script makes it). */
  size?: { cols: number; rows: number } | null;
  /** Wrap idv as `timeout -s KILL N node …` (a hard stop for a run that may hang). */
  killAfterSeconds?: number;
  timeout?: number;
}

function commandLine(o: TtyRun): string {
  const size = o.size === undefined ? { cols: 100, rows: 40 } : o.size;
  const stty = size ? `stty cols ${size.cols} rows ${size.rows} && ` : '';
  const guard = o.killAfterSeconds ? `timeout -s KILL ${o.killAfterSeconds} ` : 'exec ';
  const idvWords = ['node', IDV, ...o.args].map(q).join(' ');
  return `${stty}${guard}${idvWords}${o.redirect ? ' ' + o.redirect : ''}`;
}

function scriptOptions(o: TtyRun, stdin: 'ignore' | 'pipe') {
  return {
    env: { TERM: 'xterm-256color', ...o.env },
    extendEnv: false,
    reject: false,
    cwd: ROOT,
    stdin,
    timeout: o.timeout ?? 20_000,
    stripFinalNewline: false,
    maxBuffer: 200_000_000,
  } as const;
}

/** Run idv on a pty; the result's stdout is the terminal transcript (idv's stdout and stderr merged). */
function onTty(o: TtyRun): Promise<Result> {
  return execa(SCRIPT ?? 'script', ['-qfec', commandLine(o), '/dev/null'], scriptOptions(o, 'ignore')) as unknown as Promise<Result>;
}

interface Ctx {
  home: Home;
  env: Record<string, string>;
  sb: Awaited<ReturnType<typeof sandbox>>['sb'];
  /** A path in this test's own temp folder. */
  path(name: string): string;
}

/** A fresh HOME (with its own XDG folders) and sandbox; both always removed. */
async function withSandbox<T>(opts: TestSandboxOptions, fn: (c: Ctx) => Promise<T>): Promise<T> {
  const home = await makeHome();
  try {
    const { sb, env } = await sandbox(opts, home);
    try {
      return await fn({ home, env, sb, path: (name) => join(home.dir, name) });
    } finally {
      await sb.close();
    }
  } finally {
    await home.cleanup();
  }
}

// ---------------------------------------------------------------------------------------------
// Expected output.

// fixtures/newsletter.csv: its `Email Address` column, trimmed, and the sandbox's status for each
// (fixtures/README.md: ok 6, alias 1, disposable 2, fake 1, invalid 1; 9 sent).
const NEWSLETTER = fixture('newsletter.csv');
const NEWSLETTER_EMAILS: string[] = (
  parseCsv(readFileSync(NEWSLETTER), { columns: true, bom: true }) as Array<Record<string, string>>
).map((r) => r['Email Address']!.trim());
const NEWSLETTER_STATUSES = ['ok', 'ok', 'alias', 'disposable', 'ok', 'fake', 'invalid', 'ok', 'ok', 'disposable', 'ok'];

/** The table idv prints: widths from the first 500 records, two spaces between columns. */
function expectedTable(emails: string[], statuses: string[], colour: boolean): string {
  const w = Math.max('EMAIL'.length, ...emails.slice(0, 500).map((e) => Math.min(60, e.length)));
  const head = 'EMAIL'.padEnd(w) + '  STATUS';
  const rows = emails.map((e, i) => e.padEnd(w) + '  ' + (colour ? coloured(statuses[i]!) : statuses[i]!));
  return [colour ? bold(head) : head, ...rows].map((l) => l + '\n').join('');
}

const expectedCsv = (emails: string[], statuses: string[]) =>
  'email,status\n' + emails.map((e, i) => `${e},${statuses[i]}\n`).join('');

/** A summary line on a terminal: name, count, share, and a bar of 20 cells (at least one) for the share. */
function summaryRow(colour: boolean, bars: boolean, s: string, rest: string, n: number, total: number): string {
  const cells = Math.max(1, Math.round((20 * n) / total));
  const shape = '█'.repeat(cells) + '░'.repeat(20 - cells);
  const bar = bars ? `  ${colour ? coloured(s, shape) : shape}` : '';
  return `  ${colour ? coloured(s, s.padEnd(10)) : s.padEnd(10)}  ${rest}${bar}\n`;
}

/** The summary's per-status lines for newsletter.csv. */
function newsletterSummaryRows(colour: boolean, bars: boolean): string {
  const row = (s: string, rest: string, n: number) => summaryRow(colour, bars, s, rest, n, 11);
  return (
    row('ok', '6   54.5%', 6) +
    row('alias', '1    9.1%', 1) +
    row('disposable', '2   18.2%', 2) +
    row('fake', '1    9.1%', 1) +
    row('invalid', '1    9.1%', 1)
  );
}

/**
 * The whole summary for newsletter.csv against a sandbox with the default quota (1,000 an hour) and an
 * empty cache, as a RegExp (elapsed time and reset time vary). `nl` is the line end: \r\n on the pty.
 * Not on a terminal (`at80`), its last line is cut where it would pass 80 columns.
 */
function newsletterSummary(colour: boolean, nl: '\n' | '\r\n', bars = nl === '\r\n', at80 = false): RegExp {
  const body =
    '11 records in @TIME@\n' +
    newsletterSummaryRows(colour, bars) +
    `0 items from the cache · 9 items sent in 1 request${at80 ? '\n' : ' · '}quota left 991 of 1,000, resets in @RESET@\n`;
  const text = escapeRe(nl === '\r\n' ? crlf(body) : body)
    .replace('@TIME@', ELAPSED)
    .replace('@RESET@', '(?:\\d+[hms] ?)+');
  return new RegExp(text);
}

// A list big enough for the spinner to turn: 3,000 distinct addresses.
const BIG_EMAILS = Array.from({ length: 3000 }, (_, i) =>
  i % 10 === 0 ? `user${i}+tag@example.com` : i % 10 === 1 ? `user${i}@mailinator.com` : `user${i}@example.com`,
);
const BIG_STATUSES = BIG_EMAILS.map((_, i) => (i % 10 === 0 ? 'alias' : i % 10 === 1 ? 'disposable' : 'ok'));
/** Run with --batch-size 100 --concurrency 1 against an unlimited sandbox (no quota line). */
function bigSummary(colour: boolean, bars: boolean): RegExp {
  const row = (s: string, rest: string, n: number) => summaryRow(colour, bars, s, rest, n, 3000);
  const body =
    '3,000 records in @TIME@\n' +
    row('ok', '2,400   80.0%', 2400) +
    row('alias', '  300   10.0%', 300) +
    row('disposable', '  300   10.0%', 300) +
    '0 items from the cache · 3,000 items sent in 30 requests\n';
  return new RegExp('^' + escapeRe(body).replace('@TIME@', ELAPSED) + '$');
}
const BIG_ARGS = ['--batch-size', '100', '--concurrency', '1'];
/** 30 sequential requests of 60 ms each: at least 1.8 s, so the spinner turns several times (few requests: cheap on a busy machine). */
const BIG_SANDBOX: TestSandboxOptions = { quota: 0, delayMs: 60 };

let bigList = '';
let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'idv-tty-'));
  bigList = join(scratch, 'big.txt');
  await writeFile(bigList, BIG_EMAILS.join('\n') + '\n');
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Concurrent: each test has its own pty, HOME and sandbox, and most of a test's time is waiting (a quota
// window, slow answers), so running them one after another only added those waits up.
describe.skipIf(!hasScript)('on a terminal (util-linux script)', { concurrent: true }, () => {
  it('the harness really gives idv a terminal of the size asked for', async () => {
    const r = await execa(
      SCRIPT ?? 'script',
      ['-qfec', `stty cols 100 rows 40 && node -e ${q('for (const s of [process.stdin, process.stdout, process.stderr]) process.stdout.write(`${Boolean(s.isTTY)} ${s.columns} ${s.rows}\\n`)')}`, '/dev/null'],
      scriptOptions({ args: [], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, 'ignore'),
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('true undefined undefined\r\ntrue 100 40\r\ntrue 100 40\r\n');
  });

  // 1 ----------------------------------------------------------------------------------------
  it('idv emails FILE: a coloured, aligned table in input order, a spinner, then a coloured summary; exit 0', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await onTty({ args: ['emails', NEWSLETTER], env });
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      const out = r.stdout as string;

      // The table, exactly: bold header, one row per record in input order, status in its colour.
      const table = crlf(expectedTable(NEWSLETTER_EMAILS, NEWSLETTER_STATUSES, true));
      expect(table).toContain(`${ESC}[32mok${ESC}[39m`); // the expectation itself is coloured
      expect(out).toContain(table);
      expect(out.split('EMAIL').length - 1).toBe(1); // one header

      // Then the summary (coloured status names), after the table.
      const summary = newsletterSummary(true, '\r\n').exec(out);
      expect(summary, 'coloured summary on the terminal').not.toBeNull();
      expect(summary!.index).toBeGreaterThan(out.indexOf(table));
      expect(out.slice(summary!.index + summary![0].length)).toMatch(/^(\x1b\[\?25h)?$/); // nothing after it but "show cursor"

      // A spinner ran on stderr (the terminal) and was cleared before the summary.
      expect(out.startsWith(`${ESC}[?25l`)).toBe(true);
      expect(FRAMES.some((f) => out.includes(f))).toBe(true);

      expect([...sentItems(sb)].sort()).toEqual(
        [...new Set(NEWSLETTER_EMAILS.filter((_, i) => NEWSLETTER_STATUSES[i] !== 'invalid').map((e) => e.replace(/@(.*)$/, (_m, d: string) => '@' + d.toLowerCase())))].sort(),
      );
    });
  });

  // 2 ----------------------------------------------------------------------------------------
  const noColour: Array<[string, string[], Record<string, string>]> = [
    ['--no-color', ['--no-color'], {}],
    ['NO_COLOR=1', [], { NO_COLOR: '1' }],
    ['FORCE_COLOR=0', [], { FORCE_COLOR: '0' }],
  ];
  it.each(noColour)('%s: the same table and summary without a single colour code', async (_name, flags, extra) => {
    await withSandbox({}, async ({ env }) => {
      const r = await onTty({ args: ['emails', NEWSLETTER, ...flags], env: { ...env, ...extra } });
      expect(r.exitCode).toBe(0);
      const out = r.stdout as string;
      // No SGR at all: not in the table (header not bold), not in the summary, not in the spinner.
      expect(out.match(SGR)).toBeNull();
      // Still a table (colour off does not mean table off) and still the summary.
      expect(out).toContain(crlf(expectedTable(NEWSLETTER_EMAILS, NEWSLETTER_STATUSES, false)));
      expect(out).toMatch(newsletterSummary(false, '\r\n'));
      // Progress is still on (stderr is a terminal): its cursor codes are the only escapes left.
      expect(FRAMES.some((f) => out.includes(f))).toBe(true);
      for (const c of SPINNER_CONTROL) expect(out).toContain(c);
    });
  });

  it('FORCE_COLOR=1 with stdout a file: the file is plain CSV (format follows the terminal, not colour); the summary on the terminal is coloured', async () => {
    await withSandbox({}, async ({ env, path }) => {
      const outFile = path('out.txt');
      const r = await onTty({ args: ['emails', NEWSLETTER], env: { ...env, FORCE_COLOR: '1' }, redirect: `>${q(outFile)}` });
      expect(r.exitCode).toBe(0);
      expect(await readFile(outFile, 'utf8')).toBe(expectedCsv(NEWSLETTER_EMAILS, NEWSLETTER_STATUSES));
      const out = r.stdout as string;
      expect(out).toMatch(newsletterSummary(true, '\r\n'));
      expect(out).not.toContain('EMAIL');
    });
  });

  it('FORCE_COLOR=1 with stderr a file: the summary in the file is coloured as forced, with no spinner in it', async () => {
    await withSandbox({}, async ({ env, path }) => {
      const errFile = path('err.txt');
      const r = await onTty({ args: ['emails', NEWSLETTER], env: { ...env, FORCE_COLOR: '1' }, redirect: `2>${q(errFile)}` });
      expect(r.exitCode).toBe(0);
      const err = await readFile(errFile, 'utf8');
      expect(err).toMatch(new RegExp('^' + newsletterSummary(true, '\n', false, true).source + '$'));
      expect(stripSgr(err)).not.toContain(ESC);
      expect(r.stdout).toBe(crlf(expectedTable(NEWSLETTER_EMAILS, NEWSLETTER_STATUSES, true)));
    });
  });

  // 3 ----------------------------------------------------------------------------------------
  it('spinner: 3,000 addresses with stderr on the terminal show ora frames and "Validating N of 3,000", then the summary', async () => {
    await withSandbox(BIG_SANDBOX, async ({ sb, env, path }) => {
      const outFile = path('out.csv');
      const r = await onTty({ args: ['emails', bigList, ...BIG_ARGS], env, redirect: `>${q(outFile)}` });
      expect(r.exitCode).toBe(0);
      const out = r.stdout as string;
      // Several distinct spinner frames (the run lasts well over a second; ora turns every 80 ms).
      expect(FRAMES.filter((f) => out.includes(f)).length).toBeGreaterThanOrEqual(2);
      // The count of records grows as the list is read (reading is held back while requests queue up).
      expect(out).toMatch(/Validating [\d,]+ of ~?3,000 · \d+%/);
      const doneCounts = new Set([...out.matchAll(/Validating ([\d,]+) of ~?3,000/g)].map((m) => m[1]));
      expect(doneCounts.size).toBeGreaterThanOrEqual(2); // it moves
      for (const c of SPINNER_CONTROL) expect(out).toContain(c);
      // The spinner is gone when the summary is written: the summary is the last thing on the terminal,
      // whole lines, with no frame after it.
      const plain = stripAnsi(out).replace(/\r\n/g, '\n');
      const at = plain.indexOf('3,000 records in ');
      expect(at).toBeGreaterThan(0);
      expect(plain.slice(at)).toMatch(bigSummary(false, true));
      expect(out).toContain(`  ${coloured('ok', 'ok'.padEnd(10))}  2,400   80.0%  ${coloured('ok', '█'.repeat(16) + '░'.repeat(4))}\r\n`); // coloured on the terminal
      expect(FRAMES.some((f) => plain.slice(at).includes(f))).toBe(false);
      // The whole list was validated, each item once.
      expect(sentItems(sb)).toHaveLength(3000);
      expect(sentBatches(sb)).toHaveLength(30);
      // 4: stdout is a file: exact CSV, nothing of the progress in it.
      expect(await readFile(outFile, 'utf8')).toBe(expectedCsv(BIG_EMAILS, BIG_STATUSES));
    });
  });

  it('progress at 80 columns: done of the total, percentage, rate and time left on one line that fits', async () => {
    // 30 requests of 100 ms one after another: 3 s, so the rate (told after a second) and the time left show.
    await withSandbox({ quota: 0, delayMs: 100 }, async ({ env, path }) => {
      const r = await onTty({ args: ['emails', bigList, ...BIG_ARGS], env, redirect: `>${q(path('out.csv'))}`, size: { cols: 80, rows: 24 } });
      expect(r.exitCode).toBe(0);
      const drawn = spinnerLines(r.stdout as string);
      expect(drawn.length).toBeGreaterThanOrEqual(5);
      for (const line of drawn) expect([...line].length, line).toBeLessThanOrEqual(79);
      const full = drawn.filter((l) => /^. Validating [\d,]+ of ~?3,000 · \d+% · [\d,.]+\/s · \d+s left$/.test(l));
      expect(full.length, drawn.join('\n')).toBeGreaterThanOrEqual(1);
    });
  });

  it('spinner: -q shows no progress and no summary (the terminal stays blank; the CSV is whole)', async () => {
    await withSandbox(BIG_SANDBOX, async ({ env, path }) => {
      const outFile = path('out.csv');
      const r = await onTty({ args: ['emails', bigList, ...BIG_ARGS, '-q'], env, redirect: `>${q(outFile)}` });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('');
      expect(await readFile(outFile, 'utf8')).toBe(expectedCsv(BIG_EMAILS, BIG_STATUSES));
    });
  });

  it('spinner: -q with the table on the terminal prints the table and nothing else', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await onTty({ args: ['emails', NEWSLETTER, '-q'], env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(crlf(expectedTable(NEWSLETTER_EMAILS, NEWSLETTER_STATUSES, true)));
    });
  });

  it('spinner: stderr a file (not a terminal): the file holds the plain summary, no frames, no cursor codes; the table stays on the terminal', async () => {
    await withSandbox(BIG_SANDBOX, async ({ env, path }) => {
      const errFile = path('err.txt');
      const r = await onTty({ args: ['emails', bigList, ...BIG_ARGS], env, redirect: `2>${q(errFile)}` });
      expect(r.exitCode).toBe(0);
      const err = await readFile(errFile, 'utf8');
      expect(err).toMatch(bigSummary(false, false)); // exact, uncoloured (stderr is not a terminal)
      expect(err).not.toContain(ESC);
      expect(FRAMES.some((f) => err.includes(f))).toBe(false);
      // The terminal: the coloured table (aligned on the first 500 records) and nothing else.
      const out = r.stdout as string;
      expect(out).toBe(crlf(expectedTable(BIG_EMAILS, BIG_STATUSES, true)));
      expect(stripSgr(out)).not.toContain(ESC);
      expect(out).not.toContain('Validating');
    });
  });

  // 4 ----------------------------------------------------------------------------------------
  it('stdout a file, stderr the terminal: the file is exact CSV; spinner and summary only on the terminal', async () => {
    await withSandbox({}, async ({ env, path }) => {
      const outFile = path('out.txt');
      const r = await onTty({ args: ['emails', NEWSLETTER], env, redirect: `>${q(outFile)}` });
      expect(r.exitCode).toBe(0);
      const csv = await readFile(outFile, 'utf8');
      expect(csv).toBe(expectedCsv(NEWSLETTER_EMAILS, NEWSLETTER_STATUSES));
      const out = r.stdout as string;
      expect(out).toMatch(newsletterSummary(true, '\r\n'));
      for (const c of SPINNER_CONTROL) expect(out).toContain(c);
      expect(out).not.toContain('EMAIL');
      expect(out).not.toContain('email,status');
      expect(out).not.toContain('james.wright');
    });
  });

  // 5 ----------------------------------------------------------------------------------------
  it('--wait: a countdown on the terminal while the quota resets, then every record validated; each item sent once; exit 0', async () => {
    await withSandbox({ quota: 5, window: 2 }, async ({ sb, env, path }) => {
      const list = path('eight.txt');
      const emails = Array.from({ length: 8 }, (_, i) => `person${i + 1}@example.com`);
      await writeFile(list, emails.join('\n') + '\n');
      // One request at a time and batches of 5, so that no item is sent while the quota is used up.
      const r = await onTty({ args: ['emails', list, '--wait', '--batch-size', '5', '--concurrency', '1'], env, timeout: 25_000 });
      expect(r.exitCode).toBe(0);
      const out = r.stdout as string;
      expect(out).toMatch(/Quota used up; waiting \d+s for it to reset \(at \d\d:\d\d UTC\), as --wait asks\./);
      expect(out).toContain(crlf(expectedTable(emails, emails.map(() => 'ok'), true)));
      expect(out).not.toContain('quota_exceeded');
      expect(stripAnsi(out)).toMatch(new RegExp(`8 records in ${ELAPSED}\\r\\n {2}ok {6}8 {2}100\\.0% {2}█{20}\\r\\n0 items from the cache · 8 items sent in 2 requests · quota left`));
      expect([...sentItems(sb)].sort()).toEqual([...emails].sort());
      expect(sentBatches(sb).map((b) => b.length)).toEqual([5, 3]);
    });
  });

  it('--wait with the defaults (batch 100, concurrency 4): countdown, then all 8 validated; only the 3 refused are sent again', async () => {
    await withSandbox({ quota: 5, window: 2 }, async ({ sb, env, path }) => {
      const list = path('eight.txt');
      const emails = Array.from({ length: 8 }, (_, i) => `person${i + 1}@example.com`);
      await writeFile(list, emails.join('\n') + '\n');
      const r = await onTty({ args: ['emails', list, '--wait'], env, timeout: 25_000 });
      expect(r.exitCode).toBe(0);
      const out = r.stdout as string;
      expect(out).toMatch(/Quota used up; waiting \d+s for it to reset/);
      expect(out).toContain(crlf(expectedTable(emails, emails.map(() => 'ok'), true)));
      const batches = sentBatches(sb);
      expect(batches).toHaveLength(2);
      expect(batches[0]).toEqual(emails); // 5 validated, 3 answered quota_exceeded…
      expect(batches[1]).toEqual(emails.slice(5)); // …and only those 3 sent again after the reset
    });
  });

  // 6 ----------------------------------------------------------------------------------------
  it('Ctrl-C on the terminal: exit 130, a one-line message, no stack trace, no table', async () => {
    // Slow answers, so that the run is surely in flight when ^C is typed.
    await withSandbox({ delayMs: 1500 }, async ({ env, path }) => {
      const list = path('twenty.txt');
      await writeFile(list, Array.from({ length: 20 }, (_, i) => `person${i + 1}@example.com`).join('\n') + '\n');
      const run: TtyRun = { args: ['emails', list, '--batch-size', '5', '--concurrency', '1'], env };
      const child = execa(SCRIPT ?? 'script', ['-qfec', commandLine(run), '/dev/null'], scriptOptions(run, 'pipe'));
      // Wait until the first answer is counted on the terminal (the second request is then in flight)…
      await new Promise<void>((resolve, reject) => {
        let seen = '';
        const timer = setTimeout(() => reject(new Error(`no progress within 10 s; saw ${JSON.stringify(seen)}`)), 10_000);
        child.stdout!.on('data', (b: Buffer) => {
          seen += b.toString();
          if (/Validating 5 of ~?20\b/.test(seen)) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      // …then type ^C: the pty's line discipline turns it into SIGINT for the foreground process (idv).
      child.stdin!.write('\x03');
      const r = (await child) as unknown as Result;
      const out = r.stdout as string;
      expect(r.exitCode).toBe(130);
      const plain = stripAnsi(out);
      expect(plain).toContain('idv: Interrupted (SIGINT); results received so far are kept in the cache.');
      expect(plain).not.toMatch(/^\s+at /m); // no stack trace
      expect(plain).not.toMatch(/Error:/);
      expect(plain).not.toContain('EMAIL'); // nothing more on stdout
      expect(plain).not.toMatch(/records in/); // no summary
    });
  });

  // A pty of 0×0 (what `script` makes when it has no terminal of its own, as in CI or cron; also some
  // container and serial consoles) has `columns` 0. ora 9 computes the lines to clear as
  // ceil(width / columns) = Infinity and its clear() loops forever writing ESC[1A ESC[0K: idv hung at 100% CPU
  // and ignored SIGINT/SIGTERM. idv now shows no spinner on a terminal without a width.
  it('on a 0-column pty the run ends (no spinner there: ora would loop forever)', async () => {
    await withSandbox({}, async ({ env, path }) => {
      const outFile = path('out.txt');
      // `timeout -s KILL 15` is the hard stop: the hung node ignores anything gentler.
      const r = await onTty({ args: ['emails', NEWSLETTER], env, size: null, killAfterSeconds: 15, redirect: `>${q(outFile)}` });
      expect(r.exitCode).toBe(0);
      expect(await readFile(outFile, 'utf8')).toBe(expectedCsv(NEWSLETTER_EMAILS, NEWSLETTER_STATUSES));
    });
  });
});
