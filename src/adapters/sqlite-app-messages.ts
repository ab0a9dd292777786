/**
 * The workspace app's messages in SQLite: the AppMessageStore port. Each write is one statement
 * whose WHERE or ON CONFLICT decides, so two processes racing on one incident cannot both win.
 */
import type { NoteRef } from '../core/events.ts';
import type { AppMessageStore, AppMonitorPostRecord, AppRootRecord } from '../core/ports.ts';
import type { SqliteConnection, SqlValue } from './sqlite-connection.ts';

/**
 * Started replies remembered per incident: a retry of a delivery older than the newest 50 of its
 * incident is far beyond what a crash leaves behind (one round's deliveries of one subscription).
 */
const STARTED_REPLIES_MAX = 50;

const FIND_ROOT = `SELECT subscription_id, incident_id, conversation_id, root_ts, root_key, revision, note_json, pending_replies, created_ms, updated_ms
  FROM app_messages WHERE subscription_id = ? AND incident_id = ?`;
const BEGIN_ROOT = `INSERT INTO app_messages (subscription_id, incident_id, conversation_id, root_ts, root_key, revision, pending_replies, created_ms, updated_ms)
  VALUES (?, ?, ?, NULL, ?, ?, '[]', ?, ?) ON CONFLICT (subscription_id, incident_id) DO NOTHING RETURNING root_key`;
const TAKE_OVER_ROOT = `UPDATE app_messages SET root_key = ?, updated_ms = ?
  WHERE subscription_id = ? AND incident_id = ? AND root_ts IS NULL AND root_key = ? RETURNING root_key`;
const RESTART_ROOT = `UPDATE app_messages SET root_ts = NULL, root_key = ?, created_ms = ?, updated_ms = ?
  WHERE subscription_id = ? AND incident_id = ? AND root_ts = ? RETURNING root_key`;
// Plain `?` only (numbered ones are bound differently by the two drivers): the revision is given twice.
const RECORD_ROOT = `UPDATE app_messages SET root_ts = coalesce(root_ts, ?),
    note_json = CASE WHEN ? >= revision THEN coalesce(?, note_json) ELSE note_json END, revision = max(revision, ?), updated_ms = ?
  WHERE subscription_id = ? AND incident_id = ?`;
/** Appends a key not listed yet, keeping the newest STARTED_REPLIES_MAX, oldest first. */
const ADD_REPLY = `UPDATE app_messages SET pending_replies = (SELECT json_group_array(value) FROM
    (SELECT key, value FROM (SELECT key, value FROM json_each(json_insert(pending_replies, '$[#]', ?)) ORDER BY key DESC LIMIT ${STARTED_REPLIES_MAX}) ORDER BY key)), updated_ms = ?
  WHERE subscription_id = ? AND incident_id = ? AND NOT EXISTS (SELECT 1 FROM json_each(pending_replies) WHERE value = ?)`;
/**
 * Monitor messages remembered per subscription: monitor events come one per blind spell and one per
 * recovery, so a retry older than the newest 50 of its subscription is far beyond a crash's reach.
 */
const MONITOR_POSTS_MAX = 50;

const BEGIN_MONITOR_POST = `INSERT INTO app_monitor_posts (subscription_id, delivery_key, ts, created_ms) VALUES (?, ?, NULL, ?)
  ON CONFLICT (subscription_id, delivery_key) DO NOTHING RETURNING delivery_key`;
/** Run after BEGIN_MONITOR_POST in its batch: all but the subscription's newest MONITOR_POSTS_MAX go, never the one just begun. */
const TRIM_MONITOR_POSTS = `DELETE FROM app_monitor_posts WHERE subscription_id = ? AND delivery_key <> ? AND delivery_key NOT IN
    (SELECT delivery_key FROM app_monitor_posts WHERE subscription_id = ? ORDER BY created_ms DESC, delivery_key DESC LIMIT ${MONITOR_POSTS_MAX})`;
const FIND_MONITOR_POST = 'SELECT subscription_id, delivery_key, ts, created_ms FROM app_monitor_posts WHERE subscription_id = ? AND delivery_key = ?';
const RECORD_MONITOR_POST = 'UPDATE app_monitor_posts SET ts = coalesce(ts, ?) WHERE subscription_id = ? AND delivery_key = ?';
const HOLD = `INSERT INTO app_conversation_holds (installation_id, conversation_id, until_ms) VALUES (?, ?, ?)
  ON CONFLICT (installation_id, conversation_id) DO UPDATE SET until_ms = max(until_ms, excluded.until_ms)`;
