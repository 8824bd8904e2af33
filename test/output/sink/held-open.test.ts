// A file that another program holds open (Excel, with yesterday's list): on Windows it cannot be replaced
// (MoveFileEx refuses a file with open handles, EPERM; a program sharing nothing, EBUSY). The sink tries again a
// few times over about two seconds (a program closing it), then says in one line which file and what to do,
// leaving the file as it was and no temporary file beside it.
import { describe, expect, it } from 'vitest';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileSink, HeldOpen } from '../../../src/output/sink.js';
import { dir, useTestFolder, entries, writeThrough, failure } from './harness.js';

useTestFolder();

/** A rename that another program refuses, as Windows does, `times` times (then it closed the file). */
function heldFor(times: number, code = 'EPERM') {
  const tries: number[] = [];
  const move = async (from: string, to: string) => {
    tries.push(Date.now());
    if (tries.length <= times) throw Object.assign(new Error(`${code}: operation not permitted, rename`), { code });
    await rename(from, to);
  };
  return { move, tries };
}

describe('an output file held open by another program', () => {
  it('on Windows, closed while idv tries again: replaced, the rename tried again after waits that grow', async () => {
    const path = join(dir, 'out.csv');
    await writeFile(path, 'old\n');
    const held = heldFor(2);
    await writeThrough(fileSink(path, undefined, false, { platform: 'win32', rename: held.move }), 'email,status\n');
    expect(await readFile(path, 'utf8')).toBe('email,status\n');
    expect(held.tries).toHaveLength(3);
    expect(held.tries[2]! - held.tries[1]!).toBeGreaterThan(held.tries[1]! - held.tries[0]!);
    expect(await entries()).toEqual(['out.csv']);
  });

  it('still held after the tries: one line naming the file and what to do; the file as it was, no temporary file', async () => {
    const path = join(dir, 'out.csv');
    await writeFile(path, 'old\n');
    const held = heldFor(100);
    const err = await failure(writeThrough(fileSink(path, undefined, false, { platform: 'win32', rename: held.move }), 'email,status\n'));
    expect(err).toBeInstanceOf(HeldOpen);
    expect(err.message).toBe(
      `Cannot write ${path}: another program has it open (EPERM); close it there (in Excel, close the file), then run the same command again; the previous file is left as it was.`,
    );
    expect(held.tries).toHaveLength(5);
    expect(await readFile(path, 'utf8')).toBe('old\n');
    expect(await entries()).toEqual(['out.csv']);
  });

  it('EBUSY reads so on every system; EPERM elsewhere than Windows is a permission, said at once', async () => {
    const path = join(dir, 'out.csv');
    await writeFile(path, 'old\n');
    const busy = await failure(writeThrough(fileSink(path, undefined, false, { platform: 'darwin', rename: heldFor(100, 'EBUSY').move }), 'x\n'));
    expect(busy).toBeInstanceOf(HeldOpen);
    const denied = heldFor(100);
    const err = await failure(writeThrough(fileSink(path, undefined, false, { platform: 'linux', rename: denied.move }), 'x\n'));
    expect(err.message).toBe(`Cannot write ${path}: permission denied (EPERM); the previous file is left as it was.`);
    expect(denied.tries).toHaveLength(1);
  });
});
