// The records of a plain list and a vCard file (src/input/records/text.ts), read through openSource: a line of
// several recipients, lines cut across blocks, vCard properties.
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { openSource } from '../../../src/input/read.js';

describe('plain lists: lines of recipients, vCards', () => {
  const read = async (text: string, keepColumns = false) => {
    const notes: string[] = [];
    const s = await openSource({ name: 'f', path: 'f', open: () => Readable.from([Buffer.from(text)]) }, 'emails', { keepColumns }, (n) => notes.push(n));
    const out: Array<[string, string[] | null]> = [];
    for await (const b of s.records) for (const r of b) out.push([r.value, r.fields]);
    return { out, notes, facts: s.facts() };
  };
  it('a line of several recipients, wherever it is, is one record per recipient, each keeping its text', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => `u${i}@x.com`).join('\n');
    const r = await read(`${many}\nJane <jane@x.com>, "Ray, Bob" <bob@y.org>;kim@gmail\nSmith, John <john@x.com>\n`, true);
    expect(r.out.slice(3000)).toEqual([
      ['Jane <jane@x.com>', ['Jane <jane@x.com>']],
      ['"Ray, Bob" <bob@y.org>', ['"Ray, Bob" <bob@y.org>']],
      ['kim@gmail', ['kim@gmail']],
      ['Smith, John <john@x.com>', ['Smith, John <john@x.com>']], // "Smith" is no recipient: one record
    ]);
  });
  it('a line of recipients cut across blocks is still split, however the blocks fall', async () => {
    const text = 'a@x.com\nb@x.com\nJane <jane@x.com>, bob@y.org; kim@gmail\nc@x.com\n';
    for (let cut = 1; cut < text.length; cut++) {
      const chunks = [text.slice(0, cut), text.slice(cut, cut + 7), text.slice(cut + 7)].filter(Boolean).map((t) => Buffer.from(t));
      const s = await openSource({ name: 'f', path: 'f', open: () => Readable.from(chunks) }, 'emails', {});
      const values: string[] = [];
      for await (const b of s.records) for (const r of b) values.push(r.value);
      expect(values, `cut at ${cut}`).toEqual(['a@x.com', 'b@x.com', 'Jane <jane@x.com>', 'bob@y.org', 'kim@gmail', 'c@x.com']);
    }
  });
  it('the last line, with no line break after it (a paste, printf), holding several recipients: one record per recipient, however the blocks fall', async () => {
    const text = 'a@x.com\nb@x.com\nJane <jane@x.com>, bob@y.org';
    for (let cut = 1; cut < text.length; cut++) {
      // Two or three blocks: the last line whole in the last block, or carried over in pieces.
      const chunks = [text.slice(0, cut), text.slice(cut, cut + 7), text.slice(cut + 7)].filter(Boolean).map((t) => Buffer.from(t));
      const s = await openSource({ name: 'f', path: 'f', open: () => Readable.from(chunks) }, 'emails', {});
      const values: string[] = [];
      for await (const b of s.records) for (const r of b) values.push(r.value);
      expect(values, `cut at ${cut}`).toEqual(['a@x.com', 'b@x.com', 'Jane <jane@x.com>', 'bob@y.org']);
    }
  });
  it('a vCard file: its lines without an address are skipped, counted and named', async () => {
    const r = await read('BEGIN:VCARD\nFN:Jane\nEMAIL;type=HOME:jane@x.com\nNOTE:met jo@y.org\nEND:VCARD\n');
    expect(r.out.map(([v]) => v)).toEqual(['EMAIL;type=HOME:jane@x.com', 'NOTE:met jo@y.org']);
    expect(r.notes).toEqual(['f: skipped lines 1–2, 5 of vCard properties that hold no address (not records)']);
    expect(r.facts.skippedLines).toBe(3);
  });
  it("a vCard property that repeats its card's EMAIL address (a contact named by its address) is skipped and said, whatever the card's order", async () => {
    const r = await read('BEGIN:VCARD\nFN:jane@x.com\nN:;Jane@X.com;;;\nEMAIL:jane@x.com\nEND:VCARD\nBEGIN:VCARD\nFN:Bob\nitem1.EMAIL:bob@y.org\nX-ALT:bob@y.org,other@z.org\nEND:VCARD\n');
    expect(r.out.map(([v]) => v)).toEqual(['EMAIL:jane@x.com', 'item1.EMAIL:bob@y.org', 'X-ALT:bob@y.org,other@z.org']);
    expect(r.notes).toEqual([
      'f: skipped lines 1, 5–7, 10 of vCard properties that hold no address (not records)',
      "f: skipped lines 2–3 of vCard properties that repeat their card's EMAIL address (not records)",
    ]);
    expect(r.facts).toMatchObject({ skippedLines: 7, skipped: [{ why: 'vCard line without an address' }, { why: 'vCard property repeating its EMAIL' }] });
  });
  it('a folded vCard property is one: a NOTE whose address is on its folded part is one record, a skipped one skips all its lines', async () => {
    const r = await read('BEGIN:VCARD\r\nNOTE:met at the fair\\, wrote from\r\n  jo@y.org\r\nADR:;;1 Main St\r\n ;Springfield;;\r\nEMAIL:a@x.com\r\nEND:VCARD\r\n', true);
    expect(r.out).toEqual([
      ['NOTE:met at the fair\\, wrote from jo@y.org', ['NOTE:met at the fair\\, wrote from jo@y.org']],
      ['EMAIL:a@x.com', ['EMAIL:a@x.com']],
    ]);
    expect(r.notes).toEqual(['f: skipped lines 1, 4–5, 7 of vCard properties that hold no address (not records)']);
  });
  it('lines outside any card, and a card never closed, are read by the same rule', async () => {
    const r = await read('BEGIN:VCARD\nFN:ann@x.com\nEMAIL:ann@x.com\nEND:VCARD\nstray@x.com\nBEGIN:VCARD\nFN:cy@x.com\nEMAIL:cy@x.com\n');
    expect(r.out.map(([v]) => v)).toEqual(['EMAIL:ann@x.com', 'stray@x.com', 'EMAIL:cy@x.com']);
    expect(r.facts.skippedLines).toBe(5);
  });
  it('stray bytes in a UTF-8 file: one note naming their lines, in plain lists and CSV alike', async () => {
    const stray = Buffer.concat([Buffer.from('zoë@x.com\r\n\r\nRen'), Buffer.from([0xe9]), Buffer.from('e@x.com\r\nb@x.com\r\nM'), Buffer.from([0xfc]), Buffer.from('ller@x.de\r\n')]);
    const notes: string[] = [];
    const s = await openSource({ name: 'f', path: 'f', open: () => Readable.from([stray]) }, 'emails', {}, (n) => notes.push(n));
    const values: string[] = [];
    for await (const b of s.records) for (const r of b) values.push(r.value);
    expect(values).toEqual(['zoë@x.com', 'Renée@x.com', 'b@x.com', 'Müller@x.de']);
    expect(notes).toEqual([
      'f: lines 3, 5 hold 2 bytes that are not UTF-8 (0xE9, 0xFC), read as the Windows-1252 characters "é", "ü"; the rest of the file is UTF-8. Check those lines, or give --encoding NAME if the file is in another encoding.',
    ]);
    const csv = Buffer.concat([Buffer.from('sep=;\nName;Email\nZoë;z@x.com\nM'), Buffer.from([0xfc]), Buffer.from('ller;m@x.de\n')]);
    const csvNotes: string[] = [];
    const c = await openSource({ name: 'f', path: 'f', open: () => Readable.from([csv]) }, 'emails', {}, (n) => csvNotes.push(n));
    for await (const _ of c.records) void _;
    expect(csvNotes).toEqual([
      'f: line 4 holds a byte that is not UTF-8 (0xFC), read as the Windows-1252 character "ü"; the rest of the file is UTF-8. Check that line, or give --encoding NAME if the file is in another encoding.',
    ]);
  });
});
