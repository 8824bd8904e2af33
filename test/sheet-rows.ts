// A workbook's sheet read back whole through idv's own reader: for tests that check what was written.
import { openWorkbook, type Row } from '../src/xlsx/reader.js';

/** Every row of the sheet `choice` names (the first when none), as idv reads it. */
export async function sheetRows(path: string, choice?: string): Promise<Row[]> {
  const wb = await openWorkbook(path);
  try {
    const rows: Row[] = [];
    for await (const block of wb.rows(wb.sheet(choice))) rows.push(...block);
    return rows;
  } finally {
    await wb.close();
  }
}
