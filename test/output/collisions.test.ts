// firstCollision (src/output/collisions.ts): which outputs of a run are one file, by path, by a linked folder,
// by case where the file system ignores it, by inode (a hard link), or a file where --split makes its folder.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstCollision, foldsCase, type NamedOutput } from '../../src/output/collisions.js';
import { onlyOn } from '../platforms.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-collide-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const o = (path: string): NamedOutput => ({ flag: '-o', what: `-o ${path}`, path: join(dir, path) });
const report = (path: string): NamedOutput => ({ flag: '--report', what: `--report ${path}`, path: join(dir, path) });
const splitFolder = (path: string): NamedOutput => ({ flag: '--split', what: `--split ${path}`, path: join(dir, path), folder: true });
const splitFile = (path: string): NamedOutput => ({ flag: '--split', what: `--split (its ${path})`, path: join(dir, path) });
const caseCounts = async () => false;
const caseIgnored = async () => true;
const collision = async (outputs: NamedOutput[], folds = caseCounts) => (await firstCollision(outputs, folds))?.message ?? null;

describe('firstCollision', () => {
  it('the same path, existing or not: one file', async () => {
    expect(await collision([o('out.json'), report('out.json')])).toBe('-o out.json and --report out.json are one file: one would replace the other; give one of them another name.');
    await writeFile(join(dir, 'out.json'), 'x');
    expect(await collision([o('out.json'), report('./sub/../out.json')])).not.toBeNull();
  });

  it('different files: none; the --split folder and its own files are never compared with each other', async () => {
    expect(await collision([o('out.csv'), report('run.json'), splitFolder('split'), splitFile('split/ok.csv'), splitFile('split/fake.csv')])).toBeNull();
  });

  it('a file the --split folder will write, named by -o or --report', async () => {
    expect(await collision([splitFolder('d'), splitFile('d/ok.csv'), o('d/ok.csv')])).toBe('--split (its d/ok.csv) and -o d/ok.csv are one file: one would replace the other; give one of them another name.');
    expect(await collision([report('d/ok.csv'), splitFolder('d'), splitFile('d/ok.csv')])).not.toBeNull();
  });

  onlyOn('symlinks').it('a folder on the way that is a link to the other’s folder: one file', async () => {
    await mkdir(join(dir, 'real'));
    await symlink(join(dir, 'real'), join(dir, 'here'));
    expect(await collision([o('real/out.csv'), report('here/out.csv')])).not.toBeNull();
  });

  it('two names of one file (a hard link): one file', async () => {
    await writeFile(join(dir, 'a.csv'), 'x');
    await link(join(dir, 'a.csv'), join(dir, 'b.json'));
    expect(await collision([o('a.csv'), report('b.json')])).toBe('-o a.csv and --report b.json are one file: one would replace the other; give one of them another name.');
  });

  it('names that differ only in case (or Unicode form): one file where the file system ignores case, two where it does not', async () => {
    expect(await collision([splitFolder('d'), splitFile('d/ok.csv'), o('d/OK.csv')], caseIgnored)).not.toBeNull();
    expect(await collision([splitFolder('d'), splitFile('d/ok.csv'), o('d/OK.csv')], caseCounts)).toBeNull();
    expect(await collision([o('Caf\u00e9.csv'), report('cafe\u0301.CSV')], caseIgnored)).not.toBeNull();
  });

  it('a file named as the --split folder, or as a folder above it', async () => {
    const meet = '-o out and --split out meet: -o would be a file where --split makes its folder; give one of them another path.';
    expect(await collision([o('out'), splitFolder('out')])).toBe(meet);
    expect(await collision([splitFolder('out/sub'), report('out')])).toBe('--report out and --split out/sub meet: --report would be a file where --split makes its folder; give one of them another path.');
    expect(await collision([o('outer'), splitFolder('out/sub')])).toBeNull();
  });

  onlyOn('devFiles').it('what is not replaced is not compared: a device (written in place), a link or a folder (refused when opened)', async () => {
    if (process.getuid?.() === 0) execFileSync('mknod', ['-m', '666', join(dir, 'null'), 'c', '1', '3']);
    else await symlink('/dev/null', join(dir, 'null'));
    expect(await collision([o('null'), report('null')])).toBeNull();
    await mkdir(join(dir, 'folder'));
    expect(await collision([o('folder'), report('folder')])).toBeNull();
  });
});

describe('foldsCase', () => {
  it('this machine’s temporary folder (case counts on Linux, not on macOS and Windows), told by a name in it', async () => {
    await writeFile(join(dir, 'Name.txt'), 'x');
    expect(await foldsCase(dir, 'linux')).toBe(process.platform === 'darwin' || process.platform === 'win32');
  });

  it('where no name has a letter, or the folder is not there yet: the system’s custom', async () => {
    const digits = join(dir, '123');
    await mkdir(digits);
    await writeFile(join(digits, '456'), 'x');
    expect(await foldsCase(join(digits), 'darwin')).toBe(true);
    expect(await foldsCase(join(digits), 'linux')).toBe(false);
    expect(await foldsCase(join(digits, '789'), 'win32')).toBe(true);
  });
});
