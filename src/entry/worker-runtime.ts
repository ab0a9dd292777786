/**
 * The ports of a Cloudflare Workers invocation for buildServices (services.ts): D1 for the archive,
 * a Queue for the outbox signal, fetch for the feed, the webhooks and the mail API. Web-standard
 * only, and no Workers types (worker.ts owns those), so it reads next to entry/node.ts.
 */
import { createConsoleLogger } from '../adapters/console-logger.ts';
import { d1Connection, type D1DatabaseLike } from '../adapters/d1-connection.ts';
import { createFetchFeedClient } from '../adapters/fetch-feed-client.ts';
import { sanitizeNoteHtml } from '../adapters/html-sanitizer.ts';
import { createQueueOutboxSignal, type QueueOutboxSignal, type WakeUpQueue } from '../adapters/queue-outbox-signal.ts';
import { secretBoxFromSetting } from '../adapters/secret-key-setting.ts';
import { createServiceMetrics, type ServiceMetrics } from '../app/service-metrics.ts';
import { configSchema, parseConfig, type Config } from '../config.ts';
import type { Clock, Logger } from '../core/ports.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { buildServices, type BackgroundServices, type RuntimePorts, type Services } from './services.ts';
import { checkWorkerWebhookUrl, createWorkerSenders, WORKER_USER_AGENT } from './worker-senders.ts';

/** The bindings wrangler.toml declares, by the part of them the core uses. */
export type WorkerBindings = { DB: D1DatabaseLike; DELIVERIES: WakeUpQueue };

/**
 * Deliveries one queue invocation claims. The free plan allows 50 subrequests per invocation,
 * and D1 calls are counted like fetches here to stay on the safe side. A round of N costs: 1
 * claimHolders, 3 for the claim (claim, subscriptions, events), N webhook fetches, at most N
 * recordAttempts batches (group commit usually merges them), at most R claim renewals (only
 * while receivers are slow: a send waiting past half the lease), 1 nextDueAt and 1 queue send:
 * 2N + R + 6 = 50 for N = 20 and R = 4. 10,000 subscribers are 500 such rounds, chained by
 * queue messages.
 */
export const QUEUE_ROUND_MAX_DELIVERIES = 20;
export const QUEUE_ROUND_MAX_RENEWALS = 4;

/**
 * Mails one attempt of a group delivery sends. Each is a Postmark fetch, so a group of
 * thousands goes out over many attempts, each at once after the last and each in its own queue
 * round once the round's claims run out; the sends recorded per member carry the progress. 20 is
 * the round's own delivery bound: a round of one group delivery costs about what 20 webhooks do.
 */
export const GROUP_MAILS_PER_ATTEMPT = 20;

/**
 * Deliveries an invocation sends at once (each a fetch: a webhook, a chat, an on-call tool, the
 * mail API). A Worker invocation has at most six connections waiting for response headers; a
 * seventh fetch waits in the runtime, its timeout already running (15 s for a webhook), so a
 * delivery queued behind slow receivers would time out unsent and count against its receiver.
 */
export const WORKER_DELIVERY_CONCURRENCY = 6;

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
 * This invocation's parts and settings, for buildServices. `instanceId` names this invocation (or
 * isolate) in the poll lease and the delivery claims: each Worker invocation is its own holder, so
 * two overlapping cron invocations meet at the lease in D1 even inside one isolate. A Worker cannot
 * tell whether another holder is gone, so a killed invocation's lease and claims free themselves
 * when they expire (POLL_LEASE_MS, DELIVERY_CLAIM_MS).
 */
export type WorkerRuntime = { config: Config; ports: RuntimePorts; outbox: QueueOutboxSignal };

export function createWorkerRuntime(
  env: WorkerBindings & Record<string, unknown>,
  options: {
    instanceId: string;
    keepAlive: (promise: Promise<unknown>) => void;
    metrics?: ServiceMetrics;
    clock?: Clock;
    /** A queue round's budget: at most this many deliveries, and QUEUE_ROUND_MAX_RENEWALS renewals of their claims. */
    maxClaimsPerRound?: number;
    /** A quiet poll answers before its run is recorded, the record kept alive (PollerDeps.keepAlive). */
    quietPollRecordAfterAnswer?: boolean;
  },
): WorkerRuntime {
  const config = workerConfig(env);
  const logger = workerLogger(config);
  const clock = options.clock ?? systemClock;
  const connection = d1Connection(env.DB);
  const outbox = createQueueOutboxSignal({ queue: env.DELIVERIES, logger, keepAlive: options.keepAlive });
  const { webhooks, mailer } = createWorkerSenders(config);
  const ports: RuntimePorts = {
    connection,
    feed: createFetchFeedClient({
      baseUrl: config.STATUS_URL,
      timeoutMs: config.POLL_TIMEOUT_MS,
      maxBytes: config.FEED_MAX_BYTES,
      userAgent: WORKER_USER_AGENT,
      clock,
    }),
    webhooks,
    userAgent: WORKER_USER_AGENT,
    checkWebhookTarget: checkWorkerWebhookUrl,
    mailer,
    clock,
    logger,
    outbox,
    instanceId: options.instanceId,
    leases: { isHolderGone: () => false, pollLeaseMs: config.POLL_LEASE_MS, claimLeaseMs: config.DELIVERY_CLAIM_MS },
    sanitizeHtml: sanitizeNoteHtml,
    localOrigin: FALLBACK_PUBLIC_URL,
    metrics: options.metrics,
    pollerPerInvocation: true,
    // The cron's: an admin's poll answers once its run is recorded, so the runs list shows it.
    ...(options.quietPollRecordAfterAnswer ? { keepAlive: options.keepAlive } : {}),
    budget: {
      groupMailsPerAttempt: GROUP_MAILS_PER_ATTEMPT,
      maxClaimsPerRound: options.maxClaimsPerRound,
      ...(options.maxClaimsPerRound === undefined ? {} : { maxRenewalsPerRound: QUEUE_ROUND_MAX_RENEWALS }),
      deliveryConcurrency: WORKER_DELIVERY_CONCURRENCY,
      // A queue invocation keeps its subrequests for mail: the cron syncs, and a group alert waits for it.
      groupSyncsOnDemand: false,
    },
  };
  return { config, ports, outbox };
}

/** SECRET_KEY's box: subscriptions and delivery open webhook secrets with it, so it must be set for them. */
export function workerSecrets(config: Config): Promise<SecretBox> {
  return secretBoxFromSetting(config.SECRET_KEY, HOW_TO_SET_SECRET_KEY);
}

/**
 * The cron's services. Polling, retention and the group sync need no SECRET_KEY; with the
 * workspace app configured, the cron also retries the token refreshes an invocation was killed in
 * the middle of (Node does this when a process starts; a Worker has no start, so each tick looks),
 * which opens tokens with it. One build either way.
 */
export async function cronServices(runtime: WorkerRuntime): Promise<BackgroundServices & Partial<Pick<Services, 'workspaceApp'>>> {
  const { config, ports } = runtime;
  if (!config.APP_CLIENT_ID || !config.APP_CLIENT_SECRET) return buildServices(config, { ...ports, secrets: null });
  try {
    return buildServices(config, { ...ports, secrets: await workerSecrets(config) });
  } catch (error) {
    // SECRET_KEY missing or malformed: the rest of the tick goes on without the app's recovery.
    ports.logger.warn('could not look for unfinished token refreshes', { error: error instanceof Error ? error.message : String(error) });
    return buildServices(config, { ...ports, secrets: null });
  }
}

export { createServiceMetrics };
