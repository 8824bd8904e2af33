// How dist/cli.cjs loads the program (src/load-program.cts): dist/program.cjs with the V8 code cache that
// `npm run build` made beside it (scripts/bundle.mjs). A short run spends a third of its time compiling
// without it (npm run bench, start-up lines), so a cache that this Node turns down is a bug of the build.
// Each load is in a fresh process: V8 keeps what it compiled, and a second load of the same source in one
// process takes that, whatever the cache file holds.
import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

/** Load the program from `dir` in a new process of this Node: whether V8 turned its cache down, and what it exports. */
function load(dir: string): { rejected: boolean | null; exports: string[] } {
  const script = `const l = require(${JSON.stringify(join(ROOT, 'dist', 'load-program.cjs'))}).loadProgram(${JSON.stringify(dir)});
process.stdout.write(JSON.stringify({ rejected: l.cacheRejected ?? null, exports: Object.keys(l.program).sort() }));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { rejected: boolean | null; exports: string[] };
}

const EXPORTS = ['Secrets', 'fail', 'removeTempFilesNow', 'runCli'];

describe('loading the program', () => {
  it('the code cache the build made is the one this Node takes: the program compiles from it', () => {
    expect(load(join(ROOT, 'dist'))).toEqual({ rejected: false, exports: EXPORTS });
  });

  it('a cache this Node cannot use (another version, damaged) is turned down and the program compiled as usual; none at all too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idv-load-'));
    try {
      await copyFile(join(ROOT, 'dist', 'program.cjs'), join(dir, 'program.cjs'));
      expect(load(dir)).toEqual({ rejected: null, exports: EXPORTS });
      await writeFile(join(dir, 'program.cache'), Buffer.alloc(4096, 7));
      expect(load(dir)).toEqual({ rejected: true, exports: EXPORTS });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
