// All outputs of a run are put in place together or not at all: -o and every --split file agree with each
// other and with the report. Each is first flushed to its temporary file (a full disk, a quota or a lost
// permission fails there, and then every output is left as it was); only then are they renamed, one after
// another. Renames in the folder that already holds the file rarely fail, but if one does, the message says
// exactly which files are this run's and which were left as they were.
import { IdvError } from '../errors.js';
import type { Sink } from './sink.js';

export async function commitTogether(sinks: readonly Sink[]): Promise<void> {
  try {
    for (const sink of sinks) await sink.prepare();
  } catch (err) {
    for (const sink of sinks) await sink.abort();
    throw err;
  }
  const replaced: string[] = [];
  for (let i = 0; i < sinks.length; i++) {
    const sink = sinks[i]!;
    try {
      await sink.commit();
    } catch (err) {
      const later = sinks.slice(i + 1);
      for (const s of later) await s.abort();
      throw partly(err, replaced, later.filter((s) => s.replaces).map((s) => s.name));
    }
    if (sink.replaces) replaced.push(sink.name);
  }
}

/** The failed rename's own message, and what else is, and is not, this run's. */
function partly(err: unknown, replaced: string[], kept: string[]): unknown {
  if (replaced.length === 0 && kept.length === 0) return err;
  const first = (err instanceof Error ? err.message : String(err)).replace(/\.$/, '');
  const parts = [first];
  if (kept.length) parts.push(`also left as they were: ${kept.join(', ')}`);
  if (replaced.length) parts.push(`already replaced by this run: ${replaced.join(', ')}`);
  return new IdvError('failed', parts.join('; ') + '.');
}
