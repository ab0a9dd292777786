/**
 * Subscriptions, the delivery outbox, attempts, link tokens and rate limits in SQLite: the
 * NotificationStore port, plus the active subscriptions the poller plans deliveries for (the
 * outbox rows themselves are written with the poll, sqlite-poll-apply.ts).
 */
import { and, asc, desc, eq, gt, gte, lt, sql, type SQL } from 'drizzle-orm';

const p = sql.placeholder;
/** A placeholder where Drizzle's types want SQL (update().set() takes no bare placeholders). */
const v = (name: string) => sql`${p(name)}`;
import type { StatusEvent, EventData, EventType } from '../core/events.ts';
import type {
  AttemptToRecord,
  ClaimedDelivery,
  Delivery,
  DeliveryAttemptRecord,
  DeliveryFilter,
  NotificationStore,
  StoredSubscription,
  SubscriptionPatch,
} from '../core/ports.ts';
import { checkLimit, type LimitState } from '../core/rate-limit.ts';
import type { SubscriptionFilters } from '../core/subscription.ts';
import { changedRows, statementOf, type BatchStatement, type SqlDb, type SqliteConnection } from './sqlite-connection.ts';
import { LimitLogContention, swapLimitLogs } from './sqlite-limit-logs.ts';
import * as t from './store-schema.ts';

/** Bumped by every write to subscriptions, from any process: tells a cached list it is stale. */
const SUBSCRIPTIONS_VERSION_KEY = 'subscriptions_version';

export type ActiveSubscriptionsReader = {
  /**
   * Active subscriptions, which the poller plans deliveries for. Reading and parsing 10,000 of
   * them took 130 ms, so the list is kept until any process changes a subscription.
   */
  loadActiveSubscriptions(): Promise<StoredSubscription[]>;
};

export function createActiveSubscriptionsReader(db: SqlDb): ActiveSubscriptionsReader {
  const activeSubscriptions = db.select().from(t.subscriptions).where(eq(t.subscriptions.status, 'active')).orderBy(asc(t.subscriptions.id)).prepare();
  const version = db.select({ value: t.meta.value }).from(t.meta).where(eq(t.meta.key, SUBSCRIPTIONS_VERSION_KEY)).prepare();
  let cached: { version: string; subscriptions: StoredSubscription[] } | null = null;
  return {
    async loadActiveSubscriptions() {
      const current = (await version.get())?.value ?? '0';
      if (cached?.version !== current) cached = { version: current, subscriptions: (await activeSubscriptions.all()).map(toSubscription) };
      return cached.subscriptions;
    },
  };
}

/** Bumps the version of the subscriptions list: the last statement of every list that writes subscriptions. */
const BUMP_SUBSCRIPTIONS_VERSION: BatchStatement = {
  sql: `INSERT INTO meta (key, value) VALUES ('${SUBSCRIPTIONS_VERSION_KEY}', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`,
  params: [],
};

/** The subscription of a delivery while `holder` still holds its claim (params: delivery id, holder). */
const HELD_SUBSCRIPTION = `(SELECT subscription_id FROM deliveries WHERE id = ? AND claimed_by = ? AND state = 'pending')`;

const INSERT_ATTEMPT = `INSERT INTO delivery_attempts (delivery_id, attempted_ms, ok, status, duration_ms, response_excerpt, error)
  SELECT ?, ?, ?, ?, ?, ?, ? WHERE ${HELD_SUBSCRIPTION} IS NOT NULL`;
const MARK_SUCCEEDED = `UPDATE subscriptions SET failing_since_ms = NULL, last_success_ms = ? WHERE id = ${HELD_SUBSCRIPTION}`;
const MARK_FAILING = `UPDATE subscriptions SET failing_since_ms = ? WHERE failing_since_ms IS NULL AND id = ${HELD_SUBSCRIPTION}`;
const MARK_PAUSED = `UPDATE subscriptions SET status = 'paused', paused_reason = ?, updated_ms = ? WHERE status <> 'paused' AND id = ${HELD_SUBSCRIPTION}`;
/** Last of an attempt's statements: it ends the claim the others checked, and says whether it held. */
const FINISH_ATTEMPT = `UPDATE deliveries SET attempts = attempts + 1, claimed_by = NULL, claim_until_ms = NULL,
    state = ?, next_attempt_ms = coalesce(?, next_attempt_ms), finished_ms = ?, last_error = ?
  WHERE id = ? AND claimed_by = ? AND state = 'pending' RETURNING id`;

