// --report FILE (src/output/report.ts): its message is masked like every other; a device named as the report
// is written in place and stays a device; `-` is standard output.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeList, homeForEachTest } from '../helpers.js';
import { run } from '../fake-io.js';
import { IdvError } from '../../src/core/errors.js';
import { Secrets } from '../../src/system/secrets.js';
import type { Sink } from '../../src/output/sink.js';
import { emptyFacts, ending, ReportFile, reportJson, writeReport, type RunFacts } from '../../src/output/report.js';
import { onlyOn } from '../platforms.js';

const home = homeForEachTest();

const KEY = 'sk_test_abcdef123';
const isRoot = process.getuid?.() === 0;

describe('the report message', () => {
  it('an error that quotes the key (a list file named after it): masked in the report as on stderr', async () => {
    const missing = join(home.dir, `list-${KEY}.csv`);
    const report = join(home.dir, 'run.json');
    const r = await run(['emails', missing, '--report', report], { env: { ...home.env, IDV_API_KEY: KEY } });
    const masked = `Cannot read ${join(home.dir, 'list-****.csv')}: no such file.`;
    expect(r).toEqual({ exitCode: 2, stdout: '', stderr: `idv: ${masked}\n` });
    const text = await readFile(report, 'utf8');
    expect(JSON.parse(text)).toMatchObject({ exitCode: 2, reason: 'usage', message: masked });
    expect(text).not.toContain(KEY);
  });
});

describe('where the report goes', () => {
  onlyOn('devFiles').it('a character device (./null): written in place, still the same device after, no temporary file beside it', async () => {
    // As root, a device node of our own in the test folder (as a container user would have); else the system's.
    const path = isRoot ? join(home.dir, 'null') : '/dev/null';
    if (isRoot) execFileSync('mknod', ['-m', '666', path, 'c', '1', '3']);
    const before = await lstat(path);
    const r = await run(['emails', await writeList(home, ['ada@example.com']), '--sandbox', '-q', '--report', path], { cwd: home.dir });
    expect(r).toEqual({ exitCode: 0, stdout: 'email,status\nada@example.com,ok\n', stderr: '' });
    const after = await lstat(path);
    expect(after.isCharacterDevice()).toBe(true);
    expect([after.ino, after.rdev, after.mode]).toEqual([before.ino, before.rdev, before.mode]);
    if (isRoot) expect((await readdir(home.dir)).sort()).toEqual(['list.txt', 'null']);
  });

  it('`-`: the report follows the records on standard output', async () => {
    const r = await run(['emails', await writeList(home, ['ada@example.com']), '--sandbox', '-q', '--report', '-'], { cwd: home.dir });
    expect(r.exitCode).toBe(0);
    const [csv, json] = [r.stdout.slice(0, r.stdout.indexOf('{')), r.stdout.slice(r.stdout.indexOf('{'))];
    expect(csv).toBe('email,status\nada@example.com,ok\n');
    expect(JSON.parse(json)).toMatchObject({ reason: 'done', records: 1 });
    expect(await readdir(home.dir)).toEqual(['list.txt']);
  });
});

