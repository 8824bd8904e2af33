import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // TypeScript in .cts files too (src/shipped.cts, shared by the CommonJS entry and the ES modules)
  oxc: { include: /\.(m?ts|cts|[jt]sx)$/ },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two test files a core, four at least (vitest's default on a 2-core machine is one): the end-to-end
    // files spend most of their time waiting (quota windows, Retry-After, slow answers, the grace after a
    // signal), not computing, so one file's waits overlap another's work.
    maxWorkers: Math.max(4, availableParallelism() * 2),
  },
});
