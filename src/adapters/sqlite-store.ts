/**
 * The archive in SQLite through Drizzle over better-sqlite3: the Store port. Each poll is applied
 * in one synchronous transaction, so a crash or a full disk leaves the archive as it was.
 */
import { and, asc, desc, eq, exists, gt, inArray, lt, max, count, or, sql, type SQL } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type { ArchivedIncident, IncidentWrite } from '../core/diff.ts';
import { RevisionConflictError } from '../core/errors.ts';
import type { EventData, EventType } from '../core/events.ts';
import { htmlToText } from '../core/html-text.ts';
import { noteSeq, type Note } from '../core/incident.ts';
import { toVendorIncident } from '../core/vendor-format.ts';
import type {
  ApplyPollInput,
  EventFilter,
  FeedHealth,
  IncidentFilter,
  IncidentPosition,
  ListedIncident,
  ListedNote,
  PollRun,
  RejectedPayload,
  SourceReport,
  Store,
  StoredEvent,
  StoredIncident,
} from '../core/ports.ts';
import * as t from './store-schema.ts';

export type SqliteDatabase = BetterSQLite3Database<typeof t>;

/** Enough for a human to see what came; bodies are capped by the feed client long before this. */
const REJECTED_BODY_MAX_CHARS = 1_000_000;
/** SQLite allows 32,766 bound values; stay far below it. */
const IDS_PER_QUERY = 500;

const SEEDED_KEY = 'seeded_at';
/**
 * Room for this many incidents created in the same second (the vendor's times are whole seconds).
 * A 5 MB feed holds at most some 50,000 incidents, so no feed can fill a second's block; and
 * seconds times a million stay below 2^53 until the year 2255.
 */
const SORT_KEYS_PER_SECOND = 1_000_000;
const GENERATION_KEY = 'generation';

