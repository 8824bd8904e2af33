// The harness of the terminal tests (test/e2e/terminal.test.ts): the built idv run under a pseudo-terminal made by
// util-linux `script`, the escape codes it may write, and the table and summary expected on fixtures/newsletter.csv.
import { execa, type Result } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter as PATH_SEP, join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { ELAPSED, fixture, IDV, makeHome, ROOT, sandbox, type Home } from '../helpers.js';
import type { TestSandboxOptions } from '../sandbox/test-sandbox.js';

// ---------------------------------------------------------------------------------------------
// Is `script` (util-linux) here? Say so loudly when it is not: these tests are the only check of the
// terminal behaviours.
export function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(PATH_SEP)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}
export const SCRIPT = findOnPath('script');
export const hasScript = SCRIPT !== null;
if (!hasScript) {
  console.warn(
    '\n*** test/e2e/terminal.test.ts: SKIPPED — util-linux `script` is not on PATH, so the terminal ' +
      'behaviours (table, colour, spinner, --wait countdown, Ctrl-C) are NOT tested. ' +
      'Install util-linux (Debian: bsdutils) to run them. ***\n',
  );
}

// ---------------------------------------------------------------------------------------------
// ANSI escape codes.
export const ESC = '\x1b';
/** SGR (colour, bold…) sequences: ESC [ params m. */
export const SGR = /\x1b\[[0-9;]*m/g;
/** Any CSI sequence (SGR, cursor moves, line clears, private modes like ?25l / ?2026h). */
export const CSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
export const stripSgr = (s: string) => s.replace(SGR, '');
export const stripAnsi = (s: string) => s.replace(CSI, '');
/** Frames of ora's default `dots` spinner. */
export const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** What only a live spinner writes: hide the cursor, go to column 1, clear the line. */
export const SPINNER_CONTROL = [`${ESC}[?25l`, `${ESC}[1G`, `${ESC}[0K`];

// chalk level 1 (16 colours), as src/output/format.ts statusColour() chooses them.
export const COLOUR: Record<string, string> = { ok: '32', alias: '36', disposable: '35', fake: '31', invalid: '90' };
export const coloured = (status: string, text = status) => `${ESC}[${COLOUR[status]}m${text}${ESC}[39m`;
export const bold = (text: string) => `${ESC}[1m${text}${ESC}[22m`;

export const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
export { ELAPSED } from '../helpers.js';
export const crlf = (s: string) => s.replace(/\n/g, '\r\n');
/** The lines the spinner drew: each frame's text between the escapes that clear and redraw it. */
export const spinnerLines = (transcript: string) =>
  transcript
    .replace(CSI, '\n')
    .split(/\r?\n|\r/)
    .filter((l) => FRAMES.includes(l[0] ?? '') && l[1] === ' ');

// ---------------------------------------------------------------------------------------------
// The harness.

/** Single-quote a word for sh. Every word here is a repo path, a temp path or a fixed flag. */
export const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface TtyRun {
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

export function commandLine(o: TtyRun): string {
  const size = o.size === undefined ? { cols: 100, rows: 40 } : o.size;
  const stty = size ? `stty cols ${size.cols} rows ${size.rows} && ` : '';
  const guard = o.killAfterSeconds ? `timeout -s KILL ${o.killAfterSeconds} ` : 'exec ';
  const idvWords = ['node', IDV, ...o.args].map(q).join(' ');
  return `${stty}${guard}${idvWords}${o.redirect ? ' ' + o.redirect : ''}`;
}

export function scriptOptions(o: TtyRun, stdin: 'ignore' | 'pipe') {
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
export function onTty(o: TtyRun): Promise<Result> {
  return execa(SCRIPT ?? 'script', ['-qfec', commandLine(o), '/dev/null'], scriptOptions(o, 'ignore')) as unknown as Promise<Result>;
}

export interface Ctx {
  home: Home;
  env: Record<string, string>;
  sb: Awaited<ReturnType<typeof sandbox>>['sb'];
  /** A path in this test's own temp folder. */
  path(name: string): string;
}

/** A fresh HOME (with its own XDG folders) and sandbox; both always removed. */
export async function withSandbox<T>(opts: TestSandboxOptions, fn: (c: Ctx) => Promise<T>): Promise<T> {
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
export const NEWSLETTER = fixture('newsletter.csv');
export const NEWSLETTER_EMAILS: string[] = (
  parseCsv(readFileSync(NEWSLETTER), { columns: true, bom: true }) as Array<Record<string, string>>
).map((r) => r['Email Address']!.trim());
export const NEWSLETTER_STATUSES = ['ok', 'ok', 'alias', 'disposable', 'ok', 'fake', 'invalid', 'ok', 'ok', 'disposable', 'ok'];

/** The table idv prints: widths from the first 500 records, two spaces between columns. */
export function expectedTable(emails: string[], statuses: string[], colour: boolean): string {
  const w = Math.max('EMAIL'.length, ...emails.slice(0, 500).map((e) => Math.min(60, e.length)));
  const head = 'EMAIL'.padEnd(w) + '  STATUS';
  const rows = emails.map((e, i) => e.padEnd(w) + '  ' + (colour ? coloured(statuses[i]!) : statuses[i]!));
  return [colour ? bold(head) : head, ...rows].map((l) => l + '\n').join('');
}

export const expectedCsv = (emails: string[], statuses: string[]) =>
  'email,status\n' + emails.map((e, i) => `${e},${statuses[i]}\n`).join('');

/** A summary line on a terminal: name, count, share, and a bar of 20 cells (at least one) for the share. */
export function summaryRow(colour: boolean, bars: boolean, s: string, rest: string, n: number, total: number): string {
  const cells = Math.max(1, Math.round((20 * n) / total));
  const shape = '█'.repeat(cells) + '░'.repeat(20 - cells);
  const bar = bars ? `  ${colour ? coloured(s, shape) : shape}` : '';
  return `  ${colour ? coloured(s, s.padEnd(10)) : s.padEnd(10)}  ${rest}${bar}\n`;
}

/** The summary's per-status lines for newsletter.csv. */
export function newsletterSummaryRows(colour: boolean, bars: boolean): string {
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
export function newsletterSummary(colour: boolean, nl: '\n' | '\r\n', bars = nl === '\r\n', at80 = false): RegExp {
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
export const BIG_EMAILS = Array.from({ length: 3000 }, (_, i) =>
  i % 10 === 0 ? `user${i}+tag@example.com` : i % 10 === 1 ? `user${i}@mailinator.com` : `user${i}@example.com`,
);
export const BIG_STATUSES = BIG_EMAILS.map((_, i) => (i % 10 === 0 ? 'alias' : i % 10 === 1 ? 'disposable' : 'ok'));
/** Run with --batch-size 100 --concurrency 1 against an unlimited sandbox (no quota line). */
export function bigSummary(colour: boolean, bars: boolean): RegExp {
  const row = (s: string, rest: string, n: number) => summaryRow(colour, bars, s, rest, n, 3000);
  const body =
    '3,000 records in @TIME@\n' +
    row('ok', '2,400   80.0%', 2400) +
    row('alias', '  300   10.0%', 300) +
    row('disposable', '  300   10.0%', 300) +
    '0 items from the cache · 3,000 items sent in 30 requests\n';
  return new RegExp('^' + escapeRe(body).replace('@TIME@', ELAPSED) + '$');
}
export const BIG_ARGS = ['--batch-size', '100', '--concurrency', '1'];
/** 30 sequential requests of 60 ms each: at least 1.8 s, so the spinner turns several times (few requests: cheap on a busy machine). */
export const BIG_SANDBOX: TestSandboxOptions = { quota: 0, delayMs: 60 };
