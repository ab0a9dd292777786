/**
 * The one assembly of the service: the poller, retention, group subscriptions, the workspace app,
 * the channel sender, the subscription service, the deliverer and the HTTP app's deps, built the
 * same way for the Node entry, the Worker and the tests. Each runtime hands in only its own parts
 * (RuntimePorts) and does its own scheduling. It imports no Node or Workers API, so workerd runs
 * it as Node does.
 */
import type { Context } from 'hono';
import { createFetchFeedClient } from '../adapters/fetch-feed-client.ts';
import { createFetchPageReader } from '../adapters/fetch-page-reader.ts';
import type { SqliteConnection } from '../adapters/sqlite-connection.ts';
import { createSqliteStore } from '../adapters/sqlite-store.ts';
import { createAdminNotice, createSourceBlindNotice } from '../app/admin-notice.ts';
import { archiveSigningKey } from '../app/archive-keys.ts';
import { createChannelSender } from '../app/channel-sender.ts';
import { createDeliverer, type Deliverer } from '../app/deliverer.ts';
import { createDueDeliveries, type DueDeliveries } from '../app/due-deliveries.ts';
import { createPoller, type Poller } from '../app/poller.ts';
import { createSourcePoller, type SourcePoller } from '../app/source-poller.ts';
import { createPruner, type Pruner } from '../app/retention.ts';
import { createServiceMetrics, type ServiceMetrics } from '../app/service-metrics.ts';
import { createSourceService, mainFeedName, type SourceService } from '../app/sources.ts';
import { createSubscriptionService, type SubscriptionService } from '../app/subscriptions.ts';
import { subscriptionTitleOf } from '../app/subscription-titles.ts';
import { retentionSettings, type Config } from '../config.ts';
import { createCursorCodec, CURSOR_KEY_NAME } from '../core/cursor.ts';
import type { ArchiveQueries, Clock, FeedClient, Hashes, Logger, Mailer, OutboxSignal, Store, WebhookSender } from '../core/ports.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { STATUSPAGE_BODY_MAX_CHARS } from '../core/statuspage/schema.ts';
import { clientAddressFrom } from '../http/client-address.ts';
import type { AppDeps } from '../http/deps.ts';
import type { GroupDeps } from '../app/group-subscriptions.ts';
import type { StaticAssets } from '../http/routes/static-assets.ts';
import { createWorkspaceAppFromConfig, type ConfiguredWorkspaceApp } from './workspace-app.ts';
import { createGroupWiring } from './group-wiring.ts';
import { createMcpDeps } from './mcp-deps.ts';

/** What a runtime builds its own way: its database, its HTTP clients, its mail, its clock and its identity. */
export type RuntimePorts = {
  /** The archive's connection: the store and the group directory's store run on it. */
  connection: SqliteConnection;
  feed: FeedClient;
  webhooks: WebhookSender;
  /** How webhook ids and signatures are hashed: the runtime's fastest way; Web Crypto when absent. */
  hashes?: Hashes;
  /** The webhook sender's own rules for a URL, so a URL the service accepts is one the sender calls. */
  checkWebhookTarget: (url: string, options: { allowPrivate: boolean }) => { ok: true } | { ok: false; reason: string; privateTarget?: boolean };
  /**
   * How source pages are read: on Node, a fetch whose connections pass the webhook targets'
   * connect-time guard, so a page's name that resolves to a private address is refused there too.
   * The platform's fetch when absent (Workers, where the address is all there is to judge).
   */
  sourceFetch?: typeof fetch;
  /** Says who reads a source page; a generic one when absent. */
  userAgent?: string;
  /** null: no mail setting is set. */
  mailer: Mailer | null;
  clock: Clock;
  logger: Logger;
  /** Told when deliveries were written, so the runtime's scheduler runs a round soon. */
  outbox: OutboxSignal;
  /** Names this process (or invocation) in the poll lease and the delivery claims. */
  instanceId: string;
  leases: {
    /** Whether a lease's holder is known to be gone, so its lease and claims are taken over at once. */
    isHolderGone(holder: string): boolean;
    /** POLL_LEASE_MS and DELIVERY_CLAIM_MS where a holder's end cannot be seen (Workers); the app's defaults otherwise. */
    pollLeaseMs?: number;
    claimLeaseMs?: number;
  };
  /** Cleans a vendor note body (HTML): its parser is the runtime's. */
  sanitizeHtml: (html: string) => string;
  /** Where links in background messages point while PUBLIC_URL is unset: the runtime's local address. */
  localOrigin: string;
  /** Counts polls and attempts for /metrics; a fresh one by default. */
  metrics?: ServiceMetrics;
  /** Each invocation makes its own poller (Workers): when polling began is then kept in the archive. */
  pollerPerInvocation?: boolean;
  /** Keeps work going after the invocation's answer (Workers' waitUntil); absent where a process lives on (Node). */
  keepAlive?: (work: Promise<unknown>) => void;
  /** Aborted when the process stops: every running group sync ends at once. */
  stopSignal?: AbortSignal;
  /** False for a command that keeps no secrets (`poll`): no workspace app. True by default. */
  workspaceApp?: boolean;
  /**
   * A Worker invocation's budget: group mails per attempt, claims and claim renewals per round,
   * deliveries in flight at once, and whether an alert may start a sync.
   */
  budget?: {
    groupMailsPerAttempt?: number;
    maxClaimsPerRound?: number;
    maxRenewalsPerRound?: number;
    deliveryConcurrency?: number;
    groupSyncsOnDemand?: boolean;
  };
};

