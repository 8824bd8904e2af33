// A source (a file, standard input, the items given with --item) before and after it is opened.
import type { ByteSource } from '../../system/open-file.js';
import type { Layout } from '../layout/detect.js';
import type { InputRecord } from '../records/record.js';
import type { SourceFacts } from '../records/found.js';

export interface Source {
  /** For messages: the path, or "standard input". */
  name: string;
  /** As given: a path, or "-" for standard input. */
  path: string;
  /** The path resolved against the working directory (a workbook on disk is read where it is); none for standard input. */
  file?: string;
  open(): ByteSource;
  /** The run's stop: every phase of reading it (decompressing, copying a workbook, its shared strings) hears it. */
  signal?: AbortSignal;
}

export interface OpenedSource {
  name: string;
  layout: Layout;
  /** A workbook's sheet that is read: its name, number (from 1) and the workbook's number of sheets. */
  sheet?: { name: string; number: number; of: number };
  /** Standard input or a FIFO (not a file on disk): its records come as they arrive. */
  live: boolean;
  /** Its layout was decided on a pause of the input: its first records have waited for it already. */
  paused: boolean;
  /** Records in input order, in arrays (one per block read), to keep per-record overhead low. */
  records: AsyncIterable<InputRecord[]>;
  /** Close it unread. */
  close(): Promise<void>;
  /** What reading it has found so far: final once its records are read. */
  facts(): SourceFacts;
}
