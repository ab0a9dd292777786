/**
 * A failure that repeats (the disk is full, the database stays locked) as one episode: it decides,
 * from the time and the failure, whether a log line is due and how long to wait before trying
 * again. One line when the episode starts or its reason changes, a reminder now and then, one
 * when it ends; retries back off exponentially up to a cap.
 */

export type FailureEpisode = {
  reason: string;
  since: number;
  failures: number;
  lastLoggedAt: number;
  lastFailedAt: number;
};

export type EpisodePolicy = {
  /** The wait after the first failure; it doubles with each failure after it. */
  firstRetryMs: number;
  maxRetryMs: number;
  /** While the episode lasts, a line this often says it still does. */
  remindEveryMs: number;
  /**
   * For callers that never see a success (an HTTP error handler sees only failures): a failure
   * this long after the last one starts a new episode.
   */
  forgetAfterMs?: number;
};

export type FailureStep = {
  episode: FailureEpisode;
  /** started: a new episode; changed: the reason changed; reminder: still failing; null: stay quiet. */
  log: 'started' | 'changed' | 'reminder' | null;
  retryInMs: number;
};

export type EpisodeEnd = { reason: string; failures: number; lastedMs: number };

export function recordFailure(episode: FailureEpisode | null, failure: { reason: string; now: number }, policy: EpisodePolicy): FailureStep {
  const { reason, now } = failure;
  const forgotten = episode !== null && policy.forgetAfterMs !== undefined && now - episode.lastFailedAt >= policy.forgetAfterMs;
  if (!episode || forgotten) {
    return { episode: { reason, since: now, failures: 1, lastLoggedAt: now, lastFailedAt: now }, log: 'started', retryInMs: retryDelayMs(1, policy) };
  }
  const failures = episode.failures + 1;
  const retryInMs = retryDelayMs(failures, policy);
  const next = { ...episode, failures, lastFailedAt: now };
  if (reason !== episode.reason) return { episode: { ...next, reason, lastLoggedAt: now }, log: 'changed', retryInMs };
  if (now - episode.lastLoggedAt >= policy.remindEveryMs) return { episode: { ...next, lastLoggedAt: now }, log: 'reminder', retryInMs };
  return { episode: next, log: null, retryInMs };
}

/** What to say when an episode ends; null when there was none. */
export function endEpisode(episode: FailureEpisode | null, now: number): EpisodeEnd | null {
  return episode ? { reason: episode.reason, failures: episode.failures, lastedMs: now - episode.since } : null;
}

function retryDelayMs(failures: number, policy: EpisodePolicy): number {
  // Capped before doubling overflows: 2 ** 60 ms is already far past any cap.
  return Math.min(policy.maxRetryMs, policy.firstRetryMs * 2 ** Math.min(failures - 1, 60));
}
