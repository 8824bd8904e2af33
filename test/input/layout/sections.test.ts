// Reports of sections (src/input/layout/sections.ts, read by read.ts): each row's item from its own section's column,
// the titles and headers skipped and said, a section without an item column skipped unless a row holds an item.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Readable } from 'node:stream';
import { openSource } from '../../../src/input/read.js';
import { cellPlaces, placeCells, sectionHeader, sectionTitle, unitedHeader } from '../../../src/input/layout/sections.js';
import type { LayoutOverrides } from '../../../src/input/layout/detect.js';

async function read(bytes: Buffer | string | Buffer[], overrides: LayoutOverrides = {}) {
  const notes: string[] = [];
  const chunks = Array.isArray(bytes) ? bytes : [typeof bytes === 'string' ? Buffer.from(bytes) : bytes];
  const s = await openSource({ name: 'r.csv', path: 'r.csv', open: () => Readable.from(chunks) }, 'emails', overrides, (n) => notes.push(n));
  const records: Array<{ value: string; fields: string[] | null }> = [];
  for await (const b of s.records) records.push(...b);
  return { layout: s.layout, notes, values: records.map((r) => r.value), fields: records.map((r) => r.fields), facts: s.facts() };
}

const pad = (cells: string[], n: number) => [...cells, ...Array<string>(Math.max(0, n - cells.length)).fill('')].join(',');

/** A Zoom webinar attendee report, as its lines are written: every line padded to 14 cells. */
const ZOOM = [
  ['Attendee Report'],
  ['Report Generated:', '"Mar 14, 2024 11:20 AM"'],
  ['Topic', 'Webinar ID', 'Actual Start Time', 'Actual Duration (minutes)'],
  ['Launch', '894 2231 5567', '"Mar 14, 2024 9:58 AM"', '64'],
  ['Host Details'],
  ['Attended', 'User Name (Original Name)', 'Email', 'Join Time', 'Leave Time'],
  ['Yes', 'Dana', 'dana@acme.com', '"Mar 14, 2024 09:58:02"', '"Mar 14, 2024 11:02:40"'],
  ['Attendee Details'],
  ['Attended', 'User Name (Original Name)', 'First Name', 'Last Name', 'Email', 'Phone', 'Join Time'],
  ['Yes', 'Priya Raman', 'Priya', 'Raman', 'priya@fabrikam.com', '', '"Mar 14, 2024 10:00:05"'],
  ['No', 'Olga Ivanova', 'Olga', 'Ivanova', 'olga@example.ru', '+7 900', ''],
  ['No', 'Ann Lee', 'Ann', 'Lee', '', '', ''],
]
  .map((r) => pad(r, 14))
  .join('\n');

describe('a Zoom webinar attendee report', () => {
  it("each row's address comes from its own section's Email column, never the host section's", async () => {
    const r = await read(ZOOM + '\n');
    expect(r.values).toEqual(['dana@acme.com', 'priya@fabrikam.com', 'olga@example.ru', '']);
    expect(r.notes).toEqual([
      'r.csv: skipped lines 1–5 above the header (not records): "Attendee Report"',
      "r.csv: skipped lines 8–9, the titles and headers of its sections (not records); each section's addresses were read from its own column",
    ]);
    expect(r.facts.skippedLines).toBe(7);
  });
  it('a report that ends with a section title alone, padded (a section with no rows): a heading, no record', async () => {
    const r = await read(ZOOM + '\n' + pad(['Other Attended'], 14) + '\n');
    expect(r.values).toEqual(['dana@acme.com', 'priya@fabrikam.com', 'olga@example.ru', '']);
    expect(r.notes[1]).toBe("r.csv: skipped lines 8–9, 13, the titles and headers of its sections (not records); each section's addresses were read from its own column");
  });
  it('--keep-columns: every cell under the names of all the sections united, by name', async () => {
    const r = await read(ZOOM + '\n');
    expect(r.layout.header).toEqual(['Attended', 'User Name (Original Name)', 'Email', 'Join Time', 'Leave Time', 'First Name', 'Last Name', 'Phone']);
    expect(r.layout.column).toBe(2);
    expect(r.fields[1]).toEqual(['Yes', 'Priya Raman', 'priya@fabrikam.com', 'Mar 14, 2024 10:00:05', '', 'Priya', 'Raman', '']);
    expect(r.fields[0]).toEqual(['Yes', 'Dana', 'dana@acme.com', 'Mar 14, 2024 09:58:02', 'Mar 14, 2024 11:02:40', '', '', '']);
  });
  it('a section that starts beyond the sample is read under its own header all the same', async () => {
    const host = Array.from({ length: 4000 }, (_, i) => pad(['Yes', `Host ${i}`, `h${i}@acme.com`], 14)).join('\n');
    const lines = ZOOM.split('\n');
    const text = [...lines.slice(0, 6), host, ...lines.slice(7)].join('\n') + '\n';
    expect(text.length).toBeGreaterThan(128 * 1024);
    const r = await read([Buffer.from(text.slice(0, 70_000)), Buffer.from(text.slice(70_000))]);
    expect(r.values.slice(-3)).toEqual(['priya@fabrikam.com', 'olga@example.ru', '']);
    expect(r.values.length).toBe(4003);
  });
});

