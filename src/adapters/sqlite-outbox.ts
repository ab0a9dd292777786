/**
 * The delivery outbox in SQLite: the OutboxStore port. Its rows are written with the poll that
 * caused them (sqlite-poll-apply.ts); here they are claimed (one UPDATE ... RETURNING), their
 * attempts recorded (one fixed list of multi-row statements, each row conditional on its claim),
 * listed and replayed.
 */
import { and, asc, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { AttemptToRecord, ClaimedDelivery, DeliveryAttemptRecord, DeliveryFilter, DeliveryOutcome, OutboxStore } from '../core/ports.ts';
import { changedRows, type BatchStatement, type SqlDb, type SqliteConnection, type SqlValue } from './sqlite-connection.ts';
import { toDelivery, toStatusEvent, toSubscription } from './sqlite-rows.ts';
import { BUMP_SUBSCRIPTIONS_VERSION } from './sqlite-subscriptions.ts';
import * as t from './store-schema.ts';

const p = sql.placeholder;
/** A placeholder where Drizzle's types want SQL (update().set() takes no bare placeholders). */
const v = (name: string) => sql`${p(name)}`;

/** The subscription of a delivery while `holder` still holds its claim (params: delivery id, holder). */
const HELD_SUBSCRIPTION = `(SELECT subscription_id FROM deliveries WHERE id = ? AND claimed_by = ? AND state = 'pending')`;

const MARK_SUCCEEDED = `UPDATE subscriptions SET failing_since_ms = NULL, last_success_ms = ? WHERE id = ${HELD_SUBSCRIPTION}`;
const MARK_FAILING = `UPDATE subscriptions SET failing_since_ms = ? WHERE failing_since_ms IS NULL AND id = ${HELD_SUBSCRIPTION}`;
const MARK_PAUSED = `UPDATE subscriptions SET status = 'paused', paused_reason = ?, updated_ms = ? WHERE status <> 'paused' AND id = ${HELD_SUBSCRIPTION}`;

/**
 * Attempts are recorded by multi-row statements, a row per attempt: two statements for a group of
 * attempts instead of two per attempt (each statement costs more than the row it writes). D1 binds
 * at most 100 parameters a statement: an attempt's row binds 7, and the holder 1 more.
 */
const ATTEMPT_COLUMNS = 7;
const FINISH_COLUMNS = 6;
export const ATTEMPTS_PER_STATEMENT = Math.floor((100 - 1) / Math.max(ATTEMPT_COLUMNS, FINISH_COLUMNS));

/** `(?, ?), (?, ?)`: `rows` rows of `columns` placeholders. */
function valuesOf(rows: number, columns: number): string {
  const row = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
  return Array.from({ length: rows }, () => row).join(', ');
}

/** The attempts' rows, each written only while `holder` holds its delivery's claim (the last parameter). */
const insertAttempts = memoByRows(
  (rows) => `INSERT INTO delivery_attempts (delivery_id, attempted_ms, ok, status, duration_ms, response_excerpt, error)
  SELECT v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7 FROM (VALUES ${valuesOf(rows, ATTEMPT_COLUMNS)}) AS v
  WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = v.column1 AND claimed_by = ? AND state = 'pending')`,
);

/**
 * Ends the claims the other statements checked, each row's delivery taking its new state (see
 * finishRow); the RETURNING ids say which claims held. The plan walks the rows and finds each
 * delivery by its id.
 */
const finishDeliveries = memoByRows(
  (rows) => `UPDATE deliveries SET attempts = attempts + v.column2, claimed_by = NULL, claim_until_ms = NULL,
    state = v.column3, next_attempt_ms = coalesce(v.column4, next_attempt_ms), finished_ms = v.column5, last_error = v.column6
  FROM (VALUES ${valuesOf(rows, FINISH_COLUMNS)}) AS v
  WHERE deliveries.id = v.column1 AND deliveries.claimed_by = ? AND deliveries.state = 'pending' RETURNING deliveries.id`,
);

/** The SQL text for each row count, built once: at most ATTEMPTS_PER_STATEMENT texts each. */
function memoByRows(build: (rows: number) => string): (rows: number) => string {
  const texts: string[] = [];
  return (rows) => (texts[rows] ??= build(rows));
}

/**
 * What an attempt's outcome writes to its delivery, the one rule for it: [delivery id, attempts
 * added, state, next attempt (null: unchanged), finished at, last error]. A held delivery waits
 * until `at` without the wait counting as an attempt (DeliveryOutcome `held`).
 */
function finishRow(deliveryId: number, outcome: DeliveryOutcome, finishedMs: number): SqlValue[] {
  switch (outcome.kind) {
    case 'done':
      return [deliveryId, 1, 'done', null, finishedMs, null];
    case 'dead':
      return [deliveryId, 1, 'dead', null, finishedMs, outcome.reason];
    case 'retry':
      return [deliveryId, 1, 'pending', outcome.at, null, outcome.error];
    case 'held':
      return [deliveryId, 0, 'pending', outcome.at, null, outcome.error];
  }
}

/**
 * The statements of attempts of distinct deliveries, at most ATTEMPTS_PER_STATEMENT: their
 * attempts' rows, the subscriptions' health one attempt after another, then their deliveries'
 * new states, which end the claims every statement before checked. Each applies only while
 * `holder` holds the claim. Recorded this way they write what they would one after another:
 * an attempt's rows touch only its own delivery, and the health statements keep their order. A
 * pause bumps the subscriptions version whether or not it applied: a spare bump only makes a
 * cached list read again.
 */
function groupStatements(holder: string, group: readonly AttemptToRecord[]): { list: BatchStatement[]; finishIndex: number } {
  const attemptRows: SqlValue[] = [];
  const finishRows: SqlValue[] = [];
  const health: BatchStatement[] = [];
  for (const { deliveryId, attempt, outcome, health: change } of group) {
    const finishedMs = attempt.attemptedAt + attempt.durationMs;
    const held = [deliveryId, holder];
    if (outcome.kind !== 'held' || outcome.logged) {
      attemptRows.push(deliveryId, attempt.attemptedAt, attempt.ok ? 1 : 0, attempt.status, attempt.durationMs, attempt.responseExcerpt, attempt.error);
    }
    finishRows.push(...finishRow(deliveryId, outcome, finishedMs));
    if (outcome.kind === 'held' || change.kind === 'unchanged') continue;
    if (change.kind === 'succeeded') {
      health.push({ sql: MARK_SUCCEEDED, params: [finishedMs, ...held] });
    } else {
      health.push({ sql: MARK_FAILING, params: [attempt.attemptedAt, ...held] });
      if (change.kind === 'paused') health.push({ sql: MARK_PAUSED, params: [change.reason, finishedMs, ...held] }, BUMP_SUBSCRIPTIONS_VERSION);
    }
  }
  const list: BatchStatement[] = [];
  if (attemptRows.length > 0) list.push({ sql: insertAttempts(attemptRows.length / ATTEMPT_COLUMNS), params: [...attemptRows, holder] });
  list.push(...health, { sql: finishDeliveries(group.length), params: [...finishRows, holder] });
  return { list, finishIndex: list.length - 1 };
}

/** Consecutive runs of attempts of distinct deliveries, each at most ATTEMPTS_PER_STATEMENT long. */
function groupsOf(attempts: readonly AttemptToRecord[]): AttemptToRecord[][] {
  const groups: AttemptToRecord[][] = [];
  let group: AttemptToRecord[] = [];
  let ids = new Set<number>();
  for (const item of attempts) {
    if (group.length === ATTEMPTS_PER_STATEMENT || ids.has(item.deliveryId)) {
      groups.push(group);
      group = [];
      ids = new Set();
    }
    group.push(item);
    ids.add(item.deliveryId);
  }
  if (group.length > 0) groups.push(group);
  return groups;
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
      // One atomic list for all: a commit per attempt was the deliverer's largest cost.
      const groups = groupsOf(attempts);
      const statements = groups.map((group) => groupStatements(holder, group));
      const results = await connection.runAtomically(statements.flatMap((s) => s.list));
      let start = 0;
      return groups.flatMap((group, i) => {
        const { list, finishIndex } = statements[i]!;
        const finished = new Set((results[start + finishIndex] as { id: number }[]).map((row) => Number(row.id)));
        start += list.length;
        return group.map((item) => finished.has(item.deliveryId));
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
