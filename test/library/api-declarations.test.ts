// The library's declarations, as the package ships them (dist/*.d.ts, emitted by the build from src/index.ts:
// scripts/api-types.mjs), held against the committed copy test/library/api.d.ts.snap, so that no change to the public API
// goes unnoticed: a change to them fails here until the copy is updated on purpose, with
//   npx vitest run test/library/api-declarations.test.ts -u
// and docs/api.md says what changed (the declarations are public under semver).
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../helpers.js';

const DIST = join(ROOT, 'dist');

function declarations(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return path === join(DIST, 'tools') ? [] : declarations(path);
    return e.name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('the public declarations', () => {
  it('are the emitted index.d.ts, errors.d.ts and library/types.d.ts, exactly as test/library/api.d.ts.snap holds them', async () => {
    const files = declarations(DIST)
      .map((f) => relative(ROOT, f).split('\\').join('/'))
      .sort();
    expect(files).toEqual(['dist/core/errors.d.ts', 'dist/index.d.ts', 'dist/library/types.d.ts']);
    const text = files.map((f) => `// ${f}\n${readFileSync(join(ROOT, f), 'utf8')}`).join('\n');
    await expect(text).toMatchFileSnapshot(join(ROOT, 'test', 'library', 'api.d.ts.snap'));
  });
});
