// All outputs of a run are put in place together or not at all: -o, every --split file and the --report file
// agree with each other. Each is first flushed to its temporary file (a full disk, a quota or a lost permission
// fails there, and then every output is left as it was); only then are they renamed, one after another, in the
// order given (the report last: it says how the run ended, so it goes in place only once the others are).
// Renames in the folder that already holds the file rarely fail, but if one does, the message says exactly
// which files are this run's and which were left as they were.
import { IdvError } from '../core/errors.js';
import { HeldOpen, type Sink } from './sink.js';

/** The outputs of a run could not all be put in place (what was, and was not, is in the message). */
export class OutputsNotPut extends IdvError {
  constructor(message: string) {
    super('failed', message);
  }
}

export async function commitTogether(sinks: readonly Sink[]): Promise<void> {
  let preparing: Sink | undefined;
  try {
    for (preparing of sinks) await preparing.prepare();
  } catch (err) {
    for (const sink of sinks) await sink.abort();
    const others = sinks.some((s) => s !== preparing && s.replaces);
    throw notPut(err, others ? ['no other output of this run was put in place either'] : []);
  }
  const replaced: string[] = [];
  for (let i = 0; i < sinks.length; i++) {
    const sink = sinks[i]!;
    try {
      await sink.commit();
    } catch (err) {
      const later = sinks.slice(i + 1);
      for (const s of later) await s.abort();
      throw notPut(err, partly(replaced, later.filter((s) => s.replaces).map((s) => s.name)));
    }
    if (sink.replaces) replaced.push(sink.name);
  }
}

/** What else is, and is not, this run's after a failed rename. */
function partly(replaced: string[], kept: string[]): string[] {
  const parts: string[] = [];
  if (kept.length) parts.push(`also left as they were: ${kept.join(', ')}`);
  if (replaced.length) parts.push(`already replaced by this run: ${replaced.join(', ')}`);
  return parts;
}

/**
 * An output's failure (a write's, or one in putting the outputs in place) and what else is so, as one
 * OutputsNotPut; a file held open alone stays what it is, and so does anything but a failure (an interruption,
 * an unexpected error).
 */
export function notPut(err: unknown, more: string[]): unknown {
  if (!(err instanceof IdvError) || err.kind !== 'failed' || err instanceof OutputsNotPut || (err instanceof HeldOpen && more.length === 0)) return err;
  return new OutputsNotPut([err.message.replace(/\.$/, ''), ...more].join('; ') + '.');
}
