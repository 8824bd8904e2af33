// A workbook part's XML as events (src/xlsx/xml.ts): names without their prefix, entities and CDATA read,
// UTF-8 or UTF-16 by its BOM, a character cut between chunks kept whole; a text growing past its bound refused
// before it is held whole; XML that is not well-formed said as a damaged workbook, naming the part.
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { attr, parseXml, xmlEvents } from '../../src/xlsx/xml.js';
import { LimitError, WorkbookError } from '../../src/xlsx/zip-reader.js';

/** The events of `chunks` parsed as `part`, as one list. */
async function events(chunks: Buffer[], bound?: { max: number; what(): string }): Promise<string[]> {
  const out: string[] = [];
  await parseXml(Readable.from(chunks), 'xl/worksheets/sheet1.xml', {
    open: (name, attrs) => out.push(`<${name}${Object.entries(attrs).map(([k, v]) => ` ${k}=${v}`).join('')}>`),
    close: (name) => out.push(`</${name}>`),
    text: (t) => out.push(t),
  }, bound);
  return out;
}
const failure = (p: Promise<unknown>) => p.then(() => null, (e: Error) => e);

describe('XML events', () => {
  it('names lose their prefix (the Open XML SDK writes x:c); attributes as written; entities and CDATA are text', async () => {
    const xml = '<x:worksheet xmlns:x="urn:s"><x:row r="1"><x:c r=\'A1\' t="s"><x:v>a &amp; b &#233;</x:v></x:c><x:c><x:is><x:t><![CDATA[<raw>]]></x:t></x:is></x:c></x:row></x:worksheet>';
    expect(await events([Buffer.from(xml)])).toEqual([
      '<worksheet xmlns:x=urn:s>',
      '<row r=1>',
      '<c r=A1 t=s>',
      '<v>',
      'a & b é',
      '</v>',
      '</c>',
      '<c>',
      '<is>',
      '<t>',
      '<raw>',
      '</t>',
      '</is>',
      '</c>',
      '</row>',
      '</worksheet>',
    ]);
  });

  it('UTF-16 by its byte-order mark, LE or BE; a character cut between two chunks is read whole', async () => {
    const xml = '<t>Zoë 😀</t>';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]);
    expect(await events([le])).toEqual(['<t>', 'Zoë 😀', '</t>']);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(xml, 'utf16le').swap16()]);
    expect(await events([be.subarray(0, 9), be.subarray(9)])).toEqual(['<t>', 'Zoë 😀', '</t>']);
    const utf8 = Buffer.from(xml);
    const cut = utf8.indexOf(0xc3) + 1; // inside ë
    expect(await events([utf8.subarray(0, cut), utf8.subarray(cut)])).toEqual(['<t>', 'Zoë 😀', '</t>']);
  });

  it('yields after each chunk, so that a reader can pass on what it completed', async () => {
    const seen: string[] = [];
    let yields = 0;
    const chunks = ['<r><c>1</c>', '<c>2</c>', '</r>'].map((s) => Buffer.from(s));
    for await (const _ of xmlEvents(Readable.from(chunks), 'p', { open: (n) => seen.push(n), close: () => undefined, text: () => undefined })) {
      yields++;
      seen.push(`|${yields}`);
    }
    expect(seen).toEqual(['r', 'c', '|1', 'c', '|2', '|3']);
  });

  it('a text growing past its bound: refused while it is gathered (a LimitError naming where), not held whole', async () => {
    const big = [Buffer.from('<t>'), ...Array.from({ length: 64 }, () => Buffer.alloc(16 * 1024, 'a')), Buffer.from('</t>')];
    const err = await failure(events(big, { max: 100_000, what: () => 'row 7 of sheet "S"' }));
    expect(err).toBeInstanceOf(LimitError);
    expect(err).toMatchObject({ limit: 'row', what: 'row 7 of sheet "S"', max: 100_000 });
    expect((err as LimitError).size).toBeLessThan(200_000);
  });

  it('XML that is not well-formed: the workbook is damaged, naming the part and what the parser said', async () => {
    const err = await failure(events([Buffer.from('<r><c>1</r>')]));
    expect(err).toBeInstanceOf(WorkbookError);
    expect(err!.message).toMatch(/^the workbook is damaged \(xl\/worksheets\/sheet1\.xml is not well-formed XML: .+\); open it in a spreadsheet program and save it again$/);
    expect(err!.message).not.toContain('\n');
  });

  it("a handler's own refusal passes through as it is", async () => {
    const own = new WorkbookError('it has no sheet "X"');
    const err = await failure(parseXml(Readable.from([Buffer.from('<a/>')]), 'p', { open: () => { throw own; }, close: () => undefined, text: () => undefined }));
    expect(err).toBe(own);
  });
});

describe('attr', () => {
  it('by its name, or its local name whatever the prefix; undefined when absent', () => {
    const attrs = { 'r:id': 'rId1', name: 'Sheet1', 'ns2:state': 'hidden' };
    expect([attr(attrs, 'name'), attr(attrs, 'id'), attr(attrs, 'state'), attr(attrs, 'sheetId')]).toEqual(['Sheet1', 'rId1', 'hidden', undefined]);
  });
});
