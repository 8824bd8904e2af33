// An output as an Excel workbook, through the same sinks as every other output. A workbook is a zip whose
// entries are patched once written (output/zip-writer.ts), so it is built in a file: a file replaced whole (-o
// clean.xlsx, a --split file) is built in the sink's own temporary file, which commits as any other (flushed,
// then renamed with the others: sink.ts, commit.ts); standard output, a FIFO or a device gets the workbook once
// it is complete, copied from a private temporary file (a pipe never receives half a workbook).
// The workbook writer (output/xlsx.ts) is loaded here only, when a run writes one.
import { constants as C, createReadStream, promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdvError, fsReason } from '../errors.js';
import { randomHex, tempFileGone, tempFileOpened } from '../temp-files.js';
import type { SheetRows } from './format.js';
import type { Sink } from './sink.js';
import type { XlsxWriter } from './xlsx.js';

export interface WorkbookSinkOptions {
  /** The first sheet's name (default Sheet1). */
  sheetName?: string;
}

/** A workbook written to `dest` (a sink from sink.ts: a file replaced whole, standard output, a FIFO…). */
export function workbookSink(dest: Sink, o: WorkbookSinkOptions = {}): Sink {
  let path: string | null = null; // where the workbook is built
  let own: string | null = null; // a private temporary file of our own (dest is written in place)
  let writer: XlsxWriter | null = null;
  let state: 'open' | 'prepared' | 'done' | 'aborted' = 'open';
  const fail = (err: unknown) => (err instanceof IdvError ? err : new IdvError('failed', `Cannot write ${dest.name}: ${fsReason(err)}.`));

  const start = async (header: readonly string[]) => {
    const { createXlsxWriter } = await import('./xlsx.js');
    writer = await createXlsxWriter(path!, header, { sheetName: o.sheetName });
  };
  const removeOwn = async () => {
    if (own === null) return;
    await fsp.rm(own, { force: true }).catch(() => undefined);
    tempFileGone(own);
    own = null;
  };
  const finish = async () => {
    if (writer === null) await start([]);
    await writer!.end();
    if (own !== null) {
      // Standard output, a FIFO or a device: the complete workbook, its bytes as they are.
      for await (const chunk of createReadStream(own, { highWaterMark: 1024 * 1024 })) await dest.write(chunk as Buffer);
      await removeOwn();
    }
  };
  let readied: Promise<void> | null = null;
  const ready = () =>
    (readied ??= (async () => {
      await dest.ready();
      if (dest.tempPath !== undefined) {
        path = dest.tempPath;
        return;
      }
      own = join(tmpdir(), `idv-workbook-out-${randomHex(8)}.xlsx`);
      tempFileOpened(own);
      try {
        await (await fsp.open(own, C.O_WRONLY | C.O_CREAT | C.O_EXCL, 0o600)).close();
      } catch (err) {
        await removeOwn();
        throw fail(err);
      }
      path = own;
    })());
  return {
    ready,
    async write() {
      throw new Error('a workbook takes rows, not text');
    },
    async writeRows(chunk: SheetRows) {
      await ready();
      try {
        if (chunk.header !== undefined && writer === null) await start(chunk.header);
        for (const row of chunk.rows) await writer!.write(row);
      } catch (err) {
        throw fail(err);
      }
    },
    async prepare() {
      if (state !== 'open') return;
      await ready();
      try {
        await finish();
      } catch (err) {
        throw fail(err);
      }
      await dest.prepare();
      state = 'prepared';
    },
    async commit() {
      await this.prepare();
      if (state === 'done') return;
      await dest.commit();
      state = 'done';
    },
    async abort() {
      if (state === 'done') return;
      state = 'aborted';
      await readied?.catch(() => undefined);
      await (writer as XlsxWriter | null)?.abort().catch(() => undefined);
      await removeOwn();
      await dest.abort();
    },
    get closed() {
      return dest.closed;
    },
    get replaces() {
      return dest.replaces;
    },
    name: dest.name,
  };
}