/** A Teams attendance report: tab-separated, a summary above, sections below, dates with a comma inside. */
const TEAMS = [
  '1. Summary',
  'Meeting title\tQ1 Partner Webinar',
  'Attended participants\t3',
  'Start time\t3/14/24, 9:58:12 AM',
  '',
  '2. Participants',
  'Name\tFirst Join\tLast Leave\tIn-Meeting Duration\tEmail\tParticipant ID (UPN)\tRole',
  'Dana Whitfield\t3/14/24, 9:58:12 AM\t3/14/24, 11:02:40 AM\t1h 4m 28s\tdana@contoso.com\tdana@contoso.com\tOrganizer',
  'Kim Lee (Guest)\t3/14/24, 10:04:26 AM\t3/14/24, 10:58:00 AM\t53m 34s\t\t\tAttendee',
  'Jo Park\t3/14/24, 10:15:03 AM\t3/14/24, 11:02:40 AM\t47m 37s\tjo@example.com\tjo@example.com\tAttendee',
  '',
  '3. In-Meeting Activities',
  'Name\tJoin Time\tLeave Time\tDuration\tEmail\tRole',
  'Dana Whitfield\t3/14/24, 9:58:12 AM\t3/14/24, 11:02:40 AM\t1h 4m 28s\tdana@contoso.com\tOrganizer',
  'Jo Park\t3/14/24, 10:15:03 AM\t3/14/24, 11:02:40 AM\t47m 37s\tjo@example.com\tAttendee',
].join('\r\n');

describe('a Teams attendance report', () => {
  it('is read as tab-separated, in UTF-16LE with a BOM as in UTF-8: the same layout, the same records', async () => {
    const utf8 = await read(TEAMS);
    const utf16 = await read(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEAMS, 'utf16le')]));
    expect(utf8.layout.delimiter).toBe('\t');
    expect(utf16.layout).toEqual(utf8.layout);
    expect(utf16.values).toEqual(['dana@contoso.com', '', 'jo@example.com', 'dana@contoso.com', 'jo@example.com']);
    expect(utf16.values).toEqual(utf8.values);
    expect(utf16.notes).toEqual(utf8.notes);
  });
  it('--column NAME names the column in every section that has it; the others keep their own', async () => {
    const text = TEAMS.replace('jo@example.com\tjo@example.com', 'jo@example.com\tjo.park@contoso.onmicrosoft.com');
    const r = await read(text, { column: 'Participant ID (UPN)' });
    expect(r.values).toEqual(['dana@contoso.com', '', 'jo.park@contoso.onmicrosoft.com', 'dana@contoso.com', 'jo@example.com']);
  });
  it('--column Email and --column 5 read it too', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEAMS, 'utf16le')]);
    expect((await read(bytes, { column: 'Email' })).values).toEqual(['dana@contoso.com', '', 'jo@example.com', 'dana@contoso.com', 'jo@example.com']);
    expect((await read(bytes, { column: '5' })).values).toEqual(['dana@contoso.com', '', 'jo@example.com', 'dana@contoso.com', 'jo@example.com']);
  });
  it('a section whose header names no address column (Meeting Engagement) is no records, unless a row holds an address', async () => {
    const text = TEAMS + '\r\n\r\n4. Meeting Engagement\r\nName\tEngagement Type\tTime\r\nJo Park\tRaised hand\t3/14/24, 10:20:00 AM\r\nDana Whitfield\tSent to dana@contoso.com\t3/14/24, 10:30:00 AM\r\n';
    const r = await read(text);
    expect(r.values).toEqual(['dana@contoso.com', '', 'jo@example.com', 'dana@contoso.com', 'jo@example.com', 'Sent to dana@contoso.com']);
    expect(r.notes).toContain('r.csv: skipped line 19 of sections whose header names no column of addresses and which hold none (not a record)');
  });
});

