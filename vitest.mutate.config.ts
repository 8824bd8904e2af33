// The test run StrykerJS uses (stryker.config.json): vitest.config.ts's files, each in modules of its own, or
// only the test files IDV_MUTATE_TESTS names (comma-separated globs: npm run mutate -- --tests ...), for a
// quick round on one module.
import base, { ALL } from './vitest.config.js';

const only = process.env.IDV_MUTATE_TESTS?.split(',').filter(Boolean);
const { projects: _, ...test } = base.test!;

export default { ...base, test: { ...test, isolate: true, include: only?.length ? only : ALL } };
