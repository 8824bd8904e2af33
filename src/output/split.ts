// --split DIR: one file per status (ok.csv, disposable.csv…), each written atomically. Every status the
// command can give has its file, header-only when no record has it, so that a file left by an earlier run
// never passes for this run's; a status the service adds later gets its file when it first comes (unless that
// file would be another output of the run: `another` says so, and the run fails, its outputs left as they were).
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { fsReason, IdvError } from '../core/errors.js';
import type { Output, SplitOutputs } from './ordered-writer.js';
import { createFormatter, type Format, type FormatOptions } from './format.js';
import { fileSink, writeChunk } from './sink.js';
import { workbookSink } from './workbook-sink.js';
import { OutputsNotPut } from './commit.js';

const EXTENSION: Record<Exclude<Format, 'table'>, string> = { csv: '.csv', json: '.json', ndjson: '.ndjson', xlsx: '.xlsx' };

export async function splitOutputs(
  dir: string,
  format: Exclude<Format, 'table'>,
  options: FormatOptions,
  statuses: readonly string[],
  signal?: AbortSignal,
  platform?: NodeJS.Platform,
  another?: (path: string) => Promise<string | null>,
): Promise<SplitOutputs> {
  try {
    await fsp.mkdir(dir, { recursive: true });
  } catch (err) {
    throw new IdvError('failed', `Cannot make the --split folder ${dir}: ${fsReason(err)}.`);
  }
  const outputs = new Map<string, Promise<Output>>();
  const made: Output[] = [];
  const get = (status: string): Promise<Output> => {
    let output = outputs.get(status);
    if (!output) {
      output = (async () => {
        const path = join(dir, status + EXTENSION[format]);
        const taken = statuses.includes(status) ? null : await another?.(path);
        if (taken) throw new OutputsNotPut(`The service answered a status new to idv, "${status}": ${taken}`);
        const file = fileSink(path, signal, false, { platform });
        // A workbook's one sheet is named for its status.
        const sink = format === 'xlsx' ? workbookSink(file, { sheetName: status }) : file;
        const o = { formatter: await createFormatter(format, { ...options, chalk: null }), sink };
        made.push(o);
        await writeChunk(o.sink, o.formatter.begin());
        return o;
      })();
      outputs.set(status, output);
    }
    return output;
  };
  try {
    for (const status of statuses) await get(status);
  } catch (err) {
    for (const o of made) await o.sink.abort();
    throw err;
  }
  return { get, made: () => made };
}