/** What runs without SECRET_KEY: polling, retention and the group sync (a Worker's cron). */
export type BackgroundServices = {
  store: Store;
  poller: Poller;
  pruner: Pruner;
  groups: GroupDeps;
  metrics: ServiceMetrics;
  /** The status pages watched beside the main feed: added, listed and removed. */
  sources: SourceService;
  /** Polls those pages into the archive, beside the main feed's poller. */
  sourcePoller: SourcePoller;
  /** PUBLIC_URL, or the runtime's local origin while it is unset. */
  publicUrl: string;
};

/** Everything, once the secrets are open: subscriptions and delivery seal and open webhook secrets. */
export type Services = BackgroundServices & {
  secrets: SecretBox;
  subscriptions: SubscriptionService;
  deliverer: Deliverer;
  deliveries: DueDeliveries;
  /** Absent while APP_CLIENT_ID or APP_CLIENT_SECRET is unset. */
  workspaceApp?: ConfiguredWorkspaceApp;
};

/**
 * A feed never read is blind from when polling began: the first invocation's time, kept in the
 * archive, where each invocation has its own poller.
 */
export function pollingSinceKeptIn(store: Pick<ArchiveQueries, 'secret'>, clock: Clock): () => Promise<number> {
  return async () => Number(await store.secret('polling_since', () => String(clock.now())));
}

/**
 * The services from the settings and a runtime's ports. Pure wiring, no I/O: a Worker builds them
 * per invocation. With `secrets: null` (a Worker's cron, which runs without SECRET_KEY) only the
 * background services, whose group sync then mails nobody but the admin.
 */
