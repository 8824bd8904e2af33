// Timing a live stream: lines written on a timer, each result's arrival held against its line's.

export interface Timed {
  at: number;
  text: string;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long after its line each result came (results in the order of `written`, after `skip` lines of output). */
export function delays(written: Timed[], out: Timed[], skip = 0): number[] {
  return written.map((w, i) => out[i + skip]!.at - w.at);
}
