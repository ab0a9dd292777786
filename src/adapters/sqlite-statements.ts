/**
 * The statements of the poll path, built and prepared once. Drizzle building the SQL and SQLite
 * preparing it again on every call cost more than running it: a poll that changed one incident
 * spent 4 ms in applyPoll, mostly there. Lists of ids go in as one JSON parameter (json_each),
 * so every statement keeps one shape whatever the number of ids.
 */
import { and, asc, eq, lt, max, or, sql } from 'drizzle-orm';
import type Database from 'better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import * as t from './store-schema.ts';

/** What drizzle() returns over better-sqlite3: the query builder, and the connection under it. */
export type SqliteDatabase = BetterSQLite3Database<typeof t> & { $client: Database.Database };

type Db = SqliteDatabase;

const p = sql.placeholder;
/** A placeholder where Drizzle's types want SQL (update().set() takes no bare placeholders). */
const v = (name: string) => sql`${p(name)}`;
/** `column IN (the ids of a JSON array placeholder)`. */
const inJsonList = (column: Parameters<typeof eq>[0], name: string) => sql`${column} IN (SELECT value FROM json_each(${p(name)}))`;

export function preparePollStatements(db: Db) {
  return {
    metaValue: db.select({ value: t.meta.value }).from(t.meta).where(eq(t.meta.key, p('key'))).prepare(),
    metaInsertIfAbsent: db.insert(t.meta).values({ key: p('key'), value: p('value') }).onConflictDoNothing().prepare(),
    bumpGeneration: db
      .insert(t.meta)
      .values({ key: p('key'), value: '1' })
      .onConflictDoUpdate({ target: t.meta.key, set: { value: sql`CAST(${t.meta.value} AS INTEGER) + 1` } })
      .prepare(),

    acquireLease: db
      .insert(t.leases)
      .values({ name: p('name'), holder: p('holder'), expiresMs: p('expiresMs') })
      .onConflictDoUpdate({
        target: t.leases.name,
        set: { holder: sql`excluded.holder`, expiresMs: sql`excluded.expires_ms` },
        setWhere: or(sql`${t.leases.expiresMs} <= ${p('now')}`, sql`${t.leases.holder} = excluded.holder`),
      })
      .prepare(),
    releaseLease: db.delete(t.leases).where(and(eq(t.leases.name, p('name')), eq(t.leases.holder, p('holder')))).prepare(),
    leaseHolder: db.select({ holder: t.leases.holder }).from(t.leases).where(eq(t.leases.name, p('name'))).prepare(),
    takeOverLease: db
      .update(t.leases)
      .set({ holder: v('holder'), expiresMs: v('expiresMs') })
      .where(and(eq(t.leases.name, p('name')), eq(t.leases.holder, p('previous'))))
      .prepare(),

    revisions: db
      .select({ id: t.incidents.id, revision: t.incidents.revision })
      .from(t.incidents)
      .where(inJsonList(t.incidents.id, 'ids'))
      .prepare(),
    incidentsByIds: db.select().from(t.incidents).where(inJsonList(t.incidents.id, 'ids')).prepare(),
    notesByIncidentIds: db
      .select()
      .from(t.notes)
      .where(inJsonList(t.notes.incidentId, 'ids'))
      .orderBy(asc(t.notes.incidentId), asc(t.notes.createdMs), asc(t.notes.seq))
      .prepare(),

    /** Per incident id, its newest note (one seek in notes_latest) and how many notes it has. */
    latestNotes: db.$client.prepare<[string], { incident_id: string; key: string; date_created: string; created_ms: number; body: string; text: string; note_count: number }>(`
      SELECT n.incident_id, n.key, n.date_created, n.created_ms, n.body, n.text,
             (SELECT count(*) FROM notes c WHERE c.incident_id = n.incident_id) AS note_count
      FROM notes n
      WHERE n.rowid IN (
        SELECT (SELECT m.rowid FROM notes m WHERE m.incident_id = page.value ORDER BY m.created_ms DESC, m.seq DESC LIMIT 1)
        FROM json_each(?) page
      )`),

    incidentHead: db
      .select({ pk: t.incidents.pk, revision: t.incidents.revision, sortKey: t.incidents.sortKey, createdMs: t.incidents.createdMs })
      .from(t.incidents)
      .where(eq(t.incidents.id, p('id')))
      .prepare(),
    topSortKeyBetween: db
      .select({ top: max(t.incidents.sortKey) })
      .from(t.incidents)
      .where(and(sql`${t.incidents.sortKey} >= ${p('low')}`, lt(t.incidents.sortKey, p('high'))))
      .prepare(),
    insertIncident: db
      .insert(t.incidents)
      .values({
        id: p('id'),
        sortKey: p('sortKey'),
        title: p('title'),
        type: p('type'),
        status: p('status'),
        url: p('url'),
        servicesJson: p('servicesJson'),
        dateCreated: p('dateCreated'),
        dateUpdated: p('dateUpdated'),
        createdMs: p('createdMs'),
        updatedMs: p('updatedMs'),
        resolvedMs: p('resolvedMs'),
        firstSeenMs: p('now'),
        lastSeenMs: p('now'),
        revision: p('revision'),
      })
      .returning({ pk: t.incidents.pk })
      .prepare(),
    updateIncident: db
      .update(t.incidents)
      .set({
        sortKey: v('sortKey'),
        title: v('title'),
        type: v('type'),
        status: v('status'),
        url: v('url'),
        servicesJson: v('servicesJson'),
        dateCreated: v('dateCreated'),
        dateUpdated: v('dateUpdated'),
        createdMs: v('createdMs'),
        updatedMs: v('updatedMs'),
        resolvedMs: v('resolvedMs'),
        lastSeenMs: v('now'),
        revision: v('revision'),
      })
      .where(eq(t.incidents.pk, p('pk')))
      .prepare(),
    touchSeen: db
      .update(t.incidents)
      .set({ lastSeenMs: v('now') })
      .where(and(inJsonList(t.incidents.id, 'ids'), lt(t.incidents.lastSeenMs, p('before'))))
      .prepare(),

    deleteServices: db.delete(t.incidentServices).where(eq(t.incidentServices.incidentPk, p('pk'))).prepare(),
    insertService: db.insert(t.incidentServices).values({ incidentPk: p('pk'), service: p('service'), sortKey: p('sortKey') }).prepare(),
    upsertNote: db
      .insert(t.notes)
      .values({
        incidentId: p('incidentId'),
        key: p('key'),
        dateCreated: p('dateCreated'),
        createdMs: p('createdMs'),
        seq: p('seq'),
        body: p('body'),
        text: p('text'),
        firstSeenMs: p('now'),
        changedMs: p('now'),
      })
      .onConflictDoUpdate({
        target: [t.notes.incidentId, t.notes.key],
        set: { body: sql`excluded.body`, text: sql`excluded.text`, dateCreated: sql`excluded.date_created`, changedMs: sql`excluded.changed_ms` },
        setWhere: sql`${t.notes.body} <> excluded.body OR ${t.notes.dateCreated} <> excluded.date_created`,
      })
      .prepare(),
    insertVersion: db
      .insert(t.incidentVersions)
      .values({ incidentId: p('incidentId'), revision: p('revision'), snapshotJson: p('snapshotJson'), recordedMs: p('now'), pollRunId: p('pollRunId') })
      .prepare(),
    deleteSearchRow: db.$client.prepare<[number]>(`DELETE FROM ${t.INCIDENTS_FTS} WHERE rowid = ?`),
    insertSearchRow: db.$client.prepare<[number, string, string]>(`INSERT INTO ${t.INCIDENTS_FTS} (rowid, title, notes) VALUES (?, ?, ?)`),

    insertEvent: db
      .insert(t.events)
      .values({
        id: p('id'),
        type: p('type'),
        incidentId: p('incidentId'),
        revision: p('revision'),
        occurredMs: p('occurredMs'),
        detectedMs: p('detectedMs'),
        backfill: p('backfill'),
        dataJson: p('dataJson'),
        pollRunId: p('pollRunId'),
      })
      .onConflictDoNothing({ target: t.events.id })
      .prepare(),
    insertPollRun: db
      .insert(t.pollRuns)
      .values({
        id: p('id'),
        startedMs: p('startedMs'),
        finishedMs: p('finishedMs'),
        outcome: p('outcome'),
        sourcesJson: p('sourcesJson'),
        changesJson: p('changesJson'),
        eventCount: p('eventCount'),
        pendingIncidents: p('pendingIncidents'),
        error: p('error'),
      })
      // A poll applied in pieces records its run with each piece: the latest piece says it all.
      .onConflictDoUpdate({
        target: t.pollRuns.id,
        set: {
          finishedMs: sql`excluded.finished_ms`,
          outcome: sql`excluded.outcome`,
          sourcesJson: sql`excluded.sources_json`,
          changesJson: sql`excluded.changes_json`,
          eventCount: sql`excluded.event_count`,
          pendingIncidents: sql`excluded.pending_incidents`,
          error: sql`excluded.error`,
        },
      })
      .prepare(),
    // One copy per distinct body: a body seen before only counts, and its text is not written again.
    countRejectedBody: db
      .insert(t.rejectedBodies)
      .values({ hash: p('hash'), bytes: p('bytes'), seenCount: 1, firstSeenMs: p('receivedMs'), lastSeenMs: p('receivedMs') })
      .onConflictDoUpdate({
        target: t.rejectedBodies.hash,
        set: { seenCount: sql`${t.rejectedBodies.seenCount} + 1`, lastSeenMs: sql`max(${t.rejectedBodies.lastSeenMs}, excluded.last_seen_ms)` },
      })
      .prepare(),
    insertRejectedText: db.insert(t.rejectedBodyTexts).values({ hash: p('hash'), body: p('body') }).onConflictDoNothing().prepare(),
    insertRejection: db
      .insert(t.pollRunRejections)
      .values({ pollRunId: p('pollRunId'), source: p('source'), url: p('url'), error: p('error'), bodyHash: p('hash'), receivedMs: p('receivedMs') })
      .prepare(),
  };
}

export type PollStatements = ReturnType<typeof preparePollStatements>;
