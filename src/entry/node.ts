/** The Node runtime: SQLite file, fetch, node-cron and @hono/node-server wired around the core. */
import { getConnInfo } from '@hono/node-server/conninfo';
import cron from 'node-cron';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { createFetchFeedClient } from '../adapters/fetch-feed-client.ts';
import { sanitizeNoteHtml } from '../adapters/html-sanitizer.ts';
import { readPublicFolder } from '../adapters/public-folder.ts';
import { nodeHashes } from '../adapters/node-hashes.ts';
import { createGuardedFetch } from '../adapters/guarded-fetch.ts';
import { createHttpWebhookSender } from '../adapters/http-webhook-sender.ts';
import { startNodeDeliveryScheduler, type NodeDeliveryScheduler } from '../adapters/node-delivery-scheduler.ts';
import { createNodeHttpServer } from '../adapters/node-http-server.ts';
import { NO_SECRET_BOX, openSecretBox } from '../adapters/secret-key-file.ts';
import { checkWebhookUrl } from '../adapters/webhook-target-guard.ts';
import { createFailureReporter } from '../app/failure-reporter.ts';
import type { SubscriptionService } from '../app/subscriptions.ts';
import type { Poller, PollResult } from '../app/poller.ts';
import type { SourcePollResult } from '../app/source-poller.ts';
import { settingError, type Config } from '../config.ts';
import { listenError } from './listen-error.ts';
import type { PruneCounts } from '../core/retention.ts';
import type { Clock, Logger, OutboxSignal, Store } from '../core/ports.ts';
import { createApp } from '../http/app.ts';
import { cronLogger } from '../adapters/cron-logger.ts';
import { createNodeMailer } from './node-mailer.ts';
import { boundHeapGrowth } from './node-heap.ts';
import { createInFlightCalls, SHUTDOWN_ABORT_MS, SHUTDOWN_SETTLE_MS, unfinishedAfter, type Work } from './node-shutdown.ts';
import { openSqliteArchive } from './open-sqlite.ts';
import { buildServices, createAppDeps, type RuntimePorts, type Services } from './services.ts';
import { checkpointInBackground } from './wal-checkpoints.ts';

export const USER_AGENT = 'statuswatch/0.1 (self-hosted status feed monitor)';
const systemClock: Clock = { now: () => Date.now() };
/** Retention runs at start and every ten minutes: nothing it removes grows faster than that matters. */
const PRUNE_SCHEDULE = '*/10 * * * *';
/** Group subscriptions' scheduled sync looks every minute for member lists older than SCIM_SYNC_SECONDS. */
const GROUP_SYNC_SCHEDULE = '* * * * *';

export type NodeRuntime = {
  /** What buildServices made from this runtime's ports; the fields below name the ones commands use. */
  services: Services;
  ports: RuntimePorts;
  store: Store;
  poller: Poller;
  subscriptions: SubscriptionService;
  /** Syncs the groups whose member lists are older than SCIM_SYNC_SECONDS, logging instead of throwing. */
  syncGroupsSafely(): Promise<void>;
  /** Told when deliveries were written: wakes the scheduler once it is started. */
  outbox: OutboxSignal;
  /** Sends the outbox on Node's timers; started by startService, or by hand (tests). */
  startDelivering(): NodeDeliveryScheduler;
  /** Polls once, logging instead of throwing: what the scheduler calls. */
  pollSafely(): Promise<PollResult | null>;
  /** Polls every source beside the main feed; null when they could not even be listed. */
  pollSourcesSafely(): Promise<SourcePollResult[] | null>;
  /** Prunes what retention no longer keeps, logging instead of throwing: what the scheduler calls. */
  pruneSafely(): Promise<PruneCounts | null>;
  /**
   * Cuts the webhook and SMTP connections open now: sends in flight end as failed attempts, and
   * no send goes out after it. For a stop that cannot wait for a receiver that never answers.
   */
  cutSends(): Promise<void>;
  close(): Promise<void>;
};

export type NodeRuntimeOptions = {
  /** false for commands that never seal or open a secret (`poll`): no key file is made for them. */
  keepsSecrets?: boolean;
  /** For a process that serves: WAL checkpoints on a thread of their own (wal-checkpoints.ts). */
  checkpointsInBackground?: boolean;
};

