import { defineConfig } from 'vitest/config';

/** Measurements that run real agents against the test control plane: `npx vitest run -c scripts/sizing/vitest.config.ts`. */
export default defineConfig({
  test: { include: ['scripts/sizing/**/*.test.ts'], testTimeout: 600_000, pool: 'forks' },
});