export function createSqliteStore(db: SqliteDatabase): Store {
  type Tx = Parameters<Parameters<SqliteDatabase['transaction']>[0]>[0];
  type Db = SqliteDatabase | Tx;

  function loadByIds(q: Db, ids: readonly string[]): StoredIncident[] {
    const rows: (typeof t.incidents.$inferSelect)[] = [];
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
      rows.push(...q.select().from(t.incidents).where(inArray(t.incidents.id, ids.slice(i, i + IDS_PER_QUERY))).all());
    }
    return withNotes(q, rows);
  }

  function withNotes(q: Db, rows: (typeof t.incidents.$inferSelect)[]): StoredIncident[] {
    const notesById = new Map<string, Note[]>();
    const ids = rows.map((r) => r.id);
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
      const noteRows = q
        .select()
        .from(t.notes)
        .where(inArray(t.notes.incidentId, ids.slice(i, i + IDS_PER_QUERY)))
        .orderBy(asc(t.notes.incidentId), asc(t.notes.createdMs), asc(t.notes.seq))
        .all();
      for (const n of noteRows) {
        const list = notesById.get(n.incidentId) ?? [];
        list.push({ key: n.key, dateCreated: { raw: n.dateCreated, ms: n.createdMs }, body: n.body });
        notesById.set(n.incidentId, list);
      }
    }
    return rows.map((row) => toStoredIncident(row, notesById.get(row.id) ?? []));
  }

  function writeIncident(tx: Tx, write: IncidentWrite, now: number, pollRunId: string): void {
    const { incident } = write;
    const current = tx
      .select({ pk: t.incidents.pk, revision: t.incidents.revision, sortKey: t.incidents.sortKey, createdMs: t.incidents.createdMs })
      .from(t.incidents)
      .where(eq(t.incidents.id, incident.id))
      .get();
    if ((current?.revision ?? null) !== write.baseRevision) {
      throw new RevisionConflictError(incident.id, write.baseRevision, current?.revision ?? null);
    }
    const sortKey =
      current && current.createdMs === incident.dateCreated.ms ? current.sortKey : nextSortKey(tx, incident.dateCreated.ms);
    const columns = {
      sortKey,
      title: incident.title,
      type: incident.type,
      status: incident.status,
      url: incident.url,
      servicesJson: JSON.stringify(incident.services),
      dateCreated: incident.dateCreated.raw,
      dateUpdated: incident.dateUpdated.raw,
      createdMs: incident.dateCreated.ms,
      updatedMs: incident.dateUpdated.ms,
      resolvedMs: write.resolvedAt,
      lastSeenMs: now,
      revision: write.revision,
    };
    const pk = current
      ? (tx.update(t.incidents).set(columns).where(eq(t.incidents.pk, current.pk)).run(), current.pk)
      : tx
          .insert(t.incidents)
          .values({ id: incident.id, firstSeenMs: now, ...columns })
          .returning({ pk: t.incidents.pk })
          .get().pk;

    tx.delete(t.incidentServices).where(eq(t.incidentServices.incidentPk, pk)).run();
    if (incident.services.length > 0) {
      tx.insert(t.incidentServices)
        .values(incident.services.map((service) => ({ incidentPk: pk, service, sortKey })))
        .run();
    }
    const texts = incident.notes.map((note) => htmlToText(note.body));
    incident.notes.forEach((note, i) => {
      tx.insert(t.notes)
        .values({
          incidentId: incident.id,
          key: note.key,
          dateCreated: note.dateCreated.raw,
          createdMs: note.dateCreated.ms,
          seq: noteSeq(note),
          body: note.body,
          text: texts[i]!,
          firstSeenMs: now,
          changedMs: now,
        })
        .onConflictDoUpdate({
          target: [t.notes.incidentId, t.notes.key],
          set: { body: note.body, text: texts[i]!, dateCreated: note.dateCreated.raw, changedMs: now },
          setWhere: or(sql`${t.notes.body} <> ${note.body}`, sql`${t.notes.dateCreated} <> ${note.dateCreated.raw}`),
        })
        .run();
    });
    tx.insert(t.incidentVersions)
      .values({
        incidentId: incident.id,
        revision: write.revision,
        snapshotJson: JSON.stringify(toVendorIncident(incident)),
        recordedMs: now,
        pollRunId,
      })
      .run();
    if (current) tx.run(sql`DELETE FROM ${sql.identifier(t.INCIDENTS_FTS)} WHERE rowid = ${current.sortKey}`);
    tx.run(
      sql`INSERT INTO ${sql.identifier(t.INCIDENTS_FTS)} (rowid, title, notes) VALUES (${sortKey}, ${incident.title}, ${texts.join('\n\n')})`,
    );
  }

  /** date_created in seconds times a million, plus one more than any incident created in that second. */
  function nextSortKey(tx: Tx, createdMs: number): number {
    const base = Math.floor(createdMs / 1000) * SORT_KEYS_PER_SECOND;
    const taken = tx
      .select({ top: max(t.incidents.sortKey) })
      .from(t.incidents)
      .where(and(sql`${t.incidents.sortKey} >= ${base}`, lt(t.incidents.sortKey, base + SORT_KEYS_PER_SECOND)))
      .get()?.top;
    const next = taken === null || taken === undefined ? base : taken + 1;
    if (next >= base + SORT_KEYS_PER_SECOND) throw new Error(`more than ${SORT_KEYS_PER_SECOND} incidents created at ${new Date(createdMs).toISOString()}`);
    return next;
  }

  /**
   * Each incident's latest note and its number of notes: one seek in notes_latest per incident,
   * instead of reading every note of the page (rows are the cost here, not lookups).
   */
  function latestNotes(q: Db, ids: readonly string[]): Map<string, { count: number; latest: ListedNote }> {
    const result = new Map<string, { count: number; latest: ListedNote }>();
    if (ids.length === 0) return result;
    const rows = q.all<{ incident_id: string; key: string; date_created: string; created_ms: number; body: string; text: string; note_count: number }>(sql`
      SELECT n.incident_id, n.key, n.date_created, n.created_ms, n.body, n.text,
             (SELECT count(*) FROM ${t.notes} c WHERE c.incident_id = n.incident_id) AS note_count
      FROM ${t.notes} n
      WHERE n.rowid IN (
        SELECT (SELECT m.rowid FROM ${t.notes} m WHERE m.incident_id = page.value ORDER BY m.created_ms DESC, m.seq DESC LIMIT 1)
        FROM json_each(${JSON.stringify(ids)}) page
      )`);
    for (const row of rows) {
      result.set(row.incident_id, {
        count: row.note_count,
        latest: { key: row.key, dateCreated: { raw: row.date_created, ms: row.created_ms }, body: row.body, text: row.text },
      });
    }
    return result;
  }

  function toListed(q: Db, rows: (typeof t.incidents.$inferSelect)[]): ListedIncident[] {
    const notes = latestNotes(q, rows.map((r) => r.id));
    return rows.map((row) => {
      const { notes: _none, ...incident } = toStoredIncident(row, []);
      const summary = notes.get(row.id);
      return { ...incident, sortKey: row.sortKey, noteCount: summary?.count ?? 0, latestNote: summary?.latest ?? null };
    });
  }

  function readGeneration(q: Db): number {
    return Number(q.select().from(t.meta).where(eq(t.meta.key, GENERATION_KEY)).get()?.value ?? 0);
  }

  function insertPollRun(q: Db, run: PollRun, eventCount: number, rejected: readonly RejectedPayload[]): void {
    q.insert(t.pollRuns)
      .values({
        id: run.id,
        startedMs: run.startedAt,
        finishedMs: run.finishedAt,
        outcome: run.outcome,
        sourcesJson: JSON.stringify(run.sources),
        changesJson: JSON.stringify(run.changes),
        eventCount,
        error: run.error ?? null,
      })
      .run();
    for (const payload of rejected) {
      q.insert(t.rejectedPayloads)
        .values({
          pollRunId: run.id,
          source: payload.source,
          url: payload.url,
          body: payload.body.slice(0, REJECTED_BODY_MAX_CHARS),
          error: payload.error,
          receivedMs: run.startedAt,
        })
        .run();
    }
  }

  function incidentConditions(q: Db, filter: IncidentFilter, after: IncidentPosition | null): SQL[] {
    const conditions: SQL[] = [];
    if (filter.types?.length) conditions.push(inArray(t.incidents.type, filter.types));
    if (filter.statuses?.length) conditions.push(inArray(t.incidents.status, filter.statuses));
    // The exact test is on created_ms; the sort_key bounds it implies let SQLite seek the window
    // in the sort_key index instead of walking down to it from the newest incident.
    if (filter.sinceMs !== undefined) {
      conditions.push(sql`${t.incidents.createdMs} >= ${filter.sinceMs}`);
      conditions.push(sql`${t.incidents.sortKey} >= ${Math.floor(filter.sinceMs / 1000) * SORT_KEYS_PER_SECOND}`);
    }
    if (filter.untilMs !== undefined) {
      conditions.push(lt(t.incidents.createdMs, filter.untilMs));
      conditions.push(lt(t.incidents.sortKey, (Math.floor((filter.untilMs - 1) / 1000) + 1) * SORT_KEYS_PER_SECOND));
    }
    if (filter.services?.length) {
      conditions.push(
        exists(
          q
            .select({ one: sql`1` })
            .from(t.incidentServices)
            .where(and(eq(t.incidentServices.incidentPk, t.incidents.pk), inArray(t.incidentServices.service, filter.services))),
        ),
      );
    }
    if (after) conditions.push(lt(t.incidents.sortKey, after.sortKey));
    return conditions;
  }

  return {
    async loadIncidents(ids) {
      return new Map(loadByIds(db, ids).map((incident) => [incident.id, incident]));
    },

    async loadRevisions(ids) {
      const revisions = new Map<string, number>();
      for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
        const rows = db
          .select({ id: t.incidents.id, revision: t.incidents.revision })
          .from(t.incidents)
          .where(inArray(t.incidents.id, ids.slice(i, i + IDS_PER_QUERY)))
          .all();
        for (const row of rows) revisions.set(row.id, row.revision);
      }
      return revisions;
    },

    async isSeeded() {
      return db.select().from(t.meta).where(eq(t.meta.key, SEEDED_KEY)).get() !== undefined;
    },

    async applyPoll({ run, plan, seenIds, seenBefore, rejected, markSeeded }) {
      const now = run.startedAt;
      // better-sqlite3 rolls the whole transaction back on any throw, SQLITE_FULL included.
      return db.transaction((tx) => {
        insertPollRun(tx, run, plan.events.length, rejected);
        for (const write of plan.writes) writeIncident(tx, write, now, run.id);
        for (const event of plan.events) {
          tx.insert(t.events)
            .values({
              id: event.id,
              type: event.type,
              incidentId: event.incidentId,
              revision: event.revision,
              occurredMs: event.occurredAt,
              detectedMs: event.detectedAt,
              backfill: event.backfill,
              dataJson: JSON.stringify(event.data),
              pollRunId: run.id,
            })
            .onConflictDoNothing({ target: t.events.id })
            .run();
        }
        for (let i = 0; i < seenIds.length; i += IDS_PER_QUERY) {
          tx.update(t.incidents)
            .set({ lastSeenMs: now })
            .where(and(inArray(t.incidents.id, seenIds.slice(i, i + IDS_PER_QUERY)), lt(t.incidents.lastSeenMs, seenBefore)))
            .run();
        }
        if (markSeeded) {
          tx.insert(t.meta).values({ key: SEEDED_KEY, value: String(now) }).onConflictDoNothing().run();
        }
        if (plan.writes.length > 0) {
          tx.insert(t.meta)
            .values({ key: GENERATION_KEY, value: '1' })
            .onConflictDoUpdate({ target: t.meta.key, set: { value: sql`CAST(${t.meta.value} AS INTEGER) + 1` } })
            .run();
        }
        return readGeneration(tx);
      });
    },

    async archiveGeneration() {
      return readGeneration(db);
    },

    async recordPollRun(run, rejected) {
      db.transaction((tx) => insertPollRun(tx, run, 0, rejected));
    },

    async tryAcquireLease(name, holder, now, ttlMs) {
      const result = db
        .insert(t.leases)
        .values({ name, holder, expiresMs: now + ttlMs })
        .onConflictDoUpdate({
          target: t.leases.name,
          set: { holder, expiresMs: now + ttlMs },
          setWhere: or(sql`${t.leases.expiresMs} <= ${now}`, eq(t.leases.holder, holder)),
        })
        .run();
      return result.changes === 1;
    },

    async releaseLease(name, holder) {
      db.delete(t.leases).where(and(eq(t.leases.name, name), eq(t.leases.holder, holder))).run();
    },

    async leaseHolder(name) {
      return db.select({ holder: t.leases.holder }).from(t.leases).where(eq(t.leases.name, name)).get()?.holder ?? null;
    },

    async takeOverLease(name, previous, holder, now, ttlMs) {
      const result = db
        .update(t.leases)
        .set({ holder, expiresMs: now + ttlMs })
        .where(and(eq(t.leases.name, name), eq(t.leases.holder, previous)))
        .run();
      return result.changes === 1;
    },

    async listIncidents(filter, after, limit) {
      const conditions = incidentConditions(db, filter, after);
      if (!filter.q) {
        const rows = db.select().from(t.incidents).where(and(...conditions)).orderBy(desc(t.incidents.sortKey)).limit(limit).all();
        return toListed(db, rows);
      }
      // Driven by the full-text index (CROSS JOIN keeps it the outer loop): FTS5 yields matches in
      // rowid = sort_key order, newest first, so a common word stops after one page of matches
      // that pass the other filters instead of sorting all of them.
      const fts = sql.identifier(t.INCIDENTS_FTS);
      const page = db.all<{ pk: number }>(sql`
        SELECT ${t.incidents.pk} AS pk FROM ${fts} CROSS JOIN ${t.incidents} ON ${t.incidents.sortKey} = ${fts}.rowid
        WHERE ${t.ftsMatch(filter.q)} ${conditions.length > 0 ? sql`AND ${and(...conditions)}` : sql``}
        ORDER BY ${fts}.rowid DESC LIMIT ${limit}`);
      if (page.length === 0) return [];
      const rows = db
        .select()
        .from(t.incidents)
        .where(inArray(t.incidents.pk, page.map((r) => r.pk)))
        .orderBy(desc(t.incidents.sortKey))
        .all();
      return toListed(db, rows);
    },

    async getIncident(id) {
      return loadByIds(db, [id])[0] ?? null;
    },

    async listEvents(filter: EventFilter, afterSeq, limit) {
      const conditions: SQL[] = [gt(t.events.seq, afterSeq)];
      if (filter.types?.length) conditions.push(inArray(t.events.type, filter.types));
      if (filter.incidentId) conditions.push(eq(t.events.incidentId, filter.incidentId));
      if (filter.includeBackfill === false) conditions.push(eq(t.events.backfill, false));
      return db
        .select()
        .from(t.events)
        .where(and(...conditions))
        .orderBy(asc(t.events.seq))
        .limit(limit)
        .all()
        .map(toStoredEvent);
    },

    async ongoingIncidents() {
      const rows = db
        .select()
        .from(t.incidents)
        .where(sql`${t.incidents.status} NOT IN ('resolved', 'completed', 'cancelled', 'canceled', 'ok')`)
        .orderBy(desc(t.incidents.updatedMs))
        .all();
      return withNotes(db, rows);
    },

    async incidentsUpdatedSince(sinceMs, limit) {
      const rows = db
        .select()
        .from(t.incidents)
        .where(sql`${t.incidents.updatedMs} >= ${sinceMs}`)
        .orderBy(desc(t.incidents.updatedMs), desc(t.incidents.id))
        .limit(limit)
        .all();
      return withNotes(db, rows);
    },

    async latestCreatedIncident() {
      const row = db.select().from(t.incidents).orderBy(desc(t.incidents.createdMs), desc(t.incidents.id)).limit(1).get();
      return row ? (withNotes(db, [row])[0] ?? null) : null;
    },

    async feedHealth(): Promise<FeedHealth> {
      const last = db.select().from(t.pollRuns).orderBy(desc(t.pollRuns.startedMs)).limit(1).get();
      const success = db
        .select({ at: max(t.pollRuns.startedMs) })
        .from(t.pollRuns)
        .where(inArray(t.pollRuns.outcome, ['ok', 'partial']))
        .get();
      const lastSuccessAt = success?.at ?? null;
      const failures = db
        .select({ n: count() })
        .from(t.pollRuns)
        .where(and(eq(t.pollRuns.outcome, 'failed'), gt(t.pollRuns.startedMs, lastSuccessAt ?? -1)))
        .get();
      return { lastRun: last ? toPollRun(last) : null, lastSuccessAt, consecutiveFailures: failures?.n ?? 0 };
    },

    async listPollRuns(beforeStartedAt, limit) {
      return db
        .select()
        .from(t.pollRuns)
        .where(beforeStartedAt === null ? undefined : lt(t.pollRuns.startedMs, beforeStartedAt))
        .orderBy(desc(t.pollRuns.startedMs))
        .limit(limit)
        .all()
        .map(toPollRun);
    },

    async secret(name, generate) {
      const key = `secret:${name}`;
      db.insert(t.meta).values({ key, value: generate() }).onConflictDoNothing().run();
      return db.select().from(t.meta).where(eq(t.meta.key, key)).get()!.value;
    },
  };
}

