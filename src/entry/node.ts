/** The Node runtime: SQLite file, fetch, node-cron and @hono/node-server wired around the core. */
import { serve } from '@hono/node-server';
import cron from 'node-cron';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { createFetchFeedClient } from '../adapters/fetch-feed-client.ts';
import { readPublicFolder } from '../adapters/public-folder.ts';
import { createSqliteStore } from '../adapters/sqlite-store.ts';
import { createPoller, type Poller, type PollResult } from '../app/poller.ts';
import type { Config } from '../config.ts';
import { createCursorCodec, randomSecret } from '../core/cursor.ts';
import type { Clock, Logger, Store } from '../core/ports.ts';
import { createApp } from '../http/app.ts';
import { openSqliteArchive } from './open-sqlite.ts';

export const USER_AGENT = 'statuswatch/0.1 (self-hosted status feed monitor)';
const systemClock: Clock = { now: () => Date.now() };

export type NodeRuntime = {
  store: Store;
  poller: Poller;
  /** Polls once, logging instead of throwing: what the scheduler calls. */
  pollSafely(): Promise<PollResult | null>;
  close(): void;
};

export function createNodeRuntime(config: Config, logger: Logger, clock: Clock = systemClock): NodeRuntime {
  const archive = openSqliteArchive(config.DATABASE_PATH);
  const store = createSqliteStore(archive.db);
  const feed = createFetchFeedClient({
    baseUrl: config.STATUS_URL,
    timeoutMs: config.POLL_TIMEOUT_MS,
    maxBytes: config.FEED_MAX_BYTES,
    userAgent: USER_AGENT,
    clock,
  });
  const poller = createPoller({
    store,
    feed,
    clock,
    logger,
    instanceId: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    newId: randomUUID,
    isLeaseHolderGone,
  });
  return {
    store,
    poller,
    async pollSafely() {
      try {
        return await poller.pollOnce();
      } catch (error) {
        logger.error('poll crashed', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
        return null;
      }
    },
    close: () => archive.close(),
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

export type RunningService = { url: string; close(): Promise<void> };

/** Serves HTTP and polls on the schedule until close(). */
export async function startService(config: Config, logger: Logger, clock: Clock = systemClock): Promise<RunningService> {
  if (!cron.validate(config.POLL_SCHEDULE)) throw new Error(`POLL_SCHEDULE: not a valid cron expression: "${config.POLL_SCHEDULE}"`);
  const runtime = createNodeRuntime(config, logger, clock);
  const cursors = await createCursorCodec(await runtime.store.secret('cursor', () => randomSecret()));
  const app = createApp({
    store: runtime.store,
    poller: runtime.poller,
    clock,
    logger,
    cursors,
    adminToken: config.ADMIN_TOKEN,
    publicUrl: config.PUBLIC_URL,
    assets: readPublicFolder(),
    startedAt: clock.now(),
  });

  const server = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const shownHost = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;

  let inFlight: Promise<unknown> = Promise.resolve();
  const poll = () => (inFlight = runtime.pollSafely());
  // noOverlap: a slow vendor never stacks polls in this process; the lease covers other processes.
  const task = cron.schedule(config.POLL_SCHEDULE, poll, { name: 'poll', noOverlap: true });
  if (config.POLL_ON_START) void poll();
  logger.info('statuswatch is serving', { url, database: config.DATABASE_PATH, feed: config.STATUS_URL, schedule: config.POLL_SCHEDULE, admin: Boolean(config.ADMIN_TOKEN) });

  return {
    url,
    async close() {
      await task.destroy();
      await inFlight;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      runtime.close();
    },
  };
}
