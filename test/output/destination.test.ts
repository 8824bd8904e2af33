// Where an output the user named goes (src/output/destination.ts): standard output for none, `-` and the paths
// that name descriptor 1; else the file, resolved once against the working directory.
import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { destinationOf } from '../../src/output/destination.js';
import { onlyOn } from '../platforms.js';

describe('destinationOf', () => {
  onlyOn('devFiles').it('none, "-", and the paths that name descriptor 1 are standard output; not other descriptors, nor paths that merely end like them', () => {
    const rows: Array<[string | undefined, boolean]> = [
      [undefined, true],
      ['-', true],
      ['/dev/stdout', true],
      ['/dev/fd/1', true],
      ['/proc/self/fd/1', true],
      ['/dev/stderr', false],
      ['/dev/fd/10', false],
      ['/proc/self/fd/12', false],
      ['out.csv', false],
      ['dev/stdout', false], // relative: a file in ./dev
      ['/dev/stdout.csv', false],
    ];
    expect(rows.map(([given]) => [given, destinationOf(given, '/home/u').path === null])).toEqual(rows);
  });

  it('keeps what was given for messages, and the file resolved against the working directory', () => {
    expect(destinationOf('out/clean.csv', '/home/u')).toEqual({ given: 'out/clean.csv', path: resolve('/home/u', 'out/clean.csv') });
    expect(destinationOf('-', '/home/u')).toEqual({ given: '-', path: null });
    expect(destinationOf(undefined, '/home/u')).toEqual({ given: null, path: null });
  });

  it('a relative path where the working directory is gone: one line saying so (exit 2); an absolute one still works', () => {
    expect(() => destinationOf('out.csv', null)).toThrow(expect.objectContaining({ kind: 'usage', message: expect.stringContaining('Cannot find out.csv: the working directory no longer exists') }));
    expect(destinationOf(resolve('/tmp/out.csv'), null).path).toBe(resolve('/tmp/out.csv'));
  });
});
