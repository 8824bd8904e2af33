// A workbook row's cells as read (type, value, number format) ride on the row's texts, the record's `fields`,
// which the plan and the ordered writer pass on as they are: a workbook output can then write each cell with
// its type (number, date, text) without every record of every run carrying a field for it.

/** A cell as the workbook reader gives it (xlsx/reader.ts's Cell; the workbook writer's WriteCell takes it as is). */
export interface TypedCell {
  readonly type: 'empty' | 'text' | 'number' | 'date' | 'boolean';
  readonly text: string;
  readonly value?: number;
  readonly format?: string;
}

type Typed = string[] & { cells?: readonly TypedCell[] };

/** `texts`, carrying `cells` (texts[i] is cells[i].text). */
export function withCells(texts: string[], cells: readonly TypedCell[]): string[] {
  (texts as Typed).cells = cells;
  return texts;
}

/** The cells a row of fields carries, if it came from a workbook read with them. */
export function cellsOf(fields: readonly string[] | null): readonly TypedCell[] | undefined {
  return fields === null ? undefined : (fields as Typed).cells;
}
