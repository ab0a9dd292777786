/** Group subscriptions' member lists, audit lists, mutes and per-member sends in SQLite: the GroupDirectoryStore port. */
import type { GroupDirectoryStore, GroupLink, GroupLogEntry, MemberSend, SyncOutcome } from '../core/ports/scim-directory.ts';
import type { GroupLogChange, GroupMember } from '../core/scim-group.ts';
import type { ScimVersionName } from '../core/scim-resources.ts';
import type { BatchStatement, SqliteConnection, SqlValue } from './sqlite-connection.ts';

// A member row as JSON is about 120 bytes: 2,000 a statement keeps each bound text near 250 KB,
// well inside D1's limits, and a 15,000-member group is eight statements of one batch.
const MEMBERS_PER_STATEMENT = 2_000;

/**
 * A statement written with `?NNN` (each value named once, however often used) as the plain `?`
 * list both drivers bind: better-sqlite3 takes `?NNN` as names, not positions.
 */
function numbered(sql: string, values: readonly SqlValue[]): BatchStatement {
  const params: SqlValue[] = [];
  const text = sql.replace(/\?(\d+)/g, (_, n: string) => {
    params.push(values[Number(n) - 1] ?? null);
    return '?';
  });
  return { sql: text, params };
}

type LinkRow = {
  subscription_id: string;
  group_id: string;
  group_name: string;
  synced_ms: number | null;
  outcome: SyncOutcome;
  error: string | null;
  last_ok_ms: number | null;
  version: ScimVersionName | null;
  group_deleted: number;
  revision: number;
  member_count: number;
};

type MemberRow = { user_id: string; email: string | null; active: number; time_zone: string | null; display_name: string; muted: number };

type LogRow = { id: number; at_ms: number; user_id: string | null; email: string | null; display_name: string | null; change: string; detail: string | null };

// member_count is kept by each good sync: counting the members here cost a scan of the group on
// every read of its link, and a big group's delivery reads it once a turn.
const LINK_COLUMNS = `g.subscription_id, g.group_id, g.group_name, g.synced_ms, g.outcome, g.error, g.last_ok_ms, g.version, g.group_deleted, g.revision,
  g.member_count`;

const MEMBER_SELECT = `SELECT m.user_id, m.email, m.active, m.time_zone, m.display_name, (u.user_id IS NOT NULL) AS muted
  FROM scim_members m LEFT JOIN scim_mutes u ON u.subscription_id = m.subscription_id AND u.user_id = m.user_id`;

/**
 * Members of group ?1 who receive (core/scim-group.ts `receives`: active, a primary email, not
 * muted) and are not recorded for delivery ?2. Written out twice below rather than as a CTE: a
 * CTE named twice is materialised, which would read the whole group every turn.
 */
const UNSENT_RECEIVERS = `SELECT m.user_id, m.email, m.active, m.time_zone, m.display_name, 0 AS muted FROM scim_members m
  WHERE m.subscription_id = ?1 AND m.active = 1 AND m.email IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM scim_mutes u WHERE u.subscription_id = m.subscription_id AND u.user_id = m.user_id)
    AND NOT EXISTS (SELECT 1 FROM scim_member_sends s WHERE s.delivery_key = ?2 AND s.user_id = m.user_id)`;

/** The highest user id recorded for delivery ?2: one seek in its primary key. */
const LAST_SENT = `(SELECT coalesce(max(user_id), '') FROM scim_member_sends WHERE delivery_key = ?2)`;

function toLink(row: LinkRow): GroupLink {
  return {
    subscriptionId: row.subscription_id,
    groupId: row.group_id,
    groupName: row.group_name,
    syncedAt: row.synced_ms,
    outcome: row.outcome,
    error: row.error,
    lastOkAt: row.last_ok_ms,
    version: row.version,
    groupDeleted: row.group_deleted === 1,
    revision: row.revision,
    memberCount: row.member_count,
  };
}

function toMember(row: MemberRow): GroupMember {
  return {
    id: row.user_id,
    email: row.email,
    active: row.active === 1,
    timeZone: row.time_zone,
    displayName: row.display_name,
    muted: row.muted === 1,
  };
}

/** Keeps the newest `limit` entries of one group's audit list. */
function pruneLog(subscriptionId: string, limit: number): BatchStatement {
  return numbered(
    `DELETE FROM scim_group_log WHERE subscription_id = ?1 AND id <= (
            SELECT id FROM scim_group_log WHERE subscription_id = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)`,
    [subscriptionId, limit],
  );
}

