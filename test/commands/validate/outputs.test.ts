// A run's outputs (src/commands/validate/outputs.ts, with output/collisions.ts and the report's commit): two
// outputs on one file are refused before anything is sent (exit 2), every output's folder is checked before
// anything is sent, and --report is put in place with -o and --split, so that a report that cannot be written
// leaves them as they were.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReadStream, promises as fsp } from 'node:fs';
import { link, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { homeForEachTest, sandbox, sentItems } from '../../helpers.js';
import { fakeIo, run } from '../../fake-io.js';
import { outputTarget } from '../../../src/commands/validate/outputs.js';
import { validateCommand, type ValidateOptions } from '../../../src/commands/validate/flags.js';
import type { TestSandbox } from '../../sandbox/test-sandbox.js';
import { holdsHere, onlyOn } from '../../platforms.js';

const home = homeForEachTest();
afterEach(() => {
  vi.restoreAllMocks();
});

const LIST = ['ada@example.com', 'bob@mailinator.com', 'cy@gmail.com'];
const CSV = 'email,status\nada@example.com,ok\nbob@mailinator.com,disposable\ncy@gmail.com,ok\n';

/** A run against a test sandbox, in the home's folder; what the sandbox received is `sb`'s. */
async function against(args: string[], use: (r: Awaited<ReturnType<typeof run>>, sb: TestSandbox) => Promise<void>): Promise<void> {
  const { sb, env } = await sandbox({}, home);
  try {
    const list = await home.list(LIST);
    await use(await run(['emails', list, '-q', ...args], { env, cwd: home.dir }), sb);
  } finally {
    await sb.close();
  }
}

const at = (name: string) => join(home.dir, name);

/** What every FileHandle's methods come from (to make one of them fail). */
async function fileHandles(): Promise<{ sync: () => Promise<void> }> {
  const probe = await fsp.open(at('.probe'), 'w');
  await probe.close();
  await fsp.rm(at('.probe'));
  return Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
}
const leftovers = async (dir = home.dir) => (await readdir(dir)).filter((n) => n.endsWith('.tmp'));

describe('two outputs on one file: exit 2, one line, nothing sent, nothing written', () => {
  it('-o out.json --report out.json: out.json as it was (no report in it either)', async () => {
    await writeFile(at('out.json'), 'earlier\n');
    await against(['-o', 'out.json', '--report', 'out.json'], async (r, sb) => {
      expect(r).toEqual({ exitCode: 2, stdout: '', stderr: 'idv: -o out.json and --report out.json are one file: one would replace the other; give one of them another name.\n' });
      expect(sentItems(sb)).toEqual([]);
      expect(await readFile(at('out.json'), 'utf8')).toBe('earlier\n');
      expect(await leftovers()).toEqual([]);
    });
  });

  it('--split D -o D/ok.csv: the file --split writes for ok records; D/ok.csv as it was, no split file made', async () => {
    await mkdir(at('D'));
    await writeFile(at('D/ok.csv'), 'earlier\n');
    await against(['--split', 'D', '-o', 'D/ok.csv', '--report', 'run.json'], async (r, sb) => {
      expect(r).toEqual({ exitCode: 2, stdout: '', stderr: 'idv: -o D/ok.csv and --split D (its ok.csv) are one file: one would replace the other; give one of them another name.\n' });
      expect(sentItems(sb)).toEqual([]);
      expect(await readdir(at('D'))).toEqual(['ok.csv']);
      expect(await readFile(at('D/ok.csv'), 'utf8')).toBe('earlier\n');
      // The report, on a file of its own, says why the run stopped.
      expect(JSON.parse(await readFile(at('run.json'), 'utf8'))).toMatchObject({ exitCode: 2, reason: 'usage' });
    });
  });

  it('--split D --report D/ok.csv: refused before the folder is made; no report written over the cleaned list', async () => {
    await against(['--split', 'D', '--report', 'D/ok.csv'], async (r, sb) => {
      expect(r).toEqual({ exitCode: 2, stdout: '', stderr: 'idv: --report D/ok.csv and --split D (its ok.csv) are one file: one would replace the other; give one of them another name.\n' });
      expect(sentItems(sb)).toEqual([]);
      expect(await readdir(home.dir)).toEqual(['list.txt']);
    });
  });

  onlyOn('symlinks').it('--report through a linked folder, and a hard link of -o: each is -o’s file', async () => {
    await symlink('.', at('here'));
    await writeFile(at('a.csv'), 'earlier\n');
    await link(at('a.csv'), at('b.json'));
    for (const report of ['here/a.csv', 'b.json']) {
      await against(['-o', 'a.csv', '--report', report], async (r, sb) => {
        expect(r).toEqual({ exitCode: 2, stdout: '', stderr: `idv: -o a.csv and --report ${report} are one file: one would replace the other; give one of them another name.\n` });
        expect(sentItems(sb)).toEqual([]);
        expect(await readFile(at('a.csv'), 'utf8')).toBe('earlier\n');
      });
    }
  });

  it('-o naming the --split folder, or a folder above it', async () => {
    await against(['-o', 'out', '--split', 'out/split'], async (r, sb) => {
      expect(r).toEqual({ exitCode: 2, stdout: '', stderr: 'idv: -o out and --split out/split meet: -o would be a file where --split makes its folder; give one of them another path.\n' });
      expect(sentItems(sb)).toEqual([]);
      expect(await readdir(home.dir)).toEqual(['list.txt']);
    });
  });

  it('a --dry-run is refused too: the command is the same', async () => {
    await against(['-o', 'out.json', '--report', 'out.json', '--dry-run'], async (r) => {
      expect([r.exitCode, r.stdout]).toEqual([2, '']);
    });
  });
});

describe('an output on an input file: exit 2, one line, nothing sent, the input as it was', () => {
  /** A run of `in.csv` (name and phone beside each address) with `args`, in the home's folder. */
  async function onInput(input: string, args: string[], use: (r: Awaited<ReturnType<typeof run>>, sb: TestSandbox) => Promise<void>): Promise<void> {
    const { sb, env } = await sandbox({}, home);
    try {
      await use(await run(['emails', input, '-q', ...args], { env, cwd: home.dir }), sb);
    } finally {
      await sb.close();
    }
  }
  const IN = 'email,name,phone\nada@example.com,Ada,555-1\nbob@mailinator.com,Bob,555-2\n';

  onlyOn('symlinks').it.each([ // each case makes link.csv
    ['-o in.csv', 'in.csv', ['-o', 'in.csv'], 'idv: -o in.csv is the input in.csv: it would replace the list being read; give -o another name.\n'],
    ['--report in.csv', 'in.csv', ['--report', 'in.csv'], 'idv: --report in.csv is the input in.csv: it would replace the list being read; give --report another name.\n'],
    ['-o in.csv, the input read through a link', 'link.csv', ['-o', 'in.csv'], 'idv: -o in.csv is the input link.csv: it would replace the list being read; give -o another name.\n'],
    ['-o through a hard link of the input', 'in.csv', ['-o', 'hard.csv'], 'idv: -o hard.csv is the input in.csv: it would replace the list being read; give -o another name.\n'],
  ])('%s', async (_, input, args, stderr) => {
    await writeFile(at('in.csv'), IN);
    await symlink('in.csv', at('link.csv'));
    await link(at('in.csv'), at('hard.csv'));
    await onInput(input, args, async (r, sb) => {
      expect(r).toEqual({ exitCode: 2, stdout: '', stderr });
      expect(sentItems(sb)).toEqual([]);
      expect(await readFile(at('in.csv'), 'utf8')).toBe(IN);
      expect(await leftovers()).toEqual([]);
    });
  });

  it('--split D with the input D/ok.csv (yesterday\'s clean list read again): refused, the input as it was', async () => {
    await mkdir(at('D'));
    await writeFile(at('D/ok.csv'), IN);
    await onInput('D/ok.csv', ['--split', 'D'], async (r, sb) => {
      expect(r).toEqual({ exitCode: 2, stdout: '', stderr: 'idv: --split D (its ok.csv) is the input D/ok.csv: it would replace the list being read; give --split another name.\n' });
      expect(sentItems(sb)).toEqual([]);
      expect(await readFile(at('D/ok.csv'), 'utf8')).toBe(IN);
      expect(await readdir(at('D'))).toEqual(['ok.csv']);
    });
  });

  it('standard input redirected from the -o file (idv emails -o in.csv < in.csv): refused the same way', async () => {
    await writeFile(at('in.csv'), IN);
    const handle = await fsp.open(at('in.csv'), 'r');
    const stdin = createReadStream('', { fd: handle.fd, autoClose: false });
    try {
      const { sb, env } = await sandbox({}, home);
      try {
        const r = await run(['emails', '-q', '-o', 'in.csv'], { env, cwd: home.dir, input: stdin });
        expect(r).toEqual({ exitCode: 2, stdout: '', stderr: 'idv: -o in.csv is the file standard input is read from: it would replace the list being read; give -o another name.\n' });
        expect(sentItems(sb)).toEqual([]);
      } finally {
        await sb.close();
      }
    } finally {
      await handle.close(); // the stream was never read: its descriptor is the handle's
    }
    expect(await readFile(at('in.csv'), 'utf8')).toBe(IN);
  });

  it('an input beside its outputs, another file of the --split folder, standard input: written as usual', async () => {
    await mkdir(at('D'));
    await writeFile(at('D/list.csv'), IN);
    await onInput('D/list.csv', ['--split', 'D', '-o', 'D/out.csv'], async (r) => {
      expect(r.exitCode).toBe(0);
      expect(await readFile(at('D/list.csv'), 'utf8')).toBe(IN);
      expect(await readFile(at('D/out.csv'), 'utf8')).toBe('email,status\nada@example.com,ok\nbob@mailinator.com,disposable\n');
    });
  });
});

describe('filters that leave no status to write: exit 2, nothing sent', () => {
  it.each([
    [['--only', 'ok', '--exclude', 'ok'], 'idv: --only ok with --exclude ok leaves no status to write: every record would be paid for and left out; keep at least one.\n'],
    [['--exclude', 'ok,alias,disposable,fake,quota_exceeded,invalid,error'], 'idv: --exclude ok,alias,disposable,fake,quota_exceeded,invalid,error leaves no status to write: every record would be paid for and left out; keep at least one.\n'],
  ])('%j', async (args, stderr) => {
    await against(args, async (r, sb) => {
      expect(r).toEqual({ exitCode: 2, stdout: '', stderr });
      expect(sentItems(sb)).toEqual([]);
    });
  });

  it('--only ok,disposable --exclude ok writes the disposable ones', async () => {
    await against(['--only', 'ok,disposable', '--exclude', 'ok'], async (r) => {
      expect(r).toMatchObject({ exitCode: 0, stdout: 'email,status\nbob@mailinator.com,disposable\n' });
    });
  });
});

describe('outputs that are not one file', () => {
  onlyOn('caseNames').it('names that differ only in case, where case counts (Linux): both written', async () => {
    await mkdir(at('D'));
    await against(['--split', 'D', '-o', 'D/OK.csv'], async (r) => {
      expect([r.exitCode, r.stderr]).toEqual([0, '']);
      expect(await readFile(at('D/OK.csv'), 'utf8')).toBe(CSV);
      expect(await readFile(at('D/ok.csv'), 'utf8')).toBe('email,status\nada@example.com,ok\ncy@gmail.com,ok\n');
    });
  });

  onlyOn('devFiles').it('standard output and a device are written in place, one after the other: --report - after the records, /dev/null twice', async () => {
    await against(['--report', '-'], async (r) => {
      expect(r.exitCode).toBe(0);
      expect(r.stdout.startsWith(CSV + '{')).toBe(true);
    });
    await against(['-o', '/dev/null', '--report', '/dev/null'], async (r, sb) => {
      expect(r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
      expect(sentItems(sb)).toEqual(LIST);
    });
  });
});

describe('every output checked before anything is sent', () => {
  /** Making a file in `folder` is refused as in a folder the user may not write (root may write anywhere). */
  function readOnly(folder: string): void {
    const open = fsp.open.bind(fsp);
    vi.spyOn(fsp, 'open').mockImplementation(async (path, ...rest) => {
      if (String(path).startsWith(folder + '/')) throw Object.assign(new Error(`EACCES: permission denied, open '${String(path)}'`), { code: 'EACCES' });
      return open(path, ...(rest as []));
    });
  }

  it('--report into a folder that cannot be written: exit 2, nothing sent, -o as it was', async () => {
    await mkdir(at('ro'));
    await writeFile(at('out.csv'), 'earlier\n');
    readOnly(at('ro'));
    await against(['-o', 'out.csv', '--report', 'ro/run.json'], async (r, sb) => {
      expect(r).toEqual({ exitCode: 2, stdout: '', stderr: `idv: Cannot write ${at('ro/run.json')}: permission denied (EACCES); nothing was written.\n` });
      expect(sentItems(sb)).toEqual([]);
      expect(await readFile(at('out.csv'), 'utf8')).toBe('earlier\n');
      expect(await leftovers()).toEqual([]);
    });
  });

  it('--report into a folder that does not exist, beside --split: exit 2, nothing sent, no split file made', async () => {
    await against(['--split', 'D', '--report', 'no/such/run.json'], async (r, sb) => {
      expect(r).toEqual({ exitCode: 2, stdout: '', stderr: `idv: Cannot write ${at('no/such/run.json')}: no such folder (ENOENT); nothing was written.\n` });
      expect(sentItems(sb)).toEqual([]);
      expect(await readdir(at('D'))).toEqual([]);
    });
  });
});

describe('--report is put in place with -o and --split', () => {
  it('after them: the renames go -o, the split files, then the report; it says the run ended done', async () => {
    const renamed: string[] = [];
    const rename = fsp.rename.bind(fsp);
    vi.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      renamed.push(String(to).slice(home.dir.length + 1));
      return rename(from, to);
    });
    await against(['-o', 'out.csv', '--split', 'D', '--report', 'run.json'], async (r) => {
      expect(r.exitCode).toBe(0);
      expect(renamed[0]).toBe('out.csv');
      expect(renamed.at(-1)).toBe('run.json');
      expect(renamed.slice(1, -1).sort()).toEqual(['alias', 'disposable', 'error', 'fake', 'invalid', 'ok', 'quota_exceeded'].map((s) => `D/${s}.csv`));
      expect(JSON.parse(await readFile(at('run.json'), 'utf8'))).toMatchObject({ exitCode: 0, reason: 'done', records: 3 });
    });
  });

  it('a report that cannot be flushed (a full disk): -o, the split files and the report as they were, exit 1, the results in the cache', async () => {
    await writeFile(at('out.csv'), 'earlier -o\n');
    await mkdir(at('D'));
    await writeFile(at('D/ok.csv'), 'earlier ok\n');
    await writeFile(at('run.json'), 'earlier report\n');
    // The disk is full when the report's temporary file is flushed.
    const proto = await fileHandles();
    const sync = proto.sync;
    const opened = new Map<unknown, string>();
    const open = fsp.open.bind(fsp);
    vi.spyOn(fsp, 'open').mockImplementation(async (path, ...rest) => {
      const handle = await open(path, ...(rest as []));
      opened.set(handle, String(path));
      return handle;
    });
    vi.spyOn(proto, 'sync').mockImplementation(async function (this: unknown) {
      if (/\.run\.json\..*\.tmp$/.test(opened.get(this) ?? '')) throw Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' });
      return sync.call(this);
    });
    await against(['-o', 'out.csv', '--split', 'D', '--report', 'run.json'], async (r, sb) => {
      expect(r).toEqual({
        exitCode: 1,
        stdout: '',
        stderr: `idv: Cannot write ${at('run.json')}: no space left on the device (ENOSPC); the previous file is left as it was; no other output of this run was put in place either; the results are kept in the cache, so the same command sends nothing for them again.\n`,
      });
      expect(sentItems(sb)).toEqual(LIST);
      expect(await readFile(at('out.csv'), 'utf8')).toBe('earlier -o\n');
      expect(await readdir(at('D'))).toEqual(['ok.csv']);
      expect(await readFile(at('D/ok.csv'), 'utf8')).toBe('earlier ok\n');
      expect(await readFile(at('run.json'), 'utf8')).toBe('earlier report\n');
      expect(await leftovers()).toEqual([]);
    });
  });

  it('-o that cannot be flushed: the report is written afterwards, saying the run failed', async () => {
    await writeFile(at('out.csv'), 'earlier -o\n');
    const proto = await fileHandles();
    const sync = proto.sync;
    let calls = 0;
    vi.spyOn(proto, 'sync').mockImplementation(async function (this: unknown) {
      if (++calls === 1) throw Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' });
      return sync.call(this);
    });
    await against(['-o', 'out.csv', '--report', 'run.json'], async (r) => {
      expect(r.exitCode).toBe(1);
      expect(await readFile(at('out.csv'), 'utf8')).toBe('earlier -o\n');
      expect(JSON.parse(await readFile(at('run.json'), 'utf8'))).toMatchObject({ exitCode: 1, reason: 'failed', message: expect.stringMatching(/^Cannot write .*out\.csv: no space left/) });
      expect(await leftovers()).toEqual([]);
    });
  });

  it('a status new to idv whose --split file would be -o’s: exit 1, -o and the split files as they were', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      sb.inject({ kind: 'status-for', status: 'all', item: 'ada@example.com' });
      await mkdir(at('D'));
      await writeFile(at('D/all.csv'), 'earlier\n');
      const r = await run(['emails', await home.list(LIST), '-q', '--split', 'D', '-o', 'D/all.csv'], { env, cwd: home.dir });
      expect(r).toEqual({
        exitCode: 1,
        stdout: '',
        stderr:
          'idv: The service answered a status new to idv, "all": -o D/all.csv and --split D (its all.csv) are one file: one would replace the other; give one of them another name; the results are kept in the cache, so the same command sends nothing for them again.\n',
      });
      expect(await readdir(at('D'))).toEqual(['all.csv']);
      expect(await readFile(at('D/all.csv'), 'utf8')).toBe('earlier\n');
    } finally {
      await sb.close();
    }
  });
});

