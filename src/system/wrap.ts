// Text for a person, fitted to a terminal's width (in display columns): words filled into lines, never broken
// (a word longer than the line stands alone). Help, the summary, notes and warnings use it.
import type { Writable } from 'node:stream';
import { displayWidth } from './display-width.js';

/** The widest line idv prints for a person where there is no terminal to ask (a file, a pipe). */
export const PERSON_WIDTH = 80;

/** Narrower than this, a terminal is not written for (nothing readable fits): lines are as elsewhere. */
export const MIN_COLUMNS = 20;

/**
 * A terminal's width in columns, or undefined: not a terminal, one that does not say (a 0×0 pty), or one
 * narrower than MIN_COLUMNS.
 */
export function columnsOf(stream: Writable, isTTY: boolean): number | undefined {
  const columns = (stream as Writable & { columns?: number }).columns;
  return isTTY && typeof columns === 'number' && columns >= MIN_COLUMNS ? columns : undefined;
}

/** Words filled into lines of at most `width`. */
export function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && displayWidth(line) + 1 + displayWidth(word) > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join('\n');
}

/** One message as lines of at most `width`, the lines after the first indented by two spaces. */
export function hanging(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  const [first, ...rest] = wrap(text, width).split('\n');
  return [first, ...(rest.length ? wrap(rest.join(' '), width - 2).split('\n') : [])].join('\n  ');
}
