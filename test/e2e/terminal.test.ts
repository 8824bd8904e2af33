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
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sentBatches, sentItems } from '../helpers.js';
import { SCRIPT, hasScript, ESC, SGR, stripSgr, stripAnsi, FRAMES, SPINNER_CONTROL, coloured, ELAPSED, crlf, spinnerLines, q, type TtyRun, commandLine, scriptOptions, onTty, withSandbox, NEWSLETTER, NEWSLETTER_EMAILS, NEWSLETTER_STATUSES, expectedTable, expectedCsv, newsletterSummary, BIG_EMAILS, BIG_STATUSES, bigSummary, BIG_ARGS, BIG_SANDBOX } from './terminal-harness.js';
import { onlyOn } from '../platforms.js';

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
onlyOn('script').describe('on a terminal (util-linux script)', { concurrent: true }, () => {
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

  it('-o /dev/tty writes the CSV to the terminal in place (through node:tty)', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await onTty({ args: ['emails', NEWSLETTER, '-q', '-o', '/dev/tty'], env, redirect: '>/dev/null' });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(crlf(expectedCsv(NEWSLETTER_EMAILS, NEWSLETTER_STATUSES)));
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
      const full = drawn.filter((l) => /^. Validating [\d,]+ of ~?3,000 · \d+% · [\d,.]+ sent\/s · \d+s left$/.test(l));
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
    // The first batch answered, the second held: the run is surely in flight when ^C is typed.
    await withSandbox({}, async ({ sb, env, path }) => {
      const release = sb.hold(1);
      const list = path('twenty.txt');
      await writeFile(list, Array.from({ length: 20 }, (_, i) => `person${i + 1}@example.com`).join('\n') + '\n');
      const run: TtyRun = { args: ['emails', list, '--batch-size', '5', '--concurrency', '1'], env };
      const child = execa(SCRIPT ?? 'script', ['-qfec', commandLine(run), '/dev/null'], scriptOptions(run, 'pipe'));
      // Wait until the first answer is counted on the terminal (the second request is then in flight)…
      await new Promise<void>((resolve, reject) => {
        let seen = '';
        const timer = setTimeout(() => reject(new Error(`no progress within 20 s; saw ${JSON.stringify(seen)}`)), 20_000); // only to stop a hang
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
      const r = (await child.finally(release)) as unknown as Result;
      const out = r.stdout as string;
      expect(r.exitCode).toBe(130);
      const plain = stripAnsi(out);
      expect(plain).toMatch(/idv: Interrupted \(SIGINT\): [\s\S]*To (go on without paying for them again|run it again): idv\s+emails/m);
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
