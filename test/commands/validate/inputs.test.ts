// The inputs of a run, counted ahead when that is cheap (a file on disk read in about a second): the count is
// the run's own (a header, blank lines, a quoted line break, a line of several recipients), and there is none
// for standard input or a file too large to read twice.
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { COUNT_AHEAD_BYTES, RunInputs } from '../../../src/commands/validate/inputs.js';
import { validateCommand, type ValidateOptions } from '../../../src/commands/validate/flags.js';
import { fakeIo } from '../../fake-io.js';
import { RunLog } from '../../../src/commands/validate/run-log.js';
import { homeForEachTest } from '../../helpers.js';

const home = homeForEachTest();

/** The options `idv emails …argv` runs with. */
async function options(argv: string[]): Promise<ValidateOptions> {
  let got: ValidateOptions | undefined;
  await validateCommand('emails', undefined, async (o) => void (got = o)).parseAsync(argv, { from: 'user' });
  return got!;
}

async function countOf(argv: string[], io = fakeIo({ cwd: home.dir })): Promise<{ ahead: number | null; read: number }> {
  const o = await options(argv);
  const inputs = await RunInputs.check(o, io);
  const ahead = await inputs.countAhead({}, () => false);
  const opened = await inputs.open({}, new RunLog(io, false));
  let read = 0;
  for await (const block of opened.records) read += block.length;
  return { ahead, read };
}

describe('RunInputs.countAhead', () => {
  it('a CSV with a header, blank lines, a quoted line break and a line of two recipients: the count is the run\'s', async () => {
    await writeFile(join(home.dir, 'a.csv'), 'name,email\n"Ann\nSmith",ann@example.com\n\nBob,bob@example.com\n');
    await writeFile(join(home.dir, 'b.txt'), 'cy@example.com; di@example.com\n\nev@example.com\n');
    const { ahead, read } = await countOf(['a.csv', 'b.txt', '-i', 'fi@example.com']);
    expect(read).toBe(6);
    expect(ahead).toBe(read);
  });

  it('standard input: no count (it can be read once)', async () => {
    const input = new PassThrough();
    input.end('a@example.com\n');
    expect(await (await RunInputs.check(await options([]), fakeIo({ cwd: home.dir, input }))).countAhead({}, () => false)).toBeNull();
  });

  it('inputs larger than idv reads in about a second: no count', async () => {
    const big = join(home.dir, 'big.txt');
    await writeFile(big, Buffer.alloc(COUNT_AHEAD_BYTES + 1, 'a'));
    expect(await (await RunInputs.check(await options([big]), fakeIo({ cwd: home.dir }))).countAhead({}, () => false)).toBeNull();
  });

  it('the run no longer needs it: the count gives up', async () => {
    await writeFile(join(home.dir, 'c.txt'), 'a@example.com\nb@example.com\n');
    expect(await (await RunInputs.check(await options(['c.txt']), fakeIo({ cwd: home.dir }))).countAhead({}, () => true)).toBeNull();
  });
});
