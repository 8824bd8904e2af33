// Reading a list: a FILE, standard input or several; the column a CSV's items are in, found or chosen; encodings,
// line ends, trimming, dedup, and what cannot be an address (never sent). idv runs in this process (test/fake-io.ts) against the sandbox, asserting exact 
// output, exit codes and what the server received. The built program
// only where the process matters (a terminal on standard input).
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { fixture, idv, IDV, sentItems } from '../helpers.js';
import { run } from '../fake-io.js';
import { withSandbox, counts, tmpFile, EMAILS_TXT_CSV, EMAILS_TXT_SENT, type Rec } from './helpers.js';
import { onlyOn } from '../platforms.js';

// ---------------------------------------------------------------------------------------------
describe.concurrent('input sources', () => {
  it('reads a FILE: exact CSV, invalid items never sent, duplicates sent once', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', fixture('emails.txt')], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(EMAILS_TXT_CSV);
      expect([...sentItems(sb)].sort()).toEqual([...EMAILS_TXT_SENT].sort());
      expect(sb.requests.every((q) => q.path === '/emails/validate' && q.method === 'POST')).toBe(true);
    });
  });

  it('reads "-" as standard input', async () => {
    const input = await readFile(fixture('emails.txt'));
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', '-'], { env, input });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(EMAILS_TXT_CSV);
      expect(sentItems(sb)).toHaveLength(14);
    });
  });

  it('reads piped standard input when no FILE is given', async () => {
    const input = await readFile(fixture('emails.txt'));
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails'], { env, input });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(EMAILS_TXT_CSV);
      expect(sentItems(sb)).toHaveLength(14);
    });
  });

  onlyOn('script').it('with no FILE and standard input a terminal: exit 2 with a hint, nothing sent', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      // `script` gives idv a pseudo-terminal as standard input.
      const r = await execa('script', ['-qec', `node ${IDV} emails`, '/dev/null'], {
        env,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: 25_000,
      });
      expect(r.exitCode).toBe(2);
      expect(String(r.stdout)).toMatch(/idv emails|FILE|pipe/i);
      expect(sb.requests).toHaveLength(0);
    });
  });

  it('a missing file: exit 2, one line naming it, nothing on stdout, nothing sent', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', 'no-such-list.txt'], { env });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('no-such-list.txt');
      expect(sb.requests).toHaveLength(0);
    });
  });

  it('a directory: exit 2, naming it, nothing sent', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', 'fixtures'], { env });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('fixtures');
      expect(sb.requests).toHaveLength(0);
    });
  });

  it('several files (and "-") are read in order', async () => {
    await withSandbox({}, async ({ env, home }) => {
      const a = await tmpFile(home, 'a.txt', 'a1@gmail.com\na2@fake.com\n');
      const b = await tmpFile(home, 'b.txt', 'b1+x@gmail.com\nb2\n');
      const r = await run(['emails', b, '-', a], { env, input: 's1@mailinator.com\n' });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(
        'email,status\nb1+x@gmail.com,alias\nb2,invalid\ns1@mailinator.com,disposable\na1@gmail.com,ok\na2@fake.com,fake\n',
      );
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('fixtures: status counts (fixtures/README.md) and items sent', () => {
  const cases: [string, 'emails' | 'domains', Record<string, number>, number][] = [
    ['emails.txt', 'emails', { ok: 8, alias: 2, disposable: 3, fake: 3, invalid: 3 }, 14],
    ['newsletter.csv', 'emails', { ok: 6, alias: 1, disposable: 2, fake: 1, invalid: 1 }, 9],
    ['crm.csv', 'emails', { ok: 5, alias: 1, disposable: 1, fake: 2, invalid: 2 }, 8],
    ['google-contacts.csv', 'emails', { ok: 6, alias: 1, disposable: 1, fake: 2, invalid: 1 }, 9],
    ['spreadsheet-semicolon.csv', 'emails', { ok: 5, alias: 1, disposable: 2, fake: 1, invalid: 1 }, 8],
    ['contacts.tsv', 'emails', { ok: 5, alias: 1, disposable: 2, fake: 1, invalid: 1 }, 8],
    ['no-header.csv', 'emails', { ok: 5, alias: 1, disposable: 1, fake: 1, invalid: 1 }, 7],
    ['domains.txt', 'domains', { ok: 7, disposable: 3, fake: 3, invalid: 2 }, 11],
    ['websites.csv', 'domains', { ok: 7, disposable: 2, fake: 2, invalid: 2 }, 10],
    ['broken/blank-lines.txt', 'emails', { ok: 2 }, 2],
  ];
  it.each(cases)('%s (%s)', async (file, cmd, expected, sent) => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run([cmd, fixture(file), '--format', 'json'], { env });
      expect(r.exitCode).toBe(0);
      const records = JSON.parse(r.stdout) as Rec[];
      expect(counts(records)).toEqual(expected);
      const field = cmd === 'emails' ? 'email' : 'domain';
      expect(records.every((x) => Object.keys(x).sort().join() === [field, 'status'].sort().join())).toBe(true);
      const items = sentItems(sb);
      expect(items).toHaveLength(sent);
      expect(new Set(items).size).toBe(sent);
      expect(sb.requests.every((q) => q.path === `/${cmd}/validate`)).toBe(true);
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('CSV detection and overrides', () => {
  it('crm.csv: the E-mail column (6), not Website; BOM ignored', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', fixture('crm.csv')], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(
        'email,status\n' +
          'jose.garcia@northwind.io,ok\n' +
          'zoe.clarke@globex.com,ok\n' +
          'j.mueller@mueller-gmbh.de,ok\n' +
          ',invalid\n' +
          'francois.lemaitre+crm@acme-corp.com,alias\n' +
          'chenwei88@10minutemail.com,disposable\n' +
          'bjorn@fakemail.net,fake\n' +
          'zoe.clarke@Globex.com,ok\n' +
          'soren.k@umbrella health.com,invalid\n' +
          'mariana.goncalves@outlook.com,ok\n' +
          'ana.pena@vandelay.example,fake\n',
      );
      expect(sentItems(sb).some((i) => i.includes('\uFEFF') || i.startsWith('http'))).toBe(false);
    });
  });

  it('google-contacts.csv: picks "E-mail 1 - Value"', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', fixture('google-contacts.csv')], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(
        'email,status\n' +
          'sarah.connor@gmail.com,ok\n' +
          'tom.hughes@acme-corp.com,ok\n' +
          'mei.tanaka+shopping@yahoo.com,alias\n' +
          'starlord77@guerrillamail.com,disposable\n' +
          ',invalid\n' +
          'grace.hopper@outlook.com,ok\n' +
          'alex@qwerty.com,fake\n' +
          'tom.hughes@ACME-CORP.COM,ok\n' +
          'rosa.parks@yahoo.com,ok\n' +
          'ivan.petrov@temp-inbox.invalid,fake\n' +
          'lucy.gray@globex.com,ok\n',
      );
    });
  });

  const EMAIL2 =
    'email,status\n' +
    'sconnor@cyberdyne.com,ok\n' +
    ',invalid\n,invalid\n' +
    'peter.quill@gmail.com,ok\n' +
    ',invalid\n' +
    'ghopper@northwind.io,ok\n' +
    ',invalid\n,invalid\n,invalid\n,invalid\n' +
    'lucy.g@maildrop.cc,disposable\n';

  it('--column NAME chooses the column', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', fixture('google-contacts.csv'), '--column', 'E-mail 2 - Value'], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(EMAIL2);
      expect([...sentItems(sb)].sort()).toEqual(
        ['ghopper@northwind.io', 'lucy.g@maildrop.cc', 'peter.quill@gmail.com', 'sconnor@cyberdyne.com'],
      );
    });
  });

  it('--column N (from 1) chooses the column', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', fixture('google-contacts.csv'), '--column', '33'], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(EMAIL2);
    });
  });

  it('--delimiter sets the delimiter', async () => {
    await withSandbox({}, async ({ sb, env, home }) => {
      const f = await tmpFile(home, 'pipe.csv', 'note|email\nhi, there|ann@gmail.com\nx, y|bob@fake.com\n');
      const r = await run(['emails', f, '--delimiter', '|'], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\nann@gmail.com,ok\nbob@fake.com,fake\n');
      expect(sentItems(sb)).toEqual(['ann@gmail.com', 'bob@fake.com']);
    });
  });

  it('--no-header makes the first row a record', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', '--no-header'], { env, input: 'email,name\nann@gmail.com,Ann\n' });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\nemail,invalid\nann@gmail.com,ok\n');
      expect(sentItems(sb)).toEqual(['ann@gmail.com']);
    });
  });

  it('no-header.csv: the column is found from its contents', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', fixture('no-header.csv')], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(
        'email,status\n' +
          'jane@northwind.io,ok\n' +
          'raj.patel@gmail.com,ok\n' +
          'chloe.martin+work@outlook.com,alias\n' +
          'mark.stone.at.gmail.com,invalid\n' +
          'yuki.sato@yahoo.com,ok\n' +
          'x9f3k2@guerrillamail.com,disposable\n' +
          'jane@NorthWind.io,ok\n' +
          'bob@fake.com,fake\n' +
          'leila.haddad@acme-corp.com,ok\n',
      );
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('encodings, line ends, trimming, dedup, invalid', () => {
  it('a UTF-8 BOM on a plain list is not part of the first item', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', '-'], { env, input: '\uFEFFann@gmail.com\nbob@fake.com\n' });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\nann@gmail.com,ok\nbob@fake.com,fake\n');
      expect(sentItems(sb)).toEqual(['ann@gmail.com', 'bob@fake.com']);
    });
  });

  it('CRLF line ends: no \\r in items or output', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', '-'], { env, input: 'ann@gmail.com\r\n\r\nbob@fake.com\r\n' });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\nann@gmail.com,ok\nbob@fake.com,fake\n');
      expect(sentItems(sb)).toEqual(['ann@gmail.com', 'bob@fake.com']);
    });
  });

  it('Windows-1252 input (spreadsheet-semicolon.csv) comes out as UTF-8, nothing replaced', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', fixture('spreadsheet-semicolon.csv'), '--keep-columns', '-f', 'json'], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).not.toMatch(/[\uFFFD\u0080-\u009F]/);
      expect((JSON.parse(r.stdout) as Rec[]).map((x) => x.Nom)).toEqual([
        'Lefèvre', 'Dubois', 'Nguyen', 'Girard', 'Martin',
        'N\u2019Diaye', // 0x92 in Windows-1252 is U+2019
        'Test', 'Lefèvre', 'Rousseau', 'Bernard',
      ]);
    });
  });

  it('Windows-1252: a header with an accent (Prénom) can be named by --column (here a column of names: refused, exit 2)', async () => {
    await withSandbox({}, async ({ env }) => {
      const f = fixture('spreadsheet-semicolon.csv');
      const r = await run(['emails', f, '--column', 'Prénom', '-f', 'json'], { env });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toBe(
        `idv: ${f}: column 2 ("Prénom") holds no email addresses (its first rows hold "Camille", "Hélène", "Minh"); name the column that holds them with --column NAME or --column N.\n`,
      );
      expect(r.stdout).toBe('');
    });
  });

  it('spreadsheet-semicolon.csv: sep=; line, Courriel column found by contents', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', fixture('spreadsheet-semicolon.csv')], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(
        'email,status\n' +
          'camille.lefevre@orange.fr,ok\n' +
          'helene.dubois@free.fr,ok\n' +
          'm.nguyen+promo@gmail.com,alias\n' +
          'francois.girard@,invalid\n' +
          'jetable42@yopmail.com,disposable\n' +
          'aissatou.ndiaye@acme-corp.com,ok\n' +
          'test@test.com,fake\n' +
          'camille.lefevre@ORANGE.fr,ok\n' +
          'jerome.rousseau@laposte.net,ok\n' +
          'lea.bernard@tempmail.com,disposable\n',
      );
    });
  });

  it('items are trimmed (list and CSV cells)', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', '-'], { env, input: '  ann@gmail.com\n   bob@fake.com  \n' });
      expect(r.stdout).toBe('email,status\nann@gmail.com,ok\nbob@fake.com,fake\n');
      expect(sentItems(sb)).toEqual(['ann@gmail.com', 'bob@fake.com']);
      const t = await run(['emails', fixture('contacts.tsv'), '-f', 'json'], { env });
      expect((JSON.parse(t.stdout) as Rec[])[6]).toEqual({ email: 'amelia.jones@NorthWind.io', status: 'ok' });
    });
  });

  it('dedup: same address with different domain case / spaces sent once, every record gets its result', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const input = 'ann+x@gmail.com\nann+x@GMAIL.COM\n  ann+x@Gmail.com \nAnn+x@gmail.com\n';
      const r = await run(['emails', '-'], { env, input });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(
        'email,status\nann+x@gmail.com,alias\nann+x@GMAIL.COM,alias\nann+x@Gmail.com,alias\nAnn+x@gmail.com,alias\n',
      );
      expect(sentItems(sb)).toEqual(['ann+x@gmail.com', 'Ann+x@gmail.com']);
    });
  });

  it('items that cannot be addresses are invalid and never sent (no request at all)', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const input = 'no-at\n@gmail.com\nann@\nann smith@gmail.com\nann@localhost\na@.com\n';
      const r = await run(['emails', '-'], { env, input });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(
        'email,status\nno-at,invalid\n@gmail.com,invalid\nann@,invalid\nann smith@gmail.com,invalid\nann@localhost,invalid\na@.com,invalid\n',
      );
      expect(sb.requests).toHaveLength(0);
    });
  });
});
