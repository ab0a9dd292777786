/**
 * Logs a background activity that keeps failing on its store (delivery, polling) as one episode:
 * "<activity> paused: disk full" once, a reminder now and then, "<activity> resumed" at the end,
 * instead of a stack per try. The decisions are core/failure-episode.ts's.
 */
import { endEpisode, recordFailure, type EpisodePolicy, type FailureEpisode } from '../core/failure-episode.ts';
import type { Clock, Logger } from '../core/ports.ts';
import { describeStoreFailure } from '../core/store-failure.ts';

/** Retries 1, 2, 4 ... 30 s apart; a reminder every 5 minutes while it lasts. */
export const STORE_FAILURE_POLICY: EpisodePolicy = { firstRetryMs: 1_000, maxRetryMs: 30_000, remindEveryMs: 5 * 60_000 };

export type FailureReporter = {
  /** Logs what the episode calls for; returns how long to wait before trying again. */
  failed(error: unknown): number;
  succeeded(): void;
};

export function createFailureReporter(options: {
  activity: string;
  logger: Logger;
  clock: Clock;
  /** False when a schedule, not the returned delay, decides when to try again: the log does not promise a retry time. */
  backsOff: boolean;
  policy?: EpisodePolicy;
}): FailureReporter {
  const { activity, logger, clock } = options;
  const policy = options.policy ?? STORE_FAILURE_POLICY;
  let episode: FailureEpisode | null = null;
  return {
    failed(error) {
      const failure = describeStoreFailure(error);
      const now = clock.now();
      const step = recordFailure(episode, { reason: failure.reason, now }, policy);
      episode = step.episode;
      const fields = { error: failure.message, failures: step.episode.failures, ...(options.backsOff ? { retryInMs: step.retryInMs } : {}) };
      if (step.log === 'reminder') {
        logger.warn(`${activity} still paused: ${failure.reason}`, { ...fields, pausedForMs: now - step.episode.since });
      } else if (step.log) {
        // A stack only for what is not a known store condition (a bug), and only on this line.
        const stack = !failure.known && error instanceof Error && error.stack ? { stack: error.stack } : {};
        logger.error(`${activity} paused: ${failure.reason}`, { ...fields, ...stack });
      }
      return step.retryInMs;
    },
    succeeded() {
      const ended = endEpisode(episode, clock.now());
      episode = null;
      if (ended) logger.info(`${activity} resumed`, { after: ended.reason, failures: ended.failures, pausedForMs: ended.lastedMs });
    },
  };
}
