// npm run test:slurm (test/slurm/run.sh starts the cluster first): kept out of `npm test`
// (test/**/*.test.ts) by its suffix. One scenario, in order: it submits real jobs.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/slurm/**/*.slurm.ts'],
    testTimeout: 15 * 60_000,
    hookTimeout: 5 * 60_000,
    maxWorkers: 1,
    fileParallelism: false,
    sequence: { concurrent: false },
  },
});
