// The progress of a run in words, from a snapshot of its counts; on a terminal, one line no wider than the
// terminal, the least important facts left out first. Pure: the snapshot and the width come in, text goes out.
import { displayWidth, fitToWidth } from '../system/display-width.js';

export interface ProgressFacts {
  /** Records read so far. */
  read: number;
  /** Reading is over: `read` is the exact total. */
  readDone: boolean;
  /** Bytes read of the bytes the input holds, when every input's size is known (files, not a pipe). */
  bytes: { read: number; total: number } | null;
  /** The records of the whole input, counted ahead (a file read in a moment): the exact total before it is read. */
  counted?: number | null;
  /** Records that have their final status. */
  done: number;
  /** Items the service answered so far (what the run paid for; cache hits are not sent). */
  sent?: number;
  /** Items sent a second over the last seconds (not cache hits, which cost no time); undefined until it can be told. */
  rate: number | undefined;
  /** Items still to send, as far as can be told (the records not read yet as those read so far); the time left is these at the rate. */
  toSend?: number;
  /** Items answered from the cache. */
  cached: number;
  /** Records that ended `error`. */
  errors: number;
  /** What the service last said is left of the quota. */
  quotaLeft: number | undefined;
}

export interface Total {
  count: number;
  /** False while it is estimated from the bytes read. */
  exact: boolean;
}

const n = (x: number) => x.toLocaleString('en-US');

/** `x` to three significant digits (49,873 → 49,900): an estimate that does not flicker in its last digits. */
function roughly(x: number): number {
  if (x < 1000) return Math.round(x);
  const unit = 10 ** (Math.floor(Math.log10(x)) - 2);
  return Math.round(x / unit) * unit;
}

/** The number of records: exact once read; while reading, the records so far scaled by the share of bytes read. */
export function totalOf(f: ProgressFacts): Total | null {
  // Counted ahead first: a run stopped while reading is done reading, not at its end.
  if (f.counted != null) return { count: Math.max(f.counted, f.read, f.done), exact: true };
  if (f.readDone) return { count: f.read, exact: true };
  if (!f.bytes || f.bytes.read <= 0 || f.bytes.total <= 0 || f.read === 0) return null;
  const share = Math.min(1, f.bytes.read / f.bytes.total);
  return { count: Math.max(f.read, f.done, roughly(f.read / share)), exact: false };
}

/** Whole percent done; 100 only when every record is, and at most 99 while the total is an estimate. */
export function percentOf(done: number, total: Total): number {
  if (total.count === 0 || (total.exact && done >= total.count)) return 100;
  return Math.min(99, Math.floor((done * 100) / total.count));
}

/** A time left, short: `45s`, `4m 5s`, `1h 23m`. */
export function shortDuration(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/** A time left longer than this (a rate near nothing) tells nothing: it is left out. */
const MAX_LEFT = 1000 * 3600;

const formatRate = (r: number) => (r >= 10 ? n(Math.round(r)) : r.toFixed(1));

interface Piece {
  text: string;
  /** Left out before the pieces with a higher rank; Infinity: never. */
  rank: number;
}

/** The facts as pieces in the order they are shown; `records` names the count (the log's wording). */
function pieces(f: ProgressFacts, records: string): Piece[] {
  const total = totalOf(f);
  const out: Piece[] = [];
  if (total) {
    out.push({ text: `${n(f.done)} of ${total.exact ? '' : '~'}${n(total.count)}${records}`, rank: Infinity });
    out.push({ text: `${percentOf(f.done, total)}%`, rank: 7 });
  } else {
    out.push({ text: `${n(f.done)}${records} done`, rank: Infinity });
    out.push({ text: `${n(f.read)} read`, rank: 6 });
  }
  if (f.rate !== undefined) out.push({ text: `${formatRate(f.rate)} sent/s`, rank: 3 });
  const left = f.rate && f.toSend !== undefined ? f.toSend / f.rate : 0;
  if (left > 0 && left < MAX_LEFT) out.push({ text: `${shortDuration(left)} left`, rank: 5 });
  if (f.errors > 0) out.push({ text: `${n(f.errors)} error${f.errors === 1 ? '' : 's'}`, rank: 4 });
  if (f.quotaLeft !== undefined) out.push({ text: `quota ${n(f.quotaLeft)} left`, rank: 1 });
  if (f.cached > 0) out.push({ text: `${n(f.cached)} from cache`, rank: 0 });
  return out;
}

/** The label before the facts: left out after the cache and the quota, before the rate. */
const LABEL: Piece = { text: 'Validating', rank: 2 };

/** The label, then the facts between ` · `. */
const join = (shown: Piece[]) => (shown[0] === LABEL ? `${LABEL.text} ` + render(shown.slice(1)) : render(shown));
const render = (shown: Piece[]) => shown.map((p) => p.text).join(' · ');

/**
 * The spinner's line, at most `width` columns: `Validating 15,200 of ~50,000 · 30% · 1,520/s · 23s left · …`.
 * Facts are left out, least important first (from the cache, the quota, the label, the rate, errors, the time
 * left, the records read, the percentage), until the line fits; the count alone is cut with `…`.
 */
export function progressLine(f: ProgressFacts, width: number): string {
  if (f.read === 0 && !f.readDone) return fitToWidth('Reading…', width);
  const shown = [LABEL, ...pieces(f, '')];
  while (displayWidth(join(shown)) > width) {
    const least = shown.reduce((a, b) => (b.rank < a.rank ? b : a));
    if (least.rank === Infinity) break;
    shown.splice(shown.indexOf(least), 1);
  }
  return fitToWidth(join(shown), width);
}

/** Every fact on one line, for the --verbose log where standard error is no terminal. */
export function progressLog(f: ProgressFacts): string {
  return join(pieces(f, ' records'));
}

/**
 * A count (items sent) a second over the last `spanMs`: samples of the count, at least `stepMs` apart, the oldest one kept
 * as the span's start. Undefined until the samples cover `minMs`.
 */
export class RateMeter {
  private readonly samples: Array<{ at: number; count: number }> = [];

  constructor(
    private readonly spanMs = 10_000,
    private readonly minMs = 1_000,
    private readonly stepMs = 250,
  ) {}

  /** Note the count at `now`; the rate. */
  sample(now: number, count: number): number | undefined {
    const s = this.samples;
    if (s.length === 0 || now - s[s.length - 1]!.at >= this.stepMs) s.push({ at: now, count });
    while (s.length > 2 && now - s[1]!.at >= this.spanMs) s.shift();
    const first = s[0]!;
    const span = now - first.at;
    return span >= this.minMs ? ((count - first.count) * 1000) / span : undefined;
  }
}
