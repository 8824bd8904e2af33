// The terminal in one object (src/system/terminal.ts): which streams are terminals, the width to write for
// (the terminal's while it says one of at least MIN_COLUMNS, read again after a resize), colour by NO_COLOR,
// FORCE_COLOR and TERM, the progress line only where a spinner can be drawn, and questions at the keyboard.
import { describe, expect, it } from 'vitest';
import { PassThrough, Readable, Writable } from 'node:stream';
import { colourChoice, Terminal, type Stream } from '../../src/system/terminal.js';
import { MIN_COLUMNS } from '../../src/system/terminal-size.cjs';
import { run } from '../fake-io.js';
import { ELAPSED, homeForEachTest } from '../helpers.js';

/** A stream that says it is `columns` wide and keeps what is written. */
function screen(columns?: number) {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, cb) {
      text += String(chunk);
      cb();
    },
  }) as Writable & { columns?: number };
  stream.columns = columns;
  return { stream, text: () => text };
}

function terminal(o: { columns?: number; tty?: Stream[]; env?: Record<string, string>; stdin?: Readable } = {}) {
  const out = screen(o.columns);
  const err = screen(o.columns);
  const tty = { stdin: false, stdout: false, stderr: false };
  for (const s of o.tty ?? ['stdin', 'stdout', 'stderr']) tty[s] = true;
  const term = new Terminal({ streams: { stdin: o.stdin ?? Readable.from([]), stdout: out.stream, stderr: err.stream }, tty, env: o.env ?? {} });
  return { term, out, err };
}

describe('width', () => {
  it('is the terminal\'s columns, on the stream that is a terminal only', () => {
    const { term } = terminal({ columns: 72, tty: ['stderr'] });
    expect(term.width('stderr')).toBe(72);
    expect(term.width('stdout')).toBeUndefined();
  });

  it('none for a terminal that does not say (a 0×0 pty) or is narrower than MIN_COLUMNS', () => {
    expect(terminal({ columns: 0 }).term.width('stdout')).toBeUndefined();
    expect(terminal({}).term.width('stdout')).toBeUndefined();
    expect(terminal({ columns: MIN_COLUMNS - 1 }).term.width('stdout')).toBeUndefined();
    expect(terminal({ columns: MIN_COLUMNS }).term.width('stdout')).toBe(MIN_COLUMNS);
  });

  it('is read when asked: a resized terminal gives its new width', () => {
    const { term, out } = terminal({ columns: 100 });
    out.stream.columns = 60;
    expect(term.width('stdout')).toBe(60);
  });
});

describe('colour', () => {
  it.each([
    ['a terminal', true, {}, true],
    ['a pipe', false, {}, false],
    ['NO_COLOR on a terminal', true, { NO_COLOR: '1' }, false],
    ['NO_COLOR empty is not set', true, { NO_COLOR: '' }, true],
    ['FORCE_COLOR in a pipe', false, { FORCE_COLOR: '1' }, true],
    ['FORCE_COLOR=0 on a terminal', true, { FORCE_COLOR: '0' }, false],
    ['FORCE_COLOR=false on a terminal', true, { FORCE_COLOR: 'false' }, false],
    ['NO_COLOR over FORCE_COLOR', true, { NO_COLOR: '1', FORCE_COLOR: '1' }, false],
    ['TERM=dumb', true, { TERM: 'dumb' }, false],
  ])('%s', (_, isTTY, env, on) => {
    expect(colourChoice(isTTY, env)).toBe(on);
  });

  it('is chosen per stream by the environment, and --no-color turns both off', () => {
    const { term } = terminal({ tty: ['stderr'] });
    expect([term.color('stdout'), term.color('stderr')]).toEqual([false, true]);
    const plain = term.withoutColor();
    expect([plain.color('stdout'), plain.color('stderr')]).toEqual([false, false]);
    expect(plain.isTerminal('stderr')).toBe(true);
    expect(term.color('stderr')).toBe(true); // the terminal it came from is not changed
  });
});

describe('progress', () => {
  it.each([
    ['standard error is no terminal', { columns: 80, tty: ['stdout'] as Stream[] }, true],
    ['--quiet', { columns: 80 }, false],
    ['a terminal that says no width', { columns: 0 }, true],
    ['a terminal narrower than MIN_COLUMNS', { columns: MIN_COLUMNS - 1 }, true],
    ['TERM=dumb', { columns: 80, env: { TERM: 'dumb' } }, true],
  ])('no spinner where %s: lines are written as they are, nothing else', async (_, o, shown) => {
    const { term, err } = terminal(o);
    const p = await term.progress(shown);
    p.update('Validating');
    p.log('idv: note: a line longer than the terminal stays one line here, as in a log file');
    p.stop();
    expect(p.live).toBe(false);
    expect(err.text()).toBe('idv: note: a line longer than the terminal stays one line here, as in a log file\n');
  });

  it('a spinner on a terminal that can show one; lines above it wrapped by display columns, wide characters two', async () => {
    const { term, err } = terminal({ columns: 24, env: { TERM: 'xterm' } });
    const p = await term.progress(true);
    p.log('idv: note: メールアドレス.csv: 電子メール 電子メール');
    p.stop();
    expect(p.live).toBe(true);
    const text = err.text().replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    expect(text).toContain('idv: note:\n  メールアドレス.csv:\n  電子メール 電子メール\n');
  });
});

