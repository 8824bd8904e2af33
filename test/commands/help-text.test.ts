// --help laid out for the width it is printed at: the terminal's when narrower than 80, else 80 (also when
// not a terminal); prose filled, examples' comments lined up or put above them, long commands continued
// with ` \`, lists with their abouts lined up; every command's help, in-process, at many widths.
import { describe, expect, it } from 'vitest';
import { layout, helpWidth, type Block } from '../../src/commands/help-text.js';
import { run, fakeIo } from '../fake-io.js';

/** Every command's help: `idv …words --help`. */
const COMMANDS = [[], ['emails'], ['domains'], ['auth'], ['auth', 'login'], ['auth', 'status'], ['auth', 'logout'], ['cache'], ['cache', 'stats'], ['cache', 'clear'], ['sandbox'], ['completion']];
/** A line wider than the width is one word that cannot be broken (a path), after its indent and `$`. */
const tooWide = (text: string, width: number) =>
  text.split('\n').filter((l) => [...l].length > width && !/^ *(\$ |# )?\S+( \\)?$/.test(l));

describe('helpWidth', () => {
  it.each([
    [{ stdoutIsTTY: true, columns: 60 }, 60],
    [{ stdoutIsTTY: true, columns: 200 }, 80],
    [{ stdoutIsTTY: true, columns: 0 }, 80], // a pty that reports no size
    [{ stdoutIsTTY: false, columns: 60 }, 80],
    [{ stdoutIsTTY: true, columns: 8 }, 80], // too narrow to write for
  ])('%o → %i', (o, width) => {
    expect(helpWidth(fakeIo(o))).toBe(width);
  });
});

describe('layout', () => {
  const examples: Block = {
    title: 'Examples:',
    examples: [
      { command: 'idv emails list.csv', comment: 'a table' },
      { command: 'cat list.txt | idv emails -f json', comment: 'json' },
      { command: 'idv emails' },
    ],
  };

  it('lines comments up when every example fits so', () => {
    expect(layout([examples], 80)).toBe(
      ['Examples:', '  $ idv emails list.csv                # a table', '  $ cat list.txt | idv emails -f json  # json', '  $ idv emails'].join('\n'),
    );
  });

  it('puts each comment above its command, a blank line apart, when they do not fit side by side', () => {
    expect(layout([examples], 40)).toBe(
      ['Examples:', '  # a table', '  $ idv emails list.csv', '', '  # json', '  $ cat list.txt | idv emails -f json', '', '  $ idv emails'].join('\n'),
    );
  });

  it('continues a long command with ` \\`, before a flag and its value or a pipe', () => {
    const long: Block = { examples: [{ command: 'idv emails export.csv --keep-columns --exclude disposable,fake -o clean.csv | tee log' }] };
    expect(layout([long], 50)).toBe(['  $ idv emails export.csv --keep-columns \\', '      --exclude disposable,fake -o clean.csv \\', '      | tee log'].join('\n'));
  });

  it('fills prose and keeps an indented line indented', () => {
    expect(layout([{ prose: 'one two three four five six seven\n  /a/path/that/is/long' }], 24)).toBe('one two three four five\nsix seven\n  /a/path/that/is/long');
  });

  const files: Block = { list: 'Files', items: [['~/a', 'the first file, with words enough to wrap'], ['~/a/rather/long/name.json', 'the second']] };

  it('lines a list up, a term longer than a third of the line on a line of its own', () => {
    expect(layout([files], 60)).toBe(
      ['Files:', '  ~/a                   the first file, with words enough to', ' '.repeat(24) + 'wrap', '  ~/a/rather/long/name.json', ' '.repeat(24) + 'the second'].join('\n'),
    );
  });

  it('puts every about below its term when the column beside them is too narrow', () => {
    expect(layout([files], 34)).toBe(
      ['Files:', '  ~/a', '      the first file, with words', '      enough to wrap', '  ~/a/rather/long/name.json', '      the second'].join('\n'),
    );
  });

});

describe('every command\'s --help fits the width it is printed at', () => {
  it.each(COMMANDS)('idv %s --help', async (...words) => {
    for (const columns of [40, 50, 60, 72, 79, 80, 100, 132]) {
      const r = await run([...words, '--help'], { stdoutIsTTY: true, columns });
      expect(r.exitCode).toBe(0);
      expect(tooWide(r.stdout, Math.min(columns, 80)), `${columns} columns`).toEqual([]);
    }
    const piped = await run([...words, '--help'], { columns: 40 });
    expect(piped.stdout).toBe((await run([...words, '--help'], { stdoutIsTTY: true, columns: 132 })).stdout); // not a terminal: 80
  });

  it('idv --help lists the environment variables, the files, the exit codes and the examples', async () => {
    const r = await run(['--help']);
    for (const name of ['IDV_API_KEY', 'IDV_BASE_URL', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'NO_COLOR', 'FORCE_COLOR']) {
      expect(r.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    }
    expect(r.stdout).toMatch(/^Files:\n  ~\/\.config\/idv\/config\.json +the key/m);
    expect(r.stdout).toMatch(/^  ~\/\.cache\/idv\/ +results kept/m);
    expect(r.stdout).toMatch(/^Exit codes:\n  0 +every record has a final status/m);
    expect(r.stdout).toContain('  $ idv emails list.csv --sandbox\n');
  });

  it('a narrow terminal gets descriptions under their flags rather than past its edge', async () => {
    const r = await run(['emails', '--help'], { stdoutIsTTY: true, columns: 40 });
    expect(r.stdout).toContain('  --keep-columns\n      write every input column, plus\n      status as the last one\n');
  });

  it('bare idv prints its help to stderr with the docs named, no placeholder', async () => {
    const r = await run([]);
    expect(r.stderr).toContain('Usage: idv');
    expect(r.stderr).toMatch(/Docs \(every command, flag, status and exit code\):\n {2}\S*docs\/cli\.md\n$/);
    expect(r.stderr).not.toContain('@DOCS@');
  });
});
