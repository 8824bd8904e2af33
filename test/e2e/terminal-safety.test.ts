// What a person reads is exact and cannot be forged: control characters from a list, a file name or the service
// are shown escaped (a line break in a name cannot make a line of its own), and dates are said in full.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { sandbox, homeForEachTest } from '../helpers.js';
import { run } from '../fake-io.js';

const home = homeForEachTest();
const list = home.list;

describe('terminal safety: control characters from files and the service are shown escaped', () => {
  const OSC52 = '\x1b]52;c;aGVsbG8=\x07';

  it('a list cell with an OSC 52 sequence: escaped in the table, exact in CSV', async () => {
    const file = await list([`evil${OSC52}@example.com`, 'ok@example.com']);
    const table = await run(['emails', file, '--sandbox', '-q'], { stdoutIsTTY: true });
    expect(table.exitCode).toBe(0);
    const shown = 'evil\\x1b]52;c;aGVsbG8=\\x07@example.com';
    const w = shown.length;
    expect(table.stdout).toBe(`${'EMAIL'.padEnd(w)}  STATUS\n${shown}  invalid\n${'ok@example.com'.padEnd(w)}  ok\n`);
    const csv = await run(['emails', file, '--sandbox', '-q']);
    expect(csv.stdout).toBe(`email,status\nevil${OSC52}@example.com,invalid\nok@example.com,ok\n`);
  });

  it('a server message with escape codes reaches the closing line escaped', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      sb.inject({ kind: 'status', status: 400, body: JSON.stringify({ message: `Bad ${OSC52}request\x1b[2J` }) });
      const r = await run(['emails', await list(['a@example.com'])], { env });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain('(error: the service answered HTTP 400: Bad \\x1b]52;c;aGVsbG8=\\x07request\\x1b[2J)');
      expect(r.stderr).not.toMatch(/\x1b/);
    } finally {
      await sb.close();
    }
  });

  it('a file name and header names with escape codes are escaped in errors', async () => {
    const missing = await run(['emails', join(home.dir, 'no\x1b[31mfile.csv')]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe(`idv: Cannot read ${join(home.dir, 'no\\x1b[31mfile.csv')}: no such file.\n`);
    const file = await list(['na\x1b[5mme,email', 'Jo,jo@example.com']);
    const r = await run(['emails', file, '--column', 'nope', '--sandbox']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('"na\\x1b[5mme"');
    expect(r.stderr).not.toMatch(/\x1b/);
  });
});

describe('a line break in a file name cannot forge a line of its own', () => {
  it('file names with \\n and \\r are shown escaped in one-line errors and notes', async () => {
    const missing = join(home.dir, 'no\nidv: all good.csv');
    const r = await run(['emails', missing]);
    expect(r.stderr).toBe(`idv: Cannot read ${join(home.dir, 'no\\nidv: all good.csv')}: no such file.\n`); // one line, not two
    expect(r.exitCode).toBe(2);

    const out = join(home.dir, 'gone\r\nidv: done', 'out.csv');
    const w = await run(['emails', '--sandbox', '-q', '-o', out], { input: 'a@example.com\n' });
    expect(w.stderr).toBe(`idv: Cannot write ${join(home.dir, 'gone\\r\\nidv: done', 'out.csv')}: no such folder (ENOENT); nothing was written.\n`);
    expect(w.exitCode).toBe(2);

    const noted = await list(['Notes:', 'email,name', 'a@example.com,A'], 'x\ny.csv');
    const n = await run(['emails', noted, '--sandbox', '-q']);
    expect(n.exitCode).toBe(0);
    expect(n.stderr).toBe(`idv: note: ${join(home.dir, 'x\\ny.csv')}: skipped line 1 above the header (not a record): "Notes:"\n`);
  });
});

describe('what a person reads is exact', () => {
  it('a header with an escape code is shown as \\x1b in the table, not upper-cased into \\X1B', async () => {
    const file = await list(['email,na\x1bme', 'a@example.com,x'], 'h.csv');
    const r = await run(['emails', file, '--sandbox', '-q', '--keep-columns'], { stdoutIsTTY: true });
    expect(r.stdout).toBe('EMAIL          NA\\x1bME  STATUS\na@example.com  x         ok\n');
  });

  it('a quota reset more than a day away is said with its date, not only a time of day', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      sb.inject({ kind: 'status', status: 429, headers: { RateLimit: '"validations";r=0;t=2592000' } });
      const r = await run(['emails', await list(['a@example.com'])], { env });
      expect(r.exitCode).toBe(4);
      const at = new Date(Date.now() + 2592000 * 1000).toISOString();
      const when = new RegExp(`It resets in 720h( 1s)? \\(at ${at.slice(0, 10)} \\d\\d:\\d\\d UTC\\)`);
      expect(r.stderr).toMatch(when); // not "(at 12:15 UTC)", as if today
    } finally {
      await sb.close();
    }
  });
});
