import { resolve } from 'node:path';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';
import { readPublicFolder } from './src/adapters/public-folder.ts';
import { HARNESS_D1_BINDINGS } from './test/workers/harness/d1-bindings.ts';

/** The test/http files that stay on Node, each for a Node-only reason. */
const NODE_ONLY_HTTP_TESTS = [
  'test/http/app-install-pages.test.ts', // the simulated Web API and the app's settings come through the Node harness (buildAppDeps)
  'test/http/admin-app-subscription-form.test.ts', // the simulated Web API runs in Node beside the app
  'test/http/app-installations.test.ts', // the same
  'test/http/admin-app-names.test.ts', // the same
  'test/http/app-slash-command.test.ts', // the same: the signing secret is set through the Node harness
  'test/http/blind-faces.test.ts', // brings a vendor up on the very port that was dead: the workers fixture factory starts vendors on fresh ports
  'test/http/outbox-signal.test.ts', // the Node delivery scheduler (timers woken by the outbox signal) is the subject
  'test/http/response-cache.test.ts', // measures the cache's heap with node:v8 and node:vm
  'test/http/search-bounds.test.ts', // seeds 10,000 incidents straight into the SQLite file (bench/seed.ts)
  'test/http/store-failures.test.ts', // a second better-sqlite3 connection holds the write lock: SQLITE_BUSY is Node's failure
];

/** The Node test harness modules, and their workerd stand-ins (test/workers/harness), for test/http files run in the workers project. */
const WORKERS_HARNESS = ['app-service', 'app-ports', 'service', 'webhook-receiver', 'smtp', 'app-channel', 'statuspage-pages']
  .map((name) => ({
    find: new RegExp(`^\\.\\./helpers/${name}\\.ts$`),
    replacement: resolve(`test/workers/harness/${name}.ts`),
  }))
  .concat({
    // The simulated SCIM directory: one on the Node side, shared and reset per test.
    find: /^\.\.\/sim\/scim-helpers\.ts$/,
    replacement: resolve('test/workers/harness/scim-helpers.ts'),
  });

/** public/ as the Node form serves it, for the app inside workerd (test/workers/harness/public-assets.ts). */
const PUBLIC_ASSETS = [...readPublicFolder().values()].map((a) => ({
  path: a.path,
  base64: Buffer.from(a.body).toString('base64'),
  contentType: a.contentType,
  etag: a.etag,
}));

/**
 * The long rounds: each kills a runtime (or rotates tokens under fire) over and over while a
 * story plays, so its worth grows with its length. `npm run test:crash` runs them, CI with
 * CRASH_ROUNDS=20; `npm test` leaves them out so it stays quick enough to run before each commit.
 */
const CRASH_TESTS = [
  'test/integration/durability.test.ts',
  'test/integration/delivery-crash.test.ts',
  'test/integration/group-mail-crash.test.ts',
  'test/integration/app-messages-crash.test.ts',
  'test/integration/chat-tools-crash.test.ts',
  'test/integration/app-monitor-crash.test.ts',
  'test/integration/app-rotation-under-fire.test.ts',
  'test/integration/workers-crash.test.ts',
  'test/integration/oncall-crash.test.ts',
];

/**
 * workerd reports each test file's runner socket closing, a normal end, as "WebSocket peer
 * disconnected"; the workers pool drops its other notices of that kind but not this one, so a run
 * printed it once per file. Only that notice is dropped, on both streams of this process.
 */
const WORKERD_CLOSE_NOTICE = 'disconnected: WebSocket peer disconnected';
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) =>
    typeof chunk === 'string' && chunk.includes(WORKERD_CLOSE_NOTICE) && chunk.trim().split('\n').length === 1
      ? true
      : write(chunk, ...rest)) as typeof stream.write;
}

/** Integration tests start real servers and child processes; two cores on CI. */
const NODE_TIMEOUTS = { testTimeout: 30_000, hookTimeout: 30_000 };

/**
 * Three projects. `npm test` runs two, side by side (test/run-projects.mjs): the Node suite, and the suites that run inside workerd (the
 * Workers runtime, from npm: nothing to install) against D1, Miniflare's local implementation;
 * the route tests of test/http run in both. `npm run test:crash` runs the third, the crash rounds.
 */
export default defineConfig(async () => ({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/browser/**', 'test/workers/**', 'node_modules/**', ...CRASH_TESTS],
          // Three files at once on two cores: most of the suite waits on loopback HTTP and child
          // processes, so vitest's default of one file per core but one leaves a core idle (6m50s
          // against 4m10s for `npm test`, measured). The timing-heavy crash rounds run on their own.
          maxWorkers: 3,
          // Each fork runs file after file (`isolate: false`), each file with every module of ours
          // evaluated afresh (test/helpers/file-scope.ts): a fork started per file cost 664 CPU-s
          // and 5 min 52 s for this project, forks kept 322 CPU-s and 3 min 2 s (measured, the
          // project alone on 2 cores). test/file-scope.test.ts checks the files still do not
          // share our modules.
          isolate: false,
          setupFiles: ['test/helpers/file-scope.ts'],
          ...NODE_TIMEOUTS,
        },
      },
      { test: { name: 'crash', include: CRASH_TESTS, ...NODE_TIMEOUTS } },
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
                PUBLIC_ASSETS,
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
              d1Databases: {
                // A second D1 that no migration touches: a Worker deployed before its migrations.
                EMPTY_DB: 'statuswatch-test-empty',
                // The route tests' apps, one database each (test/workers/harness/d1-slots.ts).
                ...Object.fromEntries(HARNESS_D1_BINDINGS.map((name) => [name, `statuswatch-test-${name.toLowerCase()}`])),
              },
            },
          })),
        ],
        resolve: { alias: WORKERS_HARNESS },
        test: {
          name: 'workers',
          include: ['test/workers/**/*.test.ts', 'test/http/**/*.test.ts'],
          exclude: NODE_ONLY_HTTP_TESTS,
          setupFiles: ['test/workers/apply-migrations.ts', 'test/helpers/file-scope.ts'],
          globalSetup: ['test/helpers/workers-global-setup.ts', 'test/helpers/fixture-factory-setup.ts'],
          // sanitize-html is CommonJS that requires an ESM-only nanoid through postcss: bundled
          // first, as wrangler's esbuild does for a deploy, or workerd's loader cannot run it.
          deps: { optimizer: { ssr: { enabled: true, include: ['sanitize-html'] } } },
          // The files share the simulated vendor the Worker's STATUS_URL names and the SCIM directory,
          // which tests reset, so they run one at a time. All in one Miniflare (`isolate: false`):
          // one per file cost 183 CPU-s and 4 min 19 s, one for all 57 CPU-s and 1 min 46 s (measured).
          // Each file still gets every module afresh (test/helpers/file-scope.ts), so no Worker or
          // harness state passes between files; the D1 databases do, and are emptied before use.
          // `npm test` runs this project beside the node project, in a process of its own
          // (test/run-projects.mjs).
          fileParallelism: false,
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
}));