describe('the outputs decided once (outputTarget): every step reads the same value', () => {
  async function options(argv: string[]): Promise<ValidateOptions> {
    let got: ValidateOptions | undefined;
    await validateCommand('emails', undefined, async (o) => void (got = o)).parseAsync(['list.txt', ...argv], { from: 'user' });
    return got!;
  }
  const onTerminal = (columns: number) => fakeIo({ stdoutIsTTY: true, columns, color: true, cwd: '/home/u' });
  const target = async (argv: string[], io = onTerminal(100)) => outputTarget(await options(argv), io, null);

  it.each<[string, string[], object]>([
    ['nothing given, a terminal: a table as wide as it, in colour', [], { main: { given: null, path: null }, format: 'table', written: true, lineWidth: 100, color: true, split: null }],
    ['-o -: standard output, the format of a path without extension', ['-o', '-'], { main: { given: '-', path: null }, format: 'csv', lineWidth: 100, color: false }],
    ['-o a file: resolved once, by its extension, no width, no colour', ['-o', 'out/clean.json'], { main: { given: 'out/clean.json', path: resolve('/home/u', 'out/clean.json') }, format: 'json', lineWidth: undefined, color: false }],
    ['--split alone to a terminal: the split files are the output', ['--split', 'd'], { written: false, split: { given: 'd', dir: resolve('/home/u', 'd'), format: 'csv' } }],
    ['--split with -o x.xlsx: the split files are workbooks too', ['--split', 'd', '-o', 'x.xlsx'], { written: true, format: 'xlsx', split: { given: 'd', dir: resolve('/home/u', 'd'), format: 'xlsx' } }],
  ])('%s', async (_, argv, expected) => {
    expect(await target(argv)).toMatchObject(expected);
  });

  onlyOn('devFiles').it('-o /dev/stdout -f table: standard output, so the terminal\'s table', async () => {
    expect(await target(['-o', '/dev/stdout', '-f', 'table'])).toMatchObject({ main: { given: '/dev/stdout', path: null }, format: 'table', lineWidth: 100, color: true });
  });

  it('in a pipe: CSV, no width, and colour only where it is forced on standard output', async () => {
    expect(await target([], fakeIo({ cwd: '/home/u' }))).toMatchObject({ format: 'csv', lineWidth: undefined, color: false });
    expect(await target(['-f', 'table'], fakeIo({ cwd: '/home/u', color: true }))).toMatchObject({ format: 'table', lineWidth: undefined, color: true });
  });

  onlyOn('devFiles').it('a workbook to the terminal is refused by -o /dev/stdout as by none', async () => {
    for (const argv of [['-f', 'xlsx'], ['-o', '/dev/stdout', '-f', 'xlsx']]) {
      await expect(target(argv)).rejects.toMatchObject({ kind: 'usage', message: expect.stringContaining('idv does not write a workbook to a terminal') });
    }
  });
});

