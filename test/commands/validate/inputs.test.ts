// The inputs of a run, counted ahead when that is cheap (a file on disk read in about a second): the count is
// the run's own (a header, blank lines, a quoted line break, a line of several recipients), and there is none
// for standard input or a file too large to read twice. Each file is opened once: the ones after the first are
// checked before anything is sent and read from that opening, their notes said in their turn.
import { describe, expect, it } from 'vitest';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { COUNT_AHEAD_BYTES, RunInputs } from '../../../src/commands/validate/inputs.js';
import { validateCommand, type ValidateOptions } from '../../../src/commands/validate/flags.js';
import { fakeIo } from '../../fake-io.js';
import { RunLog } from '../../../src/commands/validate/run-log.js';
import { homeForEachTest } from '../../helpers.js';
import { onlyOn } from '../../platforms.js';
import { openOn } from '../../open-descriptors.js';

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

describe('RunInputs.open', () => {
  /** The run's inputs opened (the first, and the others checked), as run.ts opens them before anything is sent. */
  async function opened(files: string[]) {
    const io = fakeIo({ cwd: home.dir });
    return { io, opened: await (await RunInputs.check(await options(files), io)).open({}, new RunLog(io, false)) };
  }
  const values = async (records: AsyncIterable<Array<{ value: string }>>) => {
    const out: string[] = [];
    for await (const block of records) for (const r of block) out.push(r.value);
    return out;
  };

  it('opens each file once: the files after the first are read from the opening that checked them, renamed since or not', async () => {
    await writeFile(join(home.dir, 'a.csv'), 'name,email\nAnn,ann@example.com\n');
    await writeFile(join(home.dir, 'b.txt'), 'bob@example.com\n');
    await writeFile(join(home.dir, 'c.txt'), 'cy@example.com\ndi@example.com\n');
    const run = await opened(['a.csv', 'b.txt', 'c.txt']);
    for (const f of ['b.txt', 'c.txt']) await rename(join(home.dir, f), join(home.dir, `${f}.moved`)); // a second open would not find them
    expect(await values(run.opened.records)).toEqual(['ann@example.com', 'bob@example.com', 'cy@example.com', 'di@example.com']);
  });

  it("a later file's notes are said when its turn comes, after the records before it", async () => {
    await writeFile(join(home.dir, 'a.txt'), 'ann@example.com\n');
    await writeFile(join(home.dir, 'b.csv'), 'name,email\nBob,bob@example.com\n\nTotal: 1\n');
    const { io, opened: run } = await opened(['a.txt', 'b.csv']);
    const seen: string[] = [];
    for await (const block of run.records) for (const r of block) seen.push(`${r.value} (stderr: ${JSON.stringify(io.err.text)})`);
    expect(seen).toEqual(['ann@example.com (stderr: "")', 'bob@example.com (stderr: "")']);
    expect(io.err.text).toBe('idv: note: b.csv: skipped line 4 below the data (not a record): "Total: 1"\n');
  });


  onlyOn('devices').it('the files not reached are closed when the run stops reading', async () => {
    await writeFile(join(home.dir, 'a.txt'), 'ann@example.com\n');
    // Larger than the sample its check reads (a file read to its end is closed at once).
    await writeFile(join(home.dir, 'b.txt'), Array.from({ length: 20_000 }, (_, i) => `person${i}@example.com\n`).join(''));
    const run = await opened(['a.txt', 'b.txt']);
    expect(openOn(join(home.dir, 'b.txt'))).toBe(1); // checked, and held for its turn
    for await (const block of run.opened.records) {
      expect(block[0]!.value).toBe('ann@example.com');
      break;
    }
    await expect.poll(() => openOn(join(home.dir, 'b.txt')), { timeout: 20_000 }).toBe(0); // fs.close's callback
  });
});
