// `make soak`: the long fault soak, kept out of `npm test` (test/**/*.test.ts) by its suffix.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/soak/**/*.soak.ts'],
    testTimeout: 30 * 60_000,
    // One soak at a time: they measure a busy process each.
    maxWorkers: 1,
    fileParallelism: false,
  },
});
