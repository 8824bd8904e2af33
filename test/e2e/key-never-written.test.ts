// A user whose key is a plain word (letters, digits and `_`, as many services issue them) and a service that
// answers that word as a status: it passes the plain-word check, so only the key check stands between it and
// every output. It must end `error`, and the key must appear nowhere: not in stdout, -o, a --split file (nor as
// a split file's name), the report or the cache.
import { describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sandbox, sentItems, writeList, homeForEachTest } from '../helpers.js';
import { run } from '../fake-io.js';

const KEY = 'sk_test_abcdef123';

const home = homeForEachTest();

/** Every file under `dir`, name and text. */
async function everything(dir: string): Promise<string> {
  let text = '';
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    text += join(e.parentPath, e.name) + '\n';
    if (e.isFile()) text += await readFile(join(e.parentPath, e.name), 'utf8');
  }
  return text;
}

describe('a status that is the key, a plain word', () => {
  it('ends error (exit 1); the key is in no output, no file and no file name', async () => {
    const { sb, env } = await sandbox({ key: KEY }, home);
    try {
      sb.inject({ kind: 'status-for', status: KEY });
      const list = await writeList(home, ['ada@example.com', 'bob@example.com']);
      const r = await run(['emails', list, '-o', join(home.dir, 'out.csv'), '--split', join(home.dir, 'split'), '--report', join(home.dir, 'run.json')], { env });
      expect(r.exitCode).toBe(1);
      expect(sentItems(sb)).toEqual(['ada@example.com', 'bob@example.com']);
      expect(await readFile(join(home.dir, 'out.csv'), 'utf8')).toBe('email,status\nada@example.com,error\nbob@example.com,error\n');
      expect((await readdir(join(home.dir, 'split'))).sort()).toEqual(['alias.csv', 'disposable.csv', 'error.csv', 'fake.csv', 'invalid.csv', 'ok.csv', 'quota_exceeded.csv']);
      expect(JSON.parse(await readFile(join(home.dir, 'run.json'), 'utf8'))).toMatchObject({ statuses: { error: 2 }, reason: 'errors' });
      const all = r.stdout + r.stderr + (await everything(home.dir));
      expect(all).not.toContain(KEY);
      expect(all).not.toContain('abcdef123');
    } finally {
      await sb.close();
    }
  });
});
