// The files shipped beside the program in its package (docs/, examples/), for the texts that point at
// them: the last line of --help and the sandbox's "Try:" line. A copy without them (a single executable)
// points at the home page instead. CommonJS, so that src/cli.cts can use it on its fast path.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package's folder (this file is dist/shipped.cjs). */
const PACKAGE = join(__dirname, '..');

/** Stands for the docs' location in help text rendered at build time; replaced when help is printed. */
export const DOCS_MARK = '@DOCS@';

/** Where the docs for users are: docs/cli.md beside the program, else the project's home page. */
export function docsLocation(): string {
  if (typeof IDV_EMBEDDED !== 'undefined') return IDV_EMBEDDED.homepage; // the single executable: no docs/ beside it
  const file = join(PACKAGE, 'docs', 'cli.md');
  if (existsSync(file)) return file;
  try {
    const { homepage } = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { homepage?: string };
    if (homepage) return homepage;
  } catch {
    /* no package.json beside the program */
  }
  return 'the README of idv';
}

/** Help text with the docs' location filled in. */
export function withDocs(text: string): string {
  return text.includes(DOCS_MARK) ? text.split(DOCS_MARK).join(docsLocation()) : text;
}

/** The small sample list shipped with the package (examples/sample.csv), if it is there. */
export function sampleList(): string | undefined {
  if (typeof IDV_EMBEDDED !== 'undefined') return undefined;
  const file = join(PACKAGE, 'examples', 'sample.csv');
  return existsSync(file) ? file : undefined;
}