function toStoredIncident(row: typeof t.incidents.$inferSelect, notes: Note[]): StoredIncident {
  return {
    id: row.id,
    title: row.title,
    type: row.type,
    status: row.status,
    url: row.url,
    services: JSON.parse(row.servicesJson) as string[],
    dateCreated: { raw: row.dateCreated, ms: row.createdMs },
    dateUpdated: { raw: row.dateUpdated, ms: row.updatedMs },
    notes,
    revision: row.revision,
    resolvedAt: row.resolvedMs,
    firstSeenAt: row.firstSeenMs,
    lastSeenAt: row.lastSeenMs,
  } satisfies ArchivedIncident & StoredIncident;
}

function toStoredEvent(row: typeof t.events.$inferSelect): StoredEvent {
  return {
    seq: row.seq,
    id: row.id,
    type: row.type as EventType,
    incidentId: row.incidentId,
    revision: row.revision,
    occurredAt: row.occurredMs,
    detectedAt: row.detectedMs,
    backfill: row.backfill,
    data: JSON.parse(row.dataJson) as EventData,
    pollRunId: row.pollRunId,
  };
}

function toPollRun(row: typeof t.pollRuns.$inferSelect): PollRun {
  return {
    id: row.id,
    startedAt: row.startedMs,
    finishedAt: row.finishedMs,
    outcome: row.outcome,
    sources: JSON.parse(row.sourcesJson) as SourceReport[],
    changes: JSON.parse(row.changesJson) as PollRun['changes'],
    ...(row.error ? { error: row.error } : {}),
  };
}
