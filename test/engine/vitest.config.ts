// The engine tier (npm run test:engine): the real CLI against a real llama-server serving the tiny
// model of test/fixtures/models. Not part of `npm test`, which stays hermetic; .ci/run runs both.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/engine/**/*.engine.ts'],
    globalSetup: ['test/engine/setup.ts'],
    // One server per file, and the machine's cores go to it: files one after the other.
    fileParallelism: false,
    maxWorkers: 1,
    // Generous: on two shared cores one attempt of the tiny model takes 1 to 20 s.
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
