import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

/**
 * Two projects, one `npm test`: the Node suite, and the suites that run inside workerd (the
 * Workers runtime, from npm: nothing to install) against D1, Miniflare's local implementation.
 */
export default defineConfig(async () => ({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/browser/**', 'test/workers/**', 'node_modules/**'],
          // Integration tests start real servers and child processes; two cores on CI.
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        plugins: [
          cloudflareTest({
            miniflare: {
              compatibilityDate: '2026-04-26',
              compatibilityFlags: ['nodejs_compat'],
              d1Databases: ['DB'],
              bindings: { TEST_MIGRATIONS: await readD1Migrations('drizzle') },
            },
          }),
        ],
        test: {
          name: 'workers',
          include: ['test/workers/**/*.test.ts'],
          setupFiles: ['test/workers/apply-migrations.ts'],
          // sanitize-html is CommonJS whose postcss requires nanoid's ESM build: vite's module runner
          // hands workerd `undefined` for it. Pre-bundled with esbuild, as wrangler bundles it, it loads.
          deps: { optimizer: { ssr: { enabled: true, include: ['sanitize-html'] } } },
          testTimeout: 30_000,
        },
      },
    ],
  },
}));
