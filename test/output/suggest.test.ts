// --suggest (src/output/suggest.ts): pairs both ways, since a miss costs little and a wrong suggestion costs a
// subscriber. A provider's name typed without its ending (`x@gmail` gets gmail.com as `x@gmailcom` does); one
// edit of a long enough name (`gmial`); never a provider's real domain in another country; a run adds the field
// in every format and never changes nor sends the item.
import { describe, expect, it } from 'vitest';
import { suggest, suggestDomain, oneEdit } from '../../src/output/suggest.js';
import { run } from '../fake-io.js';
import { sandbox, sentItems, homeForEachTest } from '../helpers.js';

describe('a provider\'s name without its ending', () => {
  it.each([
    ['gmail', 'gmail.com'],
    ['hotmail', 'hotmail.com'],
    ['yahoo', 'yahoo.com'],
    ['outlook', 'outlook.com'],
    ['icloud', 'icloud.com'],
    ['aol', 'aol.com'],
    ['GMAIL', 'gmail.com'],
    ['gmail.', 'gmail.com'],
    ['web', 'web.de'],
    ['gmial', 'gmail.com'],
    ['hotmial', 'hotmail.com'],
    ['yahooo', 'yahoo.com'],
  ])('%s → %s', (typed, meant) => {
    expect(suggestDomain(typed)).toBe(meant);
  });

  it.each(['example', 'localhost', 'acme', 'mx', 'gm', 'intranet'])('%s: none', (typed) => {
    expect(suggestDomain(typed)).toBeNull();
  });

  it('an address keeps its local part', () => {
    expect(suggest('emails', 'jane.doe@gmail')).toBe('jane.doe@gmail.com');
    expect(suggest('emails', 'x@hotmail')).toBe('x@hotmail.com');
    expect(suggest('domains', 'yahoo')).toBe('yahoo.com');
  });
});

describe('idv emails --suggest', () => {
  it('x@gmail gets x@gmail.com, as x@gmailcom does; nothing is sent for either (no dot: invalid)', async () => {
    const r = await run(['emails', '-', '--sandbox', '--suggest', '-q'], { input: 'email\nx@gmail\ny@hotmail\nz@yahoo\nw@gmailcom\nu@example\n' });
    expect(r.stdout).toBe(
      'email,status,suggestion\nx@gmail,invalid,x@gmail.com\ny@hotmail,invalid,y@hotmail.com\nz@yahoo,invalid,z@yahoo.com\nw@gmailcom,invalid,w@gmail.com\nu@example,invalid,\n',
    );
    expect(r.exitCode).toBe(0);
  });
});

describe('suggestDomain', () => {
  const suggests: Array<[string, string]> = [
    ['gmial.com', 'gmail.com'],
    ['gmai.com', 'gmail.com'],
    ['gnail.com', 'gmail.com'],
    ['gmaill.com', 'gmail.com'],
    ['gmail.con', 'gmail.com'],
    ['gmail.co', 'gmail.com'],
    ['gmail.cm', 'gmail.com'],
    ['hotmail.con', 'hotmail.com'],
    ['hotmial.com', 'hotmail.com'],
    ['hotmal.com', 'hotmail.com'],
    ['yaho.com', 'yahoo.com'],
    ['yahooo.com', 'yahoo.com'],
    ['outlok.com', 'outlook.com'],
    ['iclod.com', 'icloud.com'],
    ['aol.con', 'aol.com'],
    ['aol.cmo', 'aol.com'],
    ['qq.co', 'qq.com'],
    ['comcast.ent', 'comcast.net'],
    ['hotmail.co.ul', 'hotmail.co.uk'],
    ['GMIAL.COM', 'gmail.com'],
  ];
  for (const [typo, meant] of suggests) it(`${typo} → ${meant}`, () => expect(suggestDomain(typo)).toBe(meant));

  const none: string[] = [
    'gmail.com', 'gmx.com', 'gmx.net', 'mail.com', 'ymail.com', 'me.com', 'mac.com', 'live.com', 'msn.com', 'aol.com', 'hotmail.fr',
    'outlook.de', 'yahoo.co.jp', 'googlemail.com', 'web.de', 'proton.me',
    'aon.com', 'gmc.com', 'msa.com', 'web.dk', 'life.com', 'mall.com', 'qq.cc',
    'acme-corp.com', 'example.com', 'company.co', 'gmail-support.com', 'mail.google.com', 'eu.gmail.com',
    'hotmail.com.', 'gmail.org.uk',
  ];
  for (const d of none) it(`${d}: none`, () => expect(suggestDomain(d)).toBe(null));
});

