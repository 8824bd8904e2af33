// Local trust, as ssh and gpg have it: a cache folder another user owns or can write in is not used (one
// warning naming the fix), and no cache file is opened through a symbolic link, so that another local user
// can neither make an item `ok` for free nor make idv write into someone's files.
import { describe, expect, it } from 'vitest';
import { chmod, chown, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { cacheDir, openScope } from '../../src/cache/store.js';
import { trustedFolder, UntrustedFolder } from '../../src/cache/trust.js';
import { sandbox, sentItems, homeForEachTest } from '../helpers.js';
import { run } from '../fake-io.js';
import { onlyOn } from '../platforms.js';

const home = homeForEachTest();

const ROOT = userInfo().uid === 0;
const NOBODY = 65534;

/** A cache folder holding a forged `ok` for a disposable address, as another local user would plant it. */
async function forgedCache(env: Record<string, string>, url: string): Promise<{ dir: string; log: string; forged: string }> {
  const dir = cacheDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const log = openScope(dir, url, '/emails/validate', 86400).path;
  const forged = `# idv cache v1 ${url} /emails/validate\n${Math.floor(Date.now() / 1000)}\tok\tspam@mailinator.com\n`;
  await writeFile(log, forged);
  return { dir, log, forged };
}

/** Validate spam@mailinator.com with that cache: it must be sent and come back disposable, the cache untouched. */
async function expectNotTrusted(setUp: (dir: string) => Promise<void>, reason: (dir: string) => string): Promise<void> {
  const { sb, env } = await sandbox({ quota: 0 }, home);
  try {
    const { dir, log, forged } = await forgedCache(env, sb.url);
    await setUp(dir);
    const r = await run(['emails', '-', '-q'], { env, input: 'spam@mailinator.com\n' });
    expect(r.stdout).toBe('email,status\nspam@mailinator.com,disposable\n');
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(`idv: warning: cannot use the cache in ${dir}: ${reason(dir)}; going on without it.\n`);
    expect(sentItems(sb)).toEqual(['spam@mailinator.com']);
    expect(await readFile(log, 'utf8')).toBe(forged); // nothing appended to a file another user can read
  } finally {
    await sb.close();
  }
}

onlyOn('owners').describe('a cache folder another user could have written is not used', () => {
  it.runIf(ROOT)('owned by another user: a forged ok is not believed, and one warning names the fix', async () => {
    await expectNotTrusted(
      (dir) => chown(dir, NOBODY, NOBODY),
      () => `it belongs to another user (uid ${NOBODY}), who could plant forged results in it; remove it, or set XDG_CACHE_HOME to a folder of your own`,
    );
  });
  if (!ROOT) it.skip('owned by another user (SKIPPED LOUDLY: needs root to chown a folder to another user)', () => undefined);

  it('writable by others (0777, 0775, or 1777): a forged ok is not believed, and one warning names the fix', async () => {
    await expectNotTrusted(
      (dir) => chmod(dir, 0o777),
      (dir) => `other users can write in it (mode 0777) and could plant forged results; run chmod go-w ${dir}`,
    );
    await expectNotTrusted(
      (dir) => chmod(dir, 0o775),
      (dir) => `other users can write in it (mode 0775) and could plant forged results; run chmod go-w ${dir}`,
    );
    // Sticky, as /tmp is: its mode as ls shows it.
    await expectNotTrusted(
      (dir) => chmod(dir, 0o1777),
      (dir) => `other users can write in it (mode 1777) and could plant forged results; run chmod go-w ${dir}`,
    );
  });

  it('a folder of the user, not writable by others, is used (0700, 0755)', async () => {
    for (const mode of [0o700, 0o755]) {
      const dir = join(home.dir, `ok-${mode.toString(8)}`);
      await mkdir(dir, { mode });
      await chmod(dir, mode);
      expect(trustedFolder(dir)).toBeUndefined();
    }
    await writeFile(join(home.dir, 'file'), '');
    expect(() => trustedFolder(join(home.dir, 'file'))).toThrow();
  });
});

onlyOn('owners').describe('cache files are never opened through a symbolic link', () => {
  it('a planted .log link: idv never appends results into the file it points to, and says so in one line', async () => {
    const { sb, env } = await sandbox({ quota: 0 }, home);
    try {
      const dir = cacheDir(env);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const log = openScope(dir, sb.url, '/emails/validate', 86400).path;
      const victim = join(home.dir, 'victim.txt');
      await writeFile(victim, 'the victim\'s own file\n');
      await symlink(victim, log);
      const r = await run(['emails', '-', '-q'], { env, input: 'a@example.com\n' });
      expect(r.stdout).toBe('email,status\na@example.com,ok\n');
      expect(r.stderr).toBe(
        `idv: warning: cannot use the cache in ${dir}: ${log} is not a file (a symbolic link, or something else in its place); remove it; going on without it.\n`,
      );
      expect(await readFile(victim, 'utf8')).toBe('the victim\'s own file\n');
    } finally {
      await sb.close();
    }
  });

  it('appends refuse a link that appeared after the load; reads refuse one too', async () => {
    const dir = join(home.dir, 'cache');
    const scope = openScope(dir, 'https://api.x', '/emails/validate', 86400);
    (await scope.load()).results.close();
    const victim = join(home.dir, 'victim.txt');
    await writeFile(victim, 'mine\n');
    const { rm } = await import('node:fs/promises');
    await rm(scope.path);
    await symlink(victim, scope.path);
    scope.append([['a@x.com', 'ok']]);
    expect(scope.writeError()?.code).toBe('ELOOP');
    expect(await readFile(victim, 'utf8')).toBe('mine\n');
    await expect(scope.load()).rejects.toBeInstanceOf(UntrustedFolder);
  });
});
