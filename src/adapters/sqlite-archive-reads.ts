/**
 * The archive's read side in SQLite: the ArchiveQueries port, for the API, the pages and the
 * vendor mirror. Queries whose filters vary are built per request; those of one shape that every
 * widget, badge and page reads are built and prepared once (see prepareFixedReads).
 */
import { and, asc, count, desc, eq, exists, gt, gte, inArray, isNull, lt, max, sql, type SQL } from 'drizzle-orm';
import type { ListedIncident } from '../core/ports.ts';
import { incidentIdRangeOfSource, MAIN_FEED_SOURCE, sourceOfIncidentId } from '../core/statuspage/mapping.ts';
import { SearchTooBroadError } from '../core/errors.ts';
import { SEARCH_LIMITS } from '../core/search-query.ts';
import type { VendorIncidentJson } from '../core/vendor-format.ts';
import type { ArchiveQueries, EventFilter, FeedHealth, IncidentFilter, IncidentPosition, RecordedRejection, StoredEvent } from '../core/ports.ts';
import { statementOf, type SqliteConnection } from './sqlite-connection.ts';
import { createIncidentRows, LATEST_NOTE_JOIN, LISTED_SELECTION, listedIncident, toPollRun, type ListedRow } from './sqlite-incident-rows.ts';
import { LISTED_JSON_JOIN, LISTED_JSON_SELECTION, SINGLE_JSON, type ListedJsonRow } from './sqlite-incident-json.ts';
import { isMainFeedIncidentId } from './sqlite-incident-source.ts';
import { prepareDataCoverage, prepareIncidentSpans } from './sqlite-reliability.ts';
import { toStatusEvent } from './sqlite-rows.ts';
import type { PollStatements } from './sqlite-statements.ts';
import { preparedByShape } from './prepared-by-shape.ts';
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

/**
 * The reads of one shape on the hot paths, built once. Drizzle builds a query's SQL from objects
 * on every call: 20-50 KB of garbage a query, ~100 KB for the three of feedHealth, which the
 * widget, the badge, /healthz and the pages' generation all read: the most of what such a request
 * allocated, and what a flood of uncached requests makes V8 collect and grow its heap for.
 */
function prepareFixedReads(db: SqliteConnection['db']) {
  return {
    lastPollRun: db.select().from(t.pollRuns).orderBy(desc(t.pollRuns.startedMs)).limit(1).prepare(),
    lastSuccessAt: db
      .select({ at: max(t.pollRuns.startedMs) })
      .from(t.pollRuns)
      .where(inArray(t.pollRuns.outcome, ['ok', 'partial']))
      .prepare(),
    failuresSince: db
      .select({ n: count() })
      .from(t.pollRuns)
      .where(and(eq(t.pollRuns.outcome, 'failed'), gt(t.pollRuns.startedMs, sql.placeholder('sinceMs'))))
      .prepare(),
    ongoingIncidents: db.select().from(t.incidents).where(isNull(t.incidents.resolvedMs)).orderBy(desc(t.incidents.updatedMs)).prepare(),
  };
}

/** listEvents' filters, as the bits of its statement's shape. */
const EVENTS_BY_TYPE = 1;
const EVENTS_OF_INCIDENT = 2;
const EVENTS_LIVE_ONLY = 4;
const EVENTS_DETECTED_SINCE = 8;
const EVENTS_OF_SOURCE = 16;
const EVENTS_OF_MAIN_FEED = 32;
const EVENT_SHAPES = 64;

/** The main feed's incident ids hold no colon; a source's are `sourceId:vendorId` (statuspage/mapping.ts). */