export async function createNodeRuntime(config: Config, logger: Logger, clock: Clock = systemClock, options: NodeRuntimeOptions = {}): Promise<NodeRuntime> {
  const archive = openSqliteArchive(config.DATABASE_PATH);
  const checkpoints =
    options.checkpointsInBackground && config.DATABASE_PATH !== ':memory:'
      ? checkpointInBackground({ sqlite: archive.sqlite, path: config.DATABASE_PATH }, { logger, clock })
      : null;
  let scheduler: NodeDeliveryScheduler | null = null;
  // Bound before the scheduler exists: a command that never delivers (`poll`) has none to wake.
  const outbox: OutboxSignal = { outboxChanged: () => scheduler?.outboxChanged() };
  const mailer = createNodeMailer(config);
  // Aborted as the open sends are cut: group syncs end with them (group-sync.ts).
  const stopping = new AbortController();
  const keepsSecrets = options.keepsSecrets !== false;
  const secrets = keepsSecrets ? await openSecretBox(config.SECRET_KEY, config.DATABASE_PATH, logger) : NO_SECRET_BOX;
  const webhooks = createHttpWebhookSender({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, userAgent: USER_AGENT, clock });
  const sourceFetch = createGuardedFetch({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, connectTimeoutMs: config.POLL_TIMEOUT_MS });
  const ports: RuntimePorts = {
    connection: archive.connection,
    feed: createFetchFeedClient({
      baseUrl: config.STATUS_URL,
      timeoutMs: config.POLL_TIMEOUT_MS,
      maxBytes: config.FEED_MAX_BYTES,
      userAgent: USER_AGENT,
      clock,
    }),
    webhooks,
    sourceFetch,
    userAgent: USER_AGENT,
    hashes: nodeHashes,
    checkWebhookTarget: checkWebhookUrl,
    mailer,
    clock,
    logger,
    outbox,
    instanceId: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    leases: { isHolderGone: isLeaseHolderGone },
    sanitizeHtml: sanitizeNoteHtml,
    localOrigin: `http://localhost:${config.PORT}`,
    stopSignal: stopping.signal,
    workspaceApp: keepsSecrets,
  };
  const services = buildServices(config, { ...ports, secrets });
  const { store, poller, groups, deliveries } = services;
  // A poll that throws could not use the archive at all (the lease write failed: disk full, locked):
  // said once per episode, not with a stack every minute. The schedule decides when to try again.
  const pollFailures = createFailureReporter({ activity: 'polling', logger, clock, backsOff: false });
  let sendsCut: Promise<void> | null = null;
  const cutSends = () =>
    (sendsCut ??= (async () => {
      stopping.abort();
      mailer?.close();
      await Promise.all([webhooks.close(), sourceFetch.close()]);
    })());
  return {
    services,
    ports,
    store,
    poller,
    subscriptions: services.subscriptions,
    async syncGroupsSafely() {
      try {
        await groups.sync.syncDue();
      } catch (error) {
        // Only the database can make a round throw (a directory failure is a failed sync, kept and logged).
        logger.error('group sync round failed', { error: error instanceof Error ? error.message : String(error) });
      }
    },
    outbox,
    startDelivering: () => (scheduler ??= startNodeDeliveryScheduler({ due: deliveries, clock })),
    async pollSafely() {
      try {
        const result = await poller.pollOnce();
        pollFailures.succeeded();
        return result;
      } catch (error) {
        pollFailures.failed(error);
        return null;
      }
    },
    /** Every source, each on its own; a throw here could not even list them (the database). */
    async pollSourcesSafely() {
      try {
        return await services.sourcePoller.pollAll();
      } catch (error) {
        logger.error('source polls failed', { error: error instanceof Error ? error.message : String(error) });
        return null;
      }
    },
    async pruneSafely() {
      try {
        return await services.pruner.pruneExpired(clock.now());
      } catch (error) {
        // A busy or full database: what was not pruned now is pruned by the next run.
        logger.error('prune failed', { error: error instanceof Error ? error.message : String(error) });
        return null;
      }
    },
    cutSends,
    async close() {
      await scheduler?.stop();
      await cutSends();
      await checkpoints?.stop();
      archive.close();
    },
  };
}