/**
 * One attempt as statements that each apply only while `holder` holds the claim: the attempt, the
 * subscription's health, then the delivery's new state, whose RETURNING row says the claim held.
 * A pause bumps the subscriptions version whether or not it applied: a spare bump only makes a
 * cached list read again.
 */
function attemptStatements(holder: string, { deliveryId, attempt, outcome, health }: AttemptToRecord): BatchStatement[] {
  const held = [deliveryId, holder];
  const finishedMs = attempt.attemptedAt + attempt.durationMs;
  const list: BatchStatement[] = [
    {
      sql: INSERT_ATTEMPT,
      params: [deliveryId, attempt.attemptedAt, attempt.ok ? 1 : 0, attempt.status, attempt.durationMs, attempt.responseExcerpt, attempt.error, ...held],
    },
  ];
  if (health.kind === 'succeeded') {
    list.push({ sql: MARK_SUCCEEDED, params: [finishedMs, ...held] });
  } else {
    list.push({ sql: MARK_FAILING, params: [attempt.attemptedAt, ...held] });
    if (health.kind === 'paused') list.push({ sql: MARK_PAUSED, params: [health.reason, finishedMs, ...held] }, BUMP_SUBSCRIPTIONS_VERSION);
  }
  list.push({
    sql: FINISH_ATTEMPT,
    params: [
      outcome.kind === 'done' ? 'done' : outcome.kind === 'dead' ? 'dead' : 'pending',
      outcome.kind === 'retry' ? outcome.at : null,
      outcome.kind === 'retry' ? null : finishedMs,
      outcome.kind === 'retry' ? outcome.error : outcome.kind === 'dead' ? outcome.reason : null,
      ...held,
    ],
  });
  return list;
}

/** The statements of the deliverer's path, prepared once: built and prepared per call they took most of its time. */
function prepareDeliveryStatements(db: SqlDb) {
  const s = t.subscriptions;
  const d = t.deliveries;
  return {
    // The claim is one UPDATE: two deliverers can never both hold a row. Only active
    // subscriptions' rows are claimed: a paused one's wait until it is resumed.
    claim: db
      .update(d)
      .set({ claimedBy: v('holder'), claimUntilMs: v('until') })
      .where(
        sql`${d.id} IN (SELECT ${d.id} FROM ${d} WHERE ${d.state} = 'pending' AND ${d.nextAttemptMs} <= ${p('now')}
          AND (${d.claimUntilMs} IS NULL OR ${d.claimUntilMs} <= ${p('now')})
          AND ${d.subscriptionId} IN (SELECT ${s.id} FROM ${s} WHERE ${s.status} = 'active')
          ORDER BY ${d.nextAttemptMs}, ${d.id} LIMIT ${p('limit')})`,
      )
      .returning()
      .prepare(),
    subscriptionById: db.select().from(s).where(eq(s.id, p('id'))).prepare(),
    subscriptionsByIds: db
      .select()
      .from(s)
      .where(sql`${s.id} IN (SELECT value FROM json_each(${p('ids')}))`)
      .prepare(),
    deliveryById: db.select().from(d).where(eq(d.id, p('id'))).prepare(),
    eventsByIds: db
      .select()
      .from(t.events)
      .where(sql`${t.events.id} IN (SELECT value FROM json_each(${p('ids')}))`)
      .orderBy(asc(t.events.seq))
      .prepare(),
  };
}