describe('the reason and exit code a report gives', () => {
  const facts = (f: Partial<RunFacts> = {}): RunFacts => ({ ...emptyFacts('emails', 0, undefined, undefined, false), ...f });
  const rows: Array<[string, unknown, Partial<RunFacts>, { exitCode: number; reason: string; message: string | null }]> = [
    ['a run that finished', null, {}, { exitCode: 0, reason: 'done', message: null }],
    ['the service’s quota stopped it', new IdvError('quota', 'Quota used up.'), { quotaStopped: true }, { exitCode: 4, reason: 'quota', message: 'Quota used up.' }],
    ['--max-spend left items unsent', new IdvError('quota', 'Stopped at --max-spend 10.'), { capped: 3 }, { exitCode: 4, reason: 'spend-cap', message: 'Stopped at --max-spend 10.' }],
    ['a capped run that the service’s quota stopped too', new IdvError('quota', 'Quota used up.'), { capped: 3, quotaStopped: true }, { exitCode: 4, reason: 'quota', message: 'Quota used up.' }],
    ['a quota stop that left nothing to the cap', new IdvError('quota', 'Quota used up.'), { capped: 0 }, { exitCode: 4, reason: 'quota', message: 'Quota used up.' }],
    ['records that ended error', new IdvError('failed', '2 records not validated.'), { statuses: { ok: 1, error: 2 } }, { exitCode: 1, reason: 'errors', message: '2 records not validated.' }],
    ['a failure with no error record (-o on a disk that filled up)', new IdvError('failed', 'Cannot write out: no space left.'), { statuses: { ok: 1 } }, { exitCode: 1, reason: 'failed', message: 'Cannot write out: no space left.' }],
    ['the key refused', new IdvError('auth', 'The service refused the API key.'), {}, { exitCode: 3, reason: 'auth', message: 'The service refused the API key.' }],
    ['SIGTERM', new IdvError('interrupted', 'Interrupted.', 'SIGTERM'), {}, { exitCode: 143, reason: 'interrupted', message: 'Interrupted.' }],
    ['a usage error', new IdvError('usage', 'Unknown flag.'), {}, { exitCode: 2, reason: 'usage', message: 'Unknown flag.' }],
    ['unreadable input', new IdvError('input', 'Cannot read x.csv.'), {}, { exitCode: 2, reason: 'usage', message: 'Cannot read x.csv.' }],
    ['an unexpected error', new TypeError('x is not a function'), {}, { exitCode: 1, reason: 'failed', message: 'x is not a function' }],
    ['something thrown that is not an Error', 'broken', {}, { exitCode: 1, reason: 'failed', message: 'broken' }],
    ['undefined thrown (exit 1, as the program says): failed, not done', undefined, {}, { exitCode: 1, reason: 'failed', message: 'undefined' }],
  ];
  for (const [name, err, f, expected] of rows) {
    it(name, () => {
      expect(ending(err, facts(f))).toEqual(expected);
    });
  }
});

describe('emptyFacts: the report of a run that ends before reading anything', () => {
  it('no inputs, every count 0, no quota facts; the output and --max-spend as given', () => {
    expect(emptyFacts('emails', 1000, undefined, undefined, true)).toEqual({
      command: 'emails',
      started: 1000,
      inputs: [],
      output: null,
      dryRun: true,
      records: 0,
      skipped: 0,
      unique: 0,
      invalid: 0,
      fromCache: 0,
      statuses: {},
      sent: 0,
      requests: 0,
      retries: 0,
      maxSpend: null,
      capped: 0,
      quotaStopped: false,
      quota: null,
    });
    expect(emptyFacts('domains', 0, 25, 'out.csv', false)).toMatchObject({ command: 'domains', output: 'out.csv', maxSpend: 25, dryRun: false });
  });
});

describe('reportJson', () => {
  it('the whole report: times in ISO form, the duration, every count, the message masked; one JSON text ending in a newline', () => {
    const secrets = new Secrets();
    secrets.add(KEY);
    const f: RunFacts = {
      ...emptyFacts('domains', Date.parse('2026-11-22T10:00:00.000Z'), 50, 'out.csv', false),
      inputs: [{ path: 'list.csv', bytes: 120, records: 4 }],
      records: 4,
      unique: 3,
      invalid: 1,
      skipped: 2,
      fromCache: 1,
      statuses: { ok: 2, invalid: 1, quota_exceeded: 1 },
      sent: 2,
      requests: 2,
      retries: 1,
      capped: 1,
      quota: { remaining: 0, limit: 50, resetsAt: '2026-11-22T11:00:00.000Z' },
    };
    const text = reportJson('1.1.0', f, new IdvError('quota', `Stopped at --max-spend 50 (key ${KEY}).`), Date.parse('2026-11-22T10:00:02.500Z'), secrets);
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({
      format: 1,
      idv: '1.1.0',
      command: 'domains',
      started: '2026-11-22T10:00:00.000Z',
      ended: '2026-11-22T10:00:02.500Z',
      durationMs: 2500,
      dryRun: false,
      inputs: [{ path: 'list.csv', bytes: 120, records: 4 }],
      output: 'out.csv',
      records: 4,
      unique: 3,
      invalid: 1,
      skipped: 2,
      statuses: { ok: 2, invalid: 1, quota_exceeded: 1 },
      fromCache: 1,
      sent: 2,
      requests: 2,
      retries: 1,
      maxSpend: 50,
      capped: 1,
      quota: { remaining: 0, limit: 50, resetsAt: '2026-11-22T11:00:00.000Z' },
      exitCode: 4,
      reason: 'spend-cap',
      message: 'Stopped at --max-spend 50 (key ****).',
    });
  });
});