/** A holder named `host:pid:...` on this host whose process no longer exists. */
export function isLeaseHolderGone(holder: string): boolean {
  const [host, pidText] = holder.split(':');
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export type RunningService = {
  url: string;
  /** Runs a delivery round now and resolves when it is done (tests; the scheduler runs on its own). */
  deliverNow(): Promise<void>;
  /**
   * Stops within SHUTDOWN_SETTLE_MS + SHUTDOWN_ABORT_MS (node-shutdown.ts) whatever outside
   * parties do, and logs the work it gave up on; the archive stays open while such work runs.
   */
  close(): Promise<void>;
};

/** Serves HTTP and polls on the schedule until close(). */
export async function startService(config: Config, logger: Logger, clock: Clock = systemClock): Promise<RunningService> {
  if (!cron.validate(config.POLL_SCHEDULE)) {
    throw settingError(
      'POLL_SCHEDULE',
      config.POLL_SCHEDULE,
      'not a valid cron expression (a step of 0, or a value out of range)',
      'use five fields such as "* * * * *" (every minute) or six with seconds first, such as "*/10 * * * * *"',
    );
  }
  boundHeapGrowth();
  const runtime = await createNodeRuntime(config, logger, clock, { checkpointsInBackground: true });
  const delivery = runtime.startDelivering();
  const app = createApp(
    await createAppDeps(config, runtime.services, runtime.ports, {
      assets: readPublicFolder(),
      startedAt: clock.now(),
      // The socket's peer; X-Forwarded-For is not trusted, as any client could write it.
      peerAddress: (c) => getConnInfo(c).remote.address,
    }),
  );

  // Counted so a stop can wait for the requests it lets finish (an admin's sync, a poll now).
  const requests = createInFlightCalls();
  const server = createNodeHttpServer({ fetch: (request, env) => requests.track(Promise.resolve(app.fetch(request, env))), hostname: config.HOST, logger });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
      server.listen(config.PORT, config.HOST);
    });
  } catch (error) {
    // Nothing may keep the process alive after a failed start: the delivery scheduler stops too.
    await runtime.close();
    throw listenError(error, config);
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const shownHost = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;

  // The poller runs one poll at a time: the schedule, the poll at start and the admin route share it.
  let inFlight: Promise<unknown> = Promise.resolve();
  const poll = () => (inFlight = runtime.pollSafely());
  const task = cron.schedule(config.POLL_SCHEDULE, poll, { name: 'poll', noOverlap: true, logger: cronLogger(logger, 'poll') });
  if (config.POLL_ON_START) void poll();
  // The sources on a schedule of their own, beside the main feed's: a slow page never delays it.
  let sourcesInFlight: Promise<unknown> = Promise.resolve();
  const pollSources = () => (sourcesInFlight = runtime.pollSourcesSafely());
  const sourcesTask = cron.schedule(config.POLL_SCHEDULE, pollSources, { name: 'poll-sources', noOverlap: true, logger: cronLogger(logger, 'poll-sources') });
  if (config.POLL_ON_START) void pollSources();
  // A refresh that a crashed process claimed is retried now, while the vendor's grace lasts.
  const recovering = runtime.services.workspaceApp?.recoverUnfinishedRefreshes();
  let pruning: Promise<unknown> = Promise.resolve();
  const prune = () => (pruning = runtime.pruneSafely());
  // Several processes on one file may each prune: the deletes are idempotent, and each batch is short.
  const pruneTask = cron.schedule(PRUNE_SCHEDULE, prune, { name: 'prune', noOverlap: true, logger: cronLogger(logger, 'prune') });
  void prune();
  // Every minute; SCIM_SYNC_SECONDS decides which groups are due, so a round is usually empty.
  let syncing: Promise<unknown> = Promise.resolve();
  const syncTask = cron.schedule(GROUP_SYNC_SCHEDULE, () => (syncing = runtime.syncGroupsSafely()), {
    name: 'scim-sync',
    noOverlap: true,
    logger: cronLogger(logger, 'scim-sync'),
  });
  logger.info('statuswatch is serving', {
    url,
    database: config.DATABASE_PATH,
    feed: config.STATUS_URL,
    schedule: config.POLL_SCHEDULE,
    admin: Boolean(config.ADMIN_TOKEN),
  });

  return {
    url,
    deliverNow: () => delivery.settled(),
    async close() {
      // No new work: no scheduled run starts, no connection is accepted, idle ones are closed.
      await task.destroy();
      await sourcesTask.destroy();
      await pruneTask.destroy();
      await syncTask.destroy();
      const connectionsClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const work: Work[] = [
        { name: 'poll', done: inFlight },
        { name: 'source polls', done: sourcesInFlight },
        { name: 'retention', done: pruning },
        { name: 'group sync', done: syncing },
        { name: 'token refresh recovery', done: recovering ?? Promise.resolve() },
        { name: 'delivery round', done: delivery.stop() },
        { name: 'HTTP requests', done: Promise.all([requests.settled(), connectionsClosed]) },
      ];
      let unfinished = await unfinishedAfter(work, SHUTDOWN_SETTLE_MS);
      if (unfinished.length > 0) {
        logger.info('stopping: cutting open sends and connections', { waitingFor: unfinished, requests: requests.count() });
        await runtime.cutSends();
        server.closeAllConnections();
        unfinished = await unfinishedAfter(
          work.filter((w) => unfinished.includes(w.name)),
          SHUTDOWN_ABORT_MS,
        );
      }
      if (unfinished.length > 0) {
        logger.warn('stopped without finishing; the outbox sends again what was in flight', { abandoned: unfinished });
        return;
      }
      await runtime.close();
    },
  };
}