export function createSqliteNotificationStore(connection: SqliteConnection): NotificationStore {
  const { db } = connection;
  const s = t.subscriptions;
  const d = t.deliveries;
  const st = prepareDeliveryStatements(db);

  /** Every write to subscriptions goes through here, so cached lists of them see it. */
  const changingSubscriptions = (...writes: BatchStatement[]) => connection.runAtomically([...writes, BUMP_SUBSCRIPTIONS_VERSION]);

  return {
    async createSubscription(sub) {
      await changingSubscriptions(statementOf(db.insert(s).values(toSubscriptionRow(sub))));
    },

    async getSubscription(id) {
      const row = await st.subscriptionById.get({ id });
      return row ? toSubscription(row) : null;
    },

    async listSubscriptions(filter, afterId, limit) {
      const conditions: SQL[] = [];
      if (filter.status) conditions.push(eq(s.status, filter.status));
      if (filter.channel) conditions.push(eq(s.channel, filter.channel));
      if (afterId !== null) conditions.push(gt(s.id, afterId));
      const rows = await db.select().from(s).where(and(...conditions)).orderBy(asc(s.id)).limit(limit).all();
      return rows.map(toSubscription);
    },

    async findSubscription(channel, target) {
      const row = await db.select().from(s).where(and(eq(s.channel, channel), eq(s.target, target))).get();
      return row ? toSubscription(row) : null;
    },

    async updateSubscription(id, patch, now) {
      const set = patchColumns(patch);
      const [updated] = await changingSubscriptions(statementOf(db.update(s).set({ ...set, updatedMs: now }).where(eq(s.id, id)).returning({ id: s.id })));
      if (!updated?.length) return null;
      const row = await st.subscriptionById.get({ id });
      return row ? toSubscription(row) : null;
    },

    async deleteSubscription(id) {
      const [deleted] = await changingSubscriptions(
        statementOf(db.delete(s).where(eq(s.id, id)).returning({ id: s.id })),
        statementOf(db.delete(t.linkTokens).where(eq(t.linkTokens.subscriptionId, id))),
        // Sent and dead deliveries stay, with their attempts, as the record of what went out.
        statementOf(db.delete(d).where(and(eq(d.subscriptionId, id), eq(d.state, 'pending')))),
      );
      return (deleted?.length ?? 0) > 0;
    },

    async claimDueDeliveries(holder, now, leaseMs, limit) {
      // The claim is the atomic step; what follows only reads what sending needs. A subscription
      // deleted in between took its pending deliveries with it: those are dropped here.
      const claimed = await st.claim.all({ holder, until: now + leaseMs, now, limit });
      if (claimed.length === 0) return [];
      const subscriptionIds = [...new Set(claimed.map((row) => row.subscriptionId))];
      const subscriptions = new Map((await st.subscriptionsByIds.all({ ids: JSON.stringify(subscriptionIds) })).map((row) => [row.id, toSubscription(row)]));
      const eventIds = [...new Set(claimed.flatMap((row) => JSON.parse(row.eventIdsJson) as string[]))];
      const events = new Map((await st.eventsByIds.all({ ids: JSON.stringify(eventIds) })).map((row) => [row.id, toStatusEvent(row)]));
      return claimed.flatMap((row): ClaimedDelivery[] => {
        const subscription = subscriptions.get(row.subscriptionId);
        if (!subscription) return [];
        const delivery = toDelivery(row);
        return [{ delivery, subscription, events: delivery.eventIds.flatMap((eventId) => events.get(eventId) ?? []) }];
      });
    },

    async recordAttempts(holder, attempts) {
      // One list for all: a commit per attempt was the deliverer's largest cost.
      const lists = attempts.map((item) => attemptStatements(holder, item));
      const results = await connection.runAtomically(lists.flat());
      let end = 0;
      return lists.map((list) => {
        end += list.length;
        return (results[end - 1]?.length ?? 0) > 0;
      });
    },

    async claimHolders() {
      const rows = await db
        .selectDistinct({ holder: d.claimedBy })
        .from(d)
        .where(and(eq(d.state, 'pending'), sql`${d.claimedBy} IS NOT NULL`))
        .all();
      return rows.map((r) => r.holder!);
    },

    async releaseClaims(holder) {
      return changedRows(await db.update(d).set({ claimedBy: null, claimUntilMs: null }).where(and(eq(d.claimedBy, holder), eq(d.state, 'pending'))).run());
    },

    async nextDueAt() {
      const row = await db
        .select({ at: sql<number | null>`MIN(MAX(${d.nextAttemptMs}, COALESCE(${d.claimUntilMs}, 0)))` })
        .from(d)
        // Only what a claim can take: a paused subscription's rows counted as due in the past made
        // the scheduler run an empty round every 50 ms until it was resumed (a resume signals).
        .where(and(eq(d.state, 'pending'), sql`${d.subscriptionId} IN (SELECT ${s.id} FROM ${s} WHERE ${s.status} = 'active')`))
        .get();
      return row?.at ?? null;
    },

    async listDeliveries(filter, beforeId, limit) {
      const conditions = deliveryConditions(filter);
      if (beforeId !== null) conditions.push(lt(d.id, beforeId));
      const rows = await db.select().from(d).where(and(...conditions)).orderBy(desc(d.id)).limit(limit).all();
      return rows.map(toDelivery);
    },

    async getDelivery(id) {
      const row = await st.deliveryById.get({ id });
      if (!row) return null;
      const rows = await db.select().from(t.deliveryAttempts).where(eq(t.deliveryAttempts.deliveryId, id)).orderBy(asc(t.deliveryAttempts.id)).all();
      const attempts = rows.map(
        (a): DeliveryAttemptRecord => ({
          attemptedAt: a.attemptedMs,
          ok: a.ok,
          status: a.status,
          durationMs: a.durationMs,
          responseExcerpt: a.responseExcerpt,
          error: a.error,
        }),
      );
      return { delivery: toDelivery(row), attempts };
    },

    async replayDelivery(id, now) {
      return changedRows(await db.update(d).set(replayed(now)).where(eq(d.id, id)).run()) > 0;
    },

    async replayDeliveriesSince(sinceMs, filter, now) {
      return changedRows(
        await db
          .update(d)
          .set(replayed(now))
          .where(and(...deliveryConditions({ ...filter, sinceMs })))
          .run(),
      );
    },

    async deliveryCounts(now) {
      const rows = await db.select({ state: d.state, n: sql<number>`count(*)` }).from(d).groupBy(d.state).all();
      const counts = { pending: 0, done: 0, dead: 0 };
      for (const r of rows) counts[r.state] = r.n;
      const pending = await db
        .select({ due: sql<number>`count(*)`, oldest: sql<number | null>`MIN(${d.createdMs})` })
        .from(d)
        .where(and(eq(d.state, 'pending'), sql`${d.nextAttemptMs} <= ${now}`))
        .get();
      return { ...counts, due: pending?.due ?? 0, oldestPendingAt: pending?.oldest ?? null };
    },

    async saveToken(record) {
      await db
        .insert(t.linkTokens)
        .values({ hash: record.hash, purpose: record.purpose, subscriptionId: record.subscriptionId, expiresMs: record.expiresAt })
        .run();
    },

    async findToken(hash) {
      const row = await db.select().from(t.linkTokens).where(eq(t.linkTokens.hash, hash)).get();
      return row ? { hash: row.hash, purpose: row.purpose, subscriptionId: row.subscriptionId, expiresAt: row.expiresMs, usedAt: row.usedMs } : null;
    },

    async markTokenUsed(hash, now) {
      // Expired tokens are pruned in the background (sqlite-retention.ts), not on this path.
      await db.update(t.linkTokens).set({ usedMs: now }).where(eq(t.linkTokens.hash, hash)).run();
    },

    async hitRateLimit(key, rule, now, options = {}) {
      // Expired logs are pruned in the background (sqlite-retention.ts): deleting them here
      // scanned the whole table on every hit.
      try {
        return await swapLimitLogs(connection, [key], ([text]) => {
          const decision = checkLimit(text ? (JSON.parse(text) as LimitState) : undefined, rule, now);
          if (options.peek) return { writes: [], result: decision };
          return { writes: [{ key, hitsJson: JSON.stringify(decision.state), expiresMs: now + rule.windowMs }], result: decision };
        });
      } catch (error) {
        // Fail closed: a hit that could not be recorded is not let through.
        if (error instanceof LimitLogContention) return { ...checkLimit(undefined, rule, now), allowed: false, retryAfterMs: rule.windowMs };
        throw error;
      }
    },
  };

  function deliveryConditions(filter: DeliveryFilter): SQL[] {
    const conditions: SQL[] = [];
    if (filter.subscriptionId) conditions.push(eq(d.subscriptionId, filter.subscriptionId));
    if (filter.state) conditions.push(eq(d.state, filter.state));
    if (filter.sinceMs !== undefined) conditions.push(gte(d.createdMs, filter.sinceMs));
    return conditions;
  }
}

