/** The archive's incident spans in SQLite: what the track record and the daily service bars are computed from. */
import type { IncidentSpan } from '../core/ports.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

/** Where the store keeps when the archive was seeded (sqlite-store.ts SEEDED_KEY). */
const SEEDED_KEY = 'seeded_at';

type SpanRow = [
  id: string,
  title: string,
  type: string,
  status: string,
  servicesJson: string,
  createdMs: number,
  resolvedMs: number | null,
  firstSeenMs: number,
  firstNoteMs: number | null,
  backfill: number,
];

/**
 * The spans are the ongoing incidents plus those resolved since `sinceMs`: two
 * seeks in incidents_resolved, written as a UNION because SQLite's planner scans the whole table
 * for the equivalent `IS NULL OR >=` (created_ms cannot bound it: an incident resolved this week
 * may have begun years ago). The first-update subquery runs only for the rows kept, one seek each in notes_latest
 * (incident_id, created_ms). Rows come back as arrays: building 10,000 row objects cost more
 * than the query itself.
 *
 * Backfill: the seeding poll records `seeded_at` = its start, which is also the first_seen_ms of
 * every incident it archived; the polls before it (history unread) were backfill too, and every
 * poll after it starts later. So an incident first seen at or before seeded_at, or in an archive
 * not seeded yet, came with the backfill: the same answer as the flag of its `incident.created`
 * event, without a seek per incident. (A clock stepped back after seeding could class a few new
 * incidents as backfill: they would then be left out of the detection lag, not miscounted.)
 */
const INCIDENT_SPANS_SQL = `
      SELECT i.id, i.title, i.type, i.status, i.services_json, i.created_ms, i.resolved_ms, i.first_seen_ms,
             (SELECT min(n.created_ms) FROM notes n WHERE n.incident_id = i.id AND n.created_ms > i.created_ms),
             coalesce(i.first_seen_ms <= (SELECT CAST(m.value AS INTEGER) FROM meta m WHERE m.key = ?), 1)
      FROM incidents i
      WHERE i.pk IN (SELECT pk FROM incidents WHERE resolved_ms IS NULL
                     UNION ALL SELECT pk FROM incidents WHERE resolved_ms >= ?)
      ORDER BY i.sort_key`;

export function prepareIncidentSpans(connection: SqliteConnection): (sinceMs: number) => Promise<IncidentSpan[]> {
  return async (sinceMs) =>
    (await connection.rows<SpanRow>(INCIDENT_SPANS_SQL, [SEEDED_KEY, sinceMs])).map(
      ([id, title, type, status, servicesJson, createdMs, resolvedMs, firstSeenMs, firstNoteMs, backfill]) => ({
        id,
        title,
        type,
        status,
        services: JSON.parse(servicesJson) as string[],
        createdAt: createdMs,
        resolvedAt: resolvedMs,
        firstSeenAt: firstSeenMs,
        firstNoteAt: firstNoteMs,
        backfill: backfill === 1,
      }),
    );
}
