// How notes name lines (src/input/layout/notes.ts): runs of lines, the first eight shown, the rest counted.
import { describe, expect, it } from 'vitest';
import { LineRuns, lineList } from '../../../src/input/layout/notes.js';

describe('LineRuns', () => {
  it('names lines as runs; past eight runs, says how many more lines', () => {
    expect(lineList([3])).toBe('line 3');
    expect(lineList([1, 2])).toBe('lines 1–2');
    expect(lineList([1, 4, 7, 8, 9])).toBe('lines 1, 4, 7–9');
    expect(lineList([1, 3, 5, 7, 9, 11, 13, 15, 16, 17, 19, 20, 1001])).toBe('lines 1, 3, 5, 7, 9, 11, 13, 15–17 …and 3 more');
    expect(lineList([1200, 1201])).toBe('lines 1,200–1,201');
  });
  it('a line given again, or before the last, is passed over', () => {
    expect(lineList([2, 2, 1, 3])).toBe('lines 2–3');
  });
  it('a million lines: the count is exact, the text short', () => {
    const runs = new LineRuns();
    for (let i = 1; i <= 1_000_000; i++) runs.add(i * 2);
    expect(runs.count).toBe(1_000_000);
    expect(String(runs)).toBe('lines 2, 4, 6, 8, 10, 12, 14, 16 …and 999,992 more');
  });
});