export function buildServices(config: Config, ports: RuntimePorts & { secrets: SecretBox }): Services;
export function buildServices(config: Config, ports: RuntimePorts & { secrets: null }): BackgroundServices;
export function buildServices(config: Config, ports: RuntimePorts & { secrets: SecretBox | null }): BackgroundServices | Services {
  const { connection, clock, logger, mailer, outbox, instanceId, leases, secrets } = ports;
  const store = createSqliteStore(connection, { rejectedPayloadsMaxBytes: config.REJECTED_PAYLOADS_MAX_BYTES });
  const metrics = ports.metrics ?? createServiceMetrics();
  const publicUrl = config.PUBLIC_URL ?? ports.localOrigin;
  const poller = createPoller({
    store,
    feed: ports.feed,
    clock,
    logger,
    instanceId,
    newId: () => crypto.randomUUID(),
    isLeaseHolderGone: leases.isHolderGone,
    leaseTtlMs: leases.pollLeaseMs,
    maxIncidentWrites: config.POLL_MAX_INCIDENT_CHANGES,
    outbox,
    pollingSince: ports.pollerPerInvocation ? pollingSinceKeptIn(store, clock) : undefined,
    announce: createAdminNotice({ mailer, adminEmail: config.ADMIN_EMAIL, publicUrl, logger }),
    onResult: metrics.recordPoll,
    ...(ports.hashes ? { hashes: ports.hashes } : {}),
    ...(ports.keepAlive ? { keepAlive: ports.keepAlive } : {}),
  });
  const groups = createGroupWiring({
    connection,
    config,
    secrets,
    mailer,
    clock,
    logger,
    publicUrl,
    sanitizeHtml: ports.sanitizeHtml,
    maxSendsPerAttempt: ports.budget?.groupMailsPerAttempt,
    syncsOnDemand: ports.budget?.groupSyncsOnDemand,
    syncSignal: ports.stopSignal,
  });
  const pruner = createPruner({ store, logger, settings: retentionSettings(config) });
  const sources = createSourceService({
    store,
    openPage: (baseUrl) =>
      createFetchFeedClient({
        baseUrl,
        timeoutMs: config.POLL_TIMEOUT_MS,
        // A summary longer than the parser takes is refused unread.
        maxBytes: STATUSPAGE_BODY_MAX_CHARS,
        userAgent: ports.userAgent ?? 'statuswatch',
        clock,
        ...(ports.sourceFetch ? { fetch: ports.sourceFetch } : {}),
      }),
    checkTarget: (url) => ports.checkWebhookTarget(url, { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE }),
    clock,
    newId: () => `src_${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`,
    maxSources: config.SOURCES_MAX,
    mainFeedUrl: config.STATUS_URL,
  });
  const sourcePoller = createSourcePoller({
    store,
    reader: createFetchPageReader({
      timeoutMs: config.POLL_TIMEOUT_MS,
      maxBytes: STATUSPAGE_BODY_MAX_CHARS,
      userAgent: ports.userAgent ?? 'statuswatch',
      clock,
      ...(ports.sourceFetch ? { fetch: ports.sourceFetch } : {}),
    }),
    clock,
    logger,
    instanceId,
    newId: () => crypto.randomUUID(),
    maxIncidentWrites: config.POLL_MAX_INCIDENT_CHANGES,
    leaseTtlMs: leases.pollLeaseMs,
    tellBlind: createSourceBlindNotice({ mailer, adminEmail: config.ADMIN_EMAIL, publicUrl, logger }),
    outbox,
  });
  const background: BackgroundServices = { store, poller, pruner, groups, metrics, sources, sourcePoller, publicUrl };
  if (!secrets) return background;

  const workspaceApp = ports.workspaceApp === false ? undefined : createWorkspaceAppFromConfig(config, { store, secrets, clock, logger, mailer, publicUrl });
  const sender = createChannelSender({
    store,
    webhooks: ports.webhooks,
    ...(ports.hashes ? { hashes: ports.hashes } : {}),
    mailer,
    secrets,
    clock,
    publicUrl,
    sanitizeHtml: ports.sanitizeHtml,
    app: workspaceApp?.messages,
    groupMail: groups.mail,
    adminEmail: config.ADMIN_EMAIL,
    pagerdutyEventsUrl: config.PAGERDUTY_EVENTS_URL,
    opsgenieApiUrl: config.OPSGENIE_API_URL ?? null,
    incidentStatusNow: async (incidentId) => (await store.getIncident(incidentId))?.status ?? null,
    sourceName: async (sourceId) => (await store.getSource(sourceId))?.name ?? null,
    mainFeedName: mainFeedName(config.STATUS_URL),
  });
  const subscriptions = createSubscriptionService({
    store,
    secrets,
    sender,
    mailer,
    clock,
    logger,
    newId: () => `sub_${crypto.randomUUID().replace(/-/g, '')}`,
    checkTarget: (url) => ports.checkWebhookTarget(url, { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE }),
    outbox,
    adminEmail: config.ADMIN_EMAIL,
  });
  const deliverer = createDeliverer({
    store,
    sender,
    mailer,
    clock,
    logger,
    publicUrl,
    instanceId,
    isHolderGone: leases.isHolderGone,
    claimLeaseMs: leases.claimLeaseMs,
    adminEmail: config.ADMIN_EMAIL,
    titleOf: async (subscription) => (await subscriptionTitleOf({ store, groups }, subscription)).title,
    maxClaimsPerRound: ports.budget?.maxClaimsPerRound,
    maxRenewalsPerRound: ports.budget?.maxRenewalsPerRound,
    concurrency: ports.budget?.deliveryConcurrency,
    onAttempt: metrics.recordAttempt,
  });
  const deliveries = createDueDeliveries({ deliverer, store, clock, logger });
  return { ...background, secrets, subscriptions, deliverer, deliveries, workspaceApp };
}

/** What only the HTTP face needs from its runtime. */
export type WebPorts = {
  /** The files of public/ the app serves itself (none on Workers: the platform serves them). */
  assets: StaticAssets;
  /** When this process (or isolate) began serving, epoch ms. */
  startedAt: number;
  /** The address the runtime saw the request come from; forwarding headers count only with TRUST_PROXY. */
  peerAddress: (c: Context) => string | undefined;
};

/** The HTTP app's deps from the services, for createApp. */
export async function createAppDeps(
  config: Config,
  services: Services,
  ports: Pick<RuntimePorts, 'clock' | 'logger' | 'outbox' | 'sanitizeHtml'>,
  web: WebPorts,
): Promise<AppDeps> {
  const { store, secrets } = services;
  return {
    store,
    poller: services.poller,
    sourcePoller: services.sourcePoller,
    clock: ports.clock,
    logger: ports.logger,
    cursors: await createCursorCodec(await archiveSigningKey(store, secrets, CURSOR_KEY_NAME)),
    adminToken: config.ADMIN_TOKEN,
    publicUrl: config.PUBLIC_URL,
    subscriptions: services.subscriptions,
    sources: services.sources,
    appInstalls: services.workspaceApp?.installs,
    appSigningSecret: config.APP_SIGNING_SECRET,
    metrics: services.metrics,
    allowPrivateWebhooks: config.WEBHOOK_ALLOW_PRIVATE,
    outbox: ports.outbox,
    assets: web.assets,
    startedAt: web.startedAt,
    sanitizeHtml: ports.sanitizeHtml,
    clientAddress: clientAddressFrom(web.peerAddress, config.TRUST_PROXY),
    pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    readBudgetMsPerSecond: config.READ_BUDGET_MS_PER_SECOND,
    mcp: await createMcpDeps(config, store, secrets),
    groups: services.groups,
  };
}
