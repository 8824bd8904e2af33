// A command's flags as one typed table (src/commands/flag-table.ts): each row declares its commander option and
// reads commander's parsed value into its field; --help lists the rows in order under their groups, a row left
// unlisted is not shown; a flag of a few names takes any case and refuses a slip with the closest.
import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { addFlags, given, group, onUnless, readFlags, unlisted, value, valueOr } from '../../src/commands/flag-table.js';

const TABLE = {
  ...group('Input flags:', {
    noHeader: given('--no-header', 'the first row is data'),
    column: value('--column <name|n>', 'the item column'),
  }),
  ...group('Output flags:', {
    format: value('-f, --format <format>', 'the output format', { choices: ['csv', 'json', 'ndjson'], what: 'format' }),
    quiet: given('-q, --quiet', 'no progress, no summary'),
  }),
  cache: onUnless('--no-cache', 'neither read nor write the cache'),
  batchSize: valueOr('--batch-size <n>', 'items per request', { fallback: 100, parse: (t: string) => Number(t) }),
  maxRowSize: unlisted(value('--max-row-size <size>', 'the most text a row may hold')),
};

/** The table's options from `argv`, through a command that declares them. */
function parse(argv: string[]) {
  const command = addFlags(new Command('emails').exitOverride().configureOutput({ writeErr: () => undefined }), TABLE);
  command.parse(argv, { from: 'user' });
  return readFlags(TABLE, command.opts());
}

describe('a flag table', () => {
  it('gives each field its value: switches false unless given, values undefined unless given, defaults, --no-cache', () => {
    expect(parse([])).toEqual({ noHeader: false, column: undefined, format: undefined, quiet: false, cache: true, batchSize: 100, maxRowSize: undefined });
    expect(parse(['--no-header', '--column', 'Email', '-f', 'json', '-q', '--no-cache', '--batch-size', '25', '--max-row-size', '64MiB'])).toEqual({
      noHeader: true,
      column: 'Email',
      format: 'json',
      quiet: true,
      cache: false,
      batchSize: 25,
      maxRowSize: '64MiB',
    });
  });

  it('a flag of a few names takes any case, and refuses a slip with the closest and every one', () => {
    expect(parse(['--format', 'NDJSON']).format).toBe('ndjson');
    expect(() => parse(['-f', 'jsn'])).toThrow(/--format "jsn" is no format; did you mean json\? \(csv, json, ndjson\)/);
  });

  it('--help lists the rows in order under their groups, the others under Options; an unlisted one not at all', () => {
    const command = addFlags(new Command('emails'), TABLE);
    const help = command.helpInformation();
    const at = (s: string) => help.indexOf(s);
    expect(at('Input flags:')).toBeLessThan(at('--no-header'));
    expect(at('--no-header')).toBeLessThan(at('--column'));
    expect(at('--column')).toBeLessThan(at('Output flags:'));
    expect(at('Output flags:')).toBeLessThan(at('-f, --format'));
    expect(help).toContain('(choices: "csv", "json", "ndjson")');
    expect(help).toMatch(/--batch-size <n>\s+items per request \(default: 100\)/);
    expect(help).not.toContain('--max-row-size');
  });
});
