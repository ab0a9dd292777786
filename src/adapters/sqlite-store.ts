/**
 * The archive in SQLite through Drizzle over better-sqlite3: the Store port. Each planned piece of
 * a poll is written as one fixed list of statements in one transaction (sqlite-poll-apply.ts), so
 * a crash or a full disk leaves the archive as it was. The poll path's reads are prepared once
 * (sqlite-statements.ts); the API's queries are built per request, since their filters vary.
 */
import { and, asc, count, desc, eq, exists, gt, inArray, isNull, lt, max, sql, type SQL } from 'drizzle-orm';
import type { IncidentWrite } from '../core/diff.ts';
import { RevisionConflictError, SearchTooBroadError } from '../core/errors.ts';
import type { Note } from '../core/incident.ts';
import { SEARCH_LIMITS } from '../core/search-query.ts';
import type { VendorIncidentJson } from '../core/vendor-format.ts';
import type {
  EventFilter,
  FeedHealth,
  IncidentFilter,
  IncidentPosition,
  ListedIncident,
  ListedNote,
  PollRun,
  RecordedRejection,
  SourceReport,
  Store,
  StoredEvent,
  StoredIncident,
} from '../core/ports.ts';
import { prepareIncidentSpans } from './sqlite-reliability.ts';
import { createSqliteAdminAccessStore } from './sqlite-admin-access.ts';
import { createSqliteRetentionStore } from './sqlite-retention.ts';
import { createActiveSubscriptionsReader, createSqliteNotificationStore, toStatusEvent } from './sqlite-notifications.ts';
import { changedRows, type SqliteConnection } from './sqlite-connection.ts';
import { applyPollStatements, GENERATION_KEY, isRevisionGuardFailure, pollRunStatements, SEEDED_KEY } from './sqlite-poll-apply.ts';
import { LATEST_NOTES_SQL, preparePollStatements, type LatestNoteRow } from './sqlite-statements.ts';
import * as t from './store-schema.ts';

/**
 * `column IN (the values)` with one bound value whatever their number: D1 binds at most 100 a
 * statement, and the list comes from the query string (`?service=a,b,...`) or is a page of
 * search results. One value stays an equality, so SQLite still walks (type, sort_key) in order
 * and stops at the limit; several are sorted either way (IN (?, ?) plans the same as json_each).
 */