export function createSqliteArchiveReads(connection: SqliteConnection, st: PollStatements): ArchiveQueries {
  const { db } = connection;
  const fixed = prepareFixedReads(db);
  const p = sql.placeholder;
  const eventsStatement = preparedByShape(EVENT_SHAPES, (shape: number) => {
    const conditions: SQL[] = [gt(t.events.seq, p('afterSeq'))];
    if (shape & EVENTS_BY_TYPE) conditions.push(sql`${t.events.type} IN (SELECT value FROM json_each(${p('types')}))`);
    if (shape & EVENTS_OF_INCIDENT) conditions.push(eq(t.events.incidentId, p('incidentId')));
    if (shape & EVENTS_LIVE_ONLY) conditions.push(eq(t.events.backfill, false));
    if (shape & EVENTS_DETECTED_SINCE) conditions.push(gte(t.events.detectedMs, p('detectedSinceMs')));
    if (shape & EVENTS_OF_SOURCE) conditions.push(gte(t.events.incidentId, p('sourceFrom')), lt(t.events.incidentId, p('sourceBefore')));
    if (shape & EVENTS_OF_MAIN_FEED) conditions.push(isMainFeedIncidentId(t.events.incidentId));
    return db
      .select()
      .from(t.events)
      .where(and(...conditions))
      .orderBy(asc(t.events.seq))
      .limit(p('limit'))
      .prepare();
  });
  const { loadByIds, withNotes } = createIncidentRows(st);
  /** One incident's JSON, by id: its text built once, the id bound as its one `?` on each read. */
  const singleJson = statementOf(db.select({ json: SINGLE_JSON }).from(t.incidents).where(sql`${t.incidents.id} = ?`));

  /** Incidents as lists show them, each with its note count and newest note, in one statement. */
  async function listed(where: SQL | undefined, orderBy: SQL[], limit?: number): Promise<ListedIncident[]> {
    return (await listedRows<ListedRow>(LISTED_SELECTION, where, orderBy, limit)).map(listedIncident);
  }

  /** The rows of `selection` (LISTED_SELECTION with its note, LISTED_JSON_SELECTION with its stored JSON), as arrays. */
  function listedRows<Row extends unknown[]>(
    selection: typeof LISTED_SELECTION | typeof LISTED_JSON_SELECTION,
    where: SQL | undefined,
    orderBy: SQL[],
    limit?: number,
  ): Promise<Row[]> {
    const base = db.select(selection).from(t.incidents);
    const query = (selection === LISTED_SELECTION ? base.leftJoin(t.notes, LATEST_NOTE_JOIN) : base.leftJoin(t.incidentListedJson, LISTED_JSON_JOIN))
      .where(where)
      .orderBy(...orderBy);
    const { sql: text, params } = statementOf(limit === undefined ? query : query.limit(limit));
    return connection.rows<Row>(text, params);
  }
  const incidentSpans = prepareIncidentSpans(connection);
  const dataCoverage = prepareDataCoverage(connection);

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
    if (filter.source === MAIN_FEED_SOURCE) conditions.push(isMainFeedIncidentId(t.incidents.id));
    else if (filter.source !== undefined) {
      const range = incidentIdRangeOfSource(filter.source);
      conditions.push(gte(t.incidents.id, range.from), lt(t.incidents.id, range.before));
    }
    if (after) conditions.push(lt(t.incidents.sortKey, after.sortKey));
    return conditions;
  }

  /**
   * Which incidents a page of listIncidents shows, newest first: `where` and `limit` for the
   * statement that reads them, or null when a search found none.
   */
  async function pageOf(filter: IncidentFilter, after: IncidentPosition | null, limit: number): Promise<{ where: SQL | undefined; limit?: number } | null> {
    const conditions = incidentConditions(filter, after);
    if (!filter.q) return { where: and(...conditions), limit };
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
    if (page.length === 0) return null;
    return {
      where: inValues(
        t.incidents.pk,
        page.map((r) => r.pk),
      ),
    };
  }

  return {
    async listIncidents(filter, after, limit) {
      const page = await pageOf(filter, after, limit);
      return page === null ? [] : listed(page.where, [desc(t.incidents.sortKey)], page.limit);
    },

    async listIncidentsJson(filter, after, limit) {
      const page = await pageOf(filter, after, limit);
      if (page === null) return [];
      const rows = await listedRows<ListedJsonRow>(LISTED_JSON_SELECTION, page.where, [desc(t.incidents.sortKey)], page.limit);
      return rows.map(([sortKey, json]) => ({ sortKey, json }));
    },

    async countIncidents(filter, max) {
      const conditions = incidentConditions(filter, null);
      // One more than the bound says whether there are more; the scan stops there either way.
      const bounded = max + 1;
      if (!filter.q) {
        const [row] = await db.all<{ n: number }>(
          sql`SELECT count(*) AS n FROM (SELECT 1 FROM ${t.incidents} ${conditions.length > 0 ? sql`WHERE ${and(...conditions)}` : sql``} LIMIT ${bounded})`,
        );
        const n = row?.n ?? 0;
        return { count: Math.min(n, max), exact: n <= max };
      }
      // The matches a search may examine, as listIncidents reads them; past that budget the count is a floor.
      const fts = sql.identifier(t.INCIDENTS_FTS);
      const keys = sortKeyRange(filter, null);
      const maxMatches = SEARCH_LIMITS.maxMatchesExamined;
      const [row] = await db.all<{ examined: number; n: number }>(sql`
        WITH m AS MATERIALIZED (SELECT rowid AS k FROM ${fts} WHERE ${t.ftsMatch(filter.q)}
          ${keys.from === undefined ? sql`` : sql`AND rowid >= ${keys.from}`} ${keys.before === undefined ? sql`` : sql`AND rowid < ${keys.before}`}
          ORDER BY rowid DESC LIMIT ${maxMatches})
        SELECT (SELECT count(*) FROM m) AS examined, (SELECT count(*) FROM (
          SELECT 1 FROM m CROSS JOIN ${t.incidents} ON ${t.incidents.sortKey} = m.k
          ${conditions.length > 0 ? sql`WHERE ${and(...conditions)}` : sql``} LIMIT ${bounded})) AS n`);
      const n = row?.n ?? 0;
      return { count: Math.min(n, max), exact: n <= max && (row?.examined ?? 0) < maxMatches };
    },

    async recentlyUpdated(filter, limit) {
      return listed(and(...incidentConditions(filter, null)), [desc(t.incidents.updatedMs), desc(t.incidents.sortKey)], limit);
    },

    async getIncident(id) {
      return (await loadByIds([id]))[0] ?? null;
    },

    async getIncidentJson(id) {
      const [row] = await connection.rows<[json: string]>(singleJson.sql, [id]);
      return row ? { json: row[0] } : null;
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
      const types = filter.types?.length ? filter.types : undefined;
      const shape =
        (types ? EVENTS_BY_TYPE : 0) |
        (filter.incidentId ? EVENTS_OF_INCIDENT : 0) |
        (filter.includeBackfill === false ? EVENTS_LIVE_ONLY : 0) |
        (filter.detectedSinceMs !== undefined ? EVENTS_DETECTED_SINCE : 0) |
        (filter.source === undefined ? 0 : filter.source === MAIN_FEED_SOURCE ? EVENTS_OF_MAIN_FEED : EVENTS_OF_SOURCE);
      const range = incidentIdRangeOfSource(filter.source ?? '');
      const rows = await eventsStatement(shape).all({
        sourceFrom: range.from,
        sourceBefore: range.before,
        afterSeq,
        limit,
        types: JSON.stringify(types ?? []),
        incidentId: filter.incidentId ?? '',
        detectedSinceMs: filter.detectedSinceMs ?? 0,
      });
      return rows.map(toStoredEvent);
    },

    async ongoingIncidents(source) {
      // Few incidents are open at once: the source is picked out here, before their notes are read.
      const rows = await fixed.ongoingIncidents.all();
      return withNotes(source === undefined ? rows : rows.filter((row) => sourceOfIncidentId(row.id) === source));
    },

    async incidentsUpdatedSince(sinceMs, limit) {
      const rows = await db
        .select()
        .from(t.incidents)
        // The vendor mirror's read: the main feed's incidents alone.
        .where(and(sql`${t.incidents.updatedMs} >= ${sinceMs}`, isMainFeedIncidentId(t.incidents.id)))
        .orderBy(desc(t.incidents.updatedMs), desc(t.incidents.id))
        .limit(limit)
        .all();
      return withNotes(rows);
    },

    async incidentSpans(sinceMs, source) {
      return incidentSpans(sinceMs, source);
    },

    async dataCoverage(sinceMs) {
      return dataCoverage(sinceMs);
    },

    async knownServices(limit, source) {
      if (source === undefined) {
        // DISTINCT over the (service, sort_key) index: one step per name, not per incident row.
        const rows = await db
          .selectDistinct({ service: t.incidentServices.service })
          .from(t.incidentServices)
          .orderBy(asc(t.incidentServices.service))
          .limit(limit)
          .all();
        return rows.map((row) => row.service);
      }
      // One source's: each name's incidents are looked at (read once per archive generation, known-services.ts).
      const range = incidentIdRangeOfSource(source);
      const ofSource =
        source === MAIN_FEED_SOURCE ? isMainFeedIncidentId(t.incidents.id) : and(gte(t.incidents.id, range.from), lt(t.incidents.id, range.before));
      const rows = await db
        .selectDistinct({ service: t.incidentServices.service })
        .from(t.incidentServices)
        .innerJoin(t.incidents, eq(t.incidents.pk, t.incidentServices.incidentPk))
        .where(ofSource)
        .orderBy(asc(t.incidentServices.service))
        .limit(limit)
        .all();
      return rows.map((row) => row.service);
    },

    async latestCreatedIncident() {
      const row = await db
        .select()
        .from(t.incidents)
        .where(isMainFeedIncidentId(t.incidents.id))
        .orderBy(desc(t.incidents.createdMs), desc(t.incidents.id))
        .limit(1)
        .get();
      return row ? ((await withNotes([row]))[0] ?? null) : null;
    },

    async feedHealth(): Promise<FeedHealth> {
      const last = await fixed.lastPollRun.get();
      const success = await fixed.lastSuccessAt.get();
      const lastSuccessAt = success?.at ?? null;
      const failures = await fixed.failuresSince.get({ sinceMs: lastSuccessAt ?? -1 });
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
      const rejected = rows.map(
        ({ rejection, body, text }): RecordedRejection => ({
          source: rejection.source as RecordedRejection['source'],
          url: rejection.url,
          error: rejection.error,
          sha256: rejection.bodyHash,
          receivedAt: rejection.receivedMs,
          body: body && text !== null ? { text, seenCount: body.seenCount, firstSeenAt: body.firstSeenMs, lastSeenAt: body.lastSeenMs } : null,
        }),
      );
      return { run: toPollRun(row), rejected };
    },

    async secret(name, generate) {
      const key = `secret:${name}`;
      await db.insert(t.meta).values({ key, value: generate() }).onConflictDoNothing().run();
      return (await db.select().from(t.meta).where(eq(t.meta.key, key)).get())!.value;
    },
  };
}

function toStoredEvent(row: typeof t.events.$inferSelect): StoredEvent {
  return { ...toStatusEvent(row), seq: row.seq, pollRunId: row.pollRunId };
}