export function createSqliteGroupDirectoryStore(connection: SqliteConnection): GroupDirectoryStore {
  const all = <T>(sql: string, values: readonly SqlValue[]): Promise<T[]> => {
    const statement = numbered(sql, values);
    return connection.all<T>(statement.sql, statement.params);
  };
  return {
    async linkGroup(link) {
      await connection.runAtomically([
        numbered(
          // Only for a subscription that still exists: one deleted meanwhile leaves no link behind.
          `INSERT INTO scim_groups (subscription_id, group_id, group_name, outcome, group_deleted, revision)
                SELECT ?1, ?2, ?3, 'never', 0, 0 WHERE EXISTS (SELECT 1 FROM subscriptions WHERE id = ?1)
                ON CONFLICT (subscription_id) DO UPDATE SET group_id = excluded.group_id, group_name = excluded.group_name`,
          [link.subscriptionId, link.groupId, link.groupName],
        ),
      ]);
    },

    async groupLink(subscriptionId) {
      const rows = await all<LinkRow>(`SELECT ${LINK_COLUMNS} FROM scim_groups g WHERE g.subscription_id = ?1`, [subscriptionId]);
      return rows[0] ? toLink(rows[0]) : null;
    },

    async groupLinks(limit) {
      // A link lives exactly as long as its subscription: deleteSubscription takes it in its step.
      const rows = await all<LinkRow>(`SELECT ${LINK_COLUMNS} FROM scim_groups g ORDER BY COALESCE(g.synced_ms, 0), g.subscription_id LIMIT ?1`, [limit]);
      return rows.map(toLink);
    },

    async members(subscriptionId, afterUserId, limit) {
      const rows = await all<MemberRow>(`${MEMBER_SELECT} WHERE m.subscription_id = ?1 AND m.user_id > ?2 ORDER BY m.user_id LIMIT ?3`, [
        subscriptionId,
        afterUserId ?? '',
        limit,
      ]);
      return rows.map(toMember);
    },

    async allMembers(subscriptionId) {
      const rows = await all<MemberRow>(`${MEMBER_SELECT} WHERE m.subscription_id = ?1 ORDER BY m.user_id`, [subscriptionId]);
      return rows.map(toMember);
    },

    async log(subscriptionId, beforeId, limit) {
      const rows = await all<LogRow>(
        `SELECT id, at_ms, user_id, email, display_name, change, detail FROM scim_group_log
         WHERE subscription_id = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3`,
        [subscriptionId, beforeId ?? Number.MAX_SAFE_INTEGER, limit],
      );
      return rows.map(
        (r): GroupLogEntry => ({
          id: r.id,
          at: r.at_ms,
          userId: r.user_id,
          email: r.email,
          displayName: r.display_name,
          change: r.change as GroupLogChange,
          detail: r.detail,
        }),
      );
    },

    async applySync(sync, logLimit) {
      // Every write is conditional on the revision the sync read: a sync that lost the race writes nothing.
      const unchanged = 'EXISTS (SELECT 1 FROM scim_groups WHERE subscription_id = ?1 AND revision = ?2)';
      // Only what changed is written: the members who left go, the new and changed ones are upserted.
      const list: BatchStatement[] = [];
      for (let i = 0; i < sync.removedIds.length; i += MEMBERS_PER_STATEMENT) {
        const chunk = sync.removedIds.slice(i, i + MEMBERS_PER_STATEMENT);
        list.push(
          numbered(`DELETE FROM scim_members WHERE subscription_id = ?1 AND ${unchanged} AND user_id IN (SELECT value FROM json_each(?3))`, [
            sync.subscriptionId,
            sync.revision,
            JSON.stringify(chunk),
          ]),
        );
      }
      for (let i = 0; i < sync.upserts.length; i += MEMBERS_PER_STATEMENT) {
        const chunk = sync.upserts.slice(i, i + MEMBERS_PER_STATEMENT).map((m) => [m.id, m.email, m.active ? 1 : 0, m.timeZone, m.displayName]);
        list.push(
          numbered(
            `INSERT INTO scim_members (subscription_id, user_id, email, active, time_zone, display_name)
                SELECT ?1, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]'),
                       json_extract(j.value, '$[3]'), json_extract(j.value, '$[4]')
                FROM json_each(?3) j WHERE ${unchanged}
                ON CONFLICT (subscription_id, user_id) DO UPDATE SET email = excluded.email, active = excluded.active,
                  time_zone = excluded.time_zone, display_name = excluded.display_name`,
            [sync.subscriptionId, sync.revision, JSON.stringify(chunk)],
          ),
        );
      }
      // A mute lasts while its member is on the group's list: one who left (or whose group went)
      // loses it and receives again on rejoining, and the mutes never outgrow the group.
      list.push(
        numbered(
          `DELETE FROM scim_mutes WHERE subscription_id = ?1 AND ${unchanged}
                AND NOT EXISTS (SELECT 1 FROM scim_members m WHERE m.subscription_id = ?1 AND m.user_id = scim_mutes.user_id)`,
          [sync.subscriptionId, sync.revision],
        ),
      );
      const entries = [
        ...sync.changes.map((c) => [c.userId, c.email, c.displayName, c.change, null]),
        ...sync.skipped.map((r) => [r.userId, null, null, 'record skipped', r.reason]),
      ];
      if (entries.length > 0) {
        list.push(
          numbered(
            `INSERT INTO scim_group_log (subscription_id, at_ms, user_id, email, display_name, change, detail)
                SELECT ?1, ?3, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]'), json_extract(j.value, '$[3]'),
                  json_extract(j.value, '$[4]')
                FROM json_each(?4) j WHERE ${unchanged} ORDER BY j.key`,
            [sync.subscriptionId, sync.revision, sync.at, JSON.stringify(entries)],
          ),
        );
      }
      list.push(pruneLog(sync.subscriptionId, logLimit));
      list.push(
        numbered(
          `UPDATE scim_groups SET revision = revision + 1, synced_ms = ?3, last_ok_ms = ?3, outcome = 'ok', error = NULL,
                version = ?4, group_name = ?5, group_deleted = ?6, member_count = ?7
              WHERE subscription_id = ?1 AND revision = ?2 RETURNING revision`,
          [sync.subscriptionId, sync.revision, sync.at, sync.version, sync.groupName, sync.groupDeleted ? 1 : 0, sync.memberCount],
        ),
      );
      const results = await connection.runAtomically(list);
      return (results.at(-1)?.length ?? 0) > 0;
    },

    async recordSyncFailure({ subscriptionId, revision, at, error }, logLimit) {
      // As applySync: only over the revision the sync read. A failure does not bump it, so each
      // statement sees the same condition; a slow failure never hides a newer good sync.
      const results = await connection.runAtomically([
        numbered(
          `INSERT INTO scim_group_log (subscription_id, at_ms, change, detail) SELECT ?1, ?3, 'sync failed', ?4
                WHERE EXISTS (SELECT 1 FROM scim_groups WHERE subscription_id = ?1 AND revision = ?2)`,
          [subscriptionId, revision, at, error],
        ),
        pruneLog(subscriptionId, logLimit),
        numbered(`UPDATE scim_groups SET synced_ms = ?3, outcome = 'failed', error = ?4 WHERE subscription_id = ?1 AND revision = ?2 RETURNING revision`, [
          subscriptionId,
          revision,
          at,
          error,
        ]),
      ]);
      return (results.at(-1)?.length ?? 0) > 0;
    },

    async muteMember(subscriptionId, userId, at) {
      const [rows] = await connection.runAtomically([
        numbered(
          `INSERT INTO scim_mutes (subscription_id, user_id, muted_ms) SELECT ?1, ?2, ?3
                WHERE EXISTS (SELECT 1 FROM scim_groups WHERE subscription_id = ?1)
                ON CONFLICT (subscription_id, user_id) DO UPDATE SET muted_ms = muted_ms RETURNING user_id`,
          [subscriptionId, userId, at],
        ),
      ]);
      return (rows?.length ?? 0) > 0;
    },

    async memberSends(deliveryKey) {
      const rows = await all<{ user_id: string; state: MemberSend['state'] }>('SELECT user_id, state FROM scim_member_sends WHERE delivery_key = ?1', [
        deliveryKey,
      ]);
      return rows.map((r) => ({ userId: r.user_id, state: r.state }));
    },

    async hasMemberSends(deliveryKey) {
      const rows = await all<{ one: number }>('SELECT 1 AS one FROM scim_member_sends WHERE delivery_key = ?1 LIMIT 1', [deliveryKey]);
      return rows.length > 0;
    },

    async unsentReceivers(subscriptionId, deliveryKey, limit) {
      // Sends are recorded in user id order, a turn at a time: the members after the last one
      // recorded are the next turn, found by a seek. Those before it (a temporary refusal, a crash
      // between mail and record, a member a newer sync added) are looked for only when the
      // first part runs short: a compound's LIMIT skips its second part once the first filled it.
      const rows = await all<MemberRow>(
        `SELECT * FROM (${UNSENT_RECEIVERS} AND m.user_id > ${LAST_SENT} ORDER BY m.user_id LIMIT ?3)
         UNION ALL
         SELECT * FROM (${UNSENT_RECEIVERS} AND m.user_id <= ${LAST_SENT} ORDER BY m.user_id LIMIT ?3)
         LIMIT ?3`,
        [subscriptionId, deliveryKey, limit],
      );
      return rows.map(toMember);
    },

    async recordMemberSends(deliveryKey, sends, at) {
      if (sends.length === 0) return;
      await connection.runAtomically([
        numbered(
          `INSERT INTO scim_member_sends (delivery_key, user_id, state, at_ms)
           SELECT ?1, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), ?2 FROM json_each(?3) j WHERE true
           ON CONFLICT (delivery_key, user_id) DO NOTHING`,
          [deliveryKey, at, JSON.stringify(sends.map((s) => [s.userId, s.state]))],
        ),
      ]);
    },
  };
}
