// Putting a rewritten cache file in place while other runs hold the old one open: a rename over it where the
// system allows (POSIX), else, as Windows requires, the old one moved aside first (Node opens every file
// sharing deletion, so that move is allowed), never the old file lost while a program that does not share
// deletion holds it.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { open, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renameOver } from '../../src/cache/files.js';
import { folderPerTest } from './helpers.js';

const dir = folderPerTest('idv-files-');
const refused = (code: string) => Object.assign(new Error(`rename ${code}`), { code });

/** A rename as Windows does it (MoveFileEx): onto a file some handle holds, refused (EPERM); a file whose holder does not share deletion cannot be moved (EBUSY). */
function windowsRename(held: Set<string>, locked = new Set<string>()) {
  return async (from: string, to: string) => {
    if (locked.has(from)) throw refused('EBUSY');
    if (existsSync(to) && (held.has(to) || locked.has(to))) throw refused('EPERM');
    await rename(from, to);
    if (held.delete(from)) held.add(to); // the handle follows the file
  };
}

describe('renameOver', () => {
  it('onto a file another run holds open: its handle keeps reading the old file, the path names the new one', async () => {
    const path = join(dir(), 'a.log');
    await writeFile(path, 'old\n');
    const reader = await open(path, 'r');
    try {
      await writeFile(`${path}.tmp`, 'new\n');
      await renameOver(`${path}.tmp`, path);
      expect(await readFile(path, 'utf8')).toBe('new\n');
      expect((await reader.read(Buffer.alloc(4), 0, 4, 0)).buffer.toString()).toBe('old\n');
    } finally {
      await reader.close();
    }
  });

  it('on Windows, where a file held open cannot be renamed over: the old one is moved aside, then removed; nothing is left beside it', async () => {
    const path = join(dir(), 'a.log');
    await writeFile(path, 'old\n');
    await writeFile(`${path}.tmp`, 'new\n');
    const held = new Set([path]);
    await renameOver(`${path}.tmp`, path, windowsRename(held));
    expect(await readFile(path, 'utf8')).toBe('new\n');
    expect(await readdir(dir())).toEqual(['a.log']);
  });

  it('a file held by a program that shares no deletion is left as it was, and the refusal is said', async () => {
    const path = join(dir(), 'a.log');
    await writeFile(path, 'old\n');
    await writeFile(`${path}.tmp`, 'new\n');
    await expect(renameOver(`${path}.tmp`, path, windowsRename(new Set(), new Set([path])))).rejects.toMatchObject({ code: 'EBUSY' });
    expect(await readFile(path, 'utf8')).toBe('old\n');
  });
});
