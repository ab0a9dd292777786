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
import type { SqliteDatabase } from './sqlite-statements.ts';
import * as t from './store-schema.ts';

/** Bumped by every write to subscriptions, from any process: tells a cached list it is stale. */
const SUBSCRIPTIONS_VERSION_KEY = 'subscriptions_version';

export type ActiveSubscriptionsReader = {
  /**
   * Active subscriptions, which the poller plans deliveries for. Reading and parsing 10,000 of
   * them took 130 ms, so the list is kept until any process changes a subscription.
   */
  loadActiveSubscriptions(): StoredSubscription[];
};

export function createActiveSubscriptionsReader(db: SqliteDatabase): ActiveSubscriptionsReader {
  const activeSubscriptions = db.select().from(t.subscriptions).where(eq(t.subscriptions.status, 'active')).orderBy(asc(t.subscriptions.id)).prepare();
  const version = db.select({ value: t.meta.value }).from(t.meta).where(eq(t.meta.key, SUBSCRIPTIONS_VERSION_KEY)).prepare();
  let cached: { version: string; subscriptions: StoredSubscription[] } | null = null;
  return {
    loadActiveSubscriptions() {
      const current = version.get()?.value ?? '0';
      if (cached?.version !== current) cached = { version: current, subscriptions: activeSubscriptions.all().map(toSubscription) };
      return cached.subscriptions;
    },
  };
}

/** The statements of the deliverer's path, prepared once: built and prepared per call they took most of its time. */
function prepareDeliveryStatements(db: SqliteDatabase) {
  const s = t.subscriptions;
  const d = t.deliveries;
  return {
    bumpSubscriptionsVersion: db
      .insert(t.meta)
      .values({ key: SUBSCRIPTIONS_VERSION_KEY, value: '1' })
      .onConflictDoUpdate({ target: t.meta.key, set: { value: sql`CAST(${t.meta.value} AS INTEGER) + 1` } })
      .prepare(),
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
    deliveryById: db.select().from(d).where(eq(d.id, p('id'))).prepare(),
    eventsByIds: db
      .select()
      .from(t.events)
      .where(sql`${t.events.id} IN (SELECT value FROM json_each(${p('ids')}))`)
      .orderBy(asc(t.events.seq))
      .prepare(),
    insertAttempt: db
      .insert(t.deliveryAttempts)
      .values({
        deliveryId: p('deliveryId'),
        attemptedMs: p('attemptedMs'),
        ok: p('ok'),
        status: p('status'),
        durationMs: p('durationMs'),
        responseExcerpt: p('responseExcerpt'),
        error: p('error'),
      })
      .prepare(),
    finishAttempt: db
      .update(d)
      .set({
        attempts: sql`${d.attempts} + 1`,
        claimedBy: null,
        claimUntilMs: null,
        state: v('state'),
        nextAttemptMs: v('nextAttemptMs'),
        finishedMs: v('finishedMs'),
        lastError: v('lastError'),
      })
      .where(eq(d.id, p('id')))
      .prepare(),
    markSucceeded: db.update(s).set({ failingSinceMs: null, lastSuccessMs: v('at') }).where(eq(s.id, p('id'))).prepare(),
    markFailing: db.update(s).set({ failingSinceMs: v('since') }).where(and(eq(s.id, p('id')), sql`${s.failingSinceMs} IS NULL`)).prepare(),
    markPaused: db
      .update(s)
      .set({ status: 'paused', pausedReason: v('reason'), updatedMs: v('at') })
      .where(and(eq(s.id, p('id')), sql`${s.status} <> 'paused'`))
      .prepare(),
  };
}

