// The test run StrykerJS uses (stryker.config.json): vitest.config.ts's files, each in modules of its own, or
// only the test files IDV_MUTATE_TESTS names (comma-separated globs: npm run mutate -- --tests ...), for a
// quick round on one module. IDV_MUTATE_TEST_TIMEOUT (ms): a shorter per-test time-out, for modules whose
// tests take milliseconds: a mutant that leaves a run waiting for ever then fails its test in seconds, not in
// the suite's 30 s.
import base, { ALL } from './vitest.config.js';

const only = process.env.IDV_MUTATE_TESTS?.split(',').filter(Boolean);
const timeout = Number(process.env.IDV_MUTATE_TEST_TIMEOUT) || undefined;
const test = base.test!;

export default {
  ...base,
  test: {
    ...test,
    isolate: true,
    include: only?.length ? only : ALL,
    ...(timeout ? { testTimeout: timeout, hookTimeout: timeout } : {}),
  },
};
