// Sources to records (src/input/read.ts): CSV records, an input error for a quote never closed, a named file
// read whole and let go.
import { describe, expect, it, vi } from 'vitest';
import { Readable } from 'node:stream';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSource, sourcesFor } from '../../src/input/read.js';
import type { Io } from '../../src/system/io.js';

describe('openSource', () => {
  const src = (text: string) => ({ name: 'mem', path: 'mem', open: () => Readable.from([Buffer.from(text)]) });
  it('yields CSV records with quoted newlines and skips blank lines', async () => {
    const s = await openSource(src('email,note\r\na@b.com,"x\ny"\r\n\r\n,empty\r\n'), 'emails', {});
    const out = [];
    for await (const batch of s.records) out.push(...batch);
    expect(out).toEqual([
      { value: 'a@b.com', fields: ['a@b.com', 'x\ny'] },
      { value: '', fields: ['', 'empty'] },
    ]);
  });
  it('reports an unterminated quote as an input error: at once when the whole input is in the sample', async () => {
    await expect(openSource(src('email,note\na@b.com,"open\nc@d.com,x\n'), 'emails', {})).rejects.toMatchObject({
      kind: 'input',
      message: 'mem is not well-formed CSV: a quoted cell in the record that starts on line 2 is never closed; if its quotes are text, not CSV quoting, give --no-quotes, else check the file.',
    });
  });
  it('…and while reading when it comes after the sample', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `n${i}@x.com,note ${i}`).join('\n');
    const s = await openSource(src(`email,note\n${rows}\nc@d.com,"open\ne@f.com,x\n`), 'emails', {});
    let read = 0;
    await expect(async () => {
      for await (const b of s.records) read += b.length;
    }).rejects.toMatchObject({ kind: 'input', message: 'mem is not well-formed CSV: a quoted cell in the record that starts on line 5002 is never closed; if its quotes are text, not CSV quoting, give --no-quotes, else check the file.' });
    expect(read).toBe(5000);
  });
});

describe('a row is bounded (--max-row-size): memory goes by records, never by the bytes of one', () => {
  const src = (text: string) => ({ name: 'mem', path: 'mem', open: () => Readable.from(chunks(text)) });
  /** The text in blocks of 64 KiB, as a file is read. */
  function* chunks(text: string) {
    for (let at = 0; at < text.length; at += 65_536) yield Buffer.from(text.slice(at, at + 65_536));
  }
  const MiB = 1024 * 1024;
  async function records(text: string, maxRowSize?: number) {
    const s = await openSource(src(text), 'emails', maxRowSize === undefined ? {} : { maxRowSize });
    const out: string[] = [];
    for await (const batch of s.records) for (const r of batch) out.push(r.value.slice(0, 20));
    return out;
  }
  const tooLong = (line: number, size: string, larger: string) => ({
    kind: 'input',
    message: `mem: line ${line} is longer than ${size}, the most idv holds of one row; if it is meant to be so long, give a larger --max-row-size (e.g. --max-row-size ${larger}).`,
  });

  it('a CSV row longer than the bound is exit 2 naming its line and the flag, whether or not it has quotes; shorter ones are read', async () => {
    const wide = (quote: string) => `email,note\na@example.com,short\nb@example.com,${quote}${'x'.repeat(3 * MiB)}${quote}\nc@example.com,short\n`;
    await expect(records(wide(''), 2 * MiB)).rejects.toMatchObject(tooLong(3, '2 MiB', '8MiB'));
    await expect(records(wide('"'), 2 * MiB)).rejects.toMatchObject(tooLong(3, '2 MiB', '8MiB'));
    expect(await records(wide(''), 4 * MiB)).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
  });

  it('a line of a plain list too, by default past 16 MiB', async () => {
    await expect(records(`a@example.com\nb@example.com ${'x'.repeat(3 * MiB)}\n`, 2 * MiB)).rejects.toMatchObject(tooLong(2, '2 MiB', '8MiB'));
    await expect(records(`a@example.com\n${'y'.repeat(17 * MiB)}\nc@example.com\n`)).rejects.toMatchObject(tooLong(2, '16 MiB', '64MiB'));
  });
});

