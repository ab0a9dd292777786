/**
 * The core wired for Cloudflare Workers: D1 for the store, a Queue for the outbox signal, fetch for
 * the feed and the webhooks. Web-standard only, and no Workers types (worker.ts owns those), so
 * the same assembly can be read next to entry/node.ts.
 */
import { createConsoleLogger } from '../adapters/console-logger.ts';
import { d1Connection, type D1DatabaseLike } from '../adapters/d1-connection.ts';
import type { SqliteConnection } from '../adapters/sqlite-connection.ts';
import { createFetchFeedClient } from '../adapters/fetch-feed-client.ts';
import { sanitizeNoteHtml } from '../adapters/html-sanitizer.ts';
import { createQueueOutboxSignal, type QueueOutboxSignal, type WakeUpQueue } from '../adapters/queue-outbox-signal.ts';
import { secretBoxFromSetting } from '../adapters/secret-key-setting.ts';
import { createSqliteStore } from '../adapters/sqlite-store.ts';
import { createAdminNotice } from '../app/admin-notice.ts';
import type { WorkspaceApp } from '../app/workspace-app.ts';
import { createDeliverer } from '../app/deliverer.ts';
import { createDueDeliveries, type DueDeliveries } from '../app/due-deliveries.ts';
import { createPoller, type Poller } from '../app/poller.ts';
import { createPruner, type Pruner } from '../app/retention.ts';
import { createServiceMetrics, type ServiceMetrics } from '../app/service-metrics.ts';
import { createSubscriptionService, type SubscriptionService } from '../app/subscriptions.ts';
import { configSchema, parseConfig, retentionSettings, type Config } from '../config.ts';
import type { Clock, Logger, Store } from '../core/ports.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { checkWorkerWebhookUrl, createWorkerSenders, WORKER_USER_AGENT } from './worker-senders.ts';
import { createChannelWiring } from './channel-wiring.ts';
import { createGroupWiring } from './group-wiring.ts';
import { createWorkspaceAppFromConfig } from './app-messaging.ts';
import type { GroupDeps } from '../app/group-subscriptions.ts';

/** The bindings wrangler.toml declares, by the part of them the core uses. */
export type WorkerBindings = { DB: D1DatabaseLike; DELIVERIES: WakeUpQueue };

/**
 * Deliveries one queue invocation claims. The free plan allows 50 subrequests per invocation,
 * and D1 calls are counted like fetches here to stay on the safe side. A round of N costs: 1
 * claimHolders, 3 for the claim (claim, subscriptions, events), N webhook fetches, at most N
 * recordAttempts batches (group commit usually merges them), 1 nextDueAt and 1 queue send:
 * 2N + 6 = 46 for N = 20. 10,000 subscribers are 500 such rounds, chained by queue messages.
 */
export const QUEUE_ROUND_MAX_DELIVERIES = 20;

/**
 * Mails one attempt of a group delivery sends (issue 11). Each is a Postmark fetch, so a group of
 * thousands goes out over many attempts, each at once after the last and each in its own queue
 * round once the round's claims run out; the sends recorded per member carry the progress. 20 is
 * the round's own delivery bound: a round of one group delivery costs about what 20 webhooks do.
 */
export const GROUP_MAILS_PER_ATTEMPT = 20;

/** Where links in background messages point when PUBLIC_URL is unset: `wrangler dev`'s address. */
const FALLBACK_PUBLIC_URL = 'http://localhost:8787';
const HOW_TO_SET_SECRET_KEY = 'run `npx wrangler secret put SECRET_KEY` with the output of `openssl rand -hex 32` (locally: put SECRET_KEY in .dev.vars)';

const systemClock: Clock = { now: () => Date.now() };

/**
 * Settings from the Worker's env, by Node's names and through Node's schema, so a bad value gets
 * the same message. `[vars]` may hold TOML numbers and booleans: they are read as their text.
 */
export function workerConfig(env: Record<string, unknown>): Config {
  const source: Record<string, string | undefined> = {};
  // Every setting, the Workers-only mail API ones included.
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') source[key] = String(value);
  }
  return parseConfig(source);
}

/** Workers keep what a Worker writes to the console: one JSON line per entry. */
export function workerLogger(config: Config): Logger {
  return createConsoleLogger({ level: config.LOG_LEVEL, format: 'json', write: (line) => console.log(line), base: { runtime: 'workers' } });
}

/**
 * Each cron invocation makes its own poller, so a feed never read is blind from the first
 * invocation's time, kept in the archive (D1), not from this one's.
 */
export function pollingSinceKeptIn(store: Pick<Store, 'secret'>, clock: Clock): () => Promise<number> {
  return async () => Number(await store.secret('polling_since', () => String(clock.now())));
}

export type WorkerCore = {
  config: Config;
  logger: Logger;
  clock: Clock;
  store: Store;
  /** The D1 connection the store runs on; group subscriptions' store (issue 11) shares it. */
  connection: SqliteConnection;
  poller: Poller;
  outbox: QueueOutboxSignal;
  publicUrl: string;
  pruner: Pruner;
};

/**
 * What every handler needs. `instanceId` names this invocation (or isolate) in the poll lease and
 * the delivery claims: each Worker invocation is its own holder, so two overlapping cron
 * invocations meet at the lease in D1 even inside one isolate. A Worker cannot tell whether another
 * holder is gone, so a killed invocation's lease and claims free themselves when they expire.
 */
