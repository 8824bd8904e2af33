// The progress line's numbers are true: on a regular file the total is counted ahead (exact, no `~`, long
// before the file is read), the rate is of items sent and the time left is theirs (cache hits cost no time),
// and a run's summary names only what happened (no cache line without a cache). Run on a real terminal (a pty
// made by util-linux `script`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasScript, onTty, spinnerLines, stripAnsi, withSandbox } from './terminal-harness.js';
import { onlyOn } from '../platforms.js';

const LINES = 50_000;
let scratch = '';
let list = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'idv-totals-'));
  list = join(scratch, 'fifty-thousand.txt');
  await writeFile(list, Array.from({ length: LINES }, (_, i) => `user${i}@example.com`).join('\n') + '\n');
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const pct = (line: string) => Number(/ (\d+)% /.exec(line)?.[1] ?? -1);

onlyOn('script').describe.skipIf(!hasScript)('true numbers on a terminal', { concurrent: true }, () => {
  it('a regular file of exactly 50,000 lines: past the first moments, the total is 50,000, not ~52,900', async () => {
    await withSandbox({ quota: 0, delayMs: 50 }, async ({ env, path }) => {
      const r = await onTty({ args: ['emails', list, '--batch-size', '1000', '--concurrency', '1'], env, redirect: `>${JSON.stringify(path('out.csv'))}`, size: { cols: 100, rows: 24 } });
      expect(r.exitCode).toBe(0);
      const drawn = spinnerLines(r.stdout as string).filter((l) => / of ~?[\d,]+ · \d+%/.test(l));
      // Reading waits on sending (a bounded window), so the file is read whole only near the end: every line
      // past a fifth of the run was drawn while it was still being read, and each names the exact total.
      const later = drawn.filter((l) => pct(l) >= 20);
      expect(later.length, drawn.join('\n')).toBeGreaterThan(0);
      for (const line of later) expect(line).toMatch(/ of 50,000 · /);
    });
  });

  it('the summary of a --sandbox run says nothing of a cache it does not use', async () => {
    const r = await onTty({ args: ['emails', '--sandbox', '-i', 'ann@example.com', '-f', 'csv'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch } });
    expect(r.exitCode).toBe(0);
    const text = stripAnsi(r.stdout as string);
    expect(text).toMatch(/1 item sent in 1 request/);
    expect(text).not.toMatch(/from the cache/);
  });
});
