// `npm run test:windows`: the Windows smoke test (test/windows/smoke.wine.ts), the built idv run by the official
// Windows build of Node under Wine. Apart from `npm test`: it needs wine, and a few minutes.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/windows/**/*.wine.ts'],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
