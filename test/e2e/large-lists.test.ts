// Issue 10.1: reading, dispatch and writing can never all wait on each other. Before the fix, a part-filled
// batch was held back for more input while reading had stopped because 50,000 records waited for output:
// the run ended with exit 0 and nothing written.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeHome, sandbox, sentBatches, type Home } from '../helpers.js';
import { run } from '../fake-io.js';
import { cacheDir, openScope } from '../../src/cache/store.js';

let home: Home;
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  await home.cleanup();
});

describe('liveness', () => {
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
