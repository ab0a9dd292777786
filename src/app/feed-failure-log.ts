/**
 * What the log says while the feed cannot be read: the first failed poll of an episode (and a
 * change of error) as an error with a hint, the same failure again only at debug, a reminder every
 * 15 minutes while it lasts, and one line when polls read the feed again. Before, an unreachable
 * feed wrote a warning and an error every minute with the same ENOTFOUND.
 */
import { endEpisode, recordFailure, type EpisodePolicy, type FailureEpisode } from '../core/failure-episode.ts';
import type { Logger, PollRun } from '../core/ports.ts';

/** Polls run on their schedule, so there is no retry delay to decide: only when to remind. */
const FEED_FAILURE_POLICY: EpisodePolicy = { firstRetryMs: 0, maxRetryMs: 0, remindEveryMs: 15 * 60_000 };

export type FeedFailureLog = {
  failed(run: PollRun): void;
  read(run: PollRun): void;
};

const HINT = "check this machine's network and DNS, and that STATUS_URL is the vendor's status host";

export function createFeedFailureLog(logger: Logger): FeedFailureLog {
  let episode: FailureEpisode | null = null;
  return {
    failed(run) {
      const reason = run.error ?? 'no endpoint could be read';
      const step = recordFailure(episode, { reason, now: run.startedAt }, FEED_FAILURE_POLICY);
      episode = step.episode;
      const fields = { run: run.id, error: reason, failedPolls: step.episode.failures };
      if (step.log === 'started' || step.log === 'changed') logger.error('poll failed', { ...fields, hint: HINT });
      else if (step.log === 'reminder') logger.warn('polls still failing', { ...fields, failingForMs: run.startedAt - step.episode.since, hint: HINT });
      else logger.debug('poll failed', fields);
    },
    read(run) {
      const ended = endEpisode(episode, run.startedAt);
      episode = null;
      if (ended) logger.info('polls read the feed again', { run: run.id, after: ended.reason, failedPolls: ended.failures, failedForMs: ended.lastedMs });
    },
  };
}
