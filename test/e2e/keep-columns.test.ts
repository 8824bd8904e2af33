// --keep-columns loses nothing, in every format.
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { homeForEachTest } from '../helpers.js';
import { run } from '../fake-io.js';

const home = homeForEachTest();
const file = async (name: string, text: string) => {
  const p = join(home.dir, name);
  await writeFile(p, text);
  return p;
};

describe('--keep-columns', () => {
  it('two columns of the same name and an input column called status: every value kept, JSON names them apart', async () => {
    const f = await file('dup.csv', 'Name,Email,Name,status,\nJo,jo@x.com,Joanna,active,\nAl,al@fake.com,Alan,gone,x\n');
    const csv = await run(['emails', f, '--sandbox', '-q', '--keep-columns']);
    expect(csv.stdout).toBe('Name,Email,Name,status,,status\nJo,jo@x.com,Joanna,active,,ok\nAl,al@fake.com,Alan,gone,x,fake\n');
    const json = await run(['emails', f, '--sandbox', '-q', '--keep-columns', '-f', 'json']);
    expect(JSON.parse(json.stdout)).toEqual([
      { Name: 'Jo', Email: 'jo@x.com', Name_2: 'Joanna', status_2: 'active', column5: '', status: 'ok' },
      { Name: 'Al', Email: 'al@fake.com', Name_2: 'Alan', status_2: 'gone', column5: 'x', status: 'fake' },
    ]);
  });

  it('rows shorter or longer than the header keep every cell; status stays under its header', async () => {
    const f = await file('ragged.csv', 'Email,Name,Note\njo@x.com,Jo\nal@x.com,Al,hi,extra,more\nbo@x.com,Bo,ok\n');
    // Half the rows do not fit: not read with confidence, so said before anything is sent.
    const refused = await run(['emails', f, '--sandbox', '-q', '--keep-columns']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe(
      `idv: ${f} looks like CSV split by ",", but its rows have different numbers of cells (3, 2, 5…); give --delimiter "," to read it so anyway (every cell is kept), or check the file.\n`,
    );
    const csv = await run(['emails', f, '--sandbox', '-q', '--keep-columns', '--delimiter', ',']);
    expect(csv.stdout).toBe('Email,Name,Note,status\njo@x.com,Jo,,ok\nal@x.com,Al,hi,ok,extra,more\nbo@x.com,Bo,ok,ok\n');
    const json = await run(['emails', f, '--sandbox', '-q', '--keep-columns', '--delimiter', ',', '-f', 'ndjson']);
    expect(json.stdout.split('\n')[1]).toBe('{"Email":"al@x.com","Name":"Al","Note":"hi","column4":"extra","column5":"more","status":"ok"}');
  });

  it('several files with different columns are refused before anything is sent (exit 2)', async () => {
    const a = await file('a.csv', 'Email,Name\na@x.com,A\n');
    const b = await file('b.csv', 'E-mail,Full name\nb@x.com,B\n');
    const r = await run(['emails', a, b, '--sandbox', '--keep-columns']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `idv: ${b} has other columns than ${a} (E-mail,Full name / Email,Name); with --keep-columns every file needs the same header: run them one at a time.\n`,
    );
    const same = await file('c.csv', 'Email,Name\nc@x.com,C\n');
    const ok = await run(['emails', a, same, '--sandbox', '-q', '--keep-columns']);
    expect(ok.stdout).toBe('Email,Name,status\na@x.com,A,ok\nc@x.com,C,ok\n');
    // Without --keep-columns each file's own item column is found.
    const plain = await run(['emails', a, b, '--sandbox', '-q']);
    expect(plain.stdout).toBe('email,status\na@x.com,ok\nb@x.com,ok\n');
  });

  it('a one-column CSV whose values are all quoted: the quotes are not part of the item', async () => {
    const f = await file('quoted.csv', '"email"\r\n"jo@x.com"\r\n"al@fake.com"\r\n');
    const r = await run(['emails', f, '--sandbox', '-q']);
    expect(r.stdout).toBe('email,status\njo@x.com,ok\nal@fake.com,fake\n');
  });

  it('a CSV whose quoted cells hold line breaks is never read as a plain list', async () => {
    const f = await file('notes.csv', 'email,notes\njo@x.com,"line one\nline two\nline three"\nal@x.com,"a\r\nb"\n');
    const r = await run(['emails', f, '--sandbox', '-q', '--keep-columns']);
    expect(r.stdout).toBe('email,notes,status\njo@x.com,"line one\nline two\nline three",ok\nal@x.com,"a\r\nb",ok\n');
  });

  it('rows of nothing but delimiters (left below a spreadsheet\'s data) are blank, not records', async () => {
    const f = await file('blank.csv', 'Email;Name\njo@x.com;Jo\n;\n;;\n');
    const r = await run(['emails', f, '--sandbox', '-q']);
    expect(r.stdout).toBe('email,status\njo@x.com,ok\n');
  });

  it('what cannot be read with confidence: no column of items is a one-line error naming the file and the flag, exit 2, nothing sent', async () => {
    const f = await file('none.csv', 'Name,Phone\nJo,555-0100\nAl,555-0101\n');
    const r = await run(['emails', f, '--sandbox']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(`idv: No column of ${f} looks like email addresses; name it with --column NAME or --column N.\n`);
  });

  it('a close column choice is said, with how to pick another', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => `p${i}@x.com,s${i}@y.com`);
    const f = await file('close.csv', 'Primary Email,Secondary Email\n' + rows.join('\n') + '\n');
    const r = await run(['emails', f, '--sandbox', '-q']);
    expect(r.stderr).toBe(
      `idv: note: ${f}: took the column "Primary Email" (10 distinct addresses in the first rows; "Secondary Email" has 10); pick another with --column NAME.\n`,
    );
    expect(r.stdout.split('\n')[1]).toBe('p0@x.com,ok');
  });
});