/** An events row as the core's event (the store's StoredEvent adds its sequence and poll run). */
export function toStatusEvent(row: typeof t.events.$inferSelect): StatusEvent {
  return {
    id: row.id,
    type: row.type as EventType,
    incidentId: row.incidentId,
    revision: row.revision,
    occurredAt: row.occurredMs,
    detectedAt: row.detectedMs,
    backfill: row.backfill,
    data: JSON.parse(row.dataJson) as EventData,
  };
}

/** A replayed delivery goes out at once with the same key (so the same webhook-id); its attempts stay on record. */
function replayed(now: number) {
  return { state: 'pending' as const, nextAttemptMs: now, claimedBy: null, claimUntilMs: null, finishedMs: null, lastError: null };
}

function toSubscription(row: typeof t.subscriptions.$inferSelect): StoredSubscription {
  return {
    id: row.id,
    channel: row.channel,
    target: row.target,
    filters: JSON.parse(row.filtersJson) as SubscriptionFilters,
    timeZone: row.timeZone,
    status: row.status,
    origin: row.origin,
    pausedReason: row.pausedReason,
    secretSealed: row.secretSealed,
    previousSecretSealed: row.previousSecretSealed,
    previousSecretUntil: row.previousSecretUntilMs,
    failingSince: row.failingSinceMs,
    lastSuccessAt: row.lastSuccessMs,
    createdAt: row.createdMs,
    updatedAt: row.updatedMs,
  };
}