describe('questions', () => {
  it('can be asked only when standard input is a terminal', () => {
    expect(terminal({ tty: ['stdin'] }).term.canAsk()).toBe(true);
    expect(terminal({ tty: ['stdout', 'stderr'] }).term.canAsk()).toBe(false);
  });

  it('ask: the question on standard error, the line typed is the answer; the end of input is none', async () => {
    const yes = terminal({ stdin: Readable.from(['y', 'es\nmore\n']) });
    expect(await yes.term.ask('Remove? [y/N] ', new AbortController().signal)).toBe('yes');
    expect(yes.err.text()).toBe('Remove? [y/N] ');
    const none = terminal({ stdin: Readable.from([]) });
    expect(await none.term.ask('Remove? [y/N] ', new AbortController().signal)).toBeNull();
  });

  it('ask: Ctrl-C while waiting ends the wait, the message on a line of its own', async () => {
    const stop = new AbortController();
    const { term, err } = terminal({ stdin: new PassThrough() });
    const answer = term.ask('Remove? [y/N] ', stop.signal);
    stop.abort('SIGINT');
    await expect(answer).rejects.toMatchObject({ kind: 'interrupted' });
    expect(err.text()).toBe('Remove? [y/N] \n');
  });

  it('askHidden: the prompt, then the line typed (a backspace taken back), and a line break after it', async () => {
    const stdin = new PassThrough();
    const { term, err } = terminal({ stdin });
    const key = term.askHidden('Paste your API key (input is hidden): ', 64);
    stdin.write('sk_livX\x7fe_1234\r');
    expect(await key).toBe('sk_live_1234');
    expect(err.text()).toBe('Paste your API key (input is hidden): \n');
  });

  it('askHidden: reading stops past the most it takes', async () => {
    const stdin = new PassThrough();
    const { term } = terminal({ stdin });
    const key = term.askHidden('Key: ', 4);
    stdin.write('abcdefgh');
    expect(await key).toBe('abcde');
  });
});

describe('a run laid out for the terminal it is given', () => {
  const LIST = 'Name,Email,Company,City\nAnn Lee,ann@example.com,Example Corporation Limited,San Francisco\n山田太郎,メールアドレス@example.jp,株式会社山田,東京\nCarol,carol@gmial.com,Gmial,Paris\n';
  const TABLES: Record<number, string[]> = {
    40: ['…  EMAIL         …  STATUS  SUGGESTION', '…  ann@example…  …  ok', '…  メールアド…   …  ok', '…  carol@gmial…  …  ok      …l@gmail.com'],
    80: [
      'NAME      EMAIL                      COMPANY          …  STATUS  SUGGESTION',
      'Ann Lee   ann@example.com            Example Corpor…  …  ok',
      '山田太郎  メールアドレス@example.jp  株式会社山田     …  ok',
      'Carol     carol@gmial.com            Gmial            …  ok      carol@gmail.com',
    ],
    120: [
      'NAME      EMAIL                      COMPANY                      CITY           STATUS  SUGGESTION',
      'Ann Lee   ann@example.com            Example Corporation Limited  San Francisco  ok',
      '山田太郎  メールアドレス@example.jp  株式会社山田                 東京           ok',
      'Carol     carol@gmial.com            Gmial                        Paris          ok      carol@gmail.com',
    ],
  };
  const BAR = (columns: number) => (columns >= 80 ? '  ████████████████████' : '');
  /** chalk's escapes (level 1), as the table and the summary colour a status: the header bold, ok green. */
  const coloured = (line: string, i: number) => (i === 0 ? `\x1b[1m${line}\x1b[22m` : line.replace(/  ok( {6}|$)/, (_, after) => `  \x1b[32mok    \x1b[39m${after ? '  ' : ''}`));

  const home = homeForEachTest();

  async function runOn(columns: number, color: boolean, flags: string[] = []) {
    const file = await home.file('list.csv', LIST);
    const r = await run(['emails', file, '--sandbox', '--suggest', '--keep-columns', ...flags], { stdoutIsTTY: true, stderrIsTTY: true, columns, color, colorErr: color, env: { ...home.env, TERM: 'dumb' } });
    return { ...r, stderr: r.stderr.replace(new RegExp(` in ${ELAPSED}\n`), ' in 0.0 s\n') };
  }

  it.each([40, 80, 120])('%i columns, colour off: the table as wide as the terminal, wide characters two columns each', async (columns) => {
    const r = await runOn(columns, false);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(TABLES[columns]!.join('\n') + '\n');
    expect(r.stderr).toBe(`3 records in 0.0 s\n  ok      3  100.0%${BAR(columns)}\n3 items sent in 1 request\n`);
  });

  it.each([40, 80, 120])('%i columns, colour on: the same table, header bold and status coloured, and the summary', async (columns) => {
    const r = await runOn(columns, true);
    expect(r.stdout).toBe(TABLES[columns]!.map(coloured).join('\n') + '\n');
    const bar = BAR(columns) && `  \x1b[32m${BAR(columns).trim()}\x1b[39m`;
    expect(r.stderr).toBe(`3 records in 0.0 s\n  \x1b[32mok    \x1b[39m  3  100.0%${bar}\n3 items sent in 1 request\n`);
    expect(await runOn(columns, true, ['--no-color'])).toEqual(await runOn(columns, false));
  });
});
