import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/browser/**', 'node_modules/**'],
    // Integration tests start real servers and child processes; two cores on CI.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
