// A nightly job on a disk that fills up, for real: the built idv writes -o and --split onto a small tmpfs.
// The outputs of a run are put in place together or not at all, and the message names the real cause.
// Mounting a tmpfs needs root (CAP_SYS_ADMIN); where it cannot be done, this file says loudly that it
// skipped, and test/output/split.test.ts still holds the same behaviour with failures injected at the fs boundary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idv, makeHome, sandbox, sentItems } from '../helpers.js';
import { onlyOn } from '../platforms.js';

let mnt = '';
let why = '';

beforeAll(async () => {
  mnt = await mkdtemp(join(tmpdir(), 'idv-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mnt], { stdio: 'pipe' });
  } catch (err) {
    why = String((err as { stderr?: Buffer }).stderr ?? err).trim().split('\n')[0] ?? 'mount failed';
    console.warn(`\n*** test/e2e/full-disk.test.ts: SKIPPED — cannot mount a tmpfs here (${why}). ***\n`);
  }
});
afterAll(async () => {
  if (!why) execFileSync('umount', [mnt]);
  await rm(mnt, { recursive: true, force: true });
});

const ITEMS = Array.from({ length: 3000 }, (_, i) => `user${i}@example.com`);

onlyOn('tmpfs').describe('a full disk under -o and --split', () => {
  // The room left: none to speak of, less than -o needs (about 66 KB), room for -o but not for ok.csv as well,
  // and room for everything but the last blocks flushed at the end (every file takes whole 4 KiB pages here).
  for (const room of [4, 40, 100, 128, 136, 140, 144, 148]) {
    it(`${room} KiB left: exit 1 naming ENOSPC; -o and every split file as they were, no file of this run, no .tmp`, async (t) => {
      if (why) return t.skip();
      await earlierRun();
      const fs = await statfs(mnt);
      await writeFile(join(mnt, 'filler'), Buffer.alloc(Math.max(0, fs.bavail * fs.bsize - room * 1024)));
      const r = await split();
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      // Found as the last blocks are flushed, the message says no other output was put in place either.
      expect(r.stderr).toMatch(
        /^idv: Cannot write \/\S+: no space left on the device \(ENOSPC\); (the previous file is left as it was|nothing was written)(; no other output of this run was put in place either)?; a --sandbox run keeps no results \(and costs nothing\)\.\n$/,
      );
      expect(await readFile(join(mnt, 'out.csv'), 'utf8')).toBe('earlier -o\n');
      expect(await readFile(join(mnt, 'split', 'ok.csv'), 'utf8')).toBe('earlier ok\n');
      expect(await readFile(join(mnt, 'split', 'fake.csv'), 'utf8')).toBe('earlier fake\n');
      expect((await readdir(join(mnt, 'split'))).sort()).toEqual(['fake.csv', 'ok.csv']);
      expect((await readdir(mnt)).sort()).toEqual(['filler', 'list.txt', 'out.csv', 'split']);
    });
  }

  it('with room again, the same run writes them all', async (t) => {
    if (why) return t.skip();
    await earlierRun();
    const r = await split();
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    const out = await readFile(join(mnt, 'out.csv'), 'utf8');
    expect(out).toBe('email,status\n' + ITEMS.map((i) => `${i},ok\n`).join(''));
    expect(await readFile(join(mnt, 'split', 'ok.csv'), 'utf8')).toBe(out);
    expect(await readFile(join(mnt, 'split', 'fake.csv'), 'utf8')).toBe('email,status\n');
  });
});

onlyOn('tmpfs').describe('a full disk under --report, -o and --split on another', () => {
  it('the report cannot be written: exit 1 naming ENOSPC, -o, every split file and the report as they were; the results are in the cache, and the rerun sends nothing', async (t) => {
    if (why) return t.skip();
    const home = await makeHome();
    const { sb, env } = await sandbox({ quota: 0 }, home); // no quota
    try {
      for (const name of await readdir(mnt)) await rm(join(mnt, name), { recursive: true, force: true });
      const report = join(mnt, 'run.json');
      await writeFile(report, 'earlier report\n');
      const fs = await statfs(mnt);
      await writeFile(join(mnt, 'filler'), Buffer.alloc(fs.bavail * fs.bsize));
      await writeFile(join(home.dir, 'list.txt'), ITEMS.join('\n') + '\n');
      await writeFile(join(home.dir, 'out.csv'), 'earlier -o\n');
      await mkdir(join(home.dir, 'split'));
      await writeFile(join(home.dir, 'split', 'ok.csv'), 'earlier ok\n');
      const args = ['emails', 'list.txt', '-q', '-o', 'out.csv', '--split', 'split', '--report', report];
      const r = await idv(args, { cwd: home.dir, env });
      expect([r.exitCode, r.stdout, r.stderr]).toEqual([
        1,
        '',
        `idv: Cannot write ${report}: no space left on the device (ENOSPC); the previous file is left as it was; no other output of this run was put in place either; the results are kept in the cache, so the same command sends nothing for them again.\n`,
      ]);
      expect(sentItems(sb).sort()).toEqual([...ITEMS].sort());
      expect(await readFile(join(home.dir, 'out.csv'), 'utf8')).toBe('earlier -o\n');
      expect(await readdir(join(home.dir, 'split'))).toEqual(['ok.csv']);
      expect(await readFile(join(home.dir, 'split', 'ok.csv'), 'utf8')).toBe('earlier ok\n');
      expect(await readFile(report, 'utf8')).toBe('earlier report\n');
      expect((await readdir(mnt)).sort()).toEqual(['filler', 'run.json']);
      expect((await readdir(home.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);

      // Room again: the same command writes everything, from the cache.
      await rm(join(mnt, 'filler'));
      const again = await idv(args, { cwd: home.dir, env });
      expect([again.exitCode, again.stderr]).toEqual([0, '']);
      expect(sentItems(sb)).toHaveLength(ITEMS.length);
      expect(await readFile(join(home.dir, 'out.csv'), 'utf8')).toBe('email,status\n' + ITEMS.map((i) => `${i},ok\n`).join(''));
      expect(JSON.parse(await readFile(report, 'utf8'))).toMatchObject({ exitCode: 0, reason: 'done', fromCache: ITEMS.length, sent: 0 });
    } finally {
      await sb.close();
      await home.cleanup();
    }
  });
});

/** The tmpfs as an earlier run left it: the list, -o and two split files. */
async function earlierRun(): Promise<void> {
  for (const name of await readdir(mnt)) await rm(join(mnt, name), { recursive: true, force: true });
  await writeFile(join(mnt, 'list.txt'), ITEMS.join('\n') + '\n');
  await writeFile(join(mnt, 'out.csv'), 'earlier -o\n');
  await mkdir(join(mnt, 'split'));
  await writeFile(join(mnt, 'split', 'ok.csv'), 'earlier ok\n');
  await writeFile(join(mnt, 'split', 'fake.csv'), 'earlier fake\n');
}

const split = () => idv(['emails', 'list.txt', '--sandbox', '-q', '-o', 'out.csv', '--split', 'split'], { cwd: mnt, env: { PATH: process.env.PATH! } });
