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
          // The Worker as wrangler.toml declares it (D1, the deliveries queue and its consumer,
          // the cron), with the simulated vendor and the receiver of the Node-side global setup.
          cloudflareTest(async ({ inject }) => ({
            main: './src/entry/worker.ts',
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              bindings: {
                TEST_MIGRATIONS: await readD1Migrations('drizzle'),
                STATUS_URL: inject('simUrl'),
                ADMIN_TOKEN: 'workers-test-admin-token-0123456789',
                SECRET_KEY: '4f1c9a7e2b8d6035c1e7a9f4b2d80c6e5a3f71d9c8b6e4a2f0d1c3b5a7e9f8d6',
                WEBHOOK_ALLOW_PRIVATE: 'true',
                POLL_TIMEOUT_MS: '5000',
                LOG_LEVEL: 'warn',
              },
              // A real queue nobody consumes: tests that count one invocation's work send their
              // wake-ups here, so the local consumer of the deliveries queue cannot join in.
              queueProducers: { PARKED: { queueName: 'statuswatch-test-parked' } },
              // A second D1 that no migration touches: a Worker deployed before its migrations.
              d1Databases: { EMPTY_DB: 'statuswatch-test-empty' },
            },
          })),
        ],
        test: {
          name: 'workers',
          include: ['test/workers/**/*.test.ts'],
          setupFiles: ['test/workers/apply-migrations.ts'],
          globalSetup: ['test/helpers/workers-global-setup.ts'],
          // sanitize-html is CommonJS that requires an ESM-only nanoid through postcss: bundled
          // first, as wrangler's esbuild does for a deploy, or workerd's loader cannot run it.
          deps: { optimizer: { ssr: { enabled: true, include: ['sanitize-html'] } } },
          // The files share the D1 database of wrangler.toml, and the contract suites empty it.
          fileParallelism: false,
          testTimeout: 30_000,
        },
      },
    ],
  },
}));
