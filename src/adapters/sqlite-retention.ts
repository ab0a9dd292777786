/**
 * Retention in SQLite: the RetentionStore port. Each prune is a fixed list of statements in one
 * transaction whose subqueries pick at most `limit` rows, so it maps to one D1 batch unchanged
 * (no read, branch, then write); each but the size cap seeks an index instead of scanning.
 */
import type { RetentionStore } from '../core/ports.ts';
import { SOURCE_LEASE_PREFIX } from '../core/statuspage/mapping.ts';
import type { SqliteConnection, SqlValue } from './sqlite-connection.ts';

/**
 * Poll runs that may go (params: before, at most): old, and neither the newest run (/healthz's last poll) nor the newest
 * success (its last success time), by start time. Each max() is one seek in an index; `outcome IN
 * (...)` would have read every success. Named once, used by both deletes of a batch: within one
 * transaction the same query picks the same rows.
 */
const OLD_POLL_RUNS = `
  SELECT id FROM poll_runs
  WHERE started_ms < ?
    AND started_ms <> (SELECT max(started_ms) FROM poll_runs)
    AND started_ms <> max(coalesce((SELECT max(started_ms) FROM poll_runs WHERE outcome = 'ok'), -1),
                          coalesce((SELECT max(started_ms) FROM poll_runs WHERE outcome = 'partial'), -1))
  ORDER BY started_ms LIMIT ?`;

const STALE_BODIES = `SELECT hash FROM rejected_bodies WHERE last_seen_ms < ? ORDER BY last_seen_ms LIMIT ?`;

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
  WHERE total > ? AND total > bytes
  ORDER BY last_seen_ms LIMIT ?`;

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
      WHERE s.status = 'pending' AND s.created_ms < ?
        AND NOT EXISTS (SELECT 1 FROM link_tokens k WHERE k.subscription_id = s.id AND k.expires_ms > ?)
      ORDER BY s.created_ms LIMIT ?)`,
  linkTokens: `
    DELETE FROM link_tokens WHERE hash IN (
      SELECT hash FROM link_tokens WHERE expires_ms < ? ORDER BY expires_ms LIMIT ?)`,
  rateLimits: `
    DELETE FROM rate_limits WHERE key IN (
      SELECT key FROM rate_limits WHERE expires_ms <= ? ORDER BY expires_ms LIMIT ?)`,
  // One row per conversation ever rate-limited, kept only while it holds (a later 429 writes it anew).
  appConversationHolds: `
    DELETE FROM app_conversation_holds WHERE rowid IN (
      SELECT rowid FROM app_conversation_holds WHERE until_ms <= ? ORDER BY until_ms LIMIT ?)`,
  groupMemberSends: `
    DELETE FROM scim_member_sends WHERE rowid IN (
      SELECT rowid FROM scim_member_sends WHERE at_ms < ? ORDER BY at_ms LIMIT ?)`,
  // An incident still going on keeps its message however long it lasts: it will be edited again.
  // One no longer archived (its source removed with its archive) goes on no more, and goes too.
  incidentMessages: `
    DELETE FROM app_messages WHERE rowid IN (
      SELECT m.rowid FROM app_messages m INDEXED BY app_messages_updated
      WHERE m.updated_ms < ?
        AND NOT EXISTS (SELECT 1 FROM incidents i WHERE i.id = m.incident_id AND i.resolved_ms IS NULL)
      ORDER BY m.updated_ms LIMIT ?)`,
  // Past the track record's reach (core/retention.ts BLIND_SPELLS_KEPT_MS).
  blindSpells: `
    DELETE FROM source_blind_spells WHERE rowid IN (
      SELECT rowid FROM source_blind_spells WHERE until_ms < ? ORDER BY until_ms LIMIT ?)`,
  // A source's poll lease is `poll:<source id>` (the range [poll:, poll;) by the primary key; the
  // main feed's `poll` is outside it). One whose source is not watched is never taken again.
  sourceLeases: `
    DELETE FROM leases WHERE name IN (
      SELECT l.name FROM leases l
      WHERE l.name >= ? AND l.name < ?
        AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.id = substr(l.name, ?) AND s.purging_ms IS NULL)
      ORDER BY l.name LIMIT ?)`,
} as const;

/** Source lease names run from the prefix up to, not including, the prefix with its last character moved one up. */
const SOURCE_LEASES_FROM = SOURCE_LEASE_PREFIX;
const SOURCE_LEASES_BEFORE = SOURCE_LEASE_PREFIX.slice(0, -1) + String.fromCharCode(SOURCE_LEASE_PREFIX.charCodeAt(SOURCE_LEASE_PREFIX.length - 1) + 1);

/** One prune statement with its values; RETURNING says which rows went (D1 reports no change count per batch statement). */
const prune = (name: keyof typeof PRUNE_SQL, params: readonly SqlValue[]) => ({ sql: `${PRUNE_SQL[name]} RETURNING 1`, params });

export function createSqliteRetentionStore(connection: SqliteConnection): RetentionStore {
  const removed = async (...list: ReturnType<typeof prune>[]): Promise<number[]> => (await connection.runAtomically(list)).map((rows) => rows.length);

  return {
    async prunePollRuns(beforeMs, limit) {
      const [, runs] = await removed(prune('pollRunRejections', [beforeMs, limit]), prune('pollRuns', [beforeMs, limit]));
      return runs!;
    },

    async pruneRejectedBodies(beforeMs, maxBytes, limit) {
      const [, stale, , oversize] = await removed(
        prune('staleTexts', [beforeMs, limit]),
        prune('staleBodies', [beforeMs, limit]),
        prune('oversizeTexts', [maxBytes, limit]),
        prune('oversizeBodies', [maxBytes, limit]),
      );
      return stale! + oversize!;
    },

    async prunePendingSignups(createdBeforeMs, now, limit) {
      const [count] = await removed(prune('pendingSignups', [createdBeforeMs, now, limit]));
      return count!;
    },

    async pruneLinkTokens(expiredBeforeMs, limit) {
      const [count] = await removed(prune('linkTokens', [expiredBeforeMs, limit]));
      return count!;
    },

    async pruneRateLimits(expiredByMs, limit) {
      const [count] = await removed(prune('rateLimits', [expiredByMs, limit]));
      return count!;
    },

    async pruneAppConversationHolds(expiredByMs, limit) {
      const [count] = await removed(prune('appConversationHolds', [expiredByMs, limit]));
      return count!;
    },

    async pruneGroupMemberSends(beforeMs, limit) {
      const [count] = await removed(prune('groupMemberSends', [beforeMs, limit]));
      return count!;
    },

    async pruneIncidentMessages(beforeMs, limit) {
      const [count] = await removed(prune('incidentMessages', [beforeMs, limit]));
      return count!;
    },

    async pruneBlindSpells(endedBeforeMs, limit) {
      const [count] = await removed(prune('blindSpells', [endedBeforeMs, limit]));
      return count!;
    },

    async pruneSourceLeases(limit) {
      const [count] = await removed(prune('sourceLeases', [SOURCE_LEASES_FROM, SOURCE_LEASES_BEFORE, SOURCE_LEASE_PREFIX.length + 1, limit]));
      return count!;
    },
  };
}
