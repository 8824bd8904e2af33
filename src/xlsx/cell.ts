// A workbook's cell as the reader gives it and the writer takes it: its type, the text Excel shows, a number's
// value and format. A record read from a workbook carries its row's cells (input/records/record.ts), so that a
// workbook output writes each cell as it was read.

export type CellType = 'empty' | 'text' | 'number' | 'date' | 'boolean';

export interface TypedCell {
  readonly type: CellType;
  /** As Excel shows it ('' for an empty cell); what a number or date without a value is written as. */
  readonly text: string;
  /** A number's value, or a date's serial in the 1900 date system (what Excel stores). */
  readonly value?: number;
  /** The number format the text was shown in, when not General (a date without one is written as yyyy-mm-dd, with hh:mm:ss when it has a time). */
  readonly format?: string;
}
