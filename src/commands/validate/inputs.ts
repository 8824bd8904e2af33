// The inputs of `idv emails|domains`: files, standard input and the items given with --item, as one stream of
// records. Every source is checked before anything is sent (a file that cannot be read, or whose layout idv
// cannot guess, is refused first, not after paying for the files before it), and each source's records and
// bytes are counted as they are read, for the report and the progress line's total.
import type { Io } from '../../system/io.js';
import { inputError } from '../../core/errors.js';
import { openSource, type Listeners, type ReadOptions } from '../../input/read.js';
import { sourcesFor, statInputFiles } from '../../input/sources/list.js';
import type { InputRecord } from '../../input/records/record.js';
import type { OpenedSource, Source } from '../../input/sources/source.js';
import { isItemsSource, itemsSources, openItems, refuseItemsAsFiles } from '../../input/sources/items.js';
import type { ReportInput } from '../../output/report.js';
import type { ValidateOptions } from './flags.js';
import { countBytes, type ByteCount } from './progress-report.js';
import { fileLayout, type FileLayout } from './dry-run.js';
import { emptyInputLine } from './wrote.js';
import type { RunLog } from './run-log.js';

/** Inputs at most this large in all are counted ahead (RunInputs.countAhead): idv reads them in about a second. */
export const COUNT_AHEAD_BYTES = 32 * 1024 * 1024;
/** Nor more records than this (a compressed file may hold far more than its size says). */
const COUNT_AHEAD_RECORDS = 2_000_000;

export class RunInputs {
  /** Each source once opened (its layout, what reading it found), by its place among the sources. */
  private readonly opened: OpenedSource[] = [];
  private readonly records: number[];

  private constructor(
    private readonly options: ValidateOptions,
    /** The sources as given (counting ahead opens them again; `sources` count the bytes the run reads). */
    private readonly given: Source[],
    private readonly sources: Source[],
    private readonly sizes: Map<string, number>,
    private readonly counted: ByteCount,
  ) {
    this.records = sources.map(() => 0);
  }

  /**
   * The run's sources: files, standard input, the items given with --item. An address typed where a FILE goes,
   * and a named file that is missing or a folder, are refused before anything is read or sent.
   */
  static async check(options: ValidateOptions, io: Io): Promise<RunInputs> {
    await refuseItemsAsFiles(options.kind, options.files, io.cwd);
    const given = sourcesFor(options.files, io, itemsSources(options.items));
    const sizes = await statInputFiles(options.files, io.cwd);
    // A size of 0 is an empty file or a FIFO: no total can be told from it.
    const counted = countBytes(given, (s) => (isItemsSource(s) ? 0 : sizes.get(s.path) || undefined));
    return new RunInputs(options, given, counted.sources, sizes, counted);
  }

  /**
   * Open the first source (its layout shapes the output) and make sure of the others, before anything is sent:
   * with --keep-columns they must have its columns; else each is opened to guess its layout, and what reading it
   * says waits for its turn. Each stays open until it is read: a source is opened once.
   */
  async open(overrides: ReadOptions, log: RunLog): Promise<OpenedInputs> {
    const open = (s: Source) => this.openOne(s, overrides, log.listeners);
    const first = await open(this.sources[0]!);
    const rest = this.options.keepColumns
      ? (await sameColumns(first, this.sources.slice(1), open)).map(now)
      : await openAhead(this.sources.slice(1), (s) => this.openHeld(s, overrides, log));
    const all = [now(first), ...rest];
    return {
      first,
      // Standard input or a FIFO: records are sent and written as they come (input/bytes/live.ts).
      live: all.some((s) => s.opened.live),
      records: this.read(all, log),
    };
  }

  /**
   * Every record of the inputs, counted ahead of the run and silently, when that is cheap: files on disk (no
   * standard input or FIFO, no workbook) of COUNT_AHEAD_BYTES in all at most, which idv reads in about a second.
   * Read with the run's layout overrides, so the count is the run's own. Null when it is not cheap, or when
   * `over()` says the run needs it no more.
   */
  async countAhead(overrides: ReadOptions, over: () => boolean): Promise<number | null> {
    const sizes = this.given.map((s) => (isItemsSource(s) ? 0 : this.sizes.get(s.path)));
    // No size (standard input, a FIFO: a size of 0 too) but for the items given with --item, which hold no bytes.
    if (sizes.some((n, i) => !n && !isItemsSource(this.given[i]!))) return null;
    if (sizes.reduce((a, b) => a! + b!, 0)! > COUNT_AHEAD_BYTES) return null;
    let records = 0;
    for (const source of this.given) {
      if (isItemsSource(source)) {
        records += source.items.length;
        continue;
      }
      const opened = await this.openOne(source, overrides);
      try {
        if (opened.live || opened.sheet !== undefined) return null;
        for await (const block of opened.records) {
          records += block.length;
          if (over() || records > COUNT_AHEAD_RECORDS) return null;
        }
      } finally {
        await opened.close();
      }
    }
    return records;
  }

