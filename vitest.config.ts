import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    // Hooks start real servers, agents and browsers: on a loaded 2-core machine that can take a minute (a wait,
    // not a goal; speed lives in benchmarks).
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
