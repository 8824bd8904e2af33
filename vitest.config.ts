import { defineConfig } from 'vitest/config';

export default defineConfig({
  // TypeScript in .cts files too (src/shipped.cts, shared by the CommonJS entry and the ES modules)
  oxc: { include: /\.(m?ts|cts|[jt]sx)$/ },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