describe('-o naming standard output is standard output everywhere in the run', () => {
  onlyOn('devFiles').it('-o /dev/stdout -f table on a terminal: the same table as without -o, and no "Wrote" line naming it', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const list = await home.list(LIST);
      const terminal = { env, cwd: home.dir, stdoutIsTTY: true, stderrIsTTY: true, columns: 60, color: true };
      const plain = await run(['emails', list, '--suggest'], terminal);
      for (const given of ['-', '/dev/stdout']) {
        const r = await run(['emails', list, '--suggest', '-o', given, '-f', 'table'], terminal);
        expect(r.exitCode).toBe(0);
        expect(r.stdout).toBe(plain.stdout);
        expect(r.stderr).not.toContain('Wrote');
      }
      expect(plain.stdout).toContain('\x1b[32mok');
    } finally {
      await sb.close();
    }
  });

  it('-o FILE: the "Wrote" line names it as given, and the file is where that name resolves from the working directory', async () => {
    await mkdir(at('out'));
    await against(['-o', './out/../clean.csv'], async (r) => {
      expect(r.exitCode).toBe(0);
      expect(await readFile(at('clean.csv'), 'utf8')).toBe(CSV);
    });
    const { sb, env } = await sandbox({}, home);
    try {
      const r = await run(['emails', await home.list(LIST), '-o', 'clean.csv'], { env, cwd: home.dir });
      expect(r.stderr).toMatch(/\nWrote 3 records to clean\.csv\.\n$/);
    } finally {
      await sb.close();
    }
  });
});

