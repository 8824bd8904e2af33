import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export const ALL = ['test/**/*.test.ts'];

export default defineConfig({
  // TypeScript in .cts files too (src/shipped.cts, shared by the CommonJS entry and the ES modules)
  oxc: { include: /\.(m?ts|cts|[jt]sx)$/ },
  test: {
    include: ALL,
    // Deadlines that only stop a hang: no test asserts a time, and a loaded machine may take a while.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two test files a core, four at least (vitest's default on a 2-core machine is one), eight at most (each
    // end-to-end file starts sandboxes and processes): those files spend most of their time waiting (quota
    // windows, Retry-After, slow answers, the grace after a signal), so one file's waits overlap another's work.
    maxWorkers: Math.min(8, Math.max(4, availableParallelism() * 2)),
    // A worker runs its files in one module graph (the modules' own state is lazy caches only; spies and fake
    // timers are restored after each test): importing every module anew for each file was most of the suite's
    // CPU time spent outside the tests. No test times anything, so no file needs to run alone.
    isolate: false,
  },
});
