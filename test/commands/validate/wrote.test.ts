// The closing lines naming what -o and --split wrote, and the warning for an input without records.
import { describe, expect, it } from 'vitest';
import { emptyInputLine, wroteLines, type Written } from '../../../src/commands/validate/wrote.js';

const STATUSES = ['ok', 'alias', 'disposable', 'fake', 'quota_exceeded', 'invalid', 'error'];
const w = (more: Partial<Written>): Written => ({
  splitExtension: '.csv',
  statuses: STATUSES,
  counts: new Map([['ok', 1_200], ['disposable', 34]]),
  ...more,
});

describe('wroteLines', () => {
  it.each<[string, Partial<Written>, string[]]>([
    ['nothing given', {}, []],
    ['-o', { output: 'clean.csv' }, ['Wrote 1,234 records to clean.csv.']],
    ['one record', { output: 'one.json', counts: new Map([['ok', 1]]) }, ['Wrote 1 record to one.json.']],
    ['--exclude', { output: 'clean.csv', exclude: ['disposable'] }, ['Wrote 1,200 records to clean.csv; --exclude left out 34.']],
    ['--only and --exclude', { output: 'x.csv', only: ['ok', 'disposable'], exclude: ['disposable'] }, ['Wrote 1,200 records to x.csv; --only and --exclude left out 34.']],
    ['--only that left nothing out', { output: 'x.csv', only: ['ok', 'disposable'] }, ['Wrote 1,234 records to x.csv.']],
    ['--split', { split: 'split' }, ['Wrote 7 files to split/ (ok.csv 1,200, disposable.csv 34, 5 without records).']],
    ['--split, a status the service added', { split: 'out/', counts: new Map([['ok', 2], ['risky', 1]]) }, ['Wrote 8 files to out/ (ok.csv 2, risky.csv 1, 6 without records).']],
    ['--split of nothing', { split: 'd', counts: new Map() }, ['Wrote 7 files to d/ (all without records).']],
    ['both, -o first', { output: 'all.csv', split: 'd' }, ['Wrote 1,234 records to all.csv.', 'Wrote 7 files to d/ (ok.csv 1,200, disposable.csv 34, 5 without records).']],
  ])('%s', (_name, more, lines) => {
    expect(wroteLines(w(more))).toEqual(lines);
  });
});

describe('emptyInputLine', () => {
  it('names the input, and says when there is nothing to validate at all', () => {
    expect(emptyInputLine('list.csv', true)).toBe('idv: warning: list.csv holds no records; nothing to validate.');
    expect(emptyInputLine('standard input', false)).toBe('idv: warning: standard input holds no records.');
  });
});
