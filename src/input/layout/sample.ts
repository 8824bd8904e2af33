// The first blocks of a text, read to guess its layout from, and the layout guessed: a live input is decided on
// sooner. The blocks sampled are then read again from memory, ahead of the rest.
import type { ByteSource } from '../../system/open-file.js';
import type { Kind } from '../../core/defaults.js';
import { followedBy, PAUSE_MS, within } from '../bytes/content.js';
import { orLetGo } from '../bytes/read-error.js';
import { itemLike } from '../items/check.js';
import { sampleRows, unquoted, type SyncParse } from './csv-rows.js';
import { detectLayout, type Layout, type LayoutOverrides, type ParseSample } from './detect.js';

/**
 * The sample: at least SAMPLE_CHARS, and on until it holds SAMPLE_LINES line ends (rows wider than 64 KiB still
 * show a header and rows), up to SAMPLE_MAX (memory stays bounded on a file of one line).
 */
const SAMPLE_CHARS = 64 * 1024;
const SAMPLE_LINES = 20;
const SAMPLE_MAX = 4 * 1024 * 1024;

/** How many lines a block ends (LF, or lone CR in a file of CR ends). */
function lineEnds(text: string): number {
  let lf = 0;
  let cr = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lf++;
  for (let i = text.indexOf('\r'); i !== -1; i = text.indexOf('\r', i + 1)) cr++;
  return Math.max(lf, cr);
}

/** What the layout is guessed for: the source's name and kind, the flags that override guesses, its stream. */
interface Guess {
  name: string;
  kind: Kind;
  overrides: LayoutOverrides;
  stream: ByteSource;
}

/** The layout guessed from a text's sample; the stream is let go when idv cannot read it. */
export async function layoutOf(guess: Guess, sampled: Sampled): Promise<Layout> {
  const text = sampled.blocks.join('');
  // A sample with no quote is parsed without csv-parse, which is not even loaded (start-up counts).
  const quotes = guess.overrides.noQuotes !== true;
  const sync = quotes && /"/.test(text) ? ((await import('csv-parse/sync')).parse as unknown as SyncParse) : unquoted;
  // The sample's rows under a delimiter, parsed as the reader will parse the whole input.
  const parse: ParseSample = (sample, delimiter, whole) => sampleRows(sample, delimiter, whole, sync, quotes);
  try {
    return detectLayout(guess.kind, { text, whole: sampled.done }, guess.overrides, guess.name, parse);
  } catch (err) {
    guess.stream.destroy();
    throw err;
  }
}

/** The sample's blocks, then the block asked for when a live input paused, then the rest. */
export function allBlocks(sampled: Sampled, blocks: AsyncIterator<string>): AsyncGenerator<string> {
  return followedBy(sampled.blocks, sampled.done ? null : blocks, sampled.pending);
}

interface Sampled {
  blocks: string[];
  /** They are the whole input. */
  done: boolean;
  /** The next block, asked for when a live input paused: the layout was decided without it. */
  pending: Promise<IteratorResult<string>> | null;
}

/**
 * The first blocks of text, up to the sample's size; `done` when they are the whole input. A live input
 * (`live`: the command's kind) is decided on sooner: PAUSE_MS after a complete line that holds item-like text
 * arrived (a plain list of one line is enough), whatever has come by then.
 */
export async function sampleOf(blocks: AsyncIterator<string>, stream: ByteSource, name: string, live: Kind | null): Promise<Sampled> {
  const out: string[] = [];
  let size = 0;
  let lines = 0;
  let deadline: number | null = null;
  let partial = ''; // text since the last line end, while no deadline is set
  let pending: Promise<IteratorResult<string>> | null = null;
  return orLetGo(stream, name, async () => {
    while (size < SAMPLE_CHARS || (lines < SAMPLE_LINES && size < SAMPLE_MAX)) {
      pending ??= blocks.next();
      const next = deadline === null ? await pending : await within(pending, deadline - Date.now());
      if (next === null) return { blocks: out, done: false, pending };
      pending = null;
      if (next.done) return { blocks: out, done: true, pending: null };
      out.push(next.value);
      size += next.value.length;
      if (lines < SAMPLE_LINES) lines += lineEnds(next.value);
      if (live !== null && deadline === null) {
        const t = partial + next.value;
        const end = Math.max(t.lastIndexOf('\n'), t.lastIndexOf('\r'));
        if (end !== -1 && itemLike(live, t.slice(0, end))) deadline = Date.now() + PAUSE_MS;
        partial = end === -1 ? t : t.slice(end + 1);
      }
    }
    return { blocks: out, done: false, pending: null };
  });
}