export function createWorkerCore(
  env: WorkerBindings & Record<string, unknown>,
  options: { instanceId: string; keepAlive: (promise: Promise<unknown>) => void; metrics?: ServiceMetrics; clock?: Clock },
): WorkerCore {
  const config = workerConfig(env);
  const logger = workerLogger(config);
  const clock = options.clock ?? systemClock;
  const connection = d1Connection(env.DB);
  const store = createSqliteStore(connection, { rejectedPayloadsMaxBytes: config.REJECTED_PAYLOADS_MAX_BYTES });
  const outbox = createQueueOutboxSignal({ queue: env.DELIVERIES, logger, keepAlive: options.keepAlive });
  const feed = createFetchFeedClient({
    baseUrl: config.STATUS_URL,
    timeoutMs: config.POLL_TIMEOUT_MS,
    maxBytes: config.FEED_MAX_BYTES,
    userAgent: WORKER_USER_AGENT,
    clock,
  });
  const publicUrl = config.PUBLIC_URL ?? FALLBACK_PUBLIC_URL;
  const poller = createPoller({
    store,
    feed,
    clock,
    logger,
    instanceId: options.instanceId,
    newId: () => crypto.randomUUID(),
    maxIncidentWrites: config.POLL_MAX_INCIDENT_CHANGES,
    leaseTtlMs: config.POLL_LEASE_MS,
    outbox,
    pollingSince: pollingSinceKeptIn(store, clock),
    announce: createAdminNotice({ mailer: createWorkerSenders(config).mailer, adminEmail: config.ADMIN_EMAIL, publicUrl, logger }),
    ...(options.metrics ? { onResult: options.metrics.recordPoll } : {}),
  });
  return {
    config,
    logger,
    clock,
    store,
    connection,
    poller,
    outbox,
    publicUrl,
    pruner: createPruner({ store, logger, settings: retentionSettings(config) }),
  };
}

export type WorkerNotifications = {
  secrets: SecretBox;
  subscriptions: SubscriptionService;
  deliveries: DueDeliveries;
  /** The workspace app (issue 10): absent while APP_CLIENT_ID or APP_CLIENT_SECRET is unset. */
  workspaceApp?: WorkspaceApp;
  groups: GroupDeps;
};

/** Group subscriptions' sync alone, for the cron: it reads the directory and writes D1, and mails no member (only the admin, of a deleted group). */
export function createWorkerGroupSync(core: WorkerCore): GroupDeps {
  const { config, clock, logger, publicUrl, connection } = core;
  const { mailer } = createWorkerSenders(config);
  return createGroupWiring({ connection, config, secrets: null, mailer, clock, logger, publicUrl, sanitizeHtml: sanitizeNoteHtml });
}

/**
 * The cron's retry of token refreshes an invocation was killed in the middle of (claimed, and
 * perhaps answered by the vendor, never written): Node does this when a process starts, a Worker
 * has no start, so each tick looks. One read when no claim is left; nothing without the app.
 */
export async function recoverWorkerTokenClaims(core: WorkerCore): Promise<void> {
  const { config, store, clock, logger, publicUrl } = core;
  if (!config.APP_CLIENT_ID || !config.APP_CLIENT_SECRET) return;
  const secrets = await secretBoxFromSetting(config.SECRET_KEY, HOW_TO_SET_SECRET_KEY);
  const app = createWorkspaceAppFromConfig(config, { store, secrets, clock, logger, mailer: createWorkerSenders(config).mailer, publicUrl });
  await app?.recoverUnfinishedRefreshes();
}

/** Subscriptions and delivery: these open webhook secrets, so SECRET_KEY must be set. */
export async function createWorkerNotifications(
  core: WorkerCore,
  options: { instanceId: string; metrics?: ServiceMetrics; maxClaimsPerRound?: number },
): Promise<WorkerNotifications> {
  const { config, store, clock, logger, outbox, publicUrl } = core;
  const secrets = await secretBoxFromSetting(config.SECRET_KEY, HOW_TO_SET_SECRET_KEY);
  const { webhooks, mailer } = createWorkerSenders(config);
  const { sender, groups, workspaceApp } = createChannelWiring({
    config,
    store,
    connection: core.connection,
    secrets,
    webhooks,
    mailer,
    clock,
    logger,
    publicUrl,
    workspaceApp: true,
    groupMailsPerAttempt: GROUP_MAILS_PER_ATTEMPT,
    // A queue invocation keeps its subrequests for mail: the cron syncs, and a group alert waits for it.
    groupSyncsOnDemand: false,
  });
  const subscriptions = createSubscriptionService({
    store,
    secrets,
    sender,
    mailer,
    clock,
    logger,
    newId: () => `sub_${crypto.randomUUID().replace(/-/g, '')}`,
    checkTarget: (url) => checkWorkerWebhookUrl(url, { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE }),
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
    instanceId: options.instanceId,
    isHolderGone: () => false,
    claimLeaseMs: config.DELIVERY_CLAIM_MS,
    adminEmail: config.ADMIN_EMAIL,
    maxClaimsPerRound: options.maxClaimsPerRound,
    onAttempt: options.metrics?.recordAttempt,
  });
  return { secrets, subscriptions, deliveries: createDueDeliveries({ deliverer, store, clock, logger }), workspaceApp, groups };
}

export { createServiceMetrics };