function inValues(column: Parameters<typeof eq>[0], values: readonly (string | number)[]): SQL {
  if (values.length === 1) return eq(column, values[0]);
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/** The generation the apply list's last statement read (READ_GENERATION). */
function generationOf(rows: unknown[] | undefined): number {
  const row = rows?.[0] as { value?: string } | undefined;
  return Number(row?.value ?? 0);
}

/** The whole Store over one SQLite connection (better-sqlite3 on Node, D1 on Workers). */
export function createSqliteStore(connection: SqliteConnection): Store {
  const { db } = connection;
  const st = preparePollStatements(db);
  const subscriptions = createActiveSubscriptionsReader(db);
  const notifications = createSqliteNotificationStore(connection);
  const retention = createSqliteRetentionStore(connection);
  const incidentSpans = prepareIncidentSpans(connection);

  async function loadByIds(ids: readonly string[]): Promise<StoredIncident[]> {
    return withNotes(await st.incidentsByIds.all({ ids: JSON.stringify(ids) }));
  }

  async function withNotes(rows: (typeof t.incidents.$inferSelect)[]): Promise<StoredIncident[]> {
    // Notes carry the text stored with them, so no reader converts their HTML again.
    const notesById = new Map<string, ListedNote[]>();
    for (const n of await st.notesByIncidentIds.all({ ids: JSON.stringify(rows.map((r) => r.id)) })) {
      const list = notesById.get(n.incidentId) ?? [];
      list.push({ key: n.key, dateCreated: { raw: n.dateCreated, ms: n.createdMs }, body: n.body, text: n.text });
      notesById.set(n.incidentId, list);
    }
    return rows.map((row) => toStoredIncident(row, notesById.get(row.id) ?? []));
  }

  /** Incidents as lists show them: no notes but the latest, read by one seek each, and a count. */
  async function toListed(rows: (typeof t.incidents.$inferSelect)[]): Promise<ListedIncident[]> {
    const latestRows = await connection.all<LatestNoteRow>(LATEST_NOTES_SQL, [JSON.stringify(rows.map((r) => r.id))]);
    const latest = new Map(latestRows.map((n) => [n.incident_id, n]));
    return rows.map((row) => {
      const note = latest.get(row.id);
      return {
        ...incidentColumns(row),
        sortKey: row.sortKey,
        noteCount: note?.note_count ?? 0,
        latestNote: note
          ? { key: note.key, dateCreated: { raw: note.date_created, ms: note.created_ms }, body: note.body, text: note.text }
          : null,
      };
    });
  }

  async function readGeneration(): Promise<number> {
    return Number((await st.metaValue.get({ key: GENERATION_KEY }))?.value ?? 0);
  }

  /**
   * Which incident moved, for the error: read after the failed list rolled back, so nothing is
   * decided by it. Revisions only grow, so the one that moved still differs.
   */
  async function revisionConflict(writes: readonly IncidentWrite[], cause: unknown): Promise<Error> {
    const current = await st.revisions.all({ ids: JSON.stringify(writes.map((w) => w.incident.id)) });
    const revisionOf = new Map(current.map((row) => [row.id, row.revision]));
    const moved = writes.find((w) => (revisionOf.get(w.incident.id) ?? null) !== w.baseRevision);
    if (!moved) return cause instanceof Error ? cause : new Error(String(cause));
    return new RevisionConflictError(moved.incident.id, moved.baseRevision, revisionOf.get(moved.incident.id) ?? null, { cause });
  }

  /** The sort keys since, until and the cursor allow: [from, before), either end open. */
  function sortKeyRange(filter: IncidentFilter, after: IncidentPosition | null): { from?: number; before?: number } {
    const from = filter.sinceMs === undefined ? undefined : Math.floor(filter.sinceMs / 1000) * t.SORT_KEYS_PER_SECOND;
    const untilKey = filter.untilMs === undefined ? undefined : (Math.floor((filter.untilMs - 1) / 1000) + 1) * t.SORT_KEYS_PER_SECOND;
    const before = untilKey === undefined ? after?.sortKey : after === null ? untilKey : Math.min(untilKey, after.sortKey);
    return { from, before };
  }

  function incidentConditions(filter: IncidentFilter, after: IncidentPosition | null): SQL[] {
    const conditions: SQL[] = [];
    if (filter.types?.length) conditions.push(inValues(t.incidents.type, filter.types));
    if (filter.statuses?.length) conditions.push(inValues(t.incidents.status, filter.statuses));
    // The exact test is on created_ms; the sort_key bounds it implies let SQLite seek the window
    // in the sort_key index instead of walking down to it from the newest incident.
    const keys = sortKeyRange(filter, after);
    if (filter.sinceMs !== undefined) {
      conditions.push(sql`${t.incidents.createdMs} >= ${filter.sinceMs}`);
      conditions.push(sql`${t.incidents.sortKey} >= ${keys.from}`);
    }
    if (filter.untilMs !== undefined) {
      conditions.push(lt(t.incidents.createdMs, filter.untilMs));
      conditions.push(sql`${t.incidents.sortKey} < ${keys.before}`);
    }
    if (filter.services?.length) {
      conditions.push(
        exists(
          db
            .select({ one: sql`1` })
            .from(t.incidentServices)
            .where(and(eq(t.incidentServices.incidentPk, t.incidents.pk), inValues(t.incidentServices.service, filter.services))),
        ),
      );
    }
    if (after) conditions.push(lt(t.incidents.sortKey, after.sortKey));
    return conditions;
  }

  return {
    ...notifications,
    ...createSqliteAdminAccessStore(connection),
    ...retention,
    async loadIncidents(ids) {
      return new Map((await loadByIds(ids)).map((incident) => [incident.id, incident]));
    },

    async loadRevisions(ids) {
      return new Map((await st.revisions.all({ ids: JSON.stringify(ids) })).map((row) => [row.id, row.revision]));
    },

    async isSeeded() {
      return (await st.metaValue.get({ key: SEEDED_KEY })) !== undefined;
    },

    async activeSubscriptions() {
      return await subscriptions.loadActiveSubscriptions();
    },

    async applyPoll(input) {
      // One transaction (a D1 batch on Workers): the events and the deliveries they cause are
      // written together or not at all (the outbox). better-sqlite3 rolls the whole of it back on
      // any throw, SQLITE_FULL included.
      let results: unknown[][];
      try {
        results = await connection.runAtomically(applyPollStatements(input));
      } catch (error) {
        if (isRevisionGuardFailure(error)) throw await revisionConflict(input.plan.writes, error);
        throw error;
      }
      return generationOf(results.at(-1));
    },

    async archiveGeneration() {
      return readGeneration();
    },

    async recordPollRun(run, rejected) {
      await connection.runAtomically(pollRunStatements(run, rejected));
    },

    async tryAcquireLease(name, holder, now, ttlMs) {
      return changedRows(await st.acquireLease.run({ name, holder, expiresMs: now + ttlMs, now })) === 1;
    },

    async releaseLease(name, holder) {
      await st.releaseLease.run({ name, holder });
    },

    async leaseHolder(name) {
      return (await st.leaseHolder.get({ name }))?.holder ?? null;
    },

    async takeOverLease(name, previous, holder, now, ttlMs) {
      return changedRows(await st.takeOverLease.run({ name, previous, holder, expiresMs: now + ttlMs })) === 1;
    },

    async listIncidents(filter, after, limit) {
      const conditions = incidentConditions(filter, after);
      if (!filter.q) {
        const rows = await db.select().from(t.incidents).where(and(...conditions)).orderBy(desc(t.incidents.sortKey)).limit(limit).all();
        return toListed(rows);
      }
      // Driven by the full-text index (CROSS JOIN keeps it the outer loop): FTS5 yields matches in
      // rowid = sort_key order, newest first, so a common word stops after one page of matches
      // that pass the other filters instead of sorting all of them. The dates and the cursor bound
      // the rowids FTS5 reads; the other filters are checked on at most maxMatchesExamined matches.
      const fts = sql.identifier(t.INCIDENTS_FTS);
      const keys = sortKeyRange(filter, after);
      const maxMatches = SEARCH_LIMITS.maxMatchesExamined;
      const matches = sql`SELECT rowid AS k FROM ${fts} WHERE ${t.ftsMatch(filter.q)}
        ${keys.from === undefined ? sql`` : sql`AND rowid >= ${keys.from}`} ${keys.before === undefined ? sql`` : sql`AND rowid < ${keys.before}`}
        ORDER BY rowid DESC LIMIT ${maxMatches}`;
      // Materialized once: the page reads it, and its size says whether the budget ran out.
      const found = await db.all<{ examined: number; pk: number | null }>(sql`
        WITH m AS MATERIALIZED (${matches})
        SELECT (SELECT count(*) FROM m) AS examined, p.pk AS pk FROM (SELECT 1) LEFT JOIN (
          SELECT ${t.incidents.pk} AS pk FROM m CROSS JOIN ${t.incidents} ON ${t.incidents.sortKey} = m.k
          ${conditions.length > 0 ? sql`WHERE ${and(...conditions)}` : sql``}
          ORDER BY m.k DESC LIMIT ${limit}) AS p`);
      const page = found.flatMap((r) => (r.pk === null ? [] : [{ pk: r.pk }]));
      // A short page is the end of the matches, unless the budget ran out first: then older
      // matches were never looked at, and a short page would say there are none.
      if (page.length < limit && (found[0]?.examined ?? 0) >= maxMatches) throw new SearchTooBroadError(maxMatches);
      if (page.length === 0) return [];
      const rows = await db
        .select()
        .from(t.incidents)
        .where(inValues(t.incidents.pk, page.map((r) => r.pk)))
        .orderBy(desc(t.incidents.sortKey))
        .all();
      return toListed(rows);
    },

    async recentlyUpdated(filter, limit) {
      const rows = await db
        .select()
        .from(t.incidents)
        .where(and(...incidentConditions(filter, null)))
        .orderBy(desc(t.incidents.updatedMs), desc(t.incidents.sortKey))
        .limit(limit)
        .all();
      return toListed(rows);
    },

    async getIncident(id) {
      return (await loadByIds([id]))[0] ?? null;
    },

    async listVersions(incidentId, limit) {
      const rows = await db
        .select()
        .from(t.incidentVersions)
        .where(eq(t.incidentVersions.incidentId, incidentId))
        .orderBy(asc(t.incidentVersions.revision))
        .limit(limit)
        .all();
      return rows.map((row) => ({
          revision: row.revision,
          recordedAt: row.recordedMs,
          pollRunId: row.pollRunId,
          incident: JSON.parse(row.snapshotJson) as VendorIncidentJson,
        }));
    },

    async listEvents(filter: EventFilter, afterSeq, limit) {
      const conditions: SQL[] = [gt(t.events.seq, afterSeq)];
      if (filter.types?.length) conditions.push(inArray(t.events.type, filter.types));
      if (filter.incidentId) conditions.push(eq(t.events.incidentId, filter.incidentId));
      if (filter.includeBackfill === false) conditions.push(eq(t.events.backfill, false));
      const rows = await db.select().from(t.events).where(and(...conditions)).orderBy(asc(t.events.seq)).limit(limit).all();
      return rows.map(toStoredEvent);
    },

    async ongoingIncidents() {
      const rows = await db
        .select()
        .from(t.incidents)
        .where(isNull(t.incidents.resolvedMs))
        .orderBy(desc(t.incidents.updatedMs))
        .all();
      return withNotes(rows);
    },

    async incidentsUpdatedSince(sinceMs, limit) {
      const rows = await db
        .select()
        .from(t.incidents)
        .where(sql`${t.incidents.updatedMs} >= ${sinceMs}`)
        .orderBy(desc(t.incidents.updatedMs), desc(t.incidents.id))
        .limit(limit)
        .all();
      return withNotes(rows);
    },

    async incidentSpans(sinceMs) {
      return incidentSpans(sinceMs);
    },

    async knownServices(limit) {
      // DISTINCT over the (service, sort_key) index: one step per name, not per incident row.
      const rows = await db.selectDistinct({ service: t.incidentServices.service }).from(t.incidentServices).orderBy(asc(t.incidentServices.service)).limit(limit).all();
      return rows.map((row) => row.service);
    },

    async latestCreatedIncident() {
      const row = await db.select().from(t.incidents).orderBy(desc(t.incidents.createdMs), desc(t.incidents.id)).limit(1).get();
      return row ? ((await withNotes([row]))[0] ?? null) : null;
    },

    async feedHealth(): Promise<FeedHealth> {
      const last = await db.select().from(t.pollRuns).orderBy(desc(t.pollRuns.startedMs)).limit(1).get();
      const success = await db
        .select({ at: max(t.pollRuns.startedMs) })
        .from(t.pollRuns)
        .where(inArray(t.pollRuns.outcome, ['ok', 'partial']))
        .get();
      const lastSuccessAt = success?.at ?? null;
      const failures = await db
        .select({ n: count() })
        .from(t.pollRuns)
        .where(and(eq(t.pollRuns.outcome, 'failed'), gt(t.pollRuns.startedMs, lastSuccessAt ?? -1)))
        .get();
      return { lastRun: last ? toPollRun(last) : null, lastSuccessAt, consecutiveFailures: failures?.n ?? 0 };
    },

    async listPollRuns(beforeStartedAt, limit) {
      const rows = await db
        .select()
        .from(t.pollRuns)
        .where(beforeStartedAt === null ? undefined : lt(t.pollRuns.startedMs, beforeStartedAt))
        .orderBy(desc(t.pollRuns.startedMs))
        .limit(limit)
        .all();
      return rows.map(toPollRun);
    },

    async getPollRun(id) {
      const row = await db.select().from(t.pollRuns).where(eq(t.pollRuns.id, id)).get();
      if (!row) return null;
      const r = t.pollRunRejections;
      const b = t.rejectedBodies;
      const rows = await db
        .select({ rejection: r, body: b, text: t.rejectedBodyTexts.body })
        .from(r)
        .leftJoin(b, eq(b.hash, r.bodyHash))
        .leftJoin(t.rejectedBodyTexts, eq(t.rejectedBodyTexts.hash, r.bodyHash))
        .where(eq(r.pollRunId, id))
        .orderBy(asc(r.receivedMs), asc(sql`${r}.rowid`))
        .all();
      const rejected = rows.map(({ rejection, body, text }): RecordedRejection => ({
          source: rejection.source as RecordedRejection['source'],
          url: rejection.url,
          error: rejection.error,
          sha256: rejection.bodyHash,
          receivedAt: rejection.receivedMs,
          body: body && text !== null ? { text, seenCount: body.seenCount, firstSeenAt: body.firstSeenMs, lastSeenAt: body.lastSeenMs } : null,
        }));
      return { run: toPollRun(row), rejected };
    },

    async secret(name, generate) {
      const key = `secret:${name}`;
      await db.insert(t.meta).values({ key, value: generate() }).onConflictDoNothing().run();
      return (await db.select().from(t.meta).where(eq(t.meta.key, key)).get())!.value;
    },
  };
}

/** The columns every reader wants, as the port names them. */
function incidentColumns(row: typeof t.incidents.$inferSelect): Omit<StoredIncident, 'notes'> {
  return {
    id: row.id,
    title: row.title,
    type: row.type,
    status: row.status,
    url: row.url,
    services: JSON.parse(row.servicesJson) as string[],
    dateCreated: { raw: row.dateCreated, ms: row.createdMs },
    dateUpdated: { raw: row.dateUpdated, ms: row.updatedMs },
    revision: row.revision,
    resolvedAt: row.resolvedMs,
    firstSeenAt: row.firstSeenMs,
    lastSeenAt: row.lastSeenMs,
  };
}

function toStoredIncident(row: typeof t.incidents.$inferSelect, notes: Note[]): StoredIncident {
  return { ...incidentColumns(row), notes };
}

function toStoredEvent(row: typeof t.events.$inferSelect): StoredEvent {
  return { ...toStatusEvent(row), seq: row.seq, pollRunId: row.pollRunId };
}

function toPollRun(row: typeof t.pollRuns.$inferSelect): PollRun {
  return {
    id: row.id,
    startedAt: row.startedMs,
    finishedAt: row.finishedMs,
    outcome: row.outcome,
    sources: JSON.parse(row.sourcesJson) as SourceReport[],
    changes: JSON.parse(row.changesJson) as PollRun['changes'],
    ...(row.pendingIncidents > 0 ? { pendingIncidents: row.pendingIncidents } : {}),
    ...(row.error ? { error: row.error } : {}),
  };
}
