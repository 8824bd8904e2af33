// How many columns text takes on a terminal: East Asian wide characters and emoji two, combining marks and
// zero-width characters none. Every width idv lays out (help, tables, the progress line, the summary, wrapped
// messages) is counted here, by string-width (the library ora uses), never by .length.
import stringWidth from 'string-width';

/** Printable ASCII: one column a character, no need to ask string-width (the usual text, and the fast path). */
const ASCII = /^[\x20-\x7e]*$/;

/** The columns `text` takes on a terminal (colour escapes take none). */
export function displayWidth(text: string): number {
  return ASCII.test(text) ? text.length : stringWidth(text);
}

let graphemes: Intl.Segmenter | undefined;

/** The characters as a terminal draws them: a letter with its combining marks, an emoji sequence, one each. */
function clusters(text: string): string[] {
  if (ASCII.test(text)) return [...text];
  graphemes ??= new Intl.Segmenter();
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

/** The first of `parts` that together take at most `width` columns. */
function fitting(parts: string[], width: number): string[] {
  const out: string[] = [];
  let used = 0;
  for (const part of parts) {
    used += displayWidth(part);
    if (used > width) break;
    out.push(part);
  }
  return out;
}

/** The longest start of `text` at most `width` columns wide (never half a wide character or cluster). */
export function cutToWidth(text: string, width: number): string {
  return displayWidth(text) <= width ? text : fitting(clusters(text), width).join('');
}

/** `text`, or when it is wider than `width` columns, its start cut to end in `…` at that width. */
export function fitToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  return width <= 0 ? '' : cutToWidth(text, width - 1) + '…';
}

/** `text`, or when it is wider than `width` columns, its end after a `…` (`…@gmail.com`), at that width. */
export function fitEndToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  return width <= 0 ? '' : '…' + fitting(clusters(text).reverse(), width - 1).reverse().join('');
}

/** `text` padded with spaces on the right to `width` columns. */
export function padEndTo(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/** `text` padded with spaces on the left to `width` columns. */
export function padStartTo(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - displayWidth(text))) + text;
}
