// Sinks (src/output/sink.ts): what cannot be written is refused by ready(), in one line, and left as it was (a
// symbolic link, a folder, a socket, a block device, a path through a file).
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmod, lstat, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import fs, { promises as fsp, closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { fileSink } from '../../../src/output/sink.js';
import { dir, useTestFolder, isRoot, entries, failure } from './harness.js';
import { onlyOn } from '../../platforms.js';

useTestFolder();

onlyOn('symlinks').describe('a symbolic link is refused, never replaced nor written through', () => {
  it('-o a link to a file: refused at ready(); the link, its target and the folder are as they were', async () => {
    const target = join(dir, 'victim.txt');
    await writeFile(target, 'theirs\n');
    await chmod(target, 0o600);
    const link = join(dir, 'out.csv');
    await symlink(target, link);
    const sink = fileSink(link);
    const err = await failure(sink.ready());
    await sink.abort();
    expect(err).toMatchObject({ kind: 'failed' });
    expect(err.message).toBe(
      `Cannot write ${link}: it is a symbolic link (to ${target}); idv neither writes through a link nor replaces one: give the path it leads to, or remove the link.`,
    );
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(target);
    expect(await readFile(target, 'utf8')).toBe('theirs\n');
    expect(await entries()).toEqual(['out.csv', 'victim.txt']);
  });

  it('a link to /proc/self/fd/1 and a dangling link: refused the same way, left in place', async () => {
    for (const to of ['/proc/self/fd/1', join(dir, 'nowhere')]) {
      const link = join(dir, `link-${to.length}`);
      await symlink(to, link);
      const err = await failure(fileSink(link).ready());
      expect(err.message).toMatch(/: it is a symbolic link \(to .*\); idv neither writes through a link nor replaces one/);
      expect(await readlink(link)).toBe(to);
    }
  });
});

describe('what cannot be written is refused by ready(), in one line', () => {
  it('a folder', async () => {
    const err = await failure(fileSink(dir).ready());
    expect(err).toMatchObject({ kind: 'failed', message: `Cannot write ${dir}: it is a folder (EISDIR); give a file name.` });
  });

  onlyOn('fifo').it('a socket', async () => {
    const path = join(dir, 'sock');
    const server = createServer();
    await new Promise<void>((r) => server.listen(path, r));
    try {
      const err = await failure(fileSink(path).ready());
      expect(err).toMatchObject({ kind: 'failed', message: `Cannot write ${path}: it is a socket; give a file, a character device or a FIFO.` });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('a path through a file (a file where a folder should be): the cause, and nothing made', async () => {
    await writeFile(join(dir, 'list.csv'), 'a\n');
    const path = join(dir, 'list.csv', 'out.csv');
    const err = await failure(fileSink(path).ready());
    expect(err).toMatchObject({ kind: 'failed', message: `Cannot write ${path}: a part of the path is not a folder (ENOTDIR).` });
    expect(await entries()).toEqual(['list.csv']);
  });

  onlyOn('symlinks').it('a link named like a descriptor path (…/dev/stdout) is a link all the same: refused, its target untouched', async () => {
    await fsp.mkdir(join(dir, 'dev'));
    await writeFile(join(dir, 'target.csv'), 'kept\n');
    await symlink(join(dir, 'target.csv'), join(dir, 'dev', 'stdout'));
    const err = await failure(fileSink(join(dir, 'dev', 'stdout')).ready());
    expect(err.message).toMatch(/: it is a symbolic link \(to .*target\.csv\); idv neither writes through a link nor replaces one/);
    expect(await readFile(join(dir, 'target.csv'), 'utf8')).toBe('kept\n');
  });
});

onlyOn('devices').describe('a link below a descriptor path', () => {
  it('/proc/self/fd/N/link, N a folder the caller opened: a link all the same, refused; its target untouched', async () => {
    await writeFile(join(dir, 'target.csv'), 'kept\n');
    await symlink(join(dir, 'target.csv'), join(dir, 'link'));
    const fd = openSync(dir, 'r');
    try {
      const path = `/proc/self/fd/${fd}/link`;
      const err = await failure(fileSink(path).ready());
      expect(err.message).toBe(
        `Cannot write ${path}: it is a symbolic link (to ${join(dir, 'target.csv')}); idv neither writes through a link nor replaces one: give the path it leads to, or remove the link.`,
      );
    } finally {
      closeSync(fd);
    }
    expect(await readFile(join(dir, 'target.csv'), 'utf8')).toBe('kept\n');
  });
});

onlyOn('devices').describe('a block device is refused', () => {
  const existing = ['/dev/loop0', '/dev/sda', '/dev/vda'].find((p) => {
    try {
      return fs.statSync(p).isBlockDevice();
    } catch {
      return false;
    }
  });
  it.runIf(isRoot || existing)('by ready(), in one line, and left as it was', async () => {
    const path = isRoot ? join(dir, 'disk') : existing!;
    if (isRoot) execFileSync('mknod', ['-m', '600', path, 'b', '7', '0']);
    const err = await failure(fileSink(path).ready());
    expect(err).toMatchObject({ kind: 'failed', message: `Cannot write ${path}: it is a block device; give a file, a character device or a FIFO.` });
    expect((await lstat(path)).isBlockDevice()).toBe(true);
  });
});