describe('an interrupted run names -o only where it is a file', () => {
  /** A run reading a standard input that never ends, stopped (SIGINT) once the run has begun reading it. */
  async function interrupted(args: string[]) {
    const stop = new AbortController();
    let begun = false;
    const input = new Readable({
      read() {
        if (begun) return;
        begun = true;
        this.push('ada@example.com\n');
        setImmediate(() => stop.abort('SIGINT'));
      },
    });
    return run(['emails', '--sandbox', ...args], { env: home.env, cwd: home.dir, input, signal: stop.signal });
  }

  it('-o FILE: left as it was, and said; -o - and -o /dev/stdout: standard output, not said', async () => {
    const file = await interrupted(['-o', 'out.csv']);
    expect(file.exitCode).toBe(130);
    expect(file.stderr).toContain('; -o out.csv is left as it was. To run it again: idv emails --sandbox -o out.csv\n');
    for (const given of holdsHere('devFiles') ? ['-', '/dev/stdout'] : ['-']) {
      const r = await interrupted(['-o', given]);
      expect(r.exitCode).toBe(130);
      expect(r.stderr).toMatch(/^idv: Interrupted \(SIGINT\): [^\n]*\. To run it again: idv emails --sandbox -o \S+\n$/);
      expect(r.stderr).not.toContain('left as it was');
    }
  });
});
