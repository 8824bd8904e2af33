// Text for a person, fitted to a terminal's width (in display columns): words filled into lines, never broken
// (a word longer than the line stands alone). Help, the summary, notes and warnings use it.
import { displayWidth } from './display-width.js';

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