const HELD_UNTIL = 'SELECT until_ms FROM app_conversation_holds WHERE installation_id = ? AND conversation_id = ?';

type RootRow = {
  subscription_id: string;
  incident_id: string;
  conversation_id: string;
  root_ts: string | null;
  root_key: string;
  revision: number;
  note_json: string | null;
  pending_replies: string;
  created_ms: number;
  updated_ms: number;
};

function toRoot(row: RootRow): AppRootRecord {
  const pending: unknown = JSON.parse(row.pending_replies);
  return {
    subscriptionId: row.subscription_id,
    incidentId: row.incident_id,
    conversationId: row.conversation_id,
    rootTs: row.root_ts,
    rootKey: row.root_key,
    revision: row.revision,
    note: row.note_json === null ? null : (JSON.parse(row.note_json) as NoteRef),
    startedReplies: Array.isArray(pending) ? pending.filter((k): k is string => typeof k === 'string') : [],
    createdAt: row.created_ms,
    updatedAt: row.updated_ms,
  };
}

type MonitorPostRow = { subscription_id: string; delivery_key: string; ts: string | null; created_ms: number };

function toMonitorPost(row: MonitorPostRow): AppMonitorPostRecord {
  return { subscriptionId: row.subscription_id, deliveryKey: row.delivery_key, ts: row.ts, createdAt: row.created_ms };
}

export function createSqliteAppMessageStore(connection: SqliteConnection): AppMessageStore {
  const run = async (sql: string, params: readonly SqlValue[]) => (await connection.runAtomically([{ sql, params }]))[0] ?? [];
  return {
    async findAppRoot(subscriptionId, incidentId) {
      const [row] = await connection.all<RootRow>(FIND_ROOT, [subscriptionId, incidentId]);
      return row ? toRoot(row) : null;
    },
    async beginAppRoot(root, now) {
      const inserted = await run(BEGIN_ROOT, [root.subscriptionId, root.incidentId, root.conversationId, root.key, root.revision, now, now]);
      return inserted.length > 0;
    },
    async takeOverAppRoot(subscriptionId, incidentId, fromKey, toKey, now) {
      return (await run(TAKE_OVER_ROOT, [toKey, now, subscriptionId, incidentId, fromKey])).length > 0;
    },
    async restartAppRoot(subscriptionId, incidentId, goneTs, key, now) {
      return (await run(RESTART_ROOT, [key, now, now, subscriptionId, incidentId, goneTs])).length > 0;
    },
    async recordAppRoot(subscriptionId, incidentId, shown, now) {
      const note = shown.note === null ? null : JSON.stringify(shown.note);
      await run(RECORD_ROOT, [shown.ts, shown.revision, note, shown.revision, now, subscriptionId, incidentId]);
    },
    async startAppReply(subscriptionId, incidentId, key, now) {
      await run(ADD_REPLY, [key, now, subscriptionId, incidentId, key]);
    },
    async beginAppMonitorPost(subscriptionId, key, now) {
      const [inserted] = await connection.runAtomically([
        { sql: BEGIN_MONITOR_POST, params: [subscriptionId, key, now] },
        { sql: TRIM_MONITOR_POSTS, params: [subscriptionId, key, subscriptionId] },
      ]);
      return (inserted?.length ?? 0) > 0;
    },
    async findAppMonitorPost(subscriptionId, key) {
      const [row] = await connection.all<MonitorPostRow>(FIND_MONITOR_POST, [subscriptionId, key]);
      return row ? toMonitorPost(row) : null;
    },
    async recordAppMonitorPost(subscriptionId, key, ts) {
      await run(RECORD_MONITOR_POST, [ts, subscriptionId, key]);
    },
    async holdAppConversation(installationId, conversationId, untilMs) {
      await run(HOLD, [installationId, conversationId, untilMs]);
    },
    async appConversationHeldUntil(installationId, conversationId) {
      const [row] = await connection.all<{ until_ms: number }>(HELD_UNTIL, [installationId, conversationId]);
      return row ? row.until_ms : null;
    },
  };
}
