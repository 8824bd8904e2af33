// Large lists end and cost what their size costs: reading, dispatch and writing never all wait on each other (a
// part-filled batch is not held back while 50,000 records wait for output), and a 32 MB line without a line
// break is one record (what it costs is `npm run bench`'s).
import { describe, expect, it } from 'vitest';
import { writeFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sandbox, sentBatches, homeForEachTest, addresses } from '../helpers.js';
import { run } from '../fake-io.js';
import { cacheDir, openScope } from '../../src/cache/store.js';

const home = homeForEachTest();

describe('reading, dispatch and writing never all wait on each other', () => {
  it('60,000 lines holding 50 distinct addresses: every record written, one request of 50', async () => {
    const { sb, env } = await sandbox({ quota: 0 }, home);
    try {
      const lines = Array.from({ length: 60_000 }, (_, i) => `p${i % 50}@example.com`);
      const r = await run(['emails', '-', '-q'], { env, input: lines.join('\n') + '\n' });
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\n' + lines.map((l) => `${l},ok\n`).join(''));
      expect(sentBatches(sb).map((b) => b.length)).toEqual([50]);
    } finally {
      await sb.close();
    }
  });

  it('80,000 cached addresses with 30 new ones sorted among them: every record written, the 30 sent once', async () => {
    const { sb, env } = await sandbox({ quota: 0 }, home);
    try {
      const cached = Array.from({ length: 80_000 }, (_, i) => `c${String(i).padStart(6, '0')}@example.com`);
      const fresh = Array.from({ length: 30 }, (_, i) => `n${String(i).padStart(2, '0')}@example.com`);
      const scope = openScope(cacheDir(env), sb.url, '/emails/validate', 7 * 86400);
      (await scope.load()).results.close(); // creates the log
      scope.append(cached.map((c) => [c, 'ok']));
      // The new ones sit among the cached (a sorted export with new sign-ups), more than 50,000 records before its end.
      const all = [...cached.slice(0, 10_000), ...fresh.slice(0, 20), ...cached.slice(10_000, 20_000), ...fresh.slice(20), ...cached.slice(20_000)];
      const file = join(home.dir, 'export.csv');
      await writeFile(file, 'email\n' + all.join('\n') + '\n');
      const r = await run(['emails', file, '-q', '-o', join(home.dir, 'out.csv')], { env });
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      const { readFile } = await import('node:fs/promises');
      const out = await readFile(join(home.dir, 'out.csv'), 'utf8');
      expect(out).toBe('email,status\n' + all.map((l) => `${l},ok\n`).join(''));
      expect(sentBatches(sb).flat().sort()).toEqual(fresh);
    } finally {
      await sb.close();
    }
  });
});

describe('a 32 MB line without a line break', () => {
  // What it costs against 32 MB of lines is a figure of `npm run bench` (long line): no test times a machine.
  it('is read as one record (invalid: it cannot be an address), beside a list of 32 MB of 1 KB lines read whole', async () => {
    const MB = 1024 * 1024;
    const oneLine = join(home.dir, 'one-line.txt');
    await writeFile(oneLine, 'a'.repeat(32 * MB));
    const lines = join(home.dir, 'lines.txt');
    await writeFile(lines, ('b'.repeat(1023) + '\n').repeat(32 * 1024));
    const dryRun = async (file: string) => {
      const r = await run(['emails', file, '--dry-run', '-f', 'json', '--max-row-size', '64MiB']); // past the 16 MiB a row holds by default
      expect(r.exitCode, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Record<string, number>;
    };
    expect(await dryRun(oneLine)).toMatchObject({ records: 1, unique: 0, invalid: 1, cached: 0, quota: 0 });
    expect(await dryRun(lines)).toMatchObject({ records: 32 * 1024, unique: 0, invalid: 32 * 1024 });
  });
});
