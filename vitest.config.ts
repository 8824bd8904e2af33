import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/** Files that time a live stream closely: each in modules of its own, so no other file's heap or leftovers delay it. */
export const TIMED = ['test/e2e/streams.test.ts', 'test/e2e/streams-through-pipes.test.ts', 'test/input/live.test.ts'];
export const ALL = ['test/**/*.test.ts'];

export default defineConfig({
  // TypeScript in .cts files too (src/shipped.cts, shared by the CommonJS entry and the ES modules)
  oxc: { include: /\.(m?ts|cts|[jt]sx)$/ },
  test: {
    // No include here: a project's include adds to the root's.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two test files a core, four at least (vitest's default on a 2-core machine is one), eight at most (each
    // end-to-end file starts sandboxes and processes): those files spend most of their time waiting (quota
    // windows, Retry-After, slow answers, the grace after a signal), so one file's waits overlap another's work.
    maxWorkers: Math.min(8, Math.max(4, availableParallelism() * 2)),
    projects: [
      // Named to sort before 'shared': vitest queues projects by name, so these files, the longest, start first
      // beside the others instead of running last, alone, as a tail of the suite.
      { extends: true, test: { name: 'live', include: TIMED, isolate: true } },
      // A worker runs these files in one module graph (the modules' own state is lazy caches only; spies and
      // fake timers are restored after each test): importing every module anew for each file was most of the
      // suite's CPU time spent outside the tests.
      { extends: true, test: { name: 'shared', include: ALL, exclude: [...configDefaults.exclude, ...TIMED], isolate: false } },
    ],
  },
});
