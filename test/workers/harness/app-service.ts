/**
 * The Workers pool's stand-in for test/helpers/app-service.ts: the same `startTestApp` API and
 * the same app (`buildAppDeps`, `createApp(deps).request()`), built from the Workers form's parts
 * inside workerd: the store over D1, the fetch webhook sender and its DNS-free URL rules, the
 * Postmark mailer, a Web Crypto secret box, and the same sanitiser.
 */
import { createConsoleLogger } from '../../../src/adapters/console-logger.ts';
import { createFetchFeedClient } from '../../../src/adapters/fetch-feed-client.ts';
import { createMailApiMailerFromConfig, createPostmarkMailer } from '../../../src/adapters/postmark-mailer.ts';
import { parseConfig, type Config } from '../../../src/config.ts';
import type { Clock, Mailer, Store } from '../../../src/core/ports.ts';
import { createApp } from '../../../src/http/app.ts';
import { buildAppDeps } from '../../helpers/app-deps.ts';
import { flushCatchers, pullCatchers } from './fixture-client.ts';
import { openWorkersPorts } from './app-ports.ts';
import { ADMIN_TOKEN } from './service.ts';
import { HARNESS_SETTINGS } from '../../helpers/harness-settings.ts';
import { mailApiFor } from './smtp.ts';

export { ADMIN_TOKEN };

/** The origin requests are addressed to by default: what a browser would send as Host and Origin. */
const DEFAULT_ORIGIN = 'http://statuswatch.localhost';

export type TestApp = {
  /** The origin to build request URLs from. */
  url: string;
  /** Names the archive (a D1 database of the harness): pass it back to start the app again on it. */
  dir: string;
  config: Config;
  logs: string[];
  /** The app's store, for what a test checks through a port rather than over HTTP. */
  store: Store;
  /** The routes the app registered (Hono's own list), to check the OpenAPI document against. */
  routes: { method: string; path: string }[];
  fetch(url: string, init?: RequestInit): Promise<Response>;
  get(path: string): Promise<{ status: number; body: any }>;
  poll(): Promise<any>;
  /** Sends what the outbox holds that is due, and resolves when that round is done. */
  deliverNow(): Promise<void>;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
};

/** SMTP_URL cannot work on Workers: a test that sets it to a catcher from startSmtp() mails through that catcher's Postmark stand-in. */
function workersMailer(config: Config): Mailer | null {
  if (!config.SMTP_URL) return createMailApiMailerFromConfig(config);
  const { apiUrl, serverToken } = mailApiFor(config.SMTP_URL);
  return createPostmarkMailer({ serverToken, apiUrl, from: config.MAIL_FROM ?? 'statuswatch <statuswatch@localhost>', messageStream: config.MAIL_API_STREAM });
}

export async function startTestApp(
  statusUrl: string,
  options: { dir?: string; env?: Record<string, string>; clock?: Clock; origin?: string } = {},
): Promise<TestApp> {
  const origin = options.origin ?? DEFAULT_ORIGIN;
  const config = parseConfig({ STATUS_URL: statusUrl, POLL_TIMEOUT_MS: '2000', ADMIN_TOKEN, LOG_LEVEL: 'debug', ...HARNESS_SETTINGS, ...options.env });
  const clock = options.clock ?? { now: () => Date.now() };
  const logs: string[] = [];
  const logger = createConsoleLogger({ level: 'debug', format: 'json', write: (line) => logs.push(line) });
  const opened = await openWorkersPorts(logger, { dir: options.dir, clock, allowPrivateWebhooks: config.WEBHOOK_ALLOW_PRIVATE, secretKey: config.SECRET_KEY });
  const mailer = workersMailer(config);
  const deps = await buildAppDeps(
    {
      ...opened.ports,
      feed: createFetchFeedClient({
        baseUrl: config.STATUS_URL,
        timeoutMs: config.POLL_TIMEOUT_MS,
        maxBytes: config.FEED_MAX_BYTES,
        userAgent: 'statuswatch-test',
        clock,
      }),
      mailer,
    },
    { config },
  );
  const app = createApp(deps);
  // Receivers and mail catchers live on the Node side: their logs are brought in after each step.
  const step = async <T>(run: () => Promise<T>): Promise<T> => {
    await flushCatchers();
    const result = await run();
    await pullCatchers();
    return result;
  };
  const request = (url: string, init?: RequestInit) => step(async () => app.request(url, init));
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await request(origin + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  let closed = false;
  return {
    url: origin,
    dir: opened.slot.dir,
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
    deliverNow: () => step(() => deps.deliverer.deliverDue()).then(() => {}),
    admin,
    async close() {
      if (closed) return;
      closed = true;
      mailer?.close();
      await opened.close();
    },
  };
}
