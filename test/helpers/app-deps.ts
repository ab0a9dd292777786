/**
 * Real AppDeps, poller and deliverer built from ports, for tests and benchmarks that exercise the
 * Hono app through `createApp(deps).request()`. It imports no Node API and no adapter: the runtime
 * hands in its store, feed client, webhook sender, mailer and sanitizer (app-ports-node.ts over a
 * SQLite file on Node), so a Workers-pool run can build the same deps over D1.
 */
import type { Context } from 'hono';
import { createAdminNotice } from '../../src/app/admin-notice.ts';
import { createAppMessageSender } from '../../src/app/app-message-sender.ts';
import { createChannelSender } from '../../src/app/channel-sender.ts';
import { createDeliverer, type Deliverer } from '../../src/app/deliverer.ts';
import { createGroupMail } from '../../src/app/group-mail.ts';
import { createGroupSync } from '../../src/app/group-sync.ts';
import { createPoller, type Poller } from '../../src/app/poller.ts';
import { createServiceMetrics } from '../../src/app/service-metrics.ts';
import { createSubscriptionService } from '../../src/app/subscriptions.ts';
import { createWorkspaceApp, type WorkspaceApp } from '../../src/app/workspace-app.ts';
import { archiveSigningKey } from '../../src/app/archive-keys.ts';
import { createCursorCodec, CURSOR_KEY_NAME } from '../../src/core/cursor.ts';
import type {
  Clock,
  FeedClient,
  Logger,
  Mailer,
  OutboxSignal,
  Store,
  VendorChatApi,
  VendorInstallApi,
  VendorWebApi,
  WebhookSender,
} from '../../src/core/ports.ts';
import type { GroupDirectoryStore, ScimDirectory } from '../../src/core/ports/scim-directory.ts';
import type { SecretBox } from '../../src/core/secret-box.ts';
import type { GroupDeps } from '../../src/app/group-subscriptions.ts';
import { clientAddressFrom } from '../../src/http/client-address.ts';
import type { AppDeps } from '../../src/http/deps.ts';
import type { StaticAssets } from '../../src/http/routes/static-assets.ts';

/** What a runtime supplies. */
export type AppPorts = {
  store: Store;
  logger: Logger;
  webhooks: WebhookSender;
  secrets: SecretBox;
  /** WEBHOOK_ALLOW_PRIVATE's check of a webhook URL (adapters/webhook-target-guard.ts on Node). */
  checkWebhookTarget: (url: string, options: { allowPrivate: boolean }) => { ok: true } | { ok: false; reason: string };
  sanitizeHtml: (html: string) => string;
  clock?: Clock;
  /** The vendor's feed: polls go through the app's real poller. Without it, `poller` or a poller that skips. */
  feed?: FeedClient;
  poller?: Poller;
  /** null when SMTP_URL is unset. */
  mailer?: Mailer | null;
  assets?: StaticAssets;
  /** The socket's peer, as the runtime knows it; loopback by default. */
  peerAddress?: (c: Context) => string | undefined;
  /** Told when deliveries are written; by default nobody listens (tests deliver by hand). */
  outbox?: OutboxSignal;
  /** The vendor's Web API (adapters/web-api-client.ts, over fetch on both runtimes): with settings.app, the workspace app is on. */
  webApi?: VendorWebApi & VendorInstallApi & VendorChatApi;
  /** Group subscriptions (issue 11): their store on the same database, and the SCIM client (null: SCIM_TOKEN unset). */
  groups?: { store: GroupDirectoryStore; directory: ScimDirectory | null; syncSeconds?: number; scimUrl?: string };
};

/** Routes tested without a runtime: nothing schedules delivery rounds, so a signal has no one to wake. */
const NOBODY_DELIVERS: OutboxSignal = { outboxChanged: () => {} };

/** The settings the tests vary, as config.ts names them (camelCase). */
export type AppSettings = {
  adminToken?: string;
  publicUrl?: string;
  allowPrivateWebhooks?: boolean;
  trustProxy?: boolean;
  readBudgetMsPerSecond?: number;
  maxIncidentWrites?: number;
  adminEmail?: string;
  /** When the service started, epoch ms; the clock's now by default. */
  startedAt?: number;
  /** APP_API_URL and APP_CLIENT_ID: with ports.webApi, the workspace app (issue 10) is on. */
  app?: { apiUrl: string; clientId: string };
  /** APP_SIGNING_SECRET: `/status` requests are checked with it. */
  appSigningSecret?: string;
};

export type TestAppDeps = AppDeps & { deliverer: Deliverer; workspaceApp?: WorkspaceApp };

const skippingPoller: Poller = { pollOnce: async () => ({ status: 'skipped', reason: 'another poll is running' }) };

