// How dist/cli.cjs loads the program (src/load-program.cts): dist/program.cjs with the V8 code cache that
// `npm run build` made beside it for the Node that built (scripts/bundle.mjs). A short run spends a third of
// its time compiling without it (npm run bench, start-up lines), so a cache that its own Node turns down is
// a bug. Each load is in a fresh process of this Node: V8 keeps what it compiled, and a second load of the
// same source in one process takes that, whatever the cache file holds.
import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';
import { buildTag, cacheName } from '../src/load-program.cjs';

const DIST = join(ROOT, 'dist');
const LOADER = join(DIST, 'load-program.cjs');
const EXPORTS = ['Secrets', 'Terminal', 'fail', 'removeTempFilesNow', 'runCli'];

/** Load the program from `dir` in a new process of this Node (then save its cache, if asked): whether V8 turned the cache down, what it exports. */
function load(dir: string, node = process.version, save = false): { rejected: boolean | null; exports: string[] } {
  const script = `const l = require(${JSON.stringify(LOADER)}).loadProgram(${JSON.stringify(dir)}, ${JSON.stringify(node)}, process.arch);
${save ? 'l.saveCache();' : ''}
process.stdout.write(JSON.stringify({ rejected: l.cacheRejected ?? null, exports: Object.keys(l.program).sort() }));`;
  // Without NODE_OPTIONS: V8 flags in it (--max-old-space-size…) make V8 turn any cache down.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env })) as { rejected: boolean | null; exports: string[] };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-load-'));
  await copyFile(join(DIST, 'program.cjs'), join(dir, 'program.cjs'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loading the program with a code cache', () => {
  it('npm run build made one cache, for its build of the program and the Node that built; when that is this Node, it takes it', async () => {
    const build = buildTag(await readFile(join(DIST, 'program.cjs'), 'utf8'));
    expect(build).toMatch(/^[0-9a-f]{16}$/);
    const made = (await readdir(DIST)).filter((f) => f.endsWith('.cache'));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(new RegExp(`^program-${build}-v\\d+\\.\\d+\\.\\d+-[a-z0-9]+\\.cache$`));
    // CI builds once and runs the suite on other Node versions too: for them, the build's cache is not this Node's.
    const mine = made[0] === cacheName(build!, process.version, process.arch);
    expect(load(DIST)).toEqual({ rejected: mine ? false : null, exports: EXPORTS });
  });

  it("a cache saved by this Node is taken by the next run; another Node's, or another build's, is not even read; none, or a damaged one, compiles as usual", async () => {
    const file = join(dir, 'program.cjs');
    const source = await readFile(file, 'utf8');
    const build = buildTag(source)!;
    expect(load(dir, process.version, true)).toEqual({ rejected: null, exports: EXPORTS }); // none yet: saved now
    expect(load(dir)).toEqual({ rejected: false, exports: EXPORTS });
    expect(load(dir, 'v0.0.1')).toEqual({ rejected: null, exports: EXPORTS });
    // Another build of the same length (V8 would take the cache: it checks only the length) does not read it.
    const other = source.replace(`idv-build=${build}`, `idv-build=${'0'.repeat(16)}`);
    expect(other.length).toBe(source.length);
    await writeFile(file, other);
    expect(load(dir)).toEqual({ rejected: null, exports: EXPORTS });
    await writeFile(file, source);
    await writeFile(join(dir, cacheName(build, process.version, process.arch)), Buffer.alloc(4096, 7));
    expect(load(dir)).toEqual({ rejected: true, exports: EXPORTS });
  });
});
