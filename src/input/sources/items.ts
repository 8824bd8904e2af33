// Items given with `--item`: one record per item, as given (no layout guessed: `-i 'Doe, Jane <j@x.org>'` is one
// record). A FILE operand that names no file but reads as an item is refused, naming --item, never validated
// (a missing `list@2024.csv` must not be paid for).
import { promises as fsp } from 'node:fs';
import { Readable } from 'node:stream';
import type { Kind } from '../../core/defaults.js';
import { usageError } from '../../core/errors.js';
import { resolvePath } from '../../system/paths.js';
import { checkerFor } from '../items/check.js';
import type { LayoutOverrides } from '../layout/detect.js';
import type { InputRecord } from '../records/record.js';
import type { OpenedSource, Source } from './source.js';

/** What messages and --report call the items given with --item. */
const ITEMS_NAME = '--item';

export interface ItemsSource extends Source {
  items: readonly string[];
}

/** The source of the items given on the command line, or none. */
export function itemsSources(items: readonly string[] | undefined): ItemsSource[] {
  if (!items || items.length === 0) return [];
  return [{ name: ITEMS_NAME, path: ITEMS_NAME, items, open: () => Readable.from([items.join('\n') + '\n']) }];
}

export function isItemsSource(source: Source): source is ItemsSource {
  return Array.isArray((source as Partial<ItemsSource>).items);
}

/** The items as an opened source: the layout of an empty plain list, one record per item. `open`: openSource. */
export async function openItems(
  source: ItemsSource,
  kind: Kind,
  keepColumns: boolean,
  open: (s: Source, kind: Kind, overrides: LayoutOverrides) => Promise<OpenedSource>,
): Promise<OpenedSource> {
  const empty = await open({ name: source.name, path: source.path, open: () => Readable.from([]) }, kind, { noHeader: true, keepColumns });
  const records: InputRecord[] = source.items.map((value) => ({ value, fields: keepColumns ? [value] : null }));
  return { ...empty, records: blockOf(records) };
}

async function* blockOf(records: InputRecord[]): AsyncGenerator<InputRecord[]> {
  yield records;
}

/** Endings of files that hold lists, which also end many a domain-shaped name: such a name is a file's. */
const LIST_FILE = /\.(csv|tsv|txt|text|list|lst|dat|tab|psv|xlsx|xlsm|xls|ods|json|ndjson|jsonl|gz|zip|vcf|xml|log|out)$/i;

/** Whether a FILE operand reads as an item of this kind rather than a path. */
export function readsAsItem(kind: Kind, operand: string): boolean {
  if (operand === '-' || checkerFor(kind)(operand) === null) return false;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(operand)) return true; // a URL, for domains
  return !/[/\\]/.test(operand) && !LIST_FILE.test(operand);
}

/** A word as the shell takes it back: quoted unless it is plain. */
export const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/**
 * Refuse (exit 2, before anything is read or sent) a FILE operand that does not exist and reads as an item:
 * `idv emails jane@gmail.com` means the address. An existing file of that name is read as a file.
 */
export async function refuseItemsAsFiles(kind: Kind, files: readonly string[], cwd: string | null): Promise<void> {
  for (const f of files) {
    if (!readsAsItem(kind, f)) continue;
    try {
      await fsp.stat(resolvePath(cwd, f));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') continue; // statInputFiles names it
      const what = kind === 'emails' ? 'an address' : 'a domain';
      throw usageError(`No such file: ${f}. To validate it as ${what}, give it with --item (-i): idv ${kind} --item ${shellWord(f)}`);
    }
  }
}
