/**
 * What statuswatch knows about the vendor right now: every public face renders from this, so none
 * says "all clear" from a feed it has not read. Pure: the caller passes the clock.
 */

/**
 * The last successful read older than this, the data is stale: /healthz answers 503, and every
 * face says "unknown" instead of a state. Five minutes is five missed polls at the default schedule.
 */
export const STALE_AFTER_MS = 5 * 60_000;

/**
 * - `known`: the feed was read within the limit; what the archive says is the state.
 * - `never-read`: no poll has ever read the feed: the archive says nothing about now.
 * - `stale`: the last good read (`since`) is older than the limit: the archive says how things
 *   stood then, not now.
 */
export type Knowledge =
  /**
   * `readsFailing`: the latest reads failed, though the last good one is within the limit: the
   * state is still shown, as of `lastSuccessAt` and said so (readsFailingWords), never as plain now.
   */
  { kind: 'known'; lastSuccessAt: number; readsFailing: boolean } | { kind: 'never-read' } | { kind: 'stale'; since: number };

export type KnowledgeInput = {
  /** feedHealth().lastSuccessAt: the last poll that read the feed, epoch ms. */
  lastSuccessAt: number | null;
  now: number;
  staleAfterMs?: number;
  /** feedHealth().consecutiveFailures: reads that failed since the last good one. */
  consecutiveFailures?: number;
};

export function assessKnowledge({ lastSuccessAt, now, staleAfterMs = STALE_AFTER_MS, consecutiveFailures = 0 }: KnowledgeInput): Knowledge {
  if (lastSuccessAt === null) return { kind: 'never-read' };
  if (now - lastSuccessAt >= staleAfterMs) return { kind: 'stale', since: lastSuccessAt };
  return { kind: 'known', lastSuccessAt, readsFailing: consecutiveFailures > 0 };
}

/**
 * What every face says while the latest reads failed but the last good one is recent: the state it
 * shows is as of that read. `at` is the last good read, in the face's own time format.
 */
export function readsFailingWords(at: string): string {
  return `${READS_FAILING_WORDS.before}${at}${READS_FAILING_WORDS.after}`;
}

/** The sentence around the time, for a face that marks the time up (the dashboard's <time>). */
export const READS_FAILING_WORDS = { before: 'As of ', after: ", the last good read of the vendor's feed: the reads since failed." } as const;

/** The last good read while blind (null: never), for "no data since …". */
export function blindSince(knowledge: Knowledge): number | null {
  return knowledge.kind === 'stale' ? knowledge.since : null;
}
