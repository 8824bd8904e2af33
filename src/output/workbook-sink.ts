// An output as an Excel workbook, through the same sinks as every other output. A workbook is a zip whose
// entries are patched once written (xlsx/zip-writer.ts), so it is built in a file: a file replaced whole (-o
// clean.xlsx, a --split file) is built in the sink's own temporary file, which commits as any other (flushed,
// then renamed with the others: sink.ts, commit.ts); standard output, a FIFO or a device gets the workbook once
// it is complete, copied from a private temporary file (a pipe never receives half a workbook).
// The workbook writer (xlsx/writer.ts) is loaded here only, when a run writes one.
import { constants as C, createReadStream, promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdvError, fsReason } from '../core/errors.js';
import { removeLeftovers, tempFileGone, tempFileOpened, tempPathBeside } from '../system/temp-files.js';
import type { SheetRows } from './format.js';
import type { Sink } from './sink.js';
import type { XlsxWriter } from '../xlsx/writer.js';

export interface WorkbookSinkOptions {
  /** The first sheet's name (default Sheet1). */
  sheetName?: string;
}

/** A workbook written to `dest` (a sink from sink.ts: a file replaced whole, standard output, a FIFO…). */
export function workbookSink(dest: Sink, options: WorkbookSinkOptions = {}): Sink {
  return new WorkbookSink(dest, options.sheetName);
}

class WorkbookSink implements Sink {
  readonly name: string;
  /** Where the workbook is built: the sink's own temporary file, or `own`. */
  private path: string | null = null;
  /** A private temporary file of our own, when `dest` is written in place. */
  private own: string | null = null;
  private writer: XlsxWriter | null = null;
  private state: 'open' | 'prepared' | 'done' | 'aborted' = 'open';
  private readied: Promise<void> | null = null;

  constructor(
    private readonly dest: Sink,
    private readonly sheetName: string | undefined,
  ) {
    this.name = dest.name;
  }

  get closed(): boolean {
    return this.dest.closed;
  }

  get replaces(): boolean {
    return this.dest.replaces;
  }

  ready(): Promise<void> {
    return (this.readied ??= this.open());
  }

  async write(): Promise<void> {
    throw new Error('a workbook takes rows, not text');
  }

  async writeRows(chunk: SheetRows): Promise<void> {
    await this.ready();
    try {
      if (chunk.header !== undefined && this.writer === null) await this.start(chunk.header);
      for (const row of chunk.rows) await this.writer!.write(row);
    } catch (err) {
      throw this.failure(err);
    }
  }

  async prepare(): Promise<void> {
    if (this.state !== 'open') return;
    await this.ready();
    try {
      await this.finish();
    } catch (err) {
      throw this.failure(err);
    }
    await this.dest.prepare();
    this.state = 'prepared';
  }

  async commit(): Promise<void> {
    await this.prepare();
    if (this.state === 'done') return;
    await this.dest.commit();
    this.state = 'done';
  }

  async abort(): Promise<void> {
    if (this.state === 'done') return;
    this.state = 'aborted';
    await this.readied?.catch(() => undefined);
    await this.writer?.abort().catch(() => undefined);
    await this.removeOwn();
    await this.dest.abort();
  }

  private async open(): Promise<void> {
    await this.dest.ready();
    if (this.dest.tempPath !== undefined) {
      this.path = this.dest.tempPath;
      return;
    }
    // Named for this process, as -o's temporary files are: the copy of a run killed outright is removed by the next.
    const base = join(tmpdir(), 'idv-workbook-out.xlsx');
    await removeLeftovers(base);
    const own = (this.own = tempPathBeside(base));
    tempFileOpened(own);
    try {
      await (await fsp.open(own, C.O_WRONLY | C.O_CREAT | C.O_EXCL, 0o600)).close();
    } catch (err) {
      await this.removeOwn();
      throw this.failure(err);
    }
    this.path = own;
  }

  private async start(header: readonly string[]): Promise<void> {
    const { createXlsxWriter } = await import('../xlsx/writer.js');
    this.writer = await createXlsxWriter(this.path!, header, { sheetName: this.sheetName });
  }

  private async finish(): Promise<void> {
    if (this.writer === null) await this.start([]);
    await this.writer!.end();
    if (this.own !== null) {
      // Standard output, a FIFO or a device: the complete workbook, its bytes as they are.
      for await (const chunk of createReadStream(this.own, { highWaterMark: 1024 * 1024 })) await this.dest.write(chunk as Buffer);
      await this.removeOwn();
    }
  }

  private async removeOwn(): Promise<void> {
    if (this.own === null) return;
    await fsp.rm(this.own, { force: true }).catch(() => undefined);
    tempFileGone(this.own);
    this.own = null;
  }

  private failure(err: unknown): IdvError {
    return err instanceof IdvError ? err : new IdvError('failed', `Cannot write ${this.dest.name}: ${fsReason(err)}.`);
  }
}
