/**
 * The delivery outbox in SQLite: the OutboxStore port. Its rows are written with the poll that
 * caused them (sqlite-poll-apply.ts); here they are claimed (one UPDATE ... RETURNING), their
 * attempts recorded (one fixed list, each statement conditional on the claim), listed and replayed.
 */
import { and, asc, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { AttemptToRecord, ClaimedDelivery, DeliveryAttemptRecord, DeliveryFilter, OutboxStore } from '../core/ports.ts';
import { changedRows, type BatchStatement, type SqlDb, type SqliteConnection } from './sqlite-connection.ts';
import { toDelivery, toStatusEvent, toSubscription } from './sqlite-rows.ts';
import { BUMP_SUBSCRIPTIONS_VERSION } from './sqlite-subscriptions.ts';
import * as t from './store-schema.ts';

const p = sql.placeholder;
/** A placeholder where Drizzle's types want SQL (update().set() takes no bare placeholders). */
const v = (name: string) => sql`${p(name)}`;

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

/** A held delivery waits: its claim ends, its attempts are not counted (DeliveryOutcome `held`). */
const HOLD_DELIVERY = `UPDATE deliveries SET claimed_by = NULL, claim_until_ms = NULL, next_attempt_ms = ?, last_error = ?
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
  const insertAttempt: BatchStatement = {
    sql: INSERT_ATTEMPT,
    params: [deliveryId, attempt.attemptedAt, attempt.ok ? 1 : 0, attempt.status, attempt.durationMs, attempt.responseExcerpt, attempt.error, ...held],
  };
  if (outcome.kind === 'held') return [...(outcome.logged ? [insertAttempt] : []), { sql: HOLD_DELIVERY, params: [outcome.at, outcome.error, ...held] }];
  const list: BatchStatement[] = [insertAttempt];
  if (health.kind === 'succeeded') {
    list.push({ sql: MARK_SUCCEEDED, params: [finishedMs, ...held] });
  } else if (health.kind !== 'unchanged') {
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
    // subscriptions' rows are claimed: a paused one's wait until it is resumed. A row whose
    // subscription has an earlier delivery in another deliverer's live claim waits for it, so a
    // subscription's deliveries go out in order across processes and isolates too (one claim
    // takes several of them at once: its deliverer sends them in order). The active check is a
    // lookup per candidate, not an IN list: with the list, SQLite gathered every pending row of
    // every active subscription and sorted them all for each claim (draining 1,000 deliveries,
    // 100 a claim, sorted 5,500 rows); this way it walks deliveries_due in due order and stops at
    // the limit. The rows it steps over are paused subscriptions' and those waiting behind a
    // delivery in flight.
    claim: db
      .update(d)
      .set({ claimedBy: v('holder'), claimUntilMs: v('until') })
      .where(
        sql`${d.id} IN (SELECT ${d.id} FROM ${d} WHERE ${d.state} = 'pending' AND ${d.nextAttemptMs} <= ${p('now')}
          AND (${d.claimUntilMs} IS NULL OR ${d.claimUntilMs} <= ${p('now')})
          AND EXISTS (SELECT 1 FROM ${s} WHERE ${s.id} = ${d.subscriptionId} AND ${s.status} = 'active')
          AND NOT EXISTS (SELECT 1 FROM ${d} AS earlier INDEXED BY deliveries_pending_subscription
            WHERE earlier.subscription_id = ${d.subscriptionId} AND earlier.state = 'pending' AND earlier.id < ${d.id}
              AND earlier.claim_until_ms > ${p('now')})
          ORDER BY ${d.nextAttemptMs}, ${d.id} LIMIT ${p('limit')})`,
      )
      // Only what sending uses (DeliveryToSend) and what finds its subscription and events.
      .returning({
        id: d.id,
        key: d.key,
        subscriptionId: d.subscriptionId,
        channel: d.channel,
        eventIdsJson: d.eventIdsJson,
        attempts: d.attempts,
        createdMs: d.createdMs,
      })
      .prepare(),
    // Only a live claim is renewed: once its lease is over another deliverer may have claimed (and
    // sent) a later delivery of the same subscription, or be about to take this one.
    renew: db
      .update(d)
      .set({ claimUntilMs: v('until') })
      .where(
        sql`${d.id} IN (SELECT value FROM json_each(${p('ids')})) AND ${d.claimedBy} = ${p('holder')} AND ${d.state} = 'pending'
          AND ${d.claimUntilMs} > ${p('now')}`,
      )
      .returning({ id: d.id })
      .prepare(),
    subscriptionsByIds: db
      .select()
      .from(s)
      .where(sql`${s.id} IN (SELECT value FROM json_each(${p('ids')}))`)
      .prepare(),
    deliveryById: db
      .select()
      .from(d)
      .where(eq(d.id, p('id')))
      .prepare(),
    eventsByIds: db
      .select()
      .from(t.events)
      .where(sql`${t.events.id} IN (SELECT value FROM json_each(${p('ids')}))`)
      .orderBy(asc(t.events.seq))
      .prepare(),
  };
}

export function createSqliteOutboxStore(connection: SqliteConnection): OutboxStore {
  const { db } = connection;
  const s = t.subscriptions;
  const d = t.deliveries;
  const st = prepareDeliveryStatements(db);

  return {
    async claimDueDeliveries(holder, now, leaseMs, limit) {
      // The claim is the atomic step; what follows only reads what sending needs. A subscription
      // deleted in between took its pending deliveries with it: those are dropped here.
      const claimed = await st.claim.all({ holder, until: now + leaseMs, now, limit });
      if (claimed.length === 0) return [];
      const subscriptionIds = [...new Set(claimed.map((row) => row.subscriptionId))];
      const subscriptions = new Map((await st.subscriptionsByIds.all({ ids: JSON.stringify(subscriptionIds) })).map((row) => [row.id, toSubscription(row)]));
      const eventIdsOf = claimed.map((row) => JSON.parse(row.eventIdsJson) as string[]);
      const eventIds = [...new Set(eventIdsOf.flat())];
      const events = new Map((await st.eventsByIds.all({ ids: JSON.stringify(eventIds) })).map((row) => [row.id, toStatusEvent(row)]));
      return claimed.flatMap((row, i): ClaimedDelivery[] => {
        const subscription = subscriptions.get(row.subscriptionId);
        if (!subscription) return [];
        const delivery = { id: row.id, key: row.key, channel: row.channel, attempts: row.attempts, createdAt: row.createdMs };
        return [{ delivery, subscription, events: eventIdsOf[i]!.flatMap((eventId) => events.get(eventId) ?? []) }];
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

    async renewClaims(holder, deliveryIds, now, leaseMs) {
      if (deliveryIds.length === 0) return [];
      const rows = await st.renew.all({ ids: JSON.stringify(deliveryIds), holder, now, until: now + leaseMs });
      return rows.map((row) => row.id);
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
      return changedRows(
        await db
          .update(d)
          .set({ claimedBy: null, claimUntilMs: null })
          .where(and(eq(d.claimedBy, holder), eq(d.state, 'pending')))
          .run(),
      );
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
      const rows = await db
        .select()
        .from(d)
        .where(and(...conditions))
        .orderBy(desc(d.id))
        .limit(limit)
        .all();
      return rows.map(toDelivery);
    },

    async getDelivery(id, attemptsLimit) {
      const row = await st.deliveryById.get({ id });
      if (!row) return null;
      const a = t.deliveryAttempts;
      const rows =
        attemptsLimit === undefined
          ? await db.select().from(a).where(eq(a.deliveryId, id)).orderBy(asc(a.id)).all()
          : (await db.select().from(a).where(eq(a.deliveryId, id)).orderBy(desc(a.id)).limit(attemptsLimit).all()).reverse();
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
      const retrying = await db
        .select({ n: sql<number>`count(*)` })
        .from(d)
        .where(and(eq(d.state, 'pending'), sql`${d.attempts} > 0`))
        .get();
      return { ...counts, due: pending?.due ?? 0, retrying: retrying?.n ?? 0, oldestPendingAt: pending?.oldest ?? null };
    },

    // One JSON value each, not a parameter per id: D1 takes at most 100 bound parameters.
    async eventsByIds(ids) {
      if (ids.length === 0) return [];
      return (await st.eventsByIds.all({ ids: JSON.stringify(ids) })).map(toStatusEvent);
    },

    async subscriptionsByIds(ids) {
      if (ids.length === 0) return [];
      return (await st.subscriptionsByIds.all({ ids: JSON.stringify(ids) })).map(toSubscription);
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
