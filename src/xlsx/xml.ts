// A workbook part's XML as events, parsed by saxes (a conforming streaming XML parser: entities, CDATA,
// comments, attributes in either quotes) as the part inflates. Names lose their prefix (`x:c` is `c`:
// the Open XML SDK and Power BI write prefixed SpreadsheetML). Text is UTF-8, or UTF-16 by its BOM.
import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import { LimitError, passedOn, WorkbookError } from './zip-reader.js';

export interface XmlHandlers {
  open(name: string, attrs: Record<string, string>): void;
  close?(name: string): void;
  text?(text: string): void;
}

const SLICE = 16 * 1024;

/**
 * The most a text, a name or an entity may grow to while the parser gathers it (saxes holds each whole until it
 * ends: one text of a gigabyte would be held whole before any handler could refuse it); `what` names where.
 */
export interface TextBound {
  max: number;
  what(): string;
}
const MAX_TEXT = 16 * 1024 * 1024;

/** What the parser is gathering: saxes keeps it in these fields (private in its types), emptied as each ends. */
interface Gathering {
  text: string;
  name: string;
  entity?: string;
}

const local = (name: string) => {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
};

/** The value of an attribute by its local name (`r:id` and `ns2:id` are both `id`). */
export function attr(attrs: Record<string, string>, name: string): string | undefined {
  const plain = attrs[name];
  if (plain !== undefined) return plain;
  for (const key in attrs) if (local(key) === name) return attrs[key];
  return undefined;
}

function decoderFor(first: Buffer): TextDecoder {
  if (first[0] === 0xff && first[1] === 0xfe) return new TextDecoder('utf-16le', { fatal: true });
  if (first[0] === 0xfe && first[1] === 0xff) return new TextDecoder('utf-16be', { fatal: true });
  return new TextDecoder('utf-8', { fatal: true });
}

/**
 * Parse `part`'s XML from `bytes`, calling `handlers`; yields after each chunk (so that a caller can pass on
 * what the chunk completed) and returns at the end of the part. What the parser gathers is held to `bound`.
 */
export async function* xmlEvents(bytes: Readable, part: string, handlers: XmlHandlers, bound: TextBound = { max: MAX_TEXT, what: () => `a text of ${part}` }): AsyncGenerator<void> {
  const parser = new SaxesParser({ position: false });
  const gathering = parser as unknown as Gathering;
  parser.on('opentag', (tag) => handlers.open(local(tag.name), tag.attributes as Record<string, string>));
  parser.on('closetag', (tag) => handlers.close?.(local(tag.name)));
  const text = handlers.text ?? (() => undefined);
  parser.on('text', text);
  parser.on('cdata', text);
  const broken = (err: unknown) =>
    passedOn(err) ? err : new WorkbookError(`the workbook is damaged (${part} is not well-formed XML: ${firstLine(err)}); open it in a spreadsheet program and save it again`);
  let decoder: TextDecoder | null = null;
  try {
    for await (const chunk of bytes as AsyncIterable<Buffer>) {
      decoder ??= decoderFor(chunk);
      const text = decoder.decode(chunk, { stream: true });
      // A slice at a time, so that what a caller gathers between yields stays small (rows can be 16,384 cells wide).
      for (let at = 0; at < text.length; at += SLICE) {
        parser.write(at === 0 && text.length <= SLICE ? text : text.slice(at, at + SLICE));
        const held = Math.max(gathering.text.length, gathering.name.length, gathering.entity?.length ?? 0);
        if (held > bound.max) throw new LimitError('row', bound.what(), held, bound.max);
        yield;
      }
    }
    if (decoder) parser.write(decoder.decode());
    parser.close();
  } catch (err) {
    throw broken(err);
  } finally {
    bytes.destroy();
  }
}

/** Parse the whole part. */
export async function parseXml(bytes: Readable, part: string, handlers: XmlHandlers, bound?: TextBound): Promise<void> {
  for await (const _ of xmlEvents(bytes, part, handlers, bound));
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0].replace(/^undefined:/, '').trim();
}
