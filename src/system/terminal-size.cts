// The widths idv lays text out for. CommonJS, so that src/cli.cts's fast path (help rendered at build time for
// PERSON_WIDTH columns) asks the same as the Terminal (terminal.ts) does.

/** The widest line idv prints for a person where there is no terminal to ask (a file, a pipe); help is rendered at build time for it. */
export const PERSON_WIDTH = 80;

/**
 * Narrower than this, a terminal is not written for: nothing readable fits, and the spinner's line would wrap on
 * every frame (at 1–2 columns, kilobytes of clears and ora's "(content truncated…)"). Lines are as elsewhere.
 */
export const MIN_COLUMNS = 20;

/** The columns a terminal stream says it has, when idv can write for them: undefined for none (a 0×0 pty) or fewer than MIN_COLUMNS. */
export function usableColumns(columns: number | undefined): number | undefined {
  return typeof columns === 'number' && columns >= MIN_COLUMNS ? columns : undefined;
}
