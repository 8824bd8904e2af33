// idv domains: addresses give their domain, URLs their host, one request item per distinct domain; idv runs in th
// is process (test/fake-io.ts) against the sandbox, asserting exact output, exit codes and what the server received.
import { describe, expect, it } from 'vitest';
import { fixture, idv, sandbox, sentItems, homeForEachTest, addresses } from '../helpers.js';
import { run } from '../fake-io.js';
import { withSandbox, type Rec } from './helpers.js';

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

describe('idv domains with addresses and URLs', () => {
  const home = homeForEachTest();
  const list = home.list;
  type Rec = { domain: string; status: string };
  const ndjson = (s: unknown) =>
    String(s)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Rec);

  function expectDistinct(sent: string[]) {
    const lower = sent.map((s) => s.toLowerCase());
    expect(new Set(lower).size).toBe(lower.length);
    for (const s of sent) expect(s).not.toContain('@');
  }

  it('emails.txt: one request item per distinct domain; each record is its domain part', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const r = await run(['domains', fixture('emails.txt'), '-f', 'ndjson'], { env });
      expect(r.exitCode).toBe(0);
      const recs = ndjson(r.stdout);
      const want: [string | null, string][] = [
        ['gmail.com', 'ok'],
        ['acme-corp.com', 'ok'],
        ['outlook.com', 'ok'],
        ['northwind.io', 'ok'],
        ['gmail.com', 'ok'],
        ['mailinator.com', 'disposable'],
        ['guerrillamail.com', 'disposable'],
        ['fake.com', 'fake'],
        ['shop.test', 'fake'],
        ['noah.garcia.gmail.com', 'ok'], // no @: a domain
        ['yahoo.com', 'ok'],
        ['Outlook.COM', 'ok'], // as written
        ['northwind.io', 'ok'], // trimmed
        ['yahoo.com', 'ok'],
        [null, 'invalid'], // @outlook.com
        [null, 'invalid'], // tom.baker@localhost
        ['yopmail.com', 'disposable'],
        ['acme-corp.com', 'ok'],
        ['nowhere.org', 'fake'],
      ];
      expect(recs.map((x) => x.status)).toEqual(want.map((w) => w[1]));
      recs.forEach((x, i) => {
        if (want[i]![0] !== null) expect(x.domain).toBe(want[i]![0]);
      });
      const sent = sentItems(sb);
      expectDistinct(sent);
      expect(sent.map((s) => s.toLowerCase()).sort()).toEqual(
        [
          'gmail.com', 'acme-corp.com', 'outlook.com', 'northwind.io', 'mailinator.com', 'guerrillamail.com',
          'fake.com', 'shop.test', 'noah.garcia.gmail.com', 'yahoo.com', 'yopmail.com', 'nowhere.org',
        ].sort(),
      );
      for (const req of sb.requests) expect(req.path).toMatch(/\/domains\/validate$/);
    } finally {
      await sb.close();
    }
  });

  it('crm.csv (--column E-mail): one item per distinct domain; domain field is the domain part; --keep-columns keeps the row', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const r = await run(['domains', fixture('crm.csv'), '--column', 'E-mail', '-f', 'ndjson'], { env });
      expect(r.exitCode).toBe(0);
      const recs = ndjson(r.stdout);
      expect(recs).toEqual([
        { domain: 'northwind.io', status: 'ok' },
        { domain: 'globex.com', status: 'ok' },
        { domain: 'mueller-gmbh.de', status: 'ok' },
        { domain: '', status: 'invalid' },
        { domain: 'acme-corp.com', status: 'ok' },
        { domain: '10minutemail.com', status: 'disposable' },
        { domain: 'fakemail.net', status: 'fake' },
        { domain: 'Globex.com', status: 'ok' },
        { domain: recs[8]!.domain, status: 'invalid' }, // soren.k@umbrella health.com
        { domain: 'outlook.com', status: 'ok' },
        { domain: 'vandelay.example', status: 'fake' },
      ]);
      const sent = sentItems(sb);
      expectDistinct(sent);
      expect(sent.map((s) => s.toLowerCase()).sort()).toEqual(
        ['northwind.io', 'globex.com', 'mueller-gmbh.de', 'acme-corp.com', '10minutemail.com', 'fakemail.net', 'outlook.com', 'vandelay.example'].sort(),
      );

      const k = await run(['domains', fixture('crm.csv'), '--column', 'E-mail', '--keep-columns', '-q'], { env });
      expect(k.exitCode).toBe(0);
      const lines = String(k.stdout).split('\n');
      expect(lines[0]).toBe('Record ID,First Name,Last Name,Company Name,Job Title,E-mail,Phone,Website,Lifecycle Stage,Create Date,status');
      expect(lines[6]).toBe('5012348806,Chen,Wei,,,chenwei88@10minutemail.com,,,Lead,2024-02-14 23:59,disposable');
    } finally {
      await sb.close();
    }
  });

  it('websites.csv: URLs → host, one item per distinct host', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const r = await run(['domains', fixture('websites.csv'), '-f', 'ndjson'], { env });
      expect(r.exitCode).toBe(0);
      const recs = ndjson(r.stdout);
      const want: [string | null, string][] = [
        ['acme-corp.com', 'ok'],
        ['www.northwind.io', 'ok'],
        ['globex.com', 'ok'],
        ['www.initech.com', 'ok'],
        ['umbrella-health.co.uk', 'ok'],
        ['mailinator.com', 'disposable'],
        ['10minutemail.com', 'disposable'],
        ['dundermifflin.test', 'fake'],
        ['fake.com', 'fake'],
        [null, 'invalid'],
        [null, 'invalid'],
        ['ACME-CORP.COM', 'ok'],
        ['hooli.xyz', 'ok'],
      ];
      expect(recs.map((x) => x.status)).toEqual(want.map((w) => w[1]));
      recs.forEach((x, i) => {
        if (want[i]![0] !== null) expect(x.domain).toBe(want[i]![0]);
      });
      const sent = sentItems(sb);
      expectDistinct(sent);
      for (const s of sent) expect(s).not.toMatch(/[/:?]/);
      expect(sent.map((s) => s.toLowerCase()).sort()).toEqual(
        ['acme-corp.com', 'www.northwind.io', 'globex.com', 'www.initech.com', 'umbrella-health.co.uk', 'mailinator.com', '10minutemail.com', 'dundermifflin.test', 'fake.com', 'hooli.xyz'].sort(),
      );
    } finally {
      await sb.close();
    }
  });

  it('a website written without its scheme (www.globex.com/about) is validated by its host, once', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const input = 'website\nwww.Globex.com/about\nwww.globex.com\nhooli.xyz?ref=mail\nlocalhost/admin\n';
      const r = await run(['domains', '-', '-f', 'csv', '-q'], { env, input });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('domain,status\nwww.Globex.com,ok\nwww.globex.com,ok\nhooli.xyz,ok\nlocalhost/admin,invalid\n');
      expect(sentItems(sb)).toEqual(['www.globex.com', 'hooli.xyz']); // what is sent is the canonical form
    } finally {
      await sb.close();
    }
  });

  it('`idv domains --help` says it accepts addresses', async () => {
    const r = await idv(['domains', '--help'], { env: home.env });
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toMatch(/address/i);
  });
});
