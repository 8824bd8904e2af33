// `idv emails|domains` as a person meets it, in-process through its io against a real sandbox: items given on
// the command line (--item), an address typed where a FILE goes, an input without records, the lines that say
// what -o and --split wrote, and messages that fit the terminal.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { makeHome, sandbox, sentItems, writeList, type Home } from '../../helpers.js';
import { run } from '../../fake-io.js';

let home: Home;
beforeEach(async () => void (home = await makeHome()));
afterEach(async () => home.cleanup());

describe('--item', () => {
  it('validates the items given, in every output format, and sends each once', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const r = await run(['emails', '-i', 'jane@gmail.com', '--item', 'bob@mailinator.com', '-i', 'not-an-address', '-q'], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\njane@gmail.com,ok\nbob@mailinator.com,disposable\nnot-an-address,invalid\n');
      expect(r.stderr).toBe('');
      expect(sentItems(sb)).toEqual(['jane@gmail.com', 'bob@mailinator.com']);
      const json = await run(['emails', '-i', 'jane@gmail.com', '-f', 'json', '-q'], { env });
      expect(json.stdout).toBe('[\n  {"email":"jane@gmail.com","status":"ok"}\n]\n');
      const ndjson = await run(['domains', '-i', 'example.com', '-f', 'ndjson', '-q'], { env });
      expect(ndjson.stdout).toBe('{"domain":"example.com","status":"ok"}\n');
    } finally {
      await sb.close();
    }
  });

  it('the exit codes of any run: 4 when the quota runs out', async () => {
    const { sb, env } = await sandbox({ quota: 1 }, home);
    try {
      const r = await run(['emails', '-i', 'a@example.com', '-i', 'b@example.com', '-q', '--no-cache'], { env });
      expect(r.exitCode).toBe(4);
      expect(r.stdout).toBe('email,status\na@example.com,ok\nb@example.com,quota_exceeded\n');
    } finally {
      await sb.close();
    }
  });

  it('after the files and standard input; standard input is read only when named', async () => {
    const list = await writeList(home, ['one@example.com']);
    const both = await run(['emails', list, '-', '-i', 'three@example.com', '--sandbox', '-q'], { input: 'two@example.com\n' });
    expect(both.stdout).toBe('email,status\none@example.com,ok\ntwo@example.com,ok\nthree@example.com,ok\n');
    const alone = await run(['emails', '-i', 'three@example.com', '--sandbox', '-q'], { input: 'two@example.com\n' });
    expect(alone.stdout).toBe('email,status\nthree@example.com,ok\n');
    const terminal = await run(['emails', '-i', 'three@example.com', '--sandbox', '-q'], { stdinIsTTY: true });
    expect(terminal.exitCode).toBe(0);
  });

  it('an address typed where a FILE goes: exit 2, one line naming the --item that validates it, nothing sent', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const r = await run(['emails', 'jane@gmail.com'], { env, cwd: home.dir });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toBe('idv: No such file: jane@gmail.com. To validate it as an address, give it with --item (-i): idv emails --item jane@gmail.com\n');
      const domain = await run(['domains', 'example.com'], { env, cwd: home.dir });
      expect(domain.exitCode).toBe(2);
      expect(domain.stderr).toBe('idv: No such file: example.com. To validate it as a domain, give it with --item (-i): idv domains --item example.com\n');
      // A mistyped file name that holds an @ is a missing file, never an address to pay for.
      const file = await run(['emails', 'list@2024.csv'], { env, cwd: home.dir });
      expect(file.exitCode).toBe(2);
      expect(file.stderr).toBe('idv: Cannot read list@2024.csv: no such file.\n');
      expect(sb.requests).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

describe('an input without records', () => {
  it('an empty file: a one-line warning, exit 0, the header alone on stdout', async () => {
    await writeFile(join(home.dir, 'empty.csv'), '');
    const r = await run(['emails', 'empty.csv', '--sandbox'], { cwd: home.dir });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('idv: warning: empty.csv holds no records; nothing to validate.\n');
    expect(r.stdout).toBe('email,status\n');
  });

  it('empty standard input, and a header alone; with -q too (a warning is no progress)', async () => {
    const stdin = await run(['emails', '--sandbox'], { input: '' });
    expect(stdin.exitCode).toBe(0);
    expect(stdin.stderr).toBe('idv: warning: standard input holds no records; nothing to validate.\n');
    const header = await run(['domains', '--sandbox', '-q'], { input: 'domain\n' });
    expect(header.exitCode).toBe(0);
    expect(header.stderr).toBe('idv: warning: standard input holds no records; nothing to validate.\n');
  });

  it('one empty file among others: named, and the run goes on', async () => {
    await writeList(home, ['email'], 'header.csv');
    await writeList(home, ['jane@example.com'], 'list.txt');
    const r = await run(['emails', 'header.csv', 'list.txt', '--sandbox'], { cwd: home.dir });
    expect(r.exitCode).toBe(0);
    expect(r.stderr.split('\n')[0]).toBe('idv: warning: header.csv holds no records.');
    expect(r.stderr).toContain('1 record in ');
    expect(r.stdout).toBe('email,status\njane@example.com,ok\n');
  });
});

describe('what -o and --split wrote', () => {
  const lines = ['jane@example.com', 'bob@mailinator.com', 'nope', 'ann@example.com'];

  it('-o: one line naming the file and the records in it, after the summary', async () => {
    await writeList(home, lines);
    const r = await run(['emails', 'list.txt', '--sandbox', '-o', 'out.csv'], { cwd: home.dir });
    expect(r.exitCode).toBe(0);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('Wrote 4 records to out.csv.');
    const filtered = await run(['emails', 'list.txt', '--sandbox', '-o', 'clean.csv', '--exclude', 'disposable,invalid'], { cwd: home.dir });
    expect(filtered.stderr.trimEnd().split('\n').at(-1)).toBe('Wrote 2 records to clean.csv; --exclude left out 2.');
    expect(await readFile(join(home.dir, 'clean.csv'), 'utf8')).toBe('email,status\njane@example.com,ok\nann@example.com,ok\n');
  });

  it('--split: the folder, each file with records and its count, and how many are empty', async () => {
    await writeList(home, lines);
    const r = await run(['emails', 'list.txt', '--sandbox', '--split', 'split', '-f', 'ndjson'], { cwd: home.dir });
    expect(r.exitCode).toBe(0);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('Wrote 7 files to split/ (ok.ndjson 2, disposable.ndjson 1, invalid.ndjson 1, 4 without records).');
    const both = await run(['emails', 'list.txt', '--sandbox', '--split', 'split/', '-o', 'out.json'], { cwd: home.dir });
    expect(both.stderr.trimEnd().split('\n').slice(-2)).toEqual([
      'Wrote 4 records to out.json.',
      'Wrote 7 files to split/ (ok.json 2, disposable.json 1, invalid.json 1, 4 without records).',
    ]);
  });

  it('nothing said with -q, nor for standard output', async () => {
    await writeList(home, lines);
    const quiet = await run(['emails', 'list.txt', '--sandbox', '-o', 'out.csv', '--split', 'split', '-q'], { cwd: home.dir });
    expect(quiet.stderr).toBe('');
    const stdout = await run(['emails', 'list.txt', '--sandbox'], { cwd: home.dir });
    expect(stdout.stderr).not.toContain('Wrote');
  });
});

describe('lines for a person while the run works', () => {
  it('--verbose lines wrap at the terminal, one line each elsewhere', async () => {
    await writeList(home, ['jane@example.com']);
    const onTerminal = await run(['emails', 'list.txt', '--sandbox', '--verbose', '-q'], { cwd: home.dir, stderrIsTTY: true, columns: 40 });
    expect(onTerminal.exitCode).toBe(0);
    const lines = onTerminal.stderr.trimEnd().split('\n');
    // Two messages (the file's layout, then the request), each wrapped: its later lines indented.
    expect(lines.filter((l) => l.startsWith('idv: '))).toEqual([expect.stringMatching(/^idv: list\.txt: encoding/), expect.stringMatching(/^idv: POST /)]);
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.every((l) => l.startsWith('idv: ') || l.startsWith('  '))).toBe(true);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(40);
    const elsewhere = await run(['emails', 'list.txt', '--sandbox', '--verbose', '-q'], { cwd: home.dir, columns: 40 });
    expect(elsewhere.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^idv: list\.txt: encoding utf-8/), expect.stringMatching(/^idv: POST .*\/emails\/validate/)]);
  });
});

describe('input found damaged after results were paid for', () => {
  it('exit 2 with the reason, and that the results received before it are cached (a rerun does not pay for them)', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const input = new PassThrough();
      input.write('email,name\n' + Array.from({ length: 150 }, (_, i) => `u${i}@example.com,U${i}\n`).join(''));
      const running = run(['emails', '-', '-q', '-o', join(home.dir, 'out.csv')], { env, input });
      // A deadline only against a hang: the damage comes once the service has answered.
      for (let i = 0; i < 2000 && sentItems(sb).length < 100; i++) await new Promise((r) => setTimeout(r, 10));
      input.end('"broken@example.com,a quote that never closes\n');
      const r = await running;
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/; the results received before it are cached, so the same command sends nothing for them again\.\n$/);
      expect(r.stderr.split('\n').length).toBe(2); // one line
    } finally {
      await sb.close();
    }
  });
});
