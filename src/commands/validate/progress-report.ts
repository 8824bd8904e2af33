// A run's progress for the person watching it: the spinner's line on a terminal, redrawn on every change and
// once a second (so that the rate and the time left move while answers are slow), or with --verbose where
// standard error is no terminal, the same facts as one log line every few seconds.
import { progressLine, progressLog, RateMeter, type ProgressFacts } from '../../output/progress-line.js';
import type { Progress } from '../../system/progress.js';
import type { ByteSource } from '../../system/open-file.js';
import type { Source } from '../../input/sources/source.js';

/** How often the line is redrawn without a change, and how often the log gets a line. */
const TICK_MS = 1_000;
export const LOG_EVERY_MS = 5_000;

export interface ProgressReport {
  /** Something changed: redraw the line (throttled by the spinner). */
  changed(): void;
  stop(): void;
}

export interface ReportOptions {
  progress: Progress;
  /** The counts now; the rate is the report's. */
  facts(): Omit<ProgressFacts, 'rate'>;
  /** --verbose where there is no spinner: a log line every LOG_EVERY_MS. */
  log: ((line: string) => void) | null;
  /** While this says so (the --wait countdown), the line is someone else's. */
  paused(): boolean;
  now?: () => number;
}

export function startProgressReport(o: ReportOptions): ProgressReport {
  const now = o.now ?? Date.now;
  const meter = new RateMeter();
  const snapshot = (): ProgressFacts => {
    const f = o.facts();
    return { ...f, rate: meter.sample(now(), f.sent ?? 0) };
  };
  const live = o.progress.live;
  const changed = () => {
    if (live && !o.paused()) o.progress.update((width) => progressLine(snapshot(), width));
  };
  // Each tick samples the rate; it redraws the line, or every LOG_EVERY_MS writes the log's line.
  let ticks = 0;
  const tick = () => {
    ticks++;
    if (live) changed();
    else if (o.log && (ticks * TICK_MS) % LOG_EVERY_MS === 0) o.log(`idv: progress: ${progressLog(snapshot())}`);
    else snapshot();
  };
  let timer: NodeJS.Timeout | null = live || o.log ? setInterval(tick, TICK_MS) : null;
  timer?.unref();
  return {
    changed,
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}

/** The bytes read so far of the bytes the input holds; null when a size is unknown (standard input, a FIFO). */
export interface ByteCount {
  /** The sources, each noting the stream it opens. */
  sources: Source[];
  /** Source `i` is being read (the ones before it are read whole). */
  reading(i: number): void;
  bytes(): { read: number; total: number } | null;
}

/**
 * Count the bytes read from the sources: a file's blocks (FileBlocks), a socket or fs.ReadStream count the bytes
 * read, less those still in a stream's buffer, which the reader has not taken yet. `sizeOf` gives a source's
 * size: undefined when unknown, 0 for a source without bytes (the items given with --item).
 */
export function countBytes(sources: Source[], sizeOf: (s: Source) => number | undefined): ByteCount {
  const sizes = sources.map(sizeOf);
  const streams: Array<ByteSource | undefined> = [];
  let current = 0;
  const taken = (s: ByteSource | undefined) => (s ? Math.max(0, (s.bytesRead ?? 0) - (s.readableLength ?? 0)) : 0);
  return {
    sources: sources.map((s, i) => ({ ...s, open: () => (streams[i] = s.open()) })),
    reading: (i) => void (current = i),
    bytes() {
      if (sizes.some((size) => size === undefined)) return null;
      let read = taken(streams[current]);
      for (let i = 0; i < current; i++) read += sizes[i]!;
      return { read, total: sizes.reduce((a, b) => a! + b!, 0)! };
    },
  };
}
