// --help laid out for the width it is printed at: the terminal's when narrower than 80, else 80 (also when
// not a terminal); prose filled, examples' comments lined up or put above them, long commands continued
// with ` \`, lists with their abouts lined up; every command's help, in-process, at many widths.
import { describe, expect, it } from 'vitest';
import { layout, helpWidth, type Block } from '../../src/commands/help-text.js';
import { run, fakeIo } from '../fake-io.js';
import { displayWidth } from '../../src/system/display-width.js';
import { TOPICS } from '../../src/commands/help-topics.js';

/** Every command's help: `idv …words --help`. */
const COMMANDS = [[], ['emails'], ['domains'], ['auth'], ['auth', 'login'], ['auth', 'status'], ['auth', 'logout'], ['cache'], ['cache', 'stats'], ['cache', 'clear'], ['sandbox'], ['completion'], ['help']];
/** A line wider than the width is one word that cannot be broken (a path), after its indent and `$`. */
const tooWide = (text: string, width: number) =>
  text.split('\n').filter((l) => displayWidth(l) > width && !/^ *(\$ |# )?\S+( \\)?$/.test(l));

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

  it('idv --help lists the commands, the examples and the help topics, not the environment, files and exit codes', async () => {
    const r = await run(['--help']);
    for (const name of Object.keys(TOPICS)) expect(r.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    expect(r.stdout).toContain('  $ idv emails list.csv --sandbox\n');
    expect(r.stdout).not.toContain('IDV_API_KEY');
    expect(r.stdout).not.toMatch(/^(Environment|Files|Exit codes):/m);
  });

  it('wide characters take two columns where help is wrapped: メールアドレス is 14 columns, not 7', async () => {
    const at40 = (await run(['help', 'input'], { stdoutIsTTY: true, columns: 40 })).stdout;
    expect(at40).toContain('found by its header (email, e-mail,\nメールアドレス, 电子邮件, Электронная\nпочта… in forty-odd languages; for\n');
    const at60 = (await run(['help', 'input'], { stdoutIsTTY: true, columns: 60 })).stdout;
    expect(at60).toContain('\nheader (email, e-mail, メールアドレス, 电子邮件, Электронная\nпочта… in forty-odd languages; for domains: domain, website,\n');
  });

  it('a narrow terminal gets descriptions under their flags rather than past its edge', async () => {
    const r = await run(['emails', '--help'], { stdoutIsTTY: true, columns: 40 });
    expect(r.stdout).toContain('  --keep-columns\n      keep every input column, add\n      status\n');
  });

  it('bare idv prints its help to stderr with the docs named, no placeholder', async () => {
    const r = await run([]);
    expect(r.stderr).toContain('Usage: idv');
    expect(r.stderr).toMatch(/Docs \(every command, flag, status and exit code\):\n {2}\S*docs\/cli\.md\n$/);
    expect(r.stderr).not.toContain('@DOCS@');
  });
});

describe('help that fits: flags grouped, the common ones first, environment, files and exit codes once', () => {
  it('idv emails --help: on two 80x24 screens, its flags in gh\'s groups, each on one line beside its description', async () => {
    for (const kind of ['emails', 'domains']) {
      const help = (await run([kind, '--help'])).stdout;
      expect(help.split('\n').length - 1).toBeLessThanOrEqual(48);
      const groups = help.split('\n').filter((l) => / flags:$/.test(l));
      expect(groups).toEqual(['Input flags:', 'Output flags:', 'Filter flags:', 'Cost and quota flags:', 'Network flags:', 'Cache flags:', 'Terminal flags:']);
      for (const line of help.split('\n').filter((l) => /^ {2}(-\w, | {4})--/.test(l))) expect(line, line).toMatch(/^ {2}( {4})?\S.* {2,}\S/);
      expect(help).toMatch(/^Input flags:\n {2}-i, --item <item> /m);
      expect(help).toMatch(/^Output flags:\n {2}-f, --format <format> /m);
    }
  });

  it('the environment, the files and the exit codes are said in no command\'s help, but in idv help TOPIC', async () => {
    for (const words of COMMANDS) {
      const help = (await run([...words, '--help'])).stdout;
      expect(help, words.join(' ')).not.toMatch(/^(Environment|Files|Exit codes):/m);
    }
    expect((await run(['help', 'environment'])).stdout).toMatch(/^Environment:\n {2}IDV_API_KEY +the API key/);
    expect((await run(['help', 'files'])).stdout).toMatch(/^Files:\n {2}~\/\.config\/idv\/config\.json +the key/);
    expect((await run(['help', 'Exit-Codes'])).stdout).toMatch(/^Exit codes:\n {2}0 +every record has a final status/);
  });

  it('idv help COMMAND is its --help; idv help alone is idv --help; a slip is answered with the topic meant', async () => {
    expect((await run(['help', 'auth', 'login'])).stdout).toBe((await run(['auth', 'login', '--help'])).stdout);
    expect((await run(['help'])).stdout).toBe((await run(['--help'])).stdout);
    const slip = await run(['help', 'statuss']);
    expect(slip.stderr).toBe(`idv: idv help statuss: no such topic or command; did you mean idv help statuses? (topics: ${Object.keys(TOPICS).join(', ')})\n`);
    expect(slip.exitCode).toBe(2);
  });

  it.each(Object.keys(TOPICS))('idv help %s fits 80 columns, and a narrower terminal', async (topic) => {
    for (const columns of [40, 80]) {
      const r = await run(['help', topic], { stdoutIsTTY: true, columns });
      expect(r.exitCode).toBe(0);
      expect(tooWide(r.stdout, columns)).toEqual([]);
    }
  });
});

describe("help in the user's system's forms", () => {
  it('on Windows: PowerShell lines (PS>, $env:, Get-Content, the powershell completion), its folders; Linux as written', async () => {
    const windows = (await run(['--help'], { platform: 'win32' })).stdout;
    expect(windows).toContain("  PS> 'ann@example.com', 'bob@mailinator.com' | idv emails --sandbox\n");
    expect(windows).toContain('  PS> Get-Content list.txt | idv emails --format json | jq .\n');
    expect(windows).toContain('  PS> idv completion powershell | Out-String | Invoke-Expression\n');
    expect(windows).not.toMatch(/\$ |printf|source <|cat /);
    expect((await run(['auth', 'login', '--help'], { platform: 'win32' })).stdout).toContain('PS> $env:KEY | idv auth login');
    const files = (await run(['help', 'files'], { platform: 'win32' })).stdout.replace(/\s+/g, ' ');
    expect(files).toContain("Files: %APPDATA%\\idv\\config.json the key idv auth login stores, protected by your profile folder's permissions");
    expect(files).toContain('%LOCALAPPDATA%\\idv\\ results kept');
    const linux = (await run(['--help'])).stdout;
    expect(linux).toContain("  $ printf '%s\\n' ann@example.com bob@mailinator.com | idv emails --sandbox");
  });

  it("on macOS: its folders, ~/Library's", async () => {
    const files = (await run(['help', 'files'], { platform: 'darwin' })).stdout;
    expect(files).toContain('~/Library/Application Support/idv/config.json');
    expect(files).toContain('~/Library/Caches/idv/');
    expect((await run(['help', 'environment'], { platform: 'darwin' })).stdout.replace(/\s+/g, ' ')).toContain('(default ~/Library/Caches)');
  });

  it('a long PowerShell line is continued with a backtick, as PowerShell reads it', () => {
    const text = layout([{ examples: [{ command: `idv emails ${'very-long-list-name.csv '.repeat(4)}-o clean.csv` }] }], 60, 'win32');
    expect(text.split('\n')[0]).toMatch(/^ {2}PS> idv emails .* `$/);
  });
});
