/**
 * Subscriptions in SQLite: the SubscriptionStore port. Every write carries, in the same atomic
 * list, a bump of the list's version in meta, so a cached list of active subscriptions (the
 * poller's, in any process or isolate) sees it.
 */
import { and, asc, eq, getTableColumns, gt, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { StoredSubscription, SubscriptionStore } from '../core/ports.ts';
import { statementOf, type BatchStatement, type SqliteConnection } from './sqlite-connection.ts';
import { patchColumns, toSubscription, toSubscriptionRow } from './sqlite-rows.ts';
import * as t from './store-schema.ts';

/** Bumped by every write to subscriptions, from any process: tells a cached list it is stale. */
const SUBSCRIPTIONS_VERSION_KEY = 'subscriptions_version';

export type ActiveSubscriptionsReader = {
  /**
   * Active subscriptions, which the poller plans deliveries for. Reading and parsing 10,000 of
   * them took 130 ms, so the list is kept until any process changes a subscription. `versionSeen`
   * (READ_SUBSCRIPTIONS_VERSION's answer, read moments ago): the list kept of that version is
   * answered without a read, the read of the version being in a step the caller took anyway.
   */
  loadActiveSubscriptions(versionSeen?: string): Promise<StoredSubscription[]>;
};

/** The subscriptions' columns under their row property names, as drizzle's select reads them. */
const SUBSCRIPTION_COLUMNS = Object.entries(getTableColumns(t.subscriptions))
  .map(([property, column]) => `s."${column.name}" AS "${property}"`)
  .join(', ');

/** The version of the subscriptions list, '0' before any write to it (as ACTIVE_SUBSCRIPTIONS_SINCE reads it). */
export const READ_SUBSCRIPTIONS_VERSION = `SELECT coalesce((SELECT value FROM meta WHERE key = '${SUBSCRIPTIONS_VERSION_KEY}'), '0') AS version`;

/** READ_SUBSCRIPTIONS_VERSION's answer, from the rows it read. */
export function subscriptionsVersionOf(rows: unknown[] | undefined): string {
  return String((rows?.[0] as { version?: unknown } | undefined)?.version ?? '0');
}

/**
 * The list's version and, only when it is not the one given (the cached version, or null),
 * the active subscriptions: one read whether the cached list still holds or not. The version row
 * comes even with no subscription (the LEFT JOIN on a one-row derived table).
 */
const ACTIVE_SUBSCRIPTIONS_SINCE = `SELECT v.version AS version, ${SUBSCRIPTION_COLUMNS}
  FROM (SELECT coalesce((SELECT value FROM meta WHERE key = ?), '0') AS version) v
  LEFT JOIN subscriptions s ON s.status = 'active' AND v.version IS NOT ?
  ORDER BY s.id`;

type VersionedSubscriptionRow = { version: string } & { [K in keyof typeof t.subscriptions.$inferSelect]: (typeof t.subscriptions.$inferSelect)[K] | null };

export function createActiveSubscriptionsReader(connection: SqliteConnection): ActiveSubscriptionsReader {
  let cached: { version: string; subscriptions: StoredSubscription[] } | null = null;
  return {
    async loadActiveSubscriptions(versionSeen) {
      // Every write to a subscription moves the version in the same step: the list kept of the
      // version seen is the list as it was then.
      if (cached !== null && versionSeen !== undefined && cached.version === versionSeen) return cached.subscriptions;
      const rows = await connection.all<VersionedSubscriptionRow>(ACTIVE_SUBSCRIPTIONS_SINCE, [SUBSCRIPTIONS_VERSION_KEY, cached?.version ?? null]);
      const version = rows[0]?.version ?? '0';
      if (cached?.version !== version) {
        const listed = rows.filter((row) => row.id !== null) as (typeof t.subscriptions.$inferSelect)[];
        cached = { version, subscriptions: listed.map(toSubscription) };
      }
      return cached.subscriptions;
    },
  };
}

/** Bumps the version of the subscriptions list: the last statement of every list that writes subscriptions. */
export const BUMP_SUBSCRIPTIONS_VERSION: BatchStatement = {
  sql: `INSERT INTO meta (key, value) VALUES ('${SUBSCRIPTIONS_VERSION_KEY}', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`,
  params: [],
};

export function createSqliteSubscriptionStore(connection: SqliteConnection): SubscriptionStore {
  const { db } = connection;
  const s = t.subscriptions;
  const d = t.deliveries;
  const active = createActiveSubscriptionsReader(connection);
  const subscriptionById = db
    .select()
    .from(s)
    .where(eq(s.id, sql.placeholder('id')))
    .prepare();

  /** Every write to subscriptions goes through here, so cached lists of them see it. */
  const changingSubscriptions = (...writes: BatchStatement[]) => connection.runAtomically([...writes, BUMP_SUBSCRIPTIONS_VERSION]);

  return {
    async createSubscription(sub) {
      // Only subscriptions_app_target's conflict is an answer; a reused id still throws. Drizzle
      // cannot name a partial index as the conflict target (its `where` lands after DO NOTHING).
      const insert = statementOf(db.insert(s).values(toSubscriptionRow(sub)));
      const [inserted] = await changingSubscriptions({
        sql: `${insert.sql} ON CONFLICT (target) WHERE channel = 'app' DO NOTHING RETURNING id`,
        params: insert.params,
      });
      return (inserted?.length ?? 0) > 0;
    },

    async getSubscription(id) {
      const row = await subscriptionById.get({ id });
      return row ? toSubscription(row) : null;
    },

    async listSubscriptions(filter, afterId, limit) {
      const conditions: SQL[] = [];
      if (filter.status) conditions.push(eq(s.status, filter.status));
      if (filter.channel) conditions.push(eq(s.channel, filter.channel));
      if (filter.failing) conditions.push(isNotNull(s.failingSinceMs));
      if (afterId !== null) conditions.push(gt(s.id, afterId));
      const rows = await db
        .select()
        .from(s)
        .where(and(...conditions))
        .orderBy(asc(s.id))
        .limit(limit)
        .all();
      return rows.map(toSubscription);
    },

    async findSubscription(channel, target) {
      const row = await db
        .select()
        .from(s)
        .where(and(eq(s.channel, channel), eq(s.target, target)))
        .get();
      return row ? toSubscription(row) : null;
    },

    async updateSubscription(id, patch, now) {
      const set = patchColumns(patch);
      const [updated] = await changingSubscriptions(
        statementOf(
          db
            .update(s)
            .set({ ...set, updatedMs: now })
            .where(eq(s.id, id))
            .returning({ id: s.id }),
        ),
      );
      if (!updated?.length) return null;
      const row = await subscriptionById.get({ id });
      return row ? toSubscription(row) : null;
    },

    async deleteSubscription(id) {
      const [deleted] = await changingSubscriptions(
        statementOf(db.delete(s).where(eq(s.id, id)).returning({ id: s.id })),
        statementOf(db.delete(t.linkTokens).where(eq(t.linkTokens.subscriptionId, id))),
        // The app's message rows serve only this subscription's deliveries. Deleted here, not by
        // ON DELETE CASCADE: SQLite adds a foreign key only by rebuilding the table.
        statementOf(db.delete(t.appMessages).where(eq(t.appMessages.subscriptionId, id))),
        statementOf(db.delete(t.appMonitorPosts).where(eq(t.appMonitorPosts.subscriptionId, id))),
        // A group subscription's member list, mutes, audit list and link serve only it;
        // each is one seek by subscription id. Its per-member sends go with retention.
        statementOf(db.delete(t.scimMembers).where(eq(t.scimMembers.subscriptionId, id))),
        statementOf(db.delete(t.scimMutes).where(eq(t.scimMutes.subscriptionId, id))),
        statementOf(db.delete(t.scimGroupLog).where(eq(t.scimGroupLog.subscriptionId, id))),
        statementOf(db.delete(t.scimGroups).where(eq(t.scimGroups.subscriptionId, id))),
        // Sent and dead deliveries stay, with their attempts, as the record of what went out.
        statementOf(db.delete(d).where(and(eq(d.subscriptionId, id), eq(d.state, 'pending')))),
      );
      return (deleted?.length ?? 0) > 0;
    },

    async activeSubscriptions(versionSeen) {
      return active.loadActiveSubscriptions(versionSeen);
    },
  };
}