export async function buildAppDeps(ports: AppPorts, settings: AppSettings = {}): Promise<TestAppDeps> {
  const { store, logger, secrets } = ports;
  const clock = ports.clock ?? { now: () => Date.now() };
  const mailer = ports.mailer ?? null;
  const outbox = ports.outbox ?? NOBODY_DELIVERS;
  const allowPrivate = settings.allowPrivateWebhooks ?? false;
  // As the Node entry: links in messages fall back to the local origin when PUBLIC_URL is unset.
  const publicUrl = settings.publicUrl ?? 'http://localhost';
  const instanceId = `test:${crypto.randomUUID()}`;
  const metrics = createServiceMetrics();
  const workspaceApp =
    ports.webApi && settings.app
      ? createWorkspaceApp({
          store,
          webApi: ports.webApi,
          box: secrets,
          clock,
          logger,
          mailer,
          adminEmail: settings.adminEmail,
          publicUrl,
          apiUrl: settings.app.apiUrl,
          clientId: settings.app.clientId,
          sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        })
      : undefined;
  // The app's messages with the same AppTokens as its installs, as the entries wire them (entry/app-messaging.ts).
  const app = workspaceApp && ports.webApi ? createAppMessageSender({ store, chat: ports.webApi, tokens: workspaceApp.tokens, clock, publicUrl }) : null;
  const groups = ports.groups ? groupDeps(ports.groups, { mailer, secrets, clock, logger, publicUrl, sanitizeHtml: ports.sanitizeHtml }) : undefined;
  const sender = createChannelSender({
    store,
    webhooks: ports.webhooks,
    mailer,
    secrets,
    clock,
    publicUrl,
    sanitizeHtml: ports.sanitizeHtml,
    app,
    groupMail: groups?.mail,
  });
  const subscriptions = createSubscriptionService({
    store,
    secrets,
    sender,
    mailer,
    clock,
    logger,
    newId: () => `sub_${crypto.randomUUID().replace(/-/g, '')}`,
    checkTarget: (url) => ports.checkWebhookTarget(url, { allowPrivate }),
    outbox,
    adminEmail: settings.adminEmail,
  });
  const poller =
    ports.poller ??
    (ports.feed
      ? createPoller({
          store,
          feed: ports.feed,
          clock,
          logger,
          instanceId,
          newId: () => crypto.randomUUID(),
          maxIncidentWrites: settings.maxIncidentWrites,
          outbox,
          announce: createAdminNotice({ mailer, adminEmail: settings.adminEmail, publicUrl, logger }),
          onResult: metrics.recordPoll,
        })
      : skippingPoller);
  const deliverer = createDeliverer({
    store,
    sender,
    mailer,
    clock,
    logger,
    publicUrl,
    instanceId,
    isHolderGone: () => false,
    adminEmail: settings.adminEmail,
    onAttempt: metrics.recordAttempt,
  });
  return {
    store,
    poller,
    clock,
    logger,
    cursors: await createCursorCodec(await archiveSigningKey(store, secrets, CURSOR_KEY_NAME)),
    adminToken: settings.adminToken,
    publicUrl: settings.publicUrl,
    assets: ports.assets ?? new Map(),
    startedAt: settings.startedAt ?? clock.now(),
    sanitizeHtml: ports.sanitizeHtml,
    subscriptions,
    metrics,
    allowPrivateWebhooks: allowPrivate,
    // Tests deliver by hand (deliverer.deliverDue()): the runtime's scheduler is not part of the app.
    outbox,
    clientAddress: clientAddressFrom(ports.peerAddress ?? (() => '127.0.0.1'), settings.trustProxy ?? false),
    pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    readBudgetMsPerSecond: settings.readBudgetMsPerSecond,
    deliverer,
    workspaceApp,
    appInstalls: workspaceApp?.installs,
    appSigningSecret: settings.appSigningSecret,
    groups,
  };
}

function groupDeps(
  ports: NonNullable<AppPorts['groups']>,
  wiring: { mailer: Mailer | null; secrets: SecretBox; clock: Clock; logger: Logger; publicUrl: string; sanitizeHtml: (html: string) => string },
): GroupDeps {
  const { clock, logger } = wiring;
  const sync = createGroupSync({ store: ports.store, directory: ports.directory, clock, logger, syncSeconds: ports.syncSeconds ?? 300 });
  const mail = wiring.mailer ? createGroupMail({ store: ports.store, sync, ...wiring, mailer: wiring.mailer }) : null;
  return { store: ports.store, sync, directory: ports.directory, mail, scimUrl: ports.scimUrl ?? 'https://api.slack.com' };
}
