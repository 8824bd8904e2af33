// The test run StrykerJS uses (stryker.config.json): vitest.config.ts, or only the test files IDV_MUTATE_TESTS
// names (comma-separated globs: npm run mutate -- --tests ...), for a quick round on one module.
// IDV_MUTATE_TEST_TIMEOUT (ms): a shorter per-test time-out, for modules whose tests take milliseconds: a
// mutant that leaves a run waiting for ever then fails its test in seconds, not in the suite's 30 s.
import base from './vitest.config.js';

const only = process.env.IDV_MUTATE_TESTS?.split(',').filter(Boolean);
const timeout = Number(process.env.IDV_MUTATE_TEST_TIMEOUT) || undefined;

export default {
  ...base,
  test: {
    ...base.test,
    ...(only?.length ? { include: only } : {}),
    ...(timeout ? { testTimeout: timeout, hookTimeout: timeout } : {}),
  },
};
