// A record: one data row, non-blank line or recipient of a source, as the record rule gives it.

export interface InputRecord {
  /** The item cell (or line), untrimmed. */
  value: string;
  /** All fields of a CSV row; null for a plain list. */
  fields: string[] | null;
}
