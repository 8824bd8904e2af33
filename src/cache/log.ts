// The cache log's lines: `<unix seconds>\t<status>\t<key>\n`, read in place as bytes (a million lines must
// not make three million strings), a byte range at a time. Keys never hold white space: such items are invalid.
import { isPlainStatus } from '../core/statuses.js';
import { openToRead } from './files.js';

export const HEADER_PREFIX = '# idv cache v1 ';
/**
 * Ends a torn last line so that later appends start on a line of their own: a tab, which no key holds, keeps
 * the fragment damaged for good (`…\tok\tann@exam` is not ann@exam's answer); after another run's write
 * still under way, it is a blank line.
 */
export const TORN_LINE_END = '\t\n';
/** A time has at most 13 digits (a longer one is a damaged line, not a time in the far future). */
const MAX_TS_DIGITS = 13;

/** A good line: its key is the UTF-8 in buf[start, end); `status` is one shared string per status. */
export type OnLine = (buf: Buffer, start: number, end: number, ts: number, status: string) => void;

export interface RangeRead {
  /** Lines that were not comments (good or damaged). */
  lines: number;
  /** Lines of the wrong shape, a torn last one included. */
  damaged: number;
  /** Where the last whole line read ends: a torn last line is not covered. */
  end: number;
  /** Whether the range ended with a torn line (no line break after it). */
  torn: boolean;
}

/**
 * Read the log's lines in [from, to) and hand each good one to `onLine`, in order. `onFirstBlock` learns,
 * once, how many bytes of lines the first block held, and how many lines.
 */
export async function readLines(path: string, from: number, to: number, onLine: OnLine, onFirstBlock?: (bytes: number, lines: number) => void): Promise<RangeRead> {
  const parser = new LineParser(onLine);
  const result: RangeRead = { lines: 0, damaged: 0, end: from, torn: false };
  if (to <= from) return result;
  let carry: Buffer | null = null;
  let offset = from; // file offset of buf[0]
  const file = await openToRead(path);
  for await (const chunk of file.createReadStream({ start: from, end: to - 1, highWaterMark: 256 * 1024 })) {
    const buf: Buffer = carry ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    let start = 0;
    let nl: number;
    while ((nl = buf.indexOf(10, start)) !== -1) {
      parser.parse(buf, start, nl);
      start = nl + 1;
    }
    result.end = offset + start;
    carry = start < buf.length ? buf.subarray(start) : null;
    offset += start;
    onFirstBlock?.(start, parser.lines);
    onFirstBlock = undefined;
  }
  if (carry) {
    result.torn = true;
    parser.damaged++;
  }
  result.lines = parser.lines;
  result.damaged = parser.damaged;
  return result;
}

class LineParser {
  lines = 0;
  damaged = 0;
  /** The statuses met so far, as text and as bytes: each line's status is matched in place. */
  private readonly statuses: Array<{ name: string; bytes: Buffer }> = [];

  constructor(private readonly onLine: OnLine) {}

  parse(buf: Buffer, start: number, end: number): void {
    if (end > start && buf[end - 1] === 13) end--; // a line end turned CRLF by an editor or a copy
    if (buf[start] === 35 /* # */ || isBlank(buf, start, end)) return;
    this.lines++;
    let ts = 0;
    let t1 = start;
    for (; t1 < end; t1++) {
      const ch = buf[t1]!;
      if (ch === 9) break;
      if (ch < 48 || ch > 57 || t1 - start >= MAX_TS_DIGITS) {
        this.damaged++;
        return;
      }
      ts = ts * 10 + (ch - 48);
    }
    const t2 = t1 === end ? -1 : buf.indexOf(9, t1 + 1);
    const status = t1 === start || t2 === -1 || t2 > end || t2 + 1 >= end ? null : this.statusAt(buf, t1 + 1, t2);
    // A key holds no white space: a tab or space in it means a damaged line.
    if (status === null || hasSpace(buf, t2 + 1, end)) {
      this.damaged++;
      return;
    }
    this.onLine(buf, t2 + 1, end, ts, status);
  }

  private statusAt(buf: Buffer, start: number, end: number): string | null {
    const n = end - start;
    outer: for (const s of this.statuses) {
      if (s.bytes.length !== n) continue;
      for (let i = 0; i < n; i++) if (buf[start + i] !== s.bytes[i]) continue outer;
      return s.name;
    }
    const name = buf.toString('latin1', start, end);
    if (!isPlainStatus(name)) return null;
    if (this.statuses.length < 64) this.statuses.push({ name, bytes: Buffer.from(name, 'latin1') });
    return name;
  }
}

function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] !== 9 && buf[i] !== 32) return false;
  return true;
}

function hasSpace(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const ch = buf[i]!;
    if (ch === 9 || ch === 32 || ch === 13) return true;
  }
  return false;
}
