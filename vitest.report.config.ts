import { defineConfig } from 'vitest/config';

// The browser tier of rca report (npm run test:report): a real headless Chromium, never in npm test.
export default defineConfig({
  test: {
    include: ['test/report/**/*.browser.ts'],
    testTimeout: 60_000,
  },
});
