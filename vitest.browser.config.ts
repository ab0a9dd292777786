/** The browser tests (`npm run test:browser`): real Chromium, Debian's package, driven by playwright-core. */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    // Each file starts a browser and real servers; one file at a time keeps CI's two cores calm.
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 90_000,
  },
});
