// End-to-end tests of the core contract (issue 2): idv run in this process through a fake Io
// (test/fake-io.ts) against the sandbox, asserting exact output, exit codes and what the server received.
// The built program (execa) only where the process matters: a terminal on stdin, colour in a pipe,
// --help/--version (answered by src/cli.cts alone) and `idv sandbox` serving.
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { fixture, idv, IDV, makeHome, ROOT, sandbox, sentBatches, sentItems, type Home, withHome } from './helpers.js';
import { run } from './fake-io.js';

// Tests run concurrently (describe.concurrent): each one gets its own HOME and sandbox.

type Rec = { email?: string; domain?: string; status: string };


/** Run fn with a fresh HOME and a sandbox (and the env pointing idv at it), always closing both. */
async function withSandbox<T>(
  opts: Parameters<typeof sandbox>[0],
  fn: (s: Awaited<ReturnType<typeof sandbox>> & { home: Home }) => Promise<T>,
): Promise<T> {
  return withHome(async (home) => {
    const s = await sandbox(opts, home);
    try {
      return await fn({ ...s, home });
    } finally {
      await s.sb.close();
    }
  });
}

function counts(records: Rec[]): Record<string, number> {
  const c: Record<string, number> = {};
  for (const r of records) c[r.status] = (c[r.status] ?? 0) + 1;
  return c;
}

async function tmpFile(home: Home, name: string, content: string | Buffer): Promise<string> {
  const p = join(home.dir, name);
  await writeFile(p, content);
  return p;
}