describe('writeReport', () => {
  it('a report that cannot be put in place: the sink is given up (no temporary file left) and the error goes on to the caller', async () => {
    const done: string[] = [];
    const err = new IdvError('failed', 'Cannot write run.json: permission denied (EACCES); nothing was written.');
    const sink: Sink = {
      ready: async () => undefined,
      write: async (t) => void done.push(`write ${t.length}`),
      prepare: async () => undefined,
      commit: async () => {
        throw err;
      },
      abort: async () => void done.push('abort'),
      closed: false,
      replaces: true,
      name: 'run.json',
    };
    const got = await writeReport(sink, '{}\n').then(
      () => null,
      (e: unknown) => e,
    );
    expect(got).toBe(err);
    expect(done).toEqual(['write 3', 'abort']);
  });
});

describe('ReportFile: the report through a run', () => {
  /** A sink that records what is done to it; `fails` makes that step throw. */
  function recorder(done: string[], name: string, o: { replaces?: boolean; fails?: 'ready' | 'prepare' } = {}): Sink {
    const fail = (step: string) => {
      if (o.fails === step) throw new IdvError('failed', `Cannot write ${name}.`);
    };
    return {
      ready: async () => (done.push(`${name} ready`), fail('ready')),
      write: async (t) => void done.push(`${name} write ${t.trim()}`),
      prepare: async () => (done.push(`${name} prepare`), fail('prepare')),
      commit: async () => void done.push(`${name} commit`),
      abort: async () => void done.push(`${name} abort`),
      closed: false,
      replaces: o.replaces ?? true,
      name,
    };
  }
  const maker = (done: string[], o: Parameters<typeof recorder>[2] = {}) => {
    let n = 0;
    return () => recorder(done, `sink${++n}`, o);
  };

  it('opened, filled and put in place with the outputs: nothing more at the run’s end', async () => {
    const done: string[] = [];
    const report = new ReportFile(maker(done));
    await report.open();
    const sink = (await report.fill('{"reason":"done"}'))!;
    await sink.prepare();
    await sink.commit();
    await report.save('{"reason":"later"}');
    expect(done).toEqual(['sink1 ready', 'sink1 write {"reason":"done"}', 'sink1 prepare', 'sink1 commit']);
  });

  it('filled but never put in place (the run stopped, or another output failed): given up, and written afresh at the end', async () => {
    const done: string[] = [];
    const report = new ReportFile(maker(done));
    await report.open();
    await report.fill('{"reason":"done"}');
    await report.save('{"reason":"interrupted"}');
    expect(done).toEqual(['sink1 ready', 'sink1 write {"reason":"done"}', 'sink1 abort', 'sink2 write {"reason":"interrupted"}', 'sink2 commit']);
  });

  it('one that could not be flushed, or opened, is not tried again at the end (its failure is the run’s)', async () => {
    for (const fails of ['prepare', 'ready'] as const) {
      const done: string[] = [];
      const report = new ReportFile(maker(done, { fails }));
      const opened = await report.open().then(() => true, () => false);
      if (opened) await expect((await report.fill('{}'))!.prepare()).rejects.toThrow('Cannot write sink1.');
      await report.abort();
      await report.save('{"reason":"failed"}');
      expect(done.filter((d) => d.startsWith('sink2'))).toEqual([]);
    }
  });

  it('written in place (standard output, a device): not filled with the outputs, written at the run’s end', async () => {
    const done: string[] = [];
    const report = new ReportFile(maker(done, { replaces: false }));
    await report.open();
    expect(await report.fill('{}')).toBeNull();
    await report.save('{"reason":"done"}');
    expect(done).toEqual(['sink1 ready', 'sink1 write {"reason":"done"}', 'sink1 commit']);
  });

  it('never opened (the run ended before its outputs), or forgone (its path is another output’s)', async () => {
    const done: string[] = [];
    await new ReportFile(maker(done)).save('{"reason":"usage"}');
    expect(done).toEqual(['sink1 write {"reason":"usage"}', 'sink1 commit']);
    const forgone = new ReportFile(maker(done));
    forgone.forgo();
    await forgone.save('{"reason":"usage"}');
    expect(done).toHaveLength(2);
  });
});