describe('suggest', () => {
  it('mends the domain of an address, never its local part', () => {
    expect(suggest('emails', 'Jane.Doe+news@gmial.com')).toBe('Jane.Doe+news@gmail.com');
    expect(suggest('emails', 'jane@gmail.com')).toBe(null);
    expect(suggest('emails', 'not-an-address')).toBe(null);
    expect(suggest('domains', 'yaho.com')).toBe('yahoo.com');
  });
});

describe('oneEdit', () => {
  it('insertion, deletion, substitution, neighbour swap; not two edits, not none', () => {
    expect([oneEdit('gmal', 'gmail'), oneEdit('gmaiil', 'gmail'), oneEdit('gmaik', 'gmail'), oneEdit('gmial', 'gmail')]).toEqual([true, true, true, true]);
    expect([oneEdit('gmail', 'gmail'), oneEdit('gmx', 'gmail'), oneEdit('giaml', 'gmail'), oneEdit('abcd', 'badc')]).toEqual([false, false, false, false]);
  });
});

describe('--suggest never "corrects" a provider\'s real domain in another country', () => {
  // Each of these is a real address domain of the same provider (Yahoo Greece, Microsoft Belgium…), one
  // letter of its country code away from a listed one: a suggestion would send a subscriber's mail elsewhere.
  const real = ['yahoo.gr', 'yahoo.in', 'yahoo.dk', 'yahoo.cn', 'yahoo.cl', 'yahoo.com.ar', 'hotmail.dk', 'hotmail.be', 'outlook.dk', 'outlook.be', 'yahoo.com.ua'];
  it.each(real)('%s: no suggestion', async (domain) => {
    const { suggestDomain } = await import('../../src/output/suggest.js');
    expect(suggestDomain(domain)).toBe(null);
  });
  it('typos inside the name, or a country code that is none, still get one', async () => {
    const { suggestDomain } = await import('../../src/output/suggest.js');
    expect(['yahho.fr', 'hotmial.de', 'outlok.de', 'yahoo.com.ay', 'hotmail.co.ul', 'comcast.ent', 'gmail.con', 'yahoo.fx'].map(suggestDomain)).toEqual([
      'yahoo.fr', 'hotmail.de', 'outlook.de', 'yahoo.com.au', 'hotmail.co.uk', 'comcast.net', 'gmail.com', 'yahoo.fr',
    ]);
  });
});

describe('--suggest', () => {
  const home = homeForEachTest();
  const list = home.list;
  it('adds a suggestion field in every format; never changes the item, never sends the suggestion', async () => {
    const { sb, env } = await sandbox({}, home);
    try {
      const file = await list(['jane@gmial.com', 'bob@gmail.com', 'al@hotmail.con', 'jo@gmx.com', 'bad']);
      const csv = await run(['emails', file, '-q', '--suggest'], { env });
      expect(csv.exitCode).toBe(0);
      expect(csv.stdout).toBe(
        'email,status,suggestion\njane@gmial.com,ok,jane@gmail.com\nbob@gmail.com,ok,\nal@hotmail.con,ok,al@hotmail.com\njo@gmx.com,ok,\nbad,invalid,\n',
      );
      expect(sentItems(sb)).toEqual(['jane@gmial.com', 'bob@gmail.com', 'al@hotmail.con', 'jo@gmx.com']);
      const json = await run(['emails', file, '-q', '--suggest', '-f', 'ndjson'], { env });
      expect(json.stdout.split('\n')[0]).toBe('{"email":"jane@gmial.com","status":"ok","suggestion":"jane@gmail.com"}');
      const keep = await run(['emails', await list(['name,email', 'Jane,jane@yaho.com'], 'k.csv'), '-q', '--suggest', '--keep-columns'], { env });
      expect(keep.stdout).toBe('name,email,status,suggestion\nJane,jane@yaho.com,ok,jane@yahoo.com\n');
      const domains = await run(['domains', await list(['gmial.com', 'example.com'], 'd.txt'), '-q', '--suggest'], { env });
      expect(domains.stdout).toBe('domain,status,suggestion\ngmial.com,ok,gmail.com\nexample.com,ok,\n');
    } finally {
      await sb.close();
    }
  });
});