export function createSqliteNotificationStore(db: SqliteDatabase): NotificationStore {
  const s = t.subscriptions;
  const d = t.deliveries;
  const st = prepareDeliveryStatements(db);

  const eventsByIds = (ids: readonly string[]): StatusEvent[] => st.eventsByIds.all({ ids: JSON.stringify(ids) }).map(toStatusEvent);

  const subscriptionRow = (id: string) => st.subscriptionById.get({ id });

  /** Every write to subscriptions goes through here, so cached lists of them see it. */
  const changingSubscriptions = <T>(write: () => T): T =>
    db.transaction(() => {
      const result = write();
      st.bumpSubscriptionsVersion.run();
      return result;
    });

  return {
    async createSubscription(sub) {
      changingSubscriptions(() => db.insert(s).values(toSubscriptionRow(sub)).run());
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
      const row = changingSubscriptions(() => db.update(s).set({ ...set, updatedMs: now }).where(eq(s.id, id)).returning().get());
      return row ? toSubscription(row) : null;
    },

    async deleteSubscription(id) {
      return changingSubscriptions(() => {
        const deleted = db.delete(s).where(eq(s.id, id)).run().changes > 0;
        db.delete(t.linkTokens).where(eq(t.linkTokens.subscriptionId, id)).run();
        // Sent and dead deliveries stay, with their attempts, as the record of what went out.
        db.delete(d).where(and(eq(d.subscriptionId, id), eq(d.state, 'pending'))).run();
        return deleted;
      });
    },

    async claimDueDeliveries(holder, now, leaseMs, limit) {
      return db.transaction(() => {
        const claimed = st.claim.all({ holder, until: now + leaseMs, now, limit });
        const subscriptions = new Map<string, StoredSubscription>();
        for (const row of claimed) {
          if (subscriptions.has(row.subscriptionId)) continue;
          const sub = subscriptionRow(row.subscriptionId);
          if (sub) subscriptions.set(row.subscriptionId, toSubscription(sub));
        }
        return claimed.map((row): ClaimedDelivery => {
          const delivery = toDelivery(row);
          return { delivery, subscription: subscriptions.get(row.subscriptionId)!, events: eventsByIds(delivery.eventIds) };
        });
      });
    },

    async recordAttempts(holder, attempts) {
      // One transaction for all: a commit per attempt was the deliverer's largest cost.
      return db.transaction(() => attempts.map((item) => recordOne(holder, item)));
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
        // Only what a claim can take: a paused subscription's rows counted as due in the past made
        // the scheduler run an empty round every 50 ms until it was resumed (a resume signals).
        .where(and(eq(d.state, 'pending'), sql`${d.subscriptionId} IN (SELECT ${s.id} FROM ${s} WHERE ${s.status} = 'active')`))
        .get();
      return row?.at ?? null;
    },

    async listDeliveries(filter, beforeId, limit) {
      const conditions = deliveryConditions(filter);
      if (beforeId !== null) conditions.push(lt(d.id, beforeId));
      return db.select().from(d).where(and(...conditions)).orderBy(desc(d.id)).limit(limit).all().map(toDelivery);
    },

    async getDelivery(id) {
      const row = st.deliveryById.get({ id });
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
      // Expired tokens are pruned in the background (sqlite-retention.ts), not on this path.
      db.update(t.linkTokens).set({ usedMs: now }).where(eq(t.linkTokens.hash, hash)).run();
    },

    async hitRateLimit(key, rule, now, options = {}) {
      return db.transaction(() => {
        const row = db.select().from(t.rateLimits).where(eq(t.rateLimits.key, key)).get();
        const state = row ? (JSON.parse(row.hitsJson) as LimitState) : undefined;
        const decision = checkLimit(state, rule, now);
        if (options.peek) return decision;
        const hitsJson = JSON.stringify(decision.state);
        const expiresMs = now + rule.windowMs;
        db.insert(t.rateLimits)
          .values({ key, hitsJson, expiresMs })
          .onConflictDoUpdate({ target: t.rateLimits.key, set: { hitsJson, expiresMs } })
          .run();
        // Expired logs are pruned in the background (sqlite-retention.ts): deleting them here
        // scanned the whole table on every hit.
        return decision;
      });
    },
  };

  function recordOne(holder: string, { deliveryId, attempt, outcome, health }: AttemptToRecord): boolean {
    const row = st.deliveryById.get({ id: deliveryId });
    if (!row || row.claimedBy !== holder || row.state !== 'pending') return false;
    st.insertAttempt.run({
      deliveryId,
      attemptedMs: attempt.attemptedAt,
      ok: attempt.ok ? 1 : 0,
      status: attempt.status,
      durationMs: attempt.durationMs,
      responseExcerpt: attempt.responseExcerpt,
      error: attempt.error,
    });
    const finishedMs = attempt.attemptedAt + attempt.durationMs;
    st.finishAttempt.run({
      id: deliveryId,
      state: outcome.kind === 'done' ? 'done' : outcome.kind === 'dead' ? 'dead' : 'pending',
      nextAttemptMs: outcome.kind === 'retry' ? outcome.at : row.nextAttemptMs,
      finishedMs: outcome.kind === 'retry' ? null : finishedMs,
      lastError: outcome.kind === 'retry' ? outcome.error : outcome.kind === 'dead' ? outcome.reason : null,
    });
    if (health.kind === 'succeeded') {
      st.markSucceeded.run({ id: row.subscriptionId, at: finishedMs });
    } else {
      st.markFailing.run({ id: row.subscriptionId, since: attempt.attemptedAt });
      // A pause changes which subscriptions are active: the outbox's cached list must see it.
      if (health.kind === 'paused' && st.markPaused.run({ id: row.subscriptionId, reason: health.reason, at: finishedMs }).changes > 0) {
        st.bumpSubscriptionsVersion.run();
      }
    }
    return true;
  }

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
