// The files shipped beside the program (src/shipped.cts): where --help and the sandbox's "Try:" line point, docs/cli.md
// and examples/sample.csv in the package (here, the project's own).
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { docsLocation, DOCS_MARK, sampleList, withDocs } from '../src/shipped.cjs';
import { ROOT } from './helpers.js';

describe('shipped files', () => {
  it("the docs are the package's docs/cli.md, and help text's mark is filled in with it, every time it appears", () => {
    expect(docsLocation()).toBe(join(ROOT, 'docs', 'cli.md'));
    expect(withDocs(`See ${DOCS_MARK}. More: ${DOCS_MARK}#input`)).toBe(`See ${join(ROOT, 'docs', 'cli.md')}. More: ${join(ROOT, 'docs', 'cli.md')}#input`);
    expect(withDocs('No mark here.')).toBe('No mark here.');
  });

  it("the sample list is the package's examples/sample.csv", () => {
    expect(sampleList()).toBe(join(ROOT, 'examples', 'sample.csv'));
  });
});
