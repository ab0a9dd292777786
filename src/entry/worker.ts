/**
 * The Cloudflare Workers runtime: `fetch` serves the same Hono app as Node, `scheduled` (a Cron
 * Trigger every minute) polls and wakes the delivery queue, `queue` sends one bounded round of the
 * outbox. D1 holds everything that must be right across isolates; the Queue only says "look".
 */
import { waitUntil } from 'cloudflare:workers';
import type { Hono } from 'hono';
import type { OutboxWakeUp } from '../adapters/queue-outbox-signal.ts';
import { ConfigError } from '../config.ts';
import { askForSourcePolls, isSourcePollRequest, pollAskedSources } from '../app/source-spread.ts';
import type { Clock, OutboxStore, SourcePollRequest } from '../core/ports.ts';
import { createApp } from '../http/app.ts';
import { buildServices, createAppDeps } from './services.ts';
import { createServiceMetrics, createWorkerRuntime, QUEUE_ROUND_MAX_DELIVERIES, cronServices, workerSecrets, type WorkerRuntime } from './worker-runtime.ts';

/** The bindings of wrangler.toml, and the settings by Node's names (`[vars]` and secrets). */
export type WorkerEnv = {
  DB: D1Database;
  DELIVERIES: Queue<OutboxWakeUp>;
  /** The sources queue: one poll request per source each tick. Without it, a few sources per tick. */
  SOURCES?: Queue<SourcePollRequest>;
} & Record<string, unknown>;

/** Retention runs on the cron ticks of every tenth minute, as Node's `*\/10 * * * *`. */
const PRUNE_EVERY_MINUTES = 10;
/**
 * Sources a cron tick polls itself when there is no sources queue (the Free plan): a source's
 * full read costs 12 subrequests (3 fetches, 9 D1 calls, measured), a quiet one 3, and the tick
 * shares its 50 with the main feed's poll (up to 8), retention on every tenth minute (11), the
 * group sync and a wake-up: 3 full reads would not fit that minute. With more sources, each is polled every
 * ceil(sources / this) minutes, longest-waiting first.
 */
const WORKER_SOURCES_PER_TICK = 2;

// One app per isolate (per env object): its response cache and memos are only ever served while
// the archive generation read from D1 is the one they were built at, so a stale isolate cannot
// serve an older archive. Rate limits, admin sessions and the guess throttle are rows in D1.
const apps = new WeakMap<object, Promise<Hono>>();
const metrics = createServiceMetrics();

/**
 * Made on first use: workerd refuses random values at module scope, and a clock read there says
 * nothing about when the isolate began serving.
 */
let isolate: { id: string; startedAt: number } | null = null;
function thisIsolate(): { id: string; startedAt: number } {
  isolate ??= { id: crypto.randomUUID().slice(0, 8), startedAt: Date.now() };
  return isolate;
}

async function buildApp(env: WorkerEnv): Promise<Hono> {
  const runtime = createWorkerRuntime(env, { instanceId: `worker:${thisIsolate().id}:http`, keepAlive: waitUntil, metrics });
  const services = buildServices(runtime.config, { ...runtime.ports, secrets: await workerSecrets(runtime.config) });
  return createApp(
    await createAppDeps(runtime.config, services, runtime.ports, {
      // public/ is served by Workers Static Assets (wrangler.toml [assets]) before this Worker runs.
      assets: new Map(),
      startedAt: thisIsolate().startedAt,
      // Cloudflare sets CF-Connecting-IP to the client's address and overwrites what a client sent.
      peerAddress: (c) => c.req.header('cf-connecting-ip'),
    }),
  );
}

function appFor(env: WorkerEnv): Promise<Hono> {
  let app = apps.get(env);
  if (!app) {
    app = buildApp(env);
    apps.set(env, app);
    // A failed build (a bad setting, D1 unreachable) is not kept: the next request tries again.
    app.catch(() => apps.delete(env));
  }
  return app;
}

/**
 * The app could not be built: a setting is wrong, or D1 cannot be read (not migrated yet, or
 * failing). The one error shape, with the reason in the log, not in the answer; never a bare 500.
 */
function cannotServe(error: unknown): Response {
  const configProblem = error instanceof ConfigError;
  const reason = error instanceof Error ? error.message : String(error);
  console.error(
    JSON.stringify({ level: 'error', msg: configProblem ? 'statuswatch is misconfigured' : 'statuswatch cannot read its database', error: reason }),
  );
  const body = configProblem
    ? { ok: false, error: 'misconfigured', detail: 'a setting of this Worker is missing or invalid; its log says which' }
    : { ok: false, error: 'storage_unavailable', detail: 'the database cannot be used right now (are the migrations applied?); try again later' };
  return Response.json(body, { status: 503, headers: { 'retry-after': configProblem ? '60' : '30' } });
}

function newInstanceId(role: string): string {
  return `worker:${thisIsolate().id}:${role}:${crypto.randomUUID().slice(0, 8)}`;
}

