/**
 * Retention in SQLite: the RetentionStore port. Each prune is a fixed list of statements in one
 * transaction whose subqueries pick at most `limit` rows, so it maps to one D1 batch unchanged
 * (no read, branch, then write); each but the size cap seeks an index instead of scanning.
 */
import type { Statement } from 'better-sqlite3';
import type { RetentionStore } from '../core/ports.ts';
import type { SqliteDatabase } from './sqlite-statements.ts';

/**
 * Poll runs that may go: old, and neither the newest run (/healthz's last poll) nor the newest
 * success (its last success time), by start time. Each max() is one seek in an index; `outcome IN
 * (...)` would have read every success. Named once, used by both deletes of a batch: within one
 * transaction the same query picks the same rows.
 */
const OLD_POLL_RUNS = `
  SELECT id FROM poll_runs
  WHERE started_ms < @beforeMs
    AND started_ms <> (SELECT max(started_ms) FROM poll_runs)
    AND started_ms <> max(coalesce((SELECT max(started_ms) FROM poll_runs WHERE outcome = 'ok'), -1),
                          coalesce((SELECT max(started_ms) FROM poll_runs WHERE outcome = 'partial'), -1))
  ORDER BY started_ms LIMIT @limit`;

const STALE_BODIES = `SELECT hash FROM rejected_bodies WHERE last_seen_ms < @beforeMs ORDER BY last_seen_ms LIMIT @limit`;

/**
 * Bodies beyond the size cap: a running total newest first, and a body goes when it and the
 * newer ones exceed the cap, unless it is the newest (nothing newer was counted before it). A
 * scan, but of a table the cap and the age keep small.
 */
const OVERSIZE_BODIES = `
  SELECT hash FROM (
    SELECT hash, bytes, last_seen_ms,
           sum(bytes) OVER (ORDER BY last_seen_ms DESC, hash DESC ROWS UNBOUNDED PRECEDING) AS total
    FROM rejected_bodies)
  WHERE total > @maxBytes AND total > bytes
  ORDER BY last_seen_ms LIMIT @limit`;

/** Every prune statement, exported so a test can check each one's query plan. */
export const PRUNE_SQL = {
  pollRunRejections: `DELETE FROM poll_run_rejections WHERE poll_run_id IN (${OLD_POLL_RUNS})`,
  pollRuns: `DELETE FROM poll_runs WHERE id IN (${OLD_POLL_RUNS})`,
  // A batch picks its bodies once per statement pair: texts first, then their counters, which the
  // same query still finds (it reads only the counters).
  staleTexts: `DELETE FROM rejected_body_texts WHERE hash IN (${STALE_BODIES})`,
  staleBodies: `DELETE FROM rejected_bodies WHERE hash IN (${STALE_BODIES})`,
  oversizeTexts: `DELETE FROM rejected_body_texts WHERE hash IN (${OVERSIZE_BODIES})`,
  oversizeBodies: `DELETE FROM rejected_bodies WHERE hash IN (${OVERSIZE_BODIES})`,
  // A sign-up whose every confirmation link expired can never be confirmed ("sign up again" makes
  // a new one); its tokens expire and go below. INDEXED BY: without statistics the planner took
  // subscriptions_status and sorted every pending row for each batch.
  pendingSignups: `
    DELETE FROM subscriptions WHERE id IN (
      SELECT s.id FROM subscriptions s INDEXED BY subscriptions_pending_created
      WHERE s.status = 'pending' AND s.created_ms < @createdBeforeMs
        AND NOT EXISTS (SELECT 1 FROM link_tokens k WHERE k.subscription_id = s.id AND k.expires_ms > @now)
      ORDER BY s.created_ms LIMIT @limit)`,
  linkTokens: `
    DELETE FROM link_tokens WHERE hash IN (
      SELECT hash FROM link_tokens WHERE expires_ms < @expiredBeforeMs ORDER BY expires_ms LIMIT @limit)`,
  rateLimits: `
    DELETE FROM rate_limits WHERE key IN (
      SELECT key FROM rate_limits WHERE expires_ms <= @expiredByMs ORDER BY expires_ms LIMIT @limit)`,
} as const;

type Params = Record<string, number>;

export function createSqliteRetentionStore(db: SqliteDatabase): RetentionStore {
  const sqlite = db.$client;
  const prepared = Object.fromEntries(Object.entries(PRUNE_SQL).map(([name, text]) => [name, sqlite.prepare<Params>(text)])) as Record<
    keyof typeof PRUNE_SQL,
    Statement<Params>
  >;
  const run = (name: keyof typeof PRUNE_SQL, params: Params) => prepared[name].run(params).changes;

  return {
    async prunePollRuns(beforeMs, limit) {
      return sqlite.transaction(() => {
        run('pollRunRejections', { beforeMs, limit });
        return run('pollRuns', { beforeMs, limit });
      })();
    },

    async pruneRejectedBodies(beforeMs, maxBytes, limit) {
      return sqlite.transaction(() => {
        run('staleTexts', { beforeMs, limit });
        const stale = run('staleBodies', { beforeMs, limit });
        run('oversizeTexts', { maxBytes, limit });
        return stale + run('oversizeBodies', { maxBytes, limit });
      })();
    },

    async prunePendingSignups(createdBeforeMs, now, limit) {
      return run('pendingSignups', { createdBeforeMs, now, limit });
    },

    async pruneLinkTokens(expiredBeforeMs, limit) {
      return run('linkTokens', { expiredBeforeMs, limit });
    },

    async pruneRateLimits(expiredByMs, limit) {
      return run('rateLimits', { expiredByMs, limit });
    },
  };
}