function toSubscriptionRow(sub: StoredSubscription): typeof t.subscriptions.$inferInsert {
  return {
    id: sub.id,
    channel: sub.channel,
    target: sub.target,
    filtersJson: JSON.stringify(sub.filters),
    timeZone: sub.timeZone,
    status: sub.status,
    origin: sub.origin,
    pausedReason: sub.pausedReason,
    secretSealed: sub.secretSealed,
    previousSecretSealed: sub.previousSecretSealed,
    previousSecretUntilMs: sub.previousSecretUntil,
    failingSinceMs: sub.failingSince,
    lastSuccessMs: sub.lastSuccessAt,
    createdMs: sub.createdAt,
    updatedMs: sub.updatedAt,
  };
}

function patchColumns(patch: SubscriptionPatch): Partial<typeof t.subscriptions.$inferInsert> {
  const set: Partial<typeof t.subscriptions.$inferInsert> = {};
  if (patch.target !== undefined) set.target = patch.target;
  if (patch.filters !== undefined) set.filtersJson = JSON.stringify(patch.filters);
  if (patch.timeZone !== undefined) set.timeZone = patch.timeZone;
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.pausedReason !== undefined) set.pausedReason = patch.pausedReason;
  if (patch.secretSealed !== undefined) set.secretSealed = patch.secretSealed;
  if (patch.previousSecretSealed !== undefined) set.previousSecretSealed = patch.previousSecretSealed;
  if (patch.previousSecretUntil !== undefined) set.previousSecretUntilMs = patch.previousSecretUntil;
  if (patch.failingSince !== undefined) set.failingSinceMs = patch.failingSince;
  return set;
}

function toDelivery(row: typeof t.deliveries.$inferSelect): Delivery {
  return {
    id: row.id,
    key: row.key,
    subscriptionId: row.subscriptionId,
    channel: row.channel,
    eventIds: JSON.parse(row.eventIdsJson) as string[],
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptMs,
    createdAt: row.createdMs,
    finishedAt: row.finishedMs,
    lastError: row.lastError,
  };
}
