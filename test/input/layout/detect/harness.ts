// Detection's test bench: text opened as the file c.csv through openSource, as the reader uses it.
import { Readable } from 'node:stream';
import { openSource } from '../../../../src/input/read.js';
import type { LayoutOverrides } from '../../../../src/input/layout/detect.js';

/** `text` (or its chunks) opened as the file c.csv, and the notes said so far. */
export async function opened(text: string | string[], overrides: LayoutOverrides = {}, kind: 'emails' | 'domains' = 'emails') {
  const notes: string[] = [];
  const chunks = (typeof text === 'string' ? [text] : text).map((t) => Buffer.from(t));
  const s = await openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from(chunks) }, kind, overrides, (n) => notes.push(n));
  return { s, notes };
}

/** …read to its end: its layout, every note said, every record's value. */
export async function readAll(text: string | string[], overrides: LayoutOverrides = {}, kind: 'emails' | 'domains' = 'emails') {
  const { s, notes } = await opened(text, overrides, kind);
  const values: string[] = [];
  for await (const b of s.records) for (const r of b) values.push(r.value);
  return { layout: s.layout, notes, values };
}
