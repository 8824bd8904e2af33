// A workbook row's cells riding on its texts (src/input/layout/typed-row.ts): the texts are the record's fields as ever,
// and the cells (type, value, format) go with them to a workbook output, without a field of their own.
import { describe, expect, it } from 'vitest';
import { cellsOf, withCells, type TypedCell } from '../../../src/input/layout/typed-row.js';

describe('typed rows', () => {
  const cells: TypedCell[] = [
    { type: 'text', text: 'Ada' },
    { type: 'number', text: '02134', value: 2134, format: '00000' },
    { type: 'date', text: '2023-03-15', value: 45000, format: 'yyyy-mm-dd' },
  ];

  it('the texts are the same array, its cells found again from it', () => {
    const texts = ['Ada', '02134', '2023-03-15'];
    const row = withCells(texts, cells);
    expect(row).toBe(texts);
    expect([...row]).toEqual(['Ada', '02134', '2023-03-15']);
    expect(JSON.stringify(row)).toBe('["Ada","02134","2023-03-15"]');
    expect(cellsOf(row)).toBe(cells);
  });

  it('fields that carry none (a CSV row, no fields at all, a copy of a typed row) give none', () => {
    expect(cellsOf(['a', 'b'])).toBeUndefined();
    expect(cellsOf(null)).toBeUndefined();
    expect(cellsOf([...withCells(['Ada', '02134', '2023-03-15'], cells)])).toBeUndefined();
  });
});
