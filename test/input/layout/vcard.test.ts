// A vCard file's records (src/input/layout/vcard.ts): EMAIL properties, and other properties holding an address of their own.
import { describe, expect, it } from 'vitest';
import { LDIF, VCARD, VCardReader, type VCardRecord, type VCardSkip } from '../../../src/input/layout/vcard.js';

function read(text: string, kind: 'emails' | 'domains' = 'emails', format = VCARD) {
  const skipped: Array<[number, VCardSkip]> = [];
  const reader = new VCardReader(kind, false, (line, why) => skipped.push([line, why]), format);
  const out: VCardRecord[] = [];
  text.split('\n').forEach((l, i) => reader.line(l, i + 1, out));
  reader.end(out);
  return { values: out.map((r) => r.value), skipped };
}

describe('VCardReader', () => {
  it('domains: a URL on the domain of its card\'s EMAIL repeats it; a URL of another domain is a record', () => {
    const r = read('BEGIN:VCARD\nEMAIL:jo@acme.com\nURL:https://acme.com/\nURL:https://jo.dev\nEND:VCARD', 'domains');
    expect(r.values).toEqual(['EMAIL:jo@acme.com', 'https://jo.dev']);
    expect(r.skipped).toEqual([
      [1, 'vCard line without an address'],
      [3, 'vCard property repeating its EMAIL'],
      [5, 'vCard line without an address'],
    ]);
  });
  it('domains: a property\'s name is never read as a domain (Apple\'s item1.X-ABLabel, item2.X-ABADR); a URL\'s value is', () => {
    const card = [
      'BEGIN:VCARD', 'VERSION:3.0', 'N:Lee;Ann;;;', 'FN:Ann', 'ORG:Acme Inc.;', 'EMAIL;type=INTERNET;type=pref:ann@acme.com',
      'item1.URL;type=pref:https://www.acme.com/', 'item1.X-ABLabel:_$!<HomePage>!$_', 'item2.ADR;type=HOME:;;1 Main St.;Springfield;IL;62701;USA',
      'item2.X-ABADR:us', 'TEL;type=CELL:+1 555 0100', 'END:VCARD',
    ];
    const r = read(card.join('\n'), 'domains');
    expect(r.values).toEqual(['EMAIL;type=INTERNET;type=pref:ann@acme.com', 'https://www.acme.com/']);
    expect(r.skipped.map(([line]) => line)).toEqual([1, 2, 3, 4, 5, 8, 9, 10, 11, 12]);
  });
  it('LDIF (Thunderbird\'s export): mail and mozillaSecondEmail are the records, base64 and folded values read, a dn naming the entry\'s mail skipped', () => {
    const ldif = [
      'version: 1', '', 'dn: cn=Jane Doe,mail=jane@example.com', 'objectclass: top', 'cn: Jane Doe', 'mail: jane@example.com',
      'mozillaSecondEmail: jane2@example.org', '', 'dn:: Y249SsO8cmdlbixtYWlsPWrDvHJnZW5AYsO8Y2hlci5kZQ==', 'mail:: asO8cmdlbkBiw7xjaGVyLmRl',
      'description: was bob@old.example.com', '', 'dn: cn=Long,mail=very.long.address@exa', ' mple.com', 'mail: very.long.address@exa', ' mple.com', '',
    ];
    const r = read(ldif.join('\n'), 'emails', LDIF);
    expect(r.values).toEqual(['jane@example.com', 'jane2@example.org', 'jürgen@bücher.de', 'was bob@old.example.com', 'very.long.address@example.com']);
    expect(r.skipped).toEqual([
      [1, 'vCard line without an address'],
      [3, 'vCard property repeating its EMAIL'],
      [4, 'vCard line without an address'],
      [5, 'vCard line without an address'],
      [9, 'vCard property repeating its EMAIL'],
      [13, 'vCard property repeating its EMAIL'],
      [14, 'vCard property repeating its EMAIL'],
    ]);
    expect(read(ldif.join('\n'), 'domains', LDIF).values).toEqual(r.values);
  });
  it('vCard 2.1 quoted-printable values are decoded, and a line ending in = goes on on the next (Android\'s and Nokia\'s exports)', () => {
    const card = [
      'BEGIN:VCARD', 'VERSION:2.1', 'N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:M=C3=BCller;J=C3=BCrgen;;;',
      'EMAIL;HOME;ENCODING=QUOTED-PRINTABLE:j=C3=BCrgen@b=C3=BCcher.de', 'EMAIL;WORK;QUOTED-PRINTABLE:long.name.at.some.company=', '@example.com',
      'EMAIL;CHARSET=ISO-8859-1;ENCODING=QUOTED-PRINTABLE:z=F6e@example.com', 'NOTE;ENCODING=QUOTED-PRINTABLE:first=0D=0Asecond =', 'line', 'END:VCARD',
    ];
    const r = read(card.join('\n'));
    expect(r.values).toEqual([
      'EMAIL;HOME;ENCODING=QUOTED-PRINTABLE:jürgen@bücher.de',
      'EMAIL;WORK;QUOTED-PRINTABLE:long.name.at.some.company@example.com',
      'EMAIL;CHARSET=ISO-8859-1;ENCODING=QUOTED-PRINTABLE:zöe@example.com',
    ]);
    expect(r.skipped.map(([line]) => line)).toEqual([1, 2, 3, 8, 9, 10]);
  });
  it("LDIF: a group's member lines are the addresses they name (records, sent once with the members' own entries)", () => {
    const ldif = ['dn: cn=Team,mail=team@x.com', 'objectclass: groupOfNames', 'cn: Team', 'mail: team@x.com', 'member: cn=Ann Lee,mail=ann@x.com', 'member: cn=Bob,mail=bob@y.org', ''];
    const r = read(ldif.join('\n'), 'emails', LDIF);
    expect(r.values).toEqual(['team@x.com', 'ann@x.com', 'bob@y.org']);
  });
  it('a card never closed is given out once it holds 1,000 properties, not held to the end', () => {
    const reader = new VCardReader('emails', false, () => undefined);
    const out: VCardRecord[] = [];
    reader.line('BEGIN:VCARD', 1, out);
    reader.line('EMAIL:a@x.com', 2, out);
    for (let i = 3; i <= 1000; i++) reader.line(`NOTE:${i}`, i, out);
    expect(out).toEqual([]);
    reader.line('NOTE:last', 1001, out); // ends the 1,000th property
    reader.line('EMAIL:b@x.com', 1002, out);
    expect(out.map((r) => r.value)).toEqual(['EMAIL:a@x.com']);
  });
  it('--keep-columns: the property as read is its one cell', () => {
    const reader = new VCardReader('emails', true, () => undefined);
    const out: VCardRecord[] = [];
    reader.line('EMAIL;TYPE=HOME:jo@x.com', 1, out);
    reader.end(out);
    expect(out).toEqual([{ value: 'EMAIL;TYPE=HOME:jo@x.com', fields: ['EMAIL;TYPE=HOME:jo@x.com'] }]);
  });
  it('a property holding another address besides its card\'s EMAIL is a record, whatever escapes or brackets are around it', () => {
    for (const note of ['NOTE:Old address bob@y.com\\nNew: jane@x.com', 'NOTE:assistant cy@y.com\\, cc jane@x.com', 'NOTE:jane@x.com (old: bob@y.com)', 'NOTE:jane@x.com <bob@y.com>', 'NOTE:jane@x.com and jo@x']) {
      const r = read(`BEGIN:VCARD\nEMAIL:jane@x.com\n${note}\nEND:VCARD`);
      expect(r.values, note).toEqual(['EMAIL:jane@x.com', note]);
    }
    for (const same of ['FN:jane@x.com', 'X-ALT:Jane@X.com\\, jane@x.com', 'NOTE:<jane@x.com>']) {
      expect(read(`BEGIN:VCARD\nEMAIL:jane@x.com\n${same}\nEND:VCARD`).values, same).toEqual(['EMAIL:jane@x.com']);
    }
  });
  it('a card written indented (every line starts with spaces) is read line by line, not as one folded line', () => {
    const r = read('BEGIN:VCARD\n  VERSION:3.0\n  FN:Jo\n  EMAIL:jo@x.com\n  END:VCARD\nBEGIN:VCARD\n\tEMAIL:al@y.org\nEND:VCARD');
    expect(r.values).toEqual(['EMAIL:jo@x.com', 'EMAIL:al@y.org']);
  });
  it('a folded property is held to a bounded size (a photo of megabytes is not kept whole); an address past that point still makes it a record', () => {
    const reader = new VCardReader('emails', false, () => undefined);
    const out: VCardRecord[] = [];
    const lines = ['BEGIN:VCARD', 'EMAIL:a@x.com', 'PHOTO;ENCODING=b:' + 'A'.repeat(70)];
    for (let i = 0; i < 40_000; i++) lines.push(' ' + 'B'.repeat(74)); // ~3 MB
    lines.push('NOTE:long', ...Array.from({ length: 20_000 }, () => ' ' + 'c'.repeat(74)), ' write to bo@y.org', 'END:VCARD');
    lines.forEach((l, i) => reader.line(l, i + 1, out));
    reader.end(out);
    expect(out.map((r) => r.value.slice(0, 9))).toEqual(['EMAIL:a@x', 'NOTE:long']);
    expect(out[1]!.value.length).toBeLessThan(1_100_000);
  });
});