  /** Bytes read of the bytes the inputs hold, when every size is known. */
  bytes(): { read: number; total: number } | null {
    return this.counted.bytes();
  }

  reportInputs(): ReportInput[] {
    return this.sources.map((s, i) => ({ path: s.path, bytes: this.sizes.get(s.path) ?? null, records: this.records[i]! }));
  }

  /** Lines that held text and were no records, in every source read so far. */
  skippedLines(): number {
    return this.opened.reduce((n, s) => n + s.facts().skippedLines, 0);
  }

  /** Each source's layout, once read (for --dry-run). */
  layouts(): FileLayout[] {
    return this.opened.map((s, i) => fileLayout(this.sources[i]!.path === '-' ? '-' : this.sources[i]!.name, s, this.records[i]!));
  }

  /** `listeners`: who hears what reading it says; none to open it silently. */
  private openOne(source: Source, overrides: ReadOptions, listeners?: Listeners): Promise<OpenedSource> {
    if (isItemsSource(source)) return openItems(source, this.options.kind, this.options.keepColumns, openSource);
    return openSource(source, this.options.kind, overrides, listeners);
  }

  /** A source opened before its turn: what reading it says is held, and said when its turn comes. */
  private async openHeld(source: Source, overrides: ReadOptions, log: RunLog): Promise<Ahead> {
    const held = log.held();
    return { opened: await this.openOne(source, overrides, held.listeners), turn: held.release };
  }

  /**
   * The records of every source in turn, counted; an input without records is said, not passed over. The
   * sources not reached are closed when the run stops reading.
   */
  private async *read(sources: Ahead[], log: RunLog): AsyncGenerator<InputRecord[]> {
    let i = 0;
    try {
      for (; i < sources.length; i++) {
        const { opened, turn } = sources[i]!;
        turn();
        this.opened[i] = opened;
        for await (const block of opened.records) {
          this.counted.reading(i);
          this.records[i]! += block.length;
          yield block;
        }
        if (this.records[i] === 0) log.line(emptyInputLine(opened.name, i === sources.length - 1 && this.records.every((n) => n === 0)));
      }
    } finally {
      for (const { opened } of sources.slice(i + 1)) await opened.close();
    }
  }
}

/** A source opened, and what its turn starts (what reading it said before, held until then). */
interface Ahead {
  opened: OpenedSource;
  turn(): void;
}

/** A source whose notes were said as it was opened. */
const now = (opened: OpenedSource): Ahead => ({ opened, turn: () => undefined });

export interface OpenedInputs {
  first: OpenedSource;
  live: boolean;
  records: AsyncIterable<InputRecord[]>;
}

/**
 * The other sources, opened, when their columns are the first's: --keep-columns writes one header, and a
 * file whose columns differ would be misaligned under it. Refused before anything is sent (exit 2).
 */
async function sameColumns(first: OpenedSource, rest: Source[], open: (s: Source) => Promise<OpenedSource>): Promise<OpenedSource[]> {
  const shape = (l: OpenedSource['layout']) => (l.delimiter === null ? 'a plain list' : l.header ? l.header.map((h) => h.trim()).join(l.delimiter) : 'no header');
  const opened: OpenedSource[] = [];
  for (const source of rest) {
    const next = await open(source);
    opened.push(next);
    if (shape(next.layout) !== shape(first.layout)) {
      for (const each of opened) await each.close();
      throw inputError(
        `${next.name} has other columns than ${first.name} (${shape(next.layout)} / ${shape(first.layout)}); with --keep-columns every file needs the same header: run them one at a time.`,
      );
    }
  }
  return opened;
}

/**
 * The other sources, each opened now (one that idv cannot read throws, before anything is sent) and kept open
 * until its turn: a file is opened once, so a pipe named as a file (`<(…)`, a FIFO) is not read twice, and a
 * file replaced meanwhile is not read as another than the one checked.
 */
async function openAhead(rest: Source[], open: (s: Source) => Promise<Ahead>): Promise<Ahead[]> {
  const opened: Ahead[] = [];
  try {
    for (const source of rest) opened.push(await open(source));
  } catch (err) {
    for (const { opened: each } of opened) await each.close();
    throw err;
  }
  return opened;
}
