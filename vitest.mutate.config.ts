// The test run StrykerJS uses (stryker.config.json): vitest.config.ts, or only the test files IDV_MUTATE_TESTS
// names (comma-separated globs: npm run mutate -- --tests ...), for a quick round on one module.
import base from './vitest.config.js';

const only = process.env.IDV_MUTATE_TESTS?.split(',').filter(Boolean);

export default only?.length ? { ...base, test: { ...base.test, include: only } } : base;
