/**
 * Subscriptions, the delivery outbox, attempts, link tokens and rate limits in SQLite: the
 * NotificationStore port, plus the outbox writer the poll's transaction calls (sqlite-store.ts).
 */
import { and, asc, desc, eq, gt, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { StatusEvent, EventData, EventType } from '../core/events.ts';
import { planDeliveries } from '../core/fanout.ts';
import type {
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
import type { SqliteDatabase } from './sqlite-statements.ts';
import * as t from './store-schema.ts';

/** Rows per INSERT: SQLite allows 32,766 parameters, a delivery row takes 8. */
const OUTBOX_INSERT_CHUNK = 500;

export type OutboxWriter = {
  /** Active subscriptions, read before the poll's transaction (parsing 10,000 filters is not free). */
  loadActiveSubscriptions(): StoredSubscription[];
  /** Inside the poll's transaction: one row per planned delivery; a key already there is left alone. */
  writeOutbox(events: readonly StatusEvent[], subscriptions: readonly StoredSubscription[], now: number): number;
};

export function createOutboxWriter(db: SqliteDatabase): OutboxWriter {
  const activeSubscriptions = db.select().from(t.subscriptions).where(eq(t.subscriptions.status, 'active')).orderBy(asc(t.subscriptions.id)).prepare();
  return {
    loadActiveSubscriptions: () => activeSubscriptions.all().map(toSubscription),
    writeOutbox(events, subscriptions, now) {
      const planned = planDeliveries(events, subscriptions);
      for (let i = 0; i < planned.length; i += OUTBOX_INSERT_CHUNK) {
        const rows = planned.slice(i, i + OUTBOX_INSERT_CHUNK).map((d) => ({
          key: d.key,
          subscriptionId: d.subscriptionId,
          channel: d.channel,
          eventIdsJson: JSON.stringify(d.eventIds),
          state: 'pending' as const,
          attempts: 0,
          nextAttemptMs: now,
          createdMs: now,
        }));
        db.insert(t.deliveries).values(rows).onConflictDoNothing().run();
      }
      return planned.length;
    },
  };
}

export function createSqliteNotificationStore(db: SqliteDatabase): NotificationStore {
  const s = t.subscriptions;
  const d = t.deliveries;

  const eventsByIds = (ids: readonly string[]): StatusEvent[] =>
    db
      .select()
      .from(t.events)
      .where(sql`${t.events.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`)
      .orderBy(asc(t.events.seq))
      .all()
      .map((row) => ({
        id: row.id,
        type: row.type as EventType,
        incidentId: row.incidentId,
        revision: row.revision,
        occurredAt: row.occurredMs,
        detectedAt: row.detectedMs,
        backfill: row.backfill,
        data: JSON.parse(row.dataJson) as EventData,
      }));

  const subscriptionRow = (id: string) => db.select().from(s).where(eq(s.id, id)).get();

  return {
    async createSubscription(sub) {
      db.insert(s).values(toSubscriptionRow(sub)).run();
    },

    async getSubscription(id) {
      const row = subscriptionRow(id);
      return row ? toSubscription(row) : null;
    },

    async listSubscriptions(filter, afterId, limit) {
      const conditions: SQL[] = [];
      if (filter.status) conditions.push(eq(s.status, filter.status));
      if (filter.channel) conditions.push(eq(s.channel, filter.channel));
      if (afterId !== null) conditions.push(gt(s.id, afterId));
      return db.select().from(s).where(and(...conditions)).orderBy(asc(s.id)).limit(limit).all().map(toSubscription);
    },

    async findSubscription(channel, target) {
      const row = db.select().from(s).where(and(eq(s.channel, channel), eq(s.target, target))).get();
      return row ? toSubscription(row) : null;
    },

    async updateSubscription(id, patch, now) {
      const set = patchColumns(patch);
      const row = db.update(s).set({ ...set, updatedMs: now }).where(eq(s.id, id)).returning().get();
      return row ? toSubscription(row) : null;
    },

    async deleteSubscription(id) {
      return db.transaction(() => {
        const deleted = db.delete(s).where(eq(s.id, id)).run().changes > 0;
        db.delete(t.linkTokens).where(eq(t.linkTokens.subscriptionId, id)).run();
        // Sent and dead deliveries stay, with their attempts, as the record of what went out.
        db.delete(d).where(and(eq(d.subscriptionId, id), eq(d.state, 'pending'))).run();
        return deleted;
      });
    },

    async claimDueDeliveries(holder, now, leaseMs, limit) {
      return db.transaction(() => {
        // The claim is one UPDATE: two deliverers can never both hold a row.
        const claimed = db
          .update(d)
          .set({ claimedBy: holder, claimUntilMs: now + leaseMs })
          .where(
            sql`${d.id} IN (SELECT ${d.id} FROM ${d} WHERE ${d.state} = 'pending' AND ${d.nextAttemptMs} <= ${now}
              AND (${d.claimUntilMs} IS NULL OR ${d.claimUntilMs} <= ${now})
              AND ${d.subscriptionId} IN (SELECT ${s.id} FROM ${s} WHERE ${s.status} = 'active') ORDER BY ${d.nextAttemptMs}, ${d.id} LIMIT ${limit})`,
          )
          .returning()
          .all();
        // Only active subscriptions' rows are claimed: a paused one's wait until it is resumed.
        const subscriptions = new Map<string, StoredSubscription>();
        for (const row of claimed) {
          if (subscriptions.has(row.subscriptionId)) continue;
          const sub = subscriptionRow(row.subscriptionId);
          if (sub) subscriptions.set(row.subscriptionId, toSubscription(sub));
        }
        const result: ClaimedDelivery[] = claimed.map((row) => {
          const delivery = toDelivery(row);
          return { delivery, subscription: subscriptions.get(row.subscriptionId)!, events: eventsByIds(delivery.eventIds) };
        });
        return result;
      });
    },

    async recordAttempt(deliveryId, holder, attempt, outcome, health) {
      return db.transaction(() => {
        const row = db.select().from(d).where(eq(d.id, deliveryId)).get();
        if (!row || row.claimedBy !== holder || row.state !== 'pending') return false;
        db.insert(t.deliveryAttempts)
          .values({
            deliveryId,
            attemptedMs: attempt.attemptedAt,
            ok: attempt.ok,
            status: attempt.status,
            durationMs: attempt.durationMs,
            responseExcerpt: attempt.responseExcerpt,
            error: attempt.error,
          })
          .run();
        const finishedMs = attempt.attemptedAt + attempt.durationMs;
        db.update(d)
          .set({
            attempts: row.attempts + 1,
            claimedBy: null,
            claimUntilMs: null,
            ...(outcome.kind === 'done' ? { state: 'done', finishedMs, lastError: null } : {}),
            ...(outcome.kind === 'retry' ? { nextAttemptMs: outcome.at, lastError: outcome.error } : {}),
            ...(outcome.kind === 'dead' ? { state: 'dead', finishedMs, lastError: outcome.reason } : {}),
          })
          .where(eq(d.id, deliveryId))
          .run();
        const sub = s;
        if (health.kind === 'succeeded') {
          db.update(sub).set({ failingSinceMs: null, lastSuccessMs: finishedMs }).where(eq(sub.id, row.subscriptionId)).run();
        } else {
          db.update(sub)
            .set({ failingSinceMs: sql`COALESCE(${sub.failingSinceMs}, ${attempt.attemptedAt})` })
            .where(eq(sub.id, row.subscriptionId))
            .run();
          if (health.kind === 'paused') {
            db.update(sub)
              .set({ status: 'paused', pausedReason: health.reason, updatedMs: finishedMs })
              .where(and(eq(sub.id, row.subscriptionId), sql`${sub.status} <> 'paused'`))
              .run();
          }
        }
        return true;
      });
    },

    async claimHolders() {
      return db
        .selectDistinct({ holder: d.claimedBy })
        .from(d)
        .where(and(eq(d.state, 'pending'), sql`${d.claimedBy} IS NOT NULL`))
        .all()
        .map((r) => r.holder!);
    },

    async releaseClaims(holder) {
      return db.update(d).set({ claimedBy: null, claimUntilMs: null }).where(and(eq(d.claimedBy, holder), eq(d.state, 'pending'))).run().changes;
    },

    async nextDueAt() {
      const row = db
        .select({ at: sql<number | null>`MIN(MAX(${d.nextAttemptMs}, COALESCE(${d.claimUntilMs}, 0)))` })
        .from(d)
        .where(eq(d.state, 'pending'))
        .get();
      return row?.at ?? null;
    },

    async listDeliveries(filter, beforeId, limit) {
      const conditions = deliveryConditions(filter);
      if (beforeId !== null) conditions.push(lt(d.id, beforeId));
      return db.select().from(d).where(and(...conditions)).orderBy(desc(d.id)).limit(limit).all().map(toDelivery);
    },

    async getDelivery(id) {
      const row = db.select().from(d).where(eq(d.id, id)).get();
      if (!row) return null;
      const attempts = db
        .select()
        .from(t.deliveryAttempts)
        .where(eq(t.deliveryAttempts.deliveryId, id))
        .orderBy(asc(t.deliveryAttempts.id))
        .all()
        .map(
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
      return db.update(d).set(replayed(now)).where(eq(d.id, id)).run().changes > 0;
    },

    async replayDeliveriesSince(sinceMs, filter, now) {
      return db
        .update(d)
        .set(replayed(now))
        .where(and(...deliveryConditions({ ...filter, sinceMs })))
        .run().changes;
    },

    async deliveryCounts(now) {
      const rows = db.select({ state: d.state, n: sql<number>`count(*)` }).from(d).groupBy(d.state).all();
      const counts = { pending: 0, done: 0, dead: 0 };
      for (const r of rows) counts[r.state] = r.n;
      const pending = db
        .select({ due: sql<number>`count(*)`, oldest: sql<number | null>`MIN(${d.createdMs})` })
        .from(d)
        .where(and(eq(d.state, 'pending'), sql`${d.nextAttemptMs} <= ${now}`))
        .get();
      return { ...counts, due: pending?.due ?? 0, oldestPendingAt: pending?.oldest ?? null };
    },

    async saveToken(record) {
      db.insert(t.linkTokens)
        .values({ hash: record.hash, purpose: record.purpose, subscriptionId: record.subscriptionId, expiresMs: record.expiresAt })
        .run();
    },

    async findToken(hash) {
      const row = db.select().from(t.linkTokens).where(eq(t.linkTokens.hash, hash)).get();
      return row ? { hash: row.hash, purpose: row.purpose, subscriptionId: row.subscriptionId, expiresAt: row.expiresMs, usedAt: row.usedMs } : null;
    },

    async markTokenUsed(hash, now) {
      db.update(t.linkTokens).set({ usedMs: now }).where(eq(t.linkTokens.hash, hash)).run();
      // Expired tokens are dead weight: prune them while we are writing anyway.
      db.delete(t.linkTokens).where(lt(t.linkTokens.expiresMs, now)).run();
    },

    async hitRateLimit(key, rule, now) {
      return db.transaction(() => {
        const row = db.select().from(t.rateLimits).where(eq(t.rateLimits.key, key)).get();
        const state = row ? (JSON.parse(row.hitsJson) as LimitState) : undefined;
        const decision = checkLimit(state, rule, now);
        const hitsJson = JSON.stringify(decision.state);
        const expiresMs = now + rule.windowMs;
        db.insert(t.rateLimits)
          .values({ key, hitsJson, expiresMs })
          .onConflictDoUpdate({ target: t.rateLimits.key, set: { hitsJson, expiresMs } })
          .run();
        db.delete(t.rateLimits).where(lt(t.rateLimits.expiresMs, now)).run();
        return decision;
      });
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