describe('what heads a section', () => {
  it('a header names two columns or more, one of them the item, and holds no item', () => {
    expect(sectionHeader('emails', ['Attended', '', 'Interest Rating', 'First Name', 'Email'])).toBe(4);
    expect(sectionHeader('emails', ['Name', 'Email campaign', 'Q3'], true)).toBeNull(); // a known name only, without a title
    expect(sectionHeader('emails', ['Name', 'Email campaign', 'Q3'])).toBe(1);
    expect(sectionHeader('emails', ['Email', 'a@x.com'])).toBeNull();
    expect(sectionHeader('emails', ['Email', '2024'])).toBeNull();
    expect(sectionHeader('emails', ['Email'])).toBeNull();
  });
  it('a row of one cell right above a header is the title of its section, skipped and said; elsewhere a row', async () => {
    const r = await read('Name,Email,Phone\nAnn,ann@x.com,1\nBo Ray,,\nKim,,\nCy,cy@x.com,2\nAttendees,,\nEmail,Name,Phone\ndee@x.com,Dee,3\n');
    expect(r.values).toEqual(['ann@x.com', '', '', 'cy@x.com', 'dee@x.com']);
    expect(r.notes).toEqual(["r.csv: skipped lines 6–7, the titles and headers of its sections (not records); each section's addresses were read from its own column"]);
  });
  it('a title is one cell of text, the others empty', () => {
    expect(sectionTitle('emails', ['Attendee Details', '', ''])).toBe(true);
    expect(sectionTitle('emails', ['Attendee Details', 'x'])).toBe(false);
    expect(sectionTitle('emails', ['ann@x.com'])).toBe(false);
  });
  it('headers united by name, a name twice in one header twice; cells placed under them, an unnamed one with text after', () => {
    const united = unitedHeader([['A', 'Email', ''], ['B', 'Email', 'A', 'A']]);
    expect(united).toEqual(['A', 'Email', 'B', 'A']);
    expect(placeCells(['b', 'e', 'a1', 'a2'], cellPlaces(['B', 'Email', 'A', 'A'], united), 4)).toEqual(['a1', 'e', 'b', 'a2']);
    expect(placeCells(['a', 'e', 'pad'], cellPlaces(['A', 'Email', ''], united), 4)).toEqual(['a', 'e', '', '', 'pad']);
  });
});

describe('sections in any order, padded or not, titled or not (property)', () => {
  interface Section {
    title: string | null;
    names: string[];
    email: number;
    rows: Array<{ name: string; email: string }>;
  }
  const sectionArb = (i: number): fc.Arbitrary<Section> =>
    fc.record({
      title: fc.option(fc.constantFrom('Host Details', 'Panelist Details', 'Attendee Details', 'Session Details', '2. Participants'), { nil: null }),
      names: fc.shuffledSubarray(['Attended', 'User Name', 'First Name', 'Last Name', 'Join Time', 'Phone', 'Country'], { minLength: 1, maxLength: 5 }),
      email: fc.nat(),
      rows: fc.array(fc.record({ name: fc.constantFrom('Ann Lee', 'Bo Ray', 'Cy Dunn', ''), email: fc.constantFrom('', `s${i}@x.com`, `t${i}@y.org`, 'not-an-address') }), { minLength: 1, maxLength: 5 }),
    });
  it('every row of every section is a record, its item the cell under its own section\'s Email', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(sectionArb(0), sectionArb(1), sectionArb(2)),
        fc.constantFrom(',', '\t', ';'),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.boolean(),
        async (sections, d, eol, padded, blankBetween) => {
          // The first section is titled (a report's first title sits in its preamble anyway); a later one at least
          // names its columns otherwise than the first, or has a title.
          const lines: string[][] = [['Attendance Report'], ['Generated', 'Mar 14']];
          const expected: string[] = [];
          sections[0].rows[0]!.email = 'first@x.com'; // a first section whose column holds no address is refused (exit 2)
          sections.forEach((s, k) => {
            const header = [...s.names];
            const at = s.email % (header.length + 1);
            header.splice(at, 0, 'Email');
            if (k > 0 && s.title === null) header.push(`Section ${k}`); // a header of its own
            if (blankBetween && k > 0) lines.push([]);
            if (s.title !== null || k === 0) lines.push([s.title ?? 'Details']);
            lines.push(header);
            for (const row of s.rows) {
              // Rows as reports write them: more than one cell filled (a row of one cell right above a header is its title).
              const cells = header.map((h) => (h === 'Email' ? row.email : h === 'User Name' || h === 'First Name' ? row.name || 'X' : 'v'));
              if (cells.filter((c) => c !== '').length < 2) cells.push('Yes');
              lines.push(cells);
              expected.push(row.email);
            }
          });
          const width = Math.max(...lines.map((l) => l.length));
          const text = lines.map((l) => (padded ? [...l, ...Array<string>(width - l.length).fill('')] : l).join(d)).join(eol) + eol;
          const r = await read(text);
          expect(r.values).toEqual(expected);
        },
      ),
      { seed: 3838, numRuns: 200 },
    );
  });
});
