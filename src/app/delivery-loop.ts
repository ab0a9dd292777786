/**
 * Runs the deliverer: at once when woken (a poll wrote deliveries, an admin replayed one), and
 * otherwise when the next retry is due, checking at least every IDLE_CHECK_MS for work written by
 * other processes. One round at a time.
 */
import type { Deliverer } from './deliverer.ts';
import { endEpisode, recordFailure, type EpisodePolicy, type FailureEpisode } from '../core/failure-episode.ts';
import type { Clock, Logger, NotificationStore } from '../core/ports.ts';
import { describeStoreFailure } from '../core/store-failure.ts';

const IDLE_CHECK_MS = 5_000;
const MIN_SLEEP_MS = 50;
/**
 * A round that throws failed in the store (sending failures are recorded, not thrown): while the
 * disk is full, retrying every 50 ms logged a stack ~9 times a second and kept the disk busy.
 */
export const STORE_FAILURE_POLICY: EpisodePolicy = { firstRetryMs: 1_000, maxRetryMs: 30_000, remindEveryMs: 5 * 60_000 };

export type DeliveryLoop = {
  wake(): void;
  /** Resolves when the loop is idle: for tests and a clean shutdown. */
  stop(): Promise<void>;
  /** Resolves after the next full round: for tests. */
  settled(): Promise<void>;
};

export function startDeliveryLoop(options: {
  deliverer: Deliverer;
  store: NotificationStore;
  clock: Clock;
  logger: Logger;
  failurePolicy?: EpisodePolicy;
}): DeliveryLoop {
  const { deliverer, store, clock, logger } = options;
  const failurePolicy = options.failurePolicy ?? STORE_FAILURE_POLICY;
  let episode: FailureEpisode | null = null;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let waiters: (() => void)[] = [];

  const schedule = (delayMs: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, Math.max(MIN_SLEEP_MS, delayMs));
    timer.unref?.();
  };

  /** One round; when it fails, how long to wait before the next (the backoff), else null. */
  async function round(): Promise<number | null> {
    try {
      await deliverer.deliverDue();
    } catch (error) {
      return recordRoundFailure(error);
    }
    const ended = endEpisode(episode, clock.now());
    episode = null;
    if (ended) logger.info('delivery resumed', { after: ended.reason, failedRounds: ended.failures, pausedForMs: ended.lastedMs });
    return null;
  }

  function recordRoundFailure(error: unknown): number {
    const failure = describeStoreFailure(error);
    const step = recordFailure(episode, { reason: failure.reason, now: clock.now() }, failurePolicy);
    episode = step.episode;
    const fields = { error: failure.message, failedRounds: step.episode.failures, retryInMs: step.retryInMs };
    if (step.log === 'reminder') {
      logger.warn(`delivery still paused: ${failure.reason}`, { ...fields, pausedForMs: clock.now() - step.episode.since });
    } else if (step.log) {
      // A stack only for what is not a known store condition (a bug), and only on this one line.
      const stack = !failure.known && error instanceof Error && error.stack ? { stack: error.stack } : {};
      logger.error(`delivery paused: ${failure.reason}`, { ...fields, ...stack });
    }
    return step.retryInMs;
  }

  function run(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = round().then(async (retryInMs) => {
      running = null;
      if (again) {
        again = false;
        return run();
      }
      const done = waiters;
      waiters = [];
      for (const resolve of done) resolve();
      if (retryInMs !== null) return schedule(retryInMs);
      let nextDue: number | null = null;
      try {
        nextDue = await store.nextDueAt();
      } catch {
        // The next idle check tries again.
      }
      schedule(nextDue === null ? IDLE_CHECK_MS : Math.min(IDLE_CHECK_MS, nextDue - clock.now()));
    });
  }

  schedule(0);
  return {
    wake: () => {
      if (timer) clearTimeout(timer);
      timer = null;
      run();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      for (const resolve of waiters) resolve();
    },
    settled() {
      return new Promise<void>((resolve) => {
        waiters.push(resolve);
        run();
      });
    },
  };
}