/** After a poll or a round: one wake-up when deliveries are due now (retries, or work left over). */
async function wakeIfDue(runtime: WorkerRuntime, store: Pick<OutboxStore, 'nextDueAt'>, clock: Clock): Promise<void> {
  const nextDueAt = await store.nextDueAt();
  if (nextDueAt !== null && nextDueAt <= clock.now()) runtime.outbox.outboxChanged();
  await runtime.outbox.settled();
}

export default {
  async fetch(request, env, ctx) {
    let app: Hono;
    try {
      app = await appFor(env);
    } catch (error) {
      return cannotServe(error);
    }
    return app.fetch(request, env, ctx);
  },

  async scheduled(controller, env, ctx) {
    const runtime = createWorkerRuntime(env, { instanceId: newInstanceId('cron'), keepAlive: (p) => ctx.waitUntil(p), quietPollRecordAfterAnswer: true });
    const { store, poller, sourcePoller, pruner, groups, workspaceApp } = await cronServices(runtime);
    const { logger, clock } = runtime.ports;
    const pollMain = async () => {
      try {
        // The lease in D1 lets one poll run at a time, across invocations and isolates.
        const result = await poller.pollOnce();
        if (result.status === 'skipped') logger.info('poll skipped: another invocation holds the lease');
      } catch (error) {
        logger.error('poll failed', { error: error instanceof Error ? error.message : String(error) });
      }
    };
    // The main feed first, so the sources' reads never spend the invocation's subrequests before
    // it. Then every source is asked for on the sources queue, one message each, polled by the
    // queue's invocations with budgets of their own; without that queue, the sources polled
    // longest ago, a few a tick, each under its own lease.
    await pollMain();
    try {
      if (env.SOURCES) await askForSourcePolls({ store, queue: env.SOURCES, clock });
      else await sourcePoller.pollAll({ atMost: WORKER_SOURCES_PER_TICK });
    } catch (error) {
      logger.error('source polls failed', { error: error instanceof Error ? error.message : String(error) });
    }
    if (new Date(controller.scheduledTime).getUTCMinutes() % PRUNE_EVERY_MINUTES === 0) {
      try {
        await pruner.pruneExpired(clock.now());
      } catch (error) {
        logger.error('prune failed', { error: error instanceof Error ? error.message : String(error) });
      }
    }
    // A refresh a killed invocation left claimed is retried while the vendor's grace may last.
    // The look logs its own failures.
    await workspaceApp?.recoverUnfinishedRefreshes();
    // Group subscriptions: the groups whose member lists are older than SCIM_SYNC_SECONDS.
    try {
      await groups.sync.syncDue();
    } catch (error) {
      logger.error('group sync round failed', { error: error instanceof Error ? error.message : String(error) });
    }
    // The safety net of the queue: whatever is due now (a retry, a lost message, a claim of a
    // killed invocation that expired) gets a wake-up within a minute.
    await wakeIfDue(runtime, store, clock);
  },

  async queue(batch, env, ctx) {
    if (batch.messages.length > 0 && batch.messages.every((m) => isSourcePollRequest(m.body))) {
      // The sources queue: each message its source's poll, side by side, answered one by one.
      const runtime = createWorkerRuntime(env, { instanceId: newInstanceId('sources'), keepAlive: (p) => ctx.waitUntil(p) });
      const { sourcePoller } = await cronServices(runtime);
      const outcomes = await pollAskedSources(
        { sourcePoller, logger: runtime.ports.logger },
        batch.messages.map((m) => m.body as SourcePollRequest),
      );
      for (const [index, message] of batch.messages.entries()) {
        if (outcomes[index]?.answer === 'retry') message.retry();
        else message.ack();
      }
      await runtime.outbox.settled();
      return;
    }
    // However many wake-ups came together, one bounded round: they all mean "look at the outbox".
    const runtime = createWorkerRuntime(env, {
      instanceId: newInstanceId('queue'),
      keepAlive: (p) => ctx.waitUntil(p),
      maxClaimsPerRound: QUEUE_ROUND_MAX_DELIVERIES,
    });
    const { deliveries } = buildServices(runtime.config, { ...runtime.ports, secrets: await workerSecrets(runtime.config) });
    const { clock } = runtime.ports;
    const result = await deliveries.deliverDue();
    if (result.kind === 'store_failed') {
      // D1 failed: the messages come back after the backoff; after max_retries they go to the
      // dead-letter queue, and the cron tick still finds the outbox rows.
      batch.retryAll({ delaySeconds: Math.max(1, Math.ceil((result.nextDueAt - clock.now()) / 1000)) });
      return;
    }
    // Work left over (more than one round's worth, or due during the round) wakes the next round.
    if (result.nextDueAt !== null && result.nextDueAt <= clock.now()) runtime.outbox.outboxChanged();
    await runtime.outbox.settled();
    batch.ackAll();
  },
} satisfies ExportedHandler<WorkerEnv, OutboxWakeUp | SourcePollRequest>;