/** A TCP listener that only counts connections (used as a proxy that must never be reached). */
async function connectionCounter(): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let n = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    n++;
    sockets.add(s);
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => n,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A loopback proxy to `target` that delays the n-th request (from 0) by delay(n) ms; records completion order. */
async function delayingProxy(
  target: string,
  delay: (n: number) => number,
): Promise<{ url: string; completed: number[]; close: () => Promise<void> }> {
  const completed: number[] = [];
  let next = 0;
  const server = http.createServer((req, res) => {
    const n = next++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const fwd = http.request(
        target + (req.url ?? '/'),
        { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
        (up) => {
          const body: Buffer[] = [];
          up.on('data', (c: Buffer) => body.push(c));
          up.on('end', () => {
            setTimeout(() => {
              completed.push(n);
              res.writeHead(up.statusCode ?? 502, up.headers);
              res.end(Buffer.concat(body));
            }, delay(n));
          });
        },
      );
      fwd.on('error', () => res.destroy());
      fwd.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    completed,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const EMAILS_TXT_CSV =
  'email,status\n' +
  'olivia.bennett@gmail.com,ok\n' +
  'marcus.chen@acme-corp.com,ok\n' +
  'priya.sharma@outlook.com,ok\n' +
  'sofia.rossi@northwind.io,ok\n' +
  'daniel.okafor+newsletter@gmail.com,alias\n' +
  'throwaway4821@mailinator.com,disposable\n' +
  'kev.r@guerrillamail.com,disposable\n' +
  'john.doe@fake.com,fake\n' +
  'qa-user@shop.test,fake\n' +
  'noah.garcia.gmail.com,invalid\n' +
  'liam.walsh@yahoo.com,ok\n' +
  'priya.sharma@Outlook.COM,ok\n' +
  'sofia.rossi@northwind.io,ok\n' +
  'hannah.w+receipts@yahoo.com,alias\n' +
  '@outlook.com,invalid\n' +
  'tom.baker@localhost,invalid\n' +
  'test123@yopmail.com,disposable\n' +
  'Marcus.Chen@acme-corp.com,ok\n' +
  'ethan.brooks@nowhere.org,fake\n';

const EMAILS_TXT_SENT = [
  'olivia.bennett@gmail.com',
  'marcus.chen@acme-corp.com',
  'priya.sharma@outlook.com',
  'sofia.rossi@northwind.io',
  'daniel.okafor+newsletter@gmail.com',
  'throwaway4821@mailinator.com',
  'kev.r@guerrillamail.com',
  'john.doe@fake.com',
  'qa-user@shop.test',
  'liam.walsh@yahoo.com',
  'hannah.w+receipts@yahoo.com',
  'test123@yopmail.com',
  'Marcus.Chen@acme-corp.com',
  'ethan.brooks@nowhere.org',
];

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

  it('with no FILE and standard input a terminal: exit 2 with a hint, nothing sent', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      // `script` gives idv a pseudo-terminal as standard input.
      const r = await execa('script', ['-qec', `node ${IDV} emails`, '/dev/null'], {
        env,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: 15_000,
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

// ---------------------------------------------------------------------------------------------
describe.concurrent('idv domains', () => {
  it('domains.txt: exact output; address lines give their domain; sent once per distinct domain', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['domains', fixture('domains.txt')], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(
        'domain,status\n' +
          'acme-corp.com,ok\nnorthwind.io,ok\ngmail.com,ok\nmailinator.com,disposable\n10minutemail.com,disposable\n' +
          'fakemail.net,fake\nnowhere.org,fake\nstaging.invalid,fake\nlocalhost,invalid\nNorthWind.IO,ok\n' +
          'trashmail.com,disposable\nnot a domain,invalid\nglobex.com,ok\nAcme-Corp.com,ok\noutlook.com,ok\n',
      );
      const items = sentItems(sb);
      expect([...items].sort()).toEqual(
        [
          'acme-corp.com', 'northwind.io', 'gmail.com', 'mailinator.com', '10minutemail.com', 'fakemail.net',
          'nowhere.org', 'staging.invalid', 'trashmail.com', 'globex.com', 'outlook.com',
        ].sort(),
      );
      expect(sb.requests.every((q) => q.path === '/domains/validate')).toBe(true);
    });
  });

  it('websites.csv: URLs and www hosts become hosts', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['domains', fixture('websites.csv')], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(
        'domain,status\n' +
          'acme-corp.com,ok\nwww.northwind.io,ok\nglobex.com,ok\nwww.initech.com,ok\numbrella-health.co.uk,ok\n' +
          'mailinator.com,disposable\n10minutemail.com,disposable\ndundermifflin.test,fake\nfake.com,fake\n' +
          ',invalid\nn/a,invalid\nACME-CORP.COM,ok\nhooli.xyz,ok\n',
      );
      expect(sentItems(sb).some((i) => /[/:?]/.test(i))).toBe(false);
      expect(sentItems(sb)).toHaveLength(10);
    });
  });

  it('addresses: one request item per distinct domain', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const input = 'a@gmail.com\nb@gmail.com\nc@GMAIL.com\nd@fake.com\nnope\n';
      const r = await run(['domains', '-'], { env, input });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('domain,status\ngmail.com,ok\ngmail.com,ok\nGMAIL.com,ok\nfake.com,fake\nnope,invalid\n');
      expect(sentItems(sb)).toEqual(['gmail.com', 'fake.com']);
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('output', () => {
  const INPUT = 'a@gmail.com\nbobby+x@fake.com\nc+tag@gmail.com\nnope\n';
  const RECORDS = [
    { email: 'a@gmail.com', status: 'ok' },
    { email: 'bobby+x@fake.com', status: 'fake' },
    { email: 'c+tag@gmail.com', status: 'alias' },
    { email: 'nope', status: 'invalid' },
  ];

  it('csv is the default in a pipe, RFC 4180 quoting', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', fixture('newsletter.csv'), '--keep-columns'], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain(',"QA signup, do not mail",');
      expect(r.stdout).toContain(',"Asked to ""pause"" emails until spring.\nPrefers plain text.",');
      const rows = parseCsv(r.stdout, { columns: true }) as Array<Record<string, string>>;
      expect(rows.map((x) => x.NOTES)).toEqual([
        '', '', '', '', 'Asked to "pause" emails until spring.\nPrefers plain text.', 'QA signup, do not mail', '',
        'Re-subscribed from the pricing page', '', '', '',
      ]);
    });
  });


  it('--only " ok, Alias " (spaces and capitals, as typed in a shell): names trimmed, no unknown-status warning', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', '--only', ' ok, Alias ', '-q'], { env, input: INPUT });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\na@gmail.com,ok\nc+tag@gmail.com,alias\n');
      expect(r.stderr).toBe('');
      const ex = await run(['emails', '--exclude', 'fake , invalid', '-q'], { env, input: INPUT });
      expect(ex.stdout).toBe('email,status\na@gmail.com,ok\nc+tag@gmail.com,alias\n');
      expect(ex.stderr).toBe('');
    });
  });

  it('-f json: one array of {email, status}', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', '-f', 'json'], { env, input: INPUT });
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(RECORDS);
      expect(r.stdout.trimStart().startsWith('[')).toBe(true);
    });
  });

  it('-f json with domains uses the domain field', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['domains', '-f', 'json'], { env, input: 'gmail.com\nfake.com\n' });
      expect(JSON.parse(r.stdout)).toEqual([
        { domain: 'gmail.com', status: 'ok' },
        { domain: 'fake.com', status: 'fake' },
      ]);
    });
  });

  it('-f ndjson: one object per line', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', '-f', 'ndjson'], { env, input: INPUT });
      expect(r.exitCode).toBe(0);
      expect(r.stdout.endsWith('\n')).toBe(true);
      const lines = r.stdout.slice(0, -1).split('\n');
      expect(lines.map((l) => JSON.parse(l))).toEqual(RECORDS);
    });
  });

  it('-f table: aligned columns, no colour in a pipe', async () => {
    await withSandbox({}, async ({ env }) => {
      // The built program: whether stdout is a terminal (and so colour) is decided by src/cli.cts.
      const r = await idv(['emails', '-f', 'table'], { env, input: INPUT });
      expect(r.exitCode).toBe(0);
      const stdout = String(r.stdout);
      expect(stdout).not.toContain('\u001b[');
      const lines = stdout.replace(/\n$/, '').split('\n');
      expect(lines).toHaveLength(5);
      const parsed = lines.map((l) => /^(\S+)( +)(\S+) *$/.exec(l));
      expect(parsed.every((m) => m !== null)).toBe(true);
      expect(parsed.map((m) => m![1]!.toLowerCase())).toEqual(['email', ...RECORDS.map((x) => x.email)]);
      expect(parsed.map((m) => m![3]!.toLowerCase())).toEqual(['status', ...RECORDS.map((x) => x.status)]);
      const col = new Set(parsed.map((m) => m![1]!.length + m![2]!.length));
      expect(col.size).toBe(1);
    });
  });

  it('-o FILE picks the format by extension and writes nothing to stdout', async () => {
    await withSandbox({}, async ({ env, home }) => {
      const json = join(home.dir, 'out.json');
      let r = await run(['emails', '-o', json], { env, input: INPUT });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('');
      expect(JSON.parse(await readFile(json, 'utf8'))).toEqual(RECORDS);

      const nd = join(home.dir, 'out.ndjson');
      r = await run(['emails', '-o', nd], { env, input: INPUT });
      expect(r.stdout).toBe('');
      const text = await readFile(nd, 'utf8');
      expect(text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(RECORDS);

      const csv = join(home.dir, 'out.csv');
      r = await run(['emails', '-o', csv], { env, input: INPUT });
      expect(r.stdout).toBe('');
      expect(await readFile(csv, 'utf8')).toBe(
        'email,status\na@gmail.com,ok\nbobby+x@fake.com,fake\nc+tag@gmail.com,alias\nnope,invalid\n',
      );
    });
  });

  it('input order is kept when batches answer out of order', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const proxy = await delayingProxy(sb.url, (n) => (n === 0 ? 500 : n === 1 ? 250 : 0));
      try {
        const emails = Array.from({ length: 8 }, (_, i) => `user${i}${i % 2 ? '+t' : ''}@gmail.com`);
        const r = await run(['emails', '--batch-size', '2', '--concurrency', '4', '--base-url', proxy.url], {
          env,
          input: emails.join('\n') + '\n',
        });
        expect(r.exitCode).toBe(0);
        expect(proxy.completed[0]).not.toBe(0); // the first batch really answered late
        expect(r.stdout).toBe(
          'email,status\n' + emails.map((e, i) => `${e},${i % 2 ? 'alias' : 'ok'}\n`).join(''),
        );
        expect(sentBatches(sb).every((b) => b.length <= 2)).toBe(true);
      } finally {
        await proxy.close();
      }
    });
  });

  it('stdout carries only data; the summary (count per status) is on stderr; -q silences stderr', async () => {
    await withSandbox({}, async ({ env }) => {
      const r = await run(['emails', fixture('emails.txt')], { env });
      expect(r.stdout).toBe(EMAILS_TXT_CSV);
      expect(r.stderr).toMatch(/\bok\s+8\b/);
      expect(r.stderr).toMatch(/\balias\s+2\b/);
      expect(r.stderr).toMatch(/\bdisposable\s+3\b/);
      expect(r.stderr).toMatch(/\bfake\s+3\b/);
      expect(r.stderr).toMatch(/\binvalid\s+3\b/);
      const q = await run(['emails', fixture('emails.txt'), '-q'], { env });
      expect(q.exitCode).toBe(0);
      expect(q.stdout).toBe(EMAILS_TXT_CSV);
      expect(q.stderr).toBe('');
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('API client', () => {
  it('sends Authorization: Bearer <key> and a JSON content type, field "emails" / "domains"', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const e = await run(['emails', '-', '--verbose'], { env, input: 'a@gmail.com\n' });
      const d = await run(['domains', '-', '--verbose'], { env, input: 'gmail.com\n' });
      expect([e.exitCode, d.exitCode]).toEqual([0, 0]);
      for (const r of [e, d]) expect(`${r.stdout}${r.stderr}`).not.toContain(env.IDV_API_KEY);
      expect(e.stderr).toContain('/emails/validate'); // --verbose logs the request, key masked
      expect(sb.requests).toHaveLength(2);
      for (const q of sb.requests) {
        expect(q.method).toBe('POST');
        expect(q.authorization).toBe('Bearer sk_test_0123456789abcdef');
        expect(q.contentType).toMatch(/^application\/json\b/);
        expect(q.status).toBe(200);
      }
      // the sandbox parses the body field named after the endpoint; items null would mean a wrong field
      expect(sb.requests.map((q) => [q.path, q.items])).toEqual([
        ['/emails/validate', ['a@gmail.com']],
        ['/domains/validate', ['gmail.com']],
      ]);
    });
  });

  it('--batch-size 3 bounds the items per request', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', fixture('emails.txt'), '--batch-size', '3'], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(EMAILS_TXT_CSV);
      const batches = sentBatches(sb);
      expect(batches.every((b) => b.length >= 1 && b.length <= 3)).toBe(true);
      expect(batches).toHaveLength(5);
      expect([...batches.flat()].sort()).toEqual([...EMAILS_TXT_SENT].sort());
    });
  });

  it('--concurrency 2 bounds the requests in flight', async () => {
    await withSandbox({ delayMs: 200 }, async ({ sb, env }) => {
      const input = Array.from({ length: 20 }, (_, i) => `c${i}@gmail.com`).join('\n');
      const r = await run(['emails', '--batch-size', '2', '--concurrency', '2'], { env, input });
      expect(r.exitCode).toBe(0);
      expect(sentBatches(sb)).toHaveLength(10);
      expect(sb.maxInFlight).toBe(2);
    });
  });

  it('default concurrency is 4 and default batch size 100', async () => {
    await withSandbox({ delayMs: 200 }, async ({ sb, env }) => {
      const input = Array.from({ length: 12 }, (_, i) => `d${i}@gmail.com`).join('\n');
      const r = await run(['emails', '--batch-size', '1'], { env, input });
      expect(r.exitCode).toBe(0);
      expect(sb.maxInFlight).toBe(4);
      sb.requests.length = 0;
      const big = Array.from({ length: 150 }, (_, i) => `e${i}@gmail.com`).join('\n');
      await run(['emails', '-q'], { env, input: big });
      expect(sentBatches(sb).map((b) => b.length).sort((a, b) => b - a)).toEqual([100, 50]);
    });
  });

  it('an unknown status is passed through unchanged', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      sb.inject({ kind: 'status-for', status: 'risky', item: 'b@gmail.com' });
      const r = await run(['emails', '-'], { env, input: 'a@gmail.com\nb@gmail.com\n' });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\na@gmail.com,ok\nb@gmail.com,risky\n');
      expect(r.stderr).toMatch(/\brisky\s+1\b/);
    });
  });

  it('an item missing from a 2xx answer is "error", exit 1, not sent again', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      sb.inject({ kind: 'drop', item: 'b@gmail.com' });
      const r = await run(['emails', '-'], { env, input: 'a@gmail.com\nb@gmail.com\nc@fake.com\n' });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('email,status\na@gmail.com,ok\nb@gmail.com,error\nc@fake.com,fake\n');
      expect(sentItems(sb)).toEqual(['a@gmail.com', 'b@gmail.com', 'c@fake.com']);
      expect(sb.requests).toHaveLength(1);
    });
  });

  it('any 2xx is success; results matched by key in any order, extra fields ignored', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const body = JSON.stringify({
        emails: {
          'b@gmail.com': { status: 'alias', score: 0.3 },
          'a@gmail.com': { status: 'ok', details: { mx: true } },
        },
        meta: { v: 2 },
      });
      sb.inject({ kind: 'status', status: 202, body });
      const r = await run(['emails', '-'], { env, input: 'a@gmail.com\nb@gmail.com\n' });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('email,status\na@gmail.com,ok\nb@gmail.com,alias\n');
      expect(sb.requests).toHaveLength(1);
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('base URL', () => {
  for (const [label, how] of [
    ['--base-url http://example.com', 'flag'],
    ['IDV_BASE_URL=http://10.0.0.1', 'env'],
  ] as const) {
    it(`${label} is refused with exit 2 before any request`, async () => {
      const home = await makeHome();
      const trap = await connectionCounter();
      try {
        const env: Record<string, string> = {
          ...home.env,
          IDV_API_KEY: 'sk_test_0123456789abcdef',
          HTTP_PROXY: trap.url,
          HTTPS_PROXY: trap.url,
          http_proxy: trap.url,
          https_proxy: trap.url,
        };
        const args = ['emails', '-'];
        if (how === 'flag') args.push('--base-url', 'http://example.com');
        else env.IDV_BASE_URL = 'http://10.0.0.1';
        const r = await run(args, { env, input: 'a@gmail.com\n'});
        expect(r.exitCode).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toContain(how === 'flag' ? 'example.com' : '10.0.0.1');
        expect(trap.count()).toBe(0);
      } finally {
        await trap.close();
        await home.cleanup();
      }
    });
  }

  it('http://127.0.0.1 and http://localhost are accepted', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r1 = await run(['emails', '-', '--base-url', `http://127.0.0.1:${sb.port}`], { env, input: 'a@gmail.com\n' });
      expect(r1.exitCode).toBe(0);
      expect(r1.stdout).toBe('email,status\na@gmail.com,ok\n');
      const r2 = await run(['emails', '-'], {
        env: { ...env, IDV_BASE_URL: `http://localhost:${sb.port}` },
        input: 'b@gmail.com\n',
      });
      expect(r2.exitCode).toBe(0);
      expect(r2.stdout).toBe('email,status\nb@gmail.com,ok\n');
      expect(sentItems(sb)).toEqual(['a@gmail.com', 'b@gmail.com']);
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('quota', () => {
  const distinct = Array.from({ length: 25 }, (_, i) => `user${i}@gmail.com`);
  const input = distinct.join('\n') + '\nbad\n';

  function checkQuotaStop(stdout: string, validated: number): void {
    const rows = stdout.trimEnd().split('\n');
    expect(rows[0]).toBe('email,status');
    expect(rows).toHaveLength(1 + 26);
    const expected = [
      ...distinct.map((e, i) => `${e},${i < validated ? 'ok' : 'quota_exceeded'}`),
      'bad,invalid',
    ];
    expect(rows.slice(1)).toEqual(expected);
  }

  function quotaLine(stderr: string): void {
    const lines = stderr.split('\n').filter((l) => /quota/i.test(l) && /reset|again|used up|exceeded/i.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(1);
  }

  it('partial quota (10 of 25 in one request): exit 4, 10 validated, 15 quota_exceeded', async () => {
    await withSandbox({ quota: 10 }, async ({ sb, env }) => {
      const r = await run(['emails', '-'], { env, input });
      expect(r.exitCode).toBe(4);
      checkQuotaStop(r.stdout, 10);
      quotaLine(r.stderr);
      expect(sb.requests).toHaveLength(1);
    });
  });

  it('partial quota over several batches: no request after the quota is used up', async () => {
    await withSandbox({ quota: 10 }, async ({ sb, env }) => {
      const r = await run(['emails', '-', '--batch-size', '5', '--concurrency', '1'], { env, input });
      expect(r.exitCode).toBe(4);
      checkQuotaStop(r.stdout, 10);
      quotaLine(r.stderr);
      // r=0 after the second batch: the contract says that stops like a 429
      expect(sentBatches(sb)).toEqual([distinct.slice(0, 5), distinct.slice(5, 10)]);
    });
  });

  it('a 429 stops at once: nothing sent after it, exit 4, all quota_exceeded', async () => {
    await withSandbox({ quota: 100 }, async ({ sb, env }) => {
      sb.setRemaining(0);
      const r = await run(['emails', '-', '--batch-size', '5', '--concurrency', '1'], { env, input });
      expect(r.exitCode).toBe(4);
      checkQuotaStop(r.stdout, 0);
      quotaLine(r.stderr);
      expect(sb.requests).toHaveLength(1);
      expect(sb.requests[0]!.status).toBe(429);
    });
  });

  it('a 429 with an HTML body is handled the same way', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      sb.inject({ kind: 'status', status: 429, body: '<html><body><h1>429 Too Many Requests</h1></body></html>' });
      const r = await run(['emails', '-', '--batch-size', '5', '--concurrency', '1'], { env, input });
      expect(r.exitCode).toBe(4);
      checkQuotaStop(r.stdout, 0);
      quotaLine(r.stderr);
      expect(sb.requests).toHaveLength(1);
      expect(r.stderr).not.toContain('<html>');
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('key', () => {
  it('no key: exit 3, hint names IDV_API_KEY and idv auth login, no request', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const { IDV_API_KEY: _k, ...noKey } = env;
      const r = await run(['emails', '-'], { env: noKey, input: 'a@gmail.com\n' });
      expect(r.exitCode).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('IDV_API_KEY');
      expect(r.stderr).toContain('idv auth login');
      expect(sb.requests).toHaveLength(0);
    });
  });

  it('a key that cannot travel in a header (non-ASCII, a space inside): exit 3 at once, one line, no request', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      for (const bad of ['sk_test_0123€456789', 'sk_test 0123456789']) {
        const r = await run(['emails', '-'], { env: { ...env, IDV_API_KEY: bad }, input: 'a@gmail.com\n' });
        expect(r.exitCode).toBe(3);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(
          'idv: The API key from the IDV_API_KEY environment variable holds white space or characters other than ASCII, so it cannot be sent; check it, or store it again with idv auth login.\n',
        );
      }
      expect(sb.requests).toHaveLength(0);
    });
  });

  it('a wrong key: 401 → exit 3, the wrong key not printed', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const wrong = 'sk_wrong_ZZZZ9999YYYY8888';
      const r = await run(['emails', '-', '--verbose'], { env: { ...env, IDV_API_KEY: wrong }, input: 'a@gmail.com\n' });
      expect(r.exitCode).toBe(3);
      expect(sb.requests[0]!.status).toBe(401);
      expect(r.stderr).toMatch(/401|unauthori[sz]ed|refused/i);
      expect(r.stdout + r.stderr).not.toContain(wrong);
    });
  });

  it('auth login (stdin) / status / emails with the stored key / logout; the key is never printed', async () => {
    const KEY = 'sk_live_SECRETabcdef0123456789';
    await withSandbox({ key: KEY }, async ({ sb, env, home }) => {
      const { IDV_API_KEY: _k, ...noKey } = env;
      const outputs: string[] = [];
      const step = async (args: string[], input?: string) => {
        const r = await run(args, { env: noKey, input });
        outputs.push(r.stdout, r.stderr);
        return r;
      };

      const login = await step(['auth', 'login'], KEY + '\n');
      expect(login.exitCode).toBe(0);
      const dir = join(home.env.XDG_CONFIG_HOME!, 'idv');
      const file = join(dir, 'config.json');
      expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
      expect(((await stat(dir)).mode & 0o777).toString(8)).toBe('700');
      expect(await readFile(file, 'utf8')).toContain(KEY);

      const status = await step(['auth', 'status']);
      expect(status.exitCode).toBe(0);
      expect(status.stdout + status.stderr).toContain(file);
      expect(status.stdout + status.stderr).toContain(KEY.slice(-4));

      const envStatus = await run(['auth', 'status'], { env: { ...noKey, IDV_API_KEY: 'sk_env_other_key_7777' } });
      outputs.push(envStatus.stdout, envStatus.stderr);
      expect(envStatus.stdout + envStatus.stderr).toContain('IDV_API_KEY');
      expect(envStatus.stdout + envStatus.stderr).not.toContain('sk_env_other_key_7777');

      const e = await step(['emails', '-', '--verbose'], 'a@gmail.com\nb+x@gmail.com\n');
      expect(e.exitCode).toBe(0);
      expect(e.stdout).toBe('email,status\na@gmail.com,ok\nb+x@gmail.com,alias\n');
      // login and status ask with an empty list (no quota spent); the run sends its two items
      const paid = () => sb.requests.filter((q) => (q.items ?? []).length > 0);
      expect(paid().map((q) => q.authorization)).toEqual([`Bearer ${KEY}`]);

      const logout = await step(['auth', 'logout']);
      expect(logout.exitCode).toBe(0);
      expect(existsSync(file)).toBe(false);
      const after = await step(['emails', '-'], 'a@gmail.com\n');
      expect(after.exitCode).toBe(3);
      expect(paid()).toHaveLength(1);

      for (const o of outputs) expect(o).not.toContain(KEY);
    });
  });

  it('an empty config file is no key: exit 3', async () => {
    await withSandbox({}, async ({ sb, env, home }) => {
      const { IDV_API_KEY: _k, ...noKey } = env;
      await mkdir(join(home.env.XDG_CONFIG_HOME!, 'idv'), { recursive: true, mode: 0o700 });
      await writeFile(join(home.env.XDG_CONFIG_HOME!, 'idv', 'config.json'), '{}\n', { mode: 0o600 });
      const r = await run(['emails', '-'], { env: noKey, input: 'a@gmail.com\n' });
      expect(r.exitCode).toBe(3);
      expect(r.stderr).toContain('IDV_API_KEY');
      expect(sb.requests).toHaveLength(0);
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('help, version, usage errors', () => {
  it.each([['emails'], ['domains'], ['auth'], ['cache'], ['sandbox']])('idv %s --help: exit 0 with Examples', async (cmd) => {
    await withHome(async (home) => {
      const r = await idv([cmd, '--help'], { env: home.env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('Examples');
    });
  });

  it('--version prints the package.json version', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    await withHome(async (home) => {
      const r = await idv(['--version'], { env: home.env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(`${pkg.version}\n`);
    });
  });

  it('an unknown flag: exit 2, nothing sent', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', '--bogus', '-'], { env, input: 'a@gmail.com\n' });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('--bogus');
      expect(sb.requests).toHaveLength(0);
    });
  });

  it('--format xml: exit 2, nothing sent', async () => {
    await withSandbox({}, async ({ sb, env }) => {
      const r = await run(['emails', '--format', 'xml', '-'], { env, input: 'a@gmail.com\n' });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('xml');
      expect(sb.requests).toHaveLength(0);
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe.concurrent('idv sandbox (subprocess)', () => {
  it('serves on a free port with its quota and key; idv emails works against it', () => withHome(async (home) => {
    const proc = execa('node', [IDV, 'sandbox', '--port', '0', '--quota', '5', '--key', 'k123456789012'], {
      env: home.env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 20_000,
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no URL on stdout: ${out}`)), 10_000);
        proc.stdout!.on('data', (c: Buffer) => {
          out += c.toString();
          const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[0]);
          }
        });
        proc.catch(reject);
      });
      const items = Array.from({ length: 7 }, (_, i) => `s${i}@gmail.com`);
      const env = { ...home.env, IDV_BASE_URL: url, IDV_API_KEY: 'k123456789012' };
      const r = await run(['emails', '-'], { env, input: items.join('\n') + '\n' });
      expect(r.exitCode).toBe(4);
      expect(r.stdout).toBe(
        'email,status\n' + items.map((e, i) => `${e},${i < 5 ? 'ok' : 'quota_exceeded'}\n`).join(''),
      );
      const bad = await run(['emails', '-'], { env: { ...env, IDV_API_KEY: 'nope_wrong_key' }, input: 'a@gmail.com\n' });
      expect(bad.exitCode).toBe(3);
    } finally {
      proc.kill('SIGINT');
      const res = await Promise.race([proc, new Promise((r) => setTimeout(() => r(null), 5_000))]);
      if (res === null) proc.kill('SIGKILL');
      await proc;
    }
  }));
});
