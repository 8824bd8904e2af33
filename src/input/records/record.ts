// A record: one data row, non-blank line or recipient of a source, as the record rule gives it.
import type { TypedCell } from '../../xlsx/cell.js';

export interface InputRecord {
  /** The item cell (or line), untrimmed. */
  value: string;
  /** All fields of a CSV row; null for a plain list. */
  fields: string[] | null;
  /** A workbook's row as read, cell by cell (fields[i] is cells[i].text), when a workbook output writes them. */
  cells?: readonly TypedCell[];
}
