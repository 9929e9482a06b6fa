import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // Golden and runner tests spawn the built bins; two cores do not gain from more forks.
    maxWorkers: 2,
  },
});