describe('reading a named file (src/input/read.ts)', () => {
  /** This process's descriptors open on `path` (other tests' descriptors come and go meanwhile). */
  const openOn = (path: string) =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === path;
      } catch {
        return false; // closed meanwhile
      }
    }).length;
  const fakeIo = { cwd: null, stdinIsTTY: false, stdin: Readable.from([]) } as unknown as Io;

  it('reads every byte of a file larger than a block, in order, and lets the file go at the end or when closed early', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idv-read-'));
    try {
      const lines = Array.from({ length: 20_000 }, (_, i) => `person${i}@example.com`);
      const file = join(dir, 'list.txt');
      writeFileSync(file, lines.join('\n') + '\n'); // ~470 KB: eight blocks
      const [source] = sourcesFor([file], fakeIo);
      const whole = await openSource(source!, 'emails', {});
      const got: string[] = [];
      for await (const block of whole.records) for (const r of block) got.push(r.value);
      expect(got).toEqual(lines);
      expect(openOn(file)).toBe(0);
      // closed after the first block: the file is let go (not left open until the process ends)
      const early = await openSource(sourcesFor([file], fakeIo)[0]!, 'emails', {});
      for await (const block of early.records) {
        expect(block.length).toBeGreaterThan(0);
        expect(openOn(file)).toBe(1);
        break;
      }
      await early.close();
      await vi.waitFor(() => expect(openOn(file)).toBe(0), { timeout: 20_000 }); // fs.close's callback
      // a file that is not there: the reason, named
      await expect(openSource(sourcesFor([join(dir, 'gone.txt')], fakeIo)[0]!, 'emails', {})).rejects.toThrow(/Cannot read .*gone\.txt: no such file\./);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the record rule, below the data', () => {
  /** The records of `text` (values, or cells with `keep`), the notes said, and the reader's facts. */
  const read = async (text: string | Buffer, kind: 'emails' | 'domains' = 'emails', overrides = {}) => {
    const notes: string[] = [];
    const s = await openSource({ name: 'f', path: 'f', open: () => Readable.from([Buffer.from(text)]) }, kind, overrides, (n) => notes.push(n));
    const values: string[] = [];
    const fields: Array<string[] | null> = [];
    for await (const b of s.records)
      for (const r of b) {
        values.push(r.value);
        fields.push(r.fields);
      }
    return { values, fields, notes, facts: s.facts() };
  };

  it('a short row without an address in the middle of the data is a record (Excel drops trailing delimiters)', async () => {
    const r = await read('Name,Email,Phone,Notes\nAnn,ann@x.com,555,a\nBob\nCy,cy@x.com,557,c\nDee,,\nEd,ed@x.com,559,e\n');
    expect(r.values).toEqual(['ann@x.com', '', 'cy@x.com', '', 'ed@x.com']);
    expect(r.notes).toEqual([]);
  });
  it('short rows at the end without item-like text are records unless recognised: a blank line before them', async () => {
    const data = 'Name,Email,Phone\nAnn,ann@x.com,555\nBob,bob@x.com,556\n';
    expect((await read(data + 'Kim\n')).values).toEqual(['ann@x.com', 'bob@x.com', '']); // a contact with a name only
    const apart = await read(data + '\nTotal: 2 contacts\nPrinted 2024-05-01\n');
    expect(apart.values).toEqual(['ann@x.com', 'bob@x.com']);
    expect(apart.notes).toEqual(['f: skipped lines 5–6 below the data (not records): "Total: 2 contacts"']);
    expect(apart.facts.skipped.map((s) => [String(s.lines), s.why])).toEqual([['lines 5–6', 'below the data']]);
    const blankRow = await read(data + ',,\nAcme Corp\n');
    expect(blankRow.values).toEqual(['ann@x.com', 'bob@x.com']);
  });
  it('…or a footer\'s words (totals, copyright, who generated it)', async () => {
    const data = 'Name,Email,Phone\nAnn,ann@x.com,555\n';
    for (const footer of ['Grand Totals (1 record)', 'Copyright (c) 2024 Acme', '© Acme', 'Generated by Dana, 4 PM', 'Confidential Information']) {
      const r = await read(`${data}${footer}\nAcme Corp\n`);
      expect(r.values, footer).toEqual(['ann@x.com']);
      expect(r.facts.skippedLines, footer).toBe(2);
    }
  });
  it('a short row that holds item-like text is never a footer: it and the rows held before it are records', async () => {
    const r = await read('Name,Email,Phone\nAnn,ann@x.com,555\n\nTotal\nGenerated by dana@acme\n');
    expect(r.values).toEqual(['ann@x.com', '', '']);
    expect(r.fields.slice(1)).toEqual([['Total'], ['Generated by dana@acme']]);
    expect(r.notes).toEqual([]);
  });
  it('domains: a footer naming a website is a record (a host name is item-like)', async () => {
    const r = await read('Company,Website,Phone\nAcme,acme.com,555\n\nCopyright salesforce.com\n', 'domains');
    expect(r.values).toEqual(['acme.com', '']);
  });
  it('a row with more cells than the table (a name with an unquoted comma) is read from the cell its address was pushed to, and said', async () => {
    const r = await read('id,name,email,city\n1,a,a@x.com,c\n2,Lee, Bob,bob@x.com,c\n3,d,d@x.com,c\n4,Kim, Jo, Jr,jo@x.com,c\n');
    expect(r.values).toEqual(['a@x.com', 'bob@x.com', 'd@x.com', 'jo@x.com']);
    expect(r.fields[1]).toEqual(['2', 'Lee', ' Bob', 'bob@x.com', 'c']);
    expect(r.notes).toEqual([
      'f: lines 3, 5 have more cells than the table, as if a cell held a "," without quotes: their address was read from the cell it was pushed to, right of column 3 ("email"); check those rows.',
    ]);
    // Cells written `"a", "b"` (a space after each comma): a quoted name with a comma splits in two.
    const spaced = await read('"Id", "Name", "Email"\n1, "Ann", "ann@x.com"\n2, "Lee, Bob", "bob@x.com"\n3, "Cy", "cy@x.com"\n');
    expect(spaced.values.map((v) => v.trim())).toEqual(['"ann@x.com"', '"bob@x.com"', '"cy@x.com"']);
    expect(spaced.notes).toHaveLength(1);
    // domains: the same, said for a domain
    const domains = await read('id,name,website\n1,a,a.com\n2,Lee, Bob,bob.org\n', 'domains');
    expect(domains.values).toEqual(['a.com', 'bob.org']);
    expect(domains.notes[0]).toContain('its domain was read from the cell it was pushed to');
  });
  it('…but a wider row whose item cell holds a mistyped address or nothing keeps it, and a pushed cell without an item changes nothing', async () => {
    const r = await read('id,name,email,city\n1,a,a@x.com,c\n2,Lee,bob@x,extra@x.com,c\n3,Lee, Bob,no address,c\n');
    expect(r.values).toEqual(['a@x.com', 'bob@x', ' Bob']);
    expect(r.notes).toEqual([]);
    // An empty item cell in a wider row is no push: the address right of it is another column's (said, not read).
    const secondary = await read('Name,Email,Secondary\nAnn,ann@x.com,\nBob,,bob2@x.com,extra\nCy,cy@x.com,\n');
    expect(secondary.values).toEqual(['ann@x.com', '', 'cy@x.com']);
    expect(secondary.notes).toHaveLength(1);
    expect(secondary.notes[0]).toContain('line 3 holds no address in column 2 ("Email") but one in column 3 ("Secondary")');
    // A cell that does not go on a cut phrase (`n/a`, no white space first) is no push either: said, not read.
    const placeholder = await read('Company,Website,Owner site,City\nAcme,acme.com,a.org,Paris\nBeta,n/a,owner.com,Lyon, France\n', 'domains');
    expect(placeholder.values).toEqual(['acme.com', 'n/a']);
    expect(placeholder.notes.join('\n')).toContain('line 3 holds no domain in column 2 ("Website") but one in column 3 ("Owner site")');
    const noSpace = await read('id,name,email,city\n1,a,a@x.com,c\n2,Lee,Bob,bob@x.com,c\n');
    expect(noSpace.values).toEqual(['a@x.com', 'Bob']);
    expect(noSpace.notes[0]).toContain('line 3 holds no address in column 3 ("email") but one in column 4 ("city")');
  });
  it('a quoted cell that runs on over lines reading as rows of the table (a quote that was text) is refused, naming the lines', async () => {
    const swallowed = 'name,email,note\nAnn,ann@x.com,"Nick\nBob,bob@x.com,ok\nCy,cy@x.com,5" screen\nDee,dee@x.com,fine\n';
    await expect(read(swallowed)).rejects.toThrow(
      'f: the quoted cell that opens on line 2 runs on to line 4, over lines that read as rows of their own (line 3 holds bob@x.com): a quote there is part of the text, not CSV quoting; give --no-quotes to read every line as a row, or write that quote as "".',
    );
    await expect(read(swallowed.replaceAll(',', '\t'))).rejects.toThrow('(line 3 holds bob@x.com)');
    // Far into a file, all the same.
    const rows = Array.from({ length: 3000 }, (_, i) => `N${i},n${i}@x.com,x\n`).join('');
    await expect(read('name,email,note\n' + rows + 'Ann,ann@x.com,"Nick\nBob,bob@x.com,ok\nCy,cy@x.com,5" screen\nDee,dee@x.com,x\n')).rejects.toThrow(
      'the quoted cell that opens on line 3,002 runs on to line 3,004',
    );
  });
  it('a cell quoted as RFC 4180 has it is one cell whatever its lines hold (a signature, a pasted row, recipients): never refused', async () => {
    const notes: Array<[string, string[]]> = [
      ['Name,Email,Notes\nAnn,ann@x.com,"Met at conference.\nReferred by: Bob Smith, bob@acme.com\nFollow up"\nCy,cy@x.com,x\n', ['ann@x.com', 'cy@x.com']],
      ['Name,Email,Notes\nAnn,ann@x.com,"a customer pasted a row:\nbob@y.com,Bob,Ray\n""and a quote"""\nCy,cy@x.com,x\n', ['ann@x.com', 'cy@x.com']],
      ['E-Mail;Name;Bemerkung\nann@x.de;Ann;"Kollegen:\nbob@y.de; cid@z.de"\ncy@x.de;Cy;\n', ['ann@x.de', 'cy@x.de']],
    ];
    for (const [text, want] of notes) expect((await read(text)).values, text).toEqual(want);
  });
  it('--no-quotes: a quote is text, every line a row split at the delimiter (a database dump with stray quotes)', async () => {
    const swallowed = 'name,email,note\nAnn,ann@x.com,"Nick\nBob,bob@x.com,ok\nCy,cy@x.com,5" screen\nDee,dee@x.com,fine\n';
    const r = await read(swallowed, 'emails', { noQuotes: true, keepColumns: true });
    expect(r.values).toEqual(['ann@x.com', 'bob@x.com', 'cy@x.com', 'dee@x.com']);
    expect(r.fields[0]).toEqual(['Ann', 'ann@x.com', '"Nick']);
    expect(r.fields[2]).toEqual(['Cy', 'cy@x.com', '5" screen']);
    // A quote never closed is text too, and a quoted cell is read with its quotes.
    const open = await read('name\temail\n"Ann\tann@x.com\n"Bob, Jr."\tbob@x.com\n', 'emails', { noQuotes: true, keepColumns: true });
    expect(open.values).toEqual(['ann@x.com', 'bob@x.com']);
    expect(open.fields[1]).toEqual(['"Bob, Jr."', 'bob@x.com']);
  });
  it('a quoted cell over several lines that hold no row of the table (notes with an address in them) is read as one cell', async () => {
    const r = await read('Email,First,Last,Notes\nann@x.com,Ann,Lee,"Met at the fair\nwrite to her at ann@home.org, or call\n\nThanks"\nbob@x.com,Bob,Ray,\n');
    expect(r.values).toEqual(['ann@x.com', 'bob@x.com']);
  });
  it('an LDIF file (Thunderbird\'s address book export) is read as an address book, not as a list of invalid lines', async () => {
    const r = await read('version: 1\n\ndn: cn=Jane Doe,mail=jane@example.com\nobjectclass: top\ncn: Jane Doe\nmail: jane@example.com\nmozillaSecondEmail: jane2@example.org\n\n');
    expect(r.values).toEqual(['jane@example.com', 'jane2@example.org']);
    expect(r.notes).toEqual([
      'f: skipped lines 1, 4–5 of LDIF attributes that hold no address (not records)',
      "f: skipped line 3 of LDIF attributes that repeat their entry's mail address (not a record)",
    ]);
  });
  it('the header again (files joined together) is skipped and said', async () => {
    const r = await read('Name,Email\nAnn,ann@x.com\nName,Email\nBob,bob@x.com\n');
    expect(r.values).toEqual(['ann@x.com', 'bob@x.com']);
    expect(r.notes).toEqual(['f: skipped line 3, the header again (not a record)']);
    expect(r.facts.skippedLines).toBe(1);
    expect(r.facts.skipped.map((s) => [String(s.lines), s.why])).toEqual([['line 3', 'header repeated']]);
  });
  it('rows whose item cell is empty while another column holds an item: records (invalid), and one note naming them and that column', async () => {
    const outlook = 'First Name,Last Name,E-mail Address,E-mail 2 Address,E-mail 3 Address\n';
    const r = await read(outlook + 'Ann,Lee,ann@x.com,,\nBob,Ray,,bob@home.org,\nCy,Fox,cy@x.com,cy@home.org,\nDee,Wu,,,\nEd,Lo,,,Ed <ed@home.org>\nFay,Ng,,fay@home.org,\n' + 'Gus,Oh,gus@x.com,,\nHal,Im,hal@x.com,,\nIda,Ky,ida@x.com,,\nJo,Le,jo@x.com,,\n');
    expect(r.values).toEqual(['ann@x.com', '', 'cy@x.com', '', '', '', 'gus@x.com', 'hal@x.com', 'ida@x.com', 'jo@x.com']);
    expect(r.notes.at(-1)).toBe(
      'f: lines 3, 6–7 hold no address in column 3 ("E-mail Address") but one in another column (most often column 4, "E-mail 2 Address"): they are written as invalid; give --column 4 to validate that column instead.',
    );
    const bare = await read('x@a.com,\n,y@b.org\nz@a.com,\nw@a.com,\n', 'emails', { noHeader: true });
    expect(bare.values).toEqual(['x@a.com', '', 'z@a.com', 'w@a.com']);
    expect(bare.notes).toEqual(['f: line 2 holds no address in column 1 but one in column 2: it is written as invalid; give --column 2 to validate that column instead.']);
    // idv domains says domain; a header holding a line break is named whole (escaped where it is printed).
    const domains = await read('Company,Website,Email\nA,a.com,j@a.com\nB,,b@b.io\nC,c.org,\nD,d.net,\n', 'domains');
    expect(domains.notes).toEqual(['f: line 3 holds no domain in column 2 ("Website") but one in column 3 ("Email"): it is written as invalid; give --column 3 to validate that column instead.']);
    const twoLines = await read('Email,"Alt\nmail",Other\na@x.com,,\n,b@y.org,\n,,c@z.org\n,d@y.org,\nd@x.com,,\ne@x.com,,\nf@x.com,,\ng@x.com,,\n');
    expect(twoLines.notes.at(-1)).toContain('but one in another column (most often column 2, "Alt\nmail"): they are written');
    // Text around an address (a footer, a note) is not a column of addresses.
    expect((await read('Name,Email,Phone\nAnn,ann@x.com,555\n\nTotal\nGenerated by dana@acme.com\n')).notes).toEqual([]);
  });
    it('a cell holding several addresses (Google Contacts\' " ::: ", "a; b") is one record, invalid, and one note names its lines', async () => {
    const google = 'Name,E-mail 1 - Type,E-mail 1 - Value\nJane,* Home ::: Work,jane@x.com ::: jd@work.org\nBob,* Other,bob@y.org\nCy,Home,"cy@x.com; cy@y.org"\nDi,Home,Di <di@x.com>\n';
    const r = await read(google);
    expect(r.values).toEqual(['jane@x.com ::: jd@work.org', 'bob@y.org', 'cy@x.com; cy@y.org', 'Di <di@x.com>']);
    expect(r.notes).toEqual([
      'f: lines 2, 4 hold several addresses in one cell of column 3 ("E-mail 1 - Value"): each such row is one record, written as invalid; split those cells, one address a cell, to validate each.',
    ]);
  });
    it('lines are counted as a reader sees them: a quoted line break, a sep= line, blank lines', async () => {
    const r = await read('sep=,\r\nName,Note,Email\r\nAnn,"two\r\nlines",ann@x.com\r\n\r\nBob,x,bob@x.com\r\n\r\n\r\nTotal,\r\n');
    expect(r.values).toEqual(['ann@x.com', 'bob@x.com']);
    expect(r.notes).toEqual(['f: skipped line 9 below the data (not a record): "Total"']);
  });
});

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
