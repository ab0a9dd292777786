/**
 * The service's Hono app over a real SQLite file, a real poller fetching the simulated vendor over
 * HTTP, and real webhook and SMTP senders, exercised through `app.request()`: no port, no server.
 * Same settings (config.ts, from env-style strings) and the same shape as startTestService, whose
 * real Node entry is kept for the end-to-end tests about the Node server itself.
 */
import { join } from 'node:path';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { openSecretBox } from '../../src/adapters/secret-key-file.ts';
import { createNodeMailer } from '../../src/entry/node-mailer.ts';
import { parseConfig, type Config } from '../../src/config.ts';
import type { Clock, Store } from '../../src/core/ports.ts';
import { createApp } from '../../src/http/app.ts';
import { buildAppDeps } from './app-deps.ts';
import { nodeAppPorts } from './node-app-ports.ts';
import { ADMIN_TOKEN } from './service.ts';
import { HARNESS_SETTINGS } from './harness-settings.ts';
import { openTempArchive, tempDir } from './temp-archive.ts';

export { ADMIN_TOKEN };

/** The origin requests are addressed to by default: what a browser would send as Host and Origin. */
const DEFAULT_ORIGIN = 'http://statuswatch.localhost';

export type TestApp = {
  /** The origin to build request URLs from, as `service.url` was. */
  url: string;
  dir: string;
  config: Config;
  logs: string[];
  /** The app's store, for what a test checks through a port rather than over HTTP. */
  store: Store;
  /** The routes the app registered (Hono's own list), to check the OpenAPI document against. */
  routes: { method: string; path: string }[];
  /** A request to the app; `url` is absolute (`service.url + path`). */
  fetch(url: string, init?: RequestInit): Promise<Response>;
  get(path: string): Promise<{ status: number; body: any }>;
  poll(): Promise<any>;
  /** Sends what the outbox holds that is due, and resolves when that round is done. */
  deliverNow(): Promise<void>;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
};

export async function startTestApp(
  statusUrl: string,
  options: { dir?: string; env?: Record<string, string>; clock?: Clock; origin?: string } = {},
): Promise<TestApp> {
  const origin = options.origin ?? DEFAULT_ORIGIN;
  const dir = options.dir ?? tempDir();
  const config = parseConfig({
    DATABASE_PATH: join(dir, 'archive.db'),
    STATUS_URL: statusUrl,
    POLL_TIMEOUT_MS: '2000',
    ADMIN_TOKEN,
    LOG_LEVEL: 'debug',
    ...HARNESS_SETTINGS,
    ...options.env,
  });
  const clock = options.clock ?? { now: () => Date.now() };
  const logs: string[] = [];
  const logger = createConsoleLogger({ level: 'debug', format: 'json', write: (line) => logs.push(line) });
  const archive = openTempArchive(dir);
  const ports = await nodeAppPorts(archive.connection, logger, {
    clock,
    allowPrivateWebhooks: config.WEBHOOK_ALLOW_PRIVATE,
    // The key file next to the archive, as the entry keeps it: a restart on the same dir opens the same secrets.
    secrets: await openSecretBox(config.SECRET_KEY, config.DATABASE_PATH, logger),
    withAssets: true,
  });
  const mailer = createNodeMailer(config);
  const feed = createFetchFeedClient({
    baseUrl: config.STATUS_URL,
    timeoutMs: config.POLL_TIMEOUT_MS,
    maxBytes: config.FEED_MAX_BYTES,
    userAgent: 'statuswatch-test',
    clock,
  });
  const deps = await buildAppDeps({ ...ports, feed, mailer }, { config });
  const app = createApp(deps);
  const request = async (url: string, init?: RequestInit) => app.request(url, init);
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await request(origin + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  return {
    url: origin,
    dir,
    config,
    logs,
    store: deps.store,
    routes: app.routes.map((r) => ({ method: r.method, path: r.path })),
    fetch: request,
    async get(path) {
      const res = await request(origin + path);
      return { status: res.status, body: await res.json() };
    },
    poll: async () => (await admin('POST', '/api/admin/poll')).body,
    async deliverNow() {
      await deps.deliverer.deliverDue();
    },
    admin,
    async close() {
      await ports.webhooks.close();
      mailer?.close();
      archive.close();
    },
  };
}
