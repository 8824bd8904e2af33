// Items given with --item: one record each, as given, whatever they hold; and a FILE operand that names no file
// but reads as an item is refused with the --item to use, never taken for one (a missing list@2024.csv must not
// be validated and paid for).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isItemsSource, itemsSources, openItems, readsAsItem, refuseItemsAsFiles } from '../../../src/input/sources/items.js';
import { openSource } from '../../../src/input/read.js';
import type { InputRecord } from '../../../src/input/records/record.js';
import { IdvError } from '../../../src/core/errors.js';

describe('readsAsItem', () => {
  it.each([
    ['emails', 'jane@gmail.com', true],
    ['emails', 'Jane.Doe+news@Example.ORG', true],
    ['emails', 'list@2024.csv', false], // a file's ending: a mistyped file name
    ['emails', 'exports/jane@gmail.com', false], // a path
    ['emails', 'list.csv', false],
    ['emails', '-', false],
    ['emails', 'jane', false],
    ['domains', 'example.com', true],
    ['domains', 'https://www.example.com/about', true],
    ['domains', 'jane@example.com', true], // domains takes addresses too
    ['domains', 'domains.txt', false],
    ['domains', 'sites.csv.gz', false],
    ['domains', 'export.xlsx', false],
    ['domains', 'localhost', false],
  ] as const)('%s %s → %s', (kind, operand, item) => {
    expect(readsAsItem(kind, operand)).toBe(item);
  });
});

describe('refuseItemsAsFiles', () => {
  let dir: string;
  beforeEach(async () => void (dir = await mkdtemp(join(tmpdir(), 'idv-items-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('a missing file that reads as an address: exit 2, saying it is no file and the --item that validates it', async () => {
    const err = await refuseItemsAsFiles('emails', ['jane@gmail.com'], dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdvError);
    expect((err as IdvError).kind).toBe('usage');
    expect((err as IdvError).message).toBe('No such file: jane@gmail.com. To validate it as an address, give it with --item (-i): idv emails --item jane@gmail.com');
  });

  it('a domain, and a word the shell would split, quoted in the command it suggests', async () => {
    await expect(refuseItemsAsFiles('domains', ['example.org'], dir)).rejects.toThrow('To validate it as a domain, give it with --item (-i): idv domains --item example.org');
    await expect(refuseItemsAsFiles('emails', ["o'neil@x.org"], dir)).rejects.toThrow(`idv emails --item 'o'\\''neil@x.org'`);
  });

  it('an existing file of that name is a file; a missing file name is left to the reader', async () => {
    await writeFile(join(dir, 'jane@gmail.com'), 'bob@example.org\n');
    await expect(refuseItemsAsFiles('emails', ['jane@gmail.com', 'list@2024.csv', 'missing.txt', '-'], dir)).resolves.toBeUndefined();
  });
});

describe('the items source', () => {
  const read = async (items: string[], keepColumns = false) => {
    const [source] = itemsSources(items);
    expect(isItemsSource(source!)).toBe(true);
    const opened = await openItems(source!, 'emails', keepColumns, openSource);
    const records: InputRecord[] = [];
    for await (const block of opened.records) records.push(...block);
    return { opened, records };
  };

  it('none without items', () => {
    expect(itemsSources(undefined)).toEqual([]);
    expect(itemsSources([])).toEqual([]);
  });

  it('one record per item, as given: a header name, delimiters and quotes are no layout', async () => {
    const items = ['email', 'Doe, Jane <jane@x.org>', '"a@b.co";"c@d.co"', '  bob@example.org ', ''];
    const { opened, records } = await read(items);
    expect(opened.name).toBe('--item');
    expect(opened.layout.delimiter).toBeNull();
    expect(opened.layout.header).toBeNull();
    expect(records).toEqual(items.map((value) => ({ value, fields: null })));
  });

  it('with --keep-columns, each item is its record\'s one cell', async () => {
    const { records } = await read(['jane@gmail.com'], true);
    expect(records).toEqual([{ value: 'jane@gmail.com', fields: ['jane@gmail.com'] }]);
  });
});
