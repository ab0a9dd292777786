/**
 * Real AppDeps, poller and deliverer for tests and benchmarks that exercise the Hono app through
 * `createApp(deps).request()`, built by the entries' own buildServices (src/entry/services.ts)
 * from the settings as config.ts parses them. It imports no Node API and no Node-only adapter:
 * the runtime hands in its connection, webhook sender, mailer and sanitizer (node-app-ports.ts
 * over a SQLite file on Node), so a Workers-pool run builds the same deps over D1.
 */
import type { Context } from 'hono';
import type { SqliteConnection } from '../../src/adapters/sqlite-connection.ts';
import type { Deliverer } from '../../src/app/deliverer.ts';
import type { Poller } from '../../src/app/poller.ts';
import type { WorkspaceApp } from '../../src/app/workspace-app/index.ts';
import { parseConfig, type Config } from '../../src/config.ts';
import type { Clock, FeedClient, Logger, Mailer, OutboxSignal, WebhookSender } from '../../src/core/ports.ts';
import type { SecretBox } from '../../src/core/secret-box.ts';
import type { AppDeps } from '../../src/http/deps.ts';
import type { StaticAssets } from '../../src/http/routes/static-assets.ts';
import { buildServices, createAppDeps, type RuntimePorts } from '../../src/entry/services.ts';

/** What a runtime supplies. */
export type AppPorts = {
  /** The archive's connection: the app's store and the group directory's run on it. */
  connection: SqliteConnection;
  logger: Logger;
  webhooks: WebhookSender;
  secrets: SecretBox;
  checkWebhookTarget: RuntimePorts['checkWebhookTarget'];
  sanitizeHtml: (html: string) => string;
  clock?: Clock;
  /** The vendor's feed: polls go through the app's real poller. Without it, `poller` or a poller that skips. */
  feed?: FeedClient;
  poller?: Poller;
  /** null when no mail setting is set. */
  mailer?: Mailer | null;
  assets?: StaticAssets;
  /** The socket's peer, as the runtime knows it; loopback by default. */
  peerAddress?: (c: Context) => string | undefined;
  /** Told when deliveries are written; by default nobody listens (tests deliver by hand). */
  outbox?: OutboxSignal;
};

/** The settings: `config` as the entry parsed it, or `env` as the process environment would hold it. */
export type AppSettings = {
  config?: Config;
  env?: Record<string, string>;
  /** When the service started, epoch ms; the clock's now by default. */
  startedAt?: number;
};

/** Routes tested without a runtime: nothing schedules delivery rounds, so a signal has no one to wake. */
const NOBODY_DELIVERS: OutboxSignal = { outboxChanged: () => {} };

/** The feed of a test that polls no vendor: its poller is `ports.poller` or one that skips. */
const NO_FEED: FeedClient = {
  get: async () => {
    throw new Error('this test app reads no vendor feed');
  },
};

export type TestAppDeps = AppDeps & { deliverer: Deliverer; workspaceApp?: WorkspaceApp };

const skippingPoller: Poller = { pollOnce: async () => ({ status: 'skipped', reason: 'another poll is running' }) };

export async function buildAppDeps(ports: AppPorts, settings: AppSettings = {}): Promise<TestAppDeps> {
  const config = settings.config ?? parseConfig(settings.env ?? {});
  const clock = ports.clock ?? { now: () => Date.now() };
  const runtime: RuntimePorts = {
    connection: ports.connection,
    feed: ports.feed ?? NO_FEED,
    webhooks: ports.webhooks,
    checkWebhookTarget: ports.checkWebhookTarget,
    mailer: ports.mailer ?? null,
    clock,
    logger: ports.logger,
    // Tests deliver by hand (deliverer.deliverDue()): the runtime's scheduler is not part of the app.
    outbox: ports.outbox ?? NOBODY_DELIVERS,
    instanceId: `test:${crypto.randomUUID()}`,
    leases: { isHolderGone: () => false },
    sanitizeHtml: ports.sanitizeHtml,
    localOrigin: 'http://localhost',
  };
  const services = buildServices(config, { ...runtime, secrets: ports.secrets });
  const deps = await createAppDeps(config, services, runtime, {
    assets: ports.assets ?? new Map(),
    startedAt: settings.startedAt ?? clock.now(),
    peerAddress: ports.peerAddress ?? (() => '127.0.0.1'),
  });
  const poller = ports.poller ?? (ports.feed ? services.poller : skippingPoller);
  return { ...deps, poller, deliverer: services.deliverer, workspaceApp: services.workspaceApp };
}
