// Part of `npm run build`: the library's declarations. tsc (tsconfig.api.json) declares every module src/index.ts
// reaches into dist/tools/types/ (not shipped); the public ones, those index.d.ts reaches through its own
// declarations, are copied into dist/ beside the modules they describe: index.d.ts, errors.d.ts,
// library/types.d.ts. What else errors.ts exports is @internal and left out (stripInternal).
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TYPES = join(ROOT, 'dist', 'tools', 'types');
const SPECIFIER = /(?:from|import\()\s*'(\.{1,2}\/[^']+)\.js'/g;

const seen = new Set();
const todo = ['index.d.ts'];
while (todo.length) {
  const file = todo.pop();
  if (seen.has(file)) continue;
  seen.add(file);
  for (const [, spec] of readFileSync(join(TYPES, file), 'utf8').matchAll(SPECIFIER)) todo.push(posix.join(posix.dirname(file), `${spec}.d.ts`));
}
for (const file of seen) {
  mkdirSync(dirname(join(ROOT, 'dist', file)), { recursive: true });
  copyFileSync(join(TYPES, file), join(ROOT, 'dist', file));
}
