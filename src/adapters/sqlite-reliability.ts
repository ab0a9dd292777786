/** The archive's incident spans in SQLite: what the track record and the daily service bars are computed from. */
import type { DataCoverage } from '../core/coverage.ts';
import { MONITOR_EVENT_TYPES, type MonitorEventData } from '../core/events.ts';
import type { IncidentSpan } from '../core/ports.ts';
import { BLIND_SPELLS_PER_SOURCE } from '../core/retention.ts';
import type { SqliteConnection } from './sqlite-connection.ts';
import { SEEDED_KEY } from './sqlite-meta-keys.ts';
import { isMainFeedIncidentId, sqlText } from './sqlite-incident-source.ts';
import { incidentIdRangeOfSource, MAIN_FEED_SOURCE } from '../core/statuspage/mapping.ts';

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
        AND %SOURCE%
      ORDER BY i.sort_key`;

/**
 * One source's spans: the main feed's ids have no colon, a source's are `sourceId:...`
 * (incidentIdRangeOfSource), so a track record never reads every other page's incidents.
 */
const SPANS_OF_MAIN_SQL = INCIDENT_SPANS_SQL.replace('%SOURCE%', sqlText(isMainFeedIncidentId('i.id')));
const SPANS_OF_SOURCE_SQL = INCIDENT_SPANS_SQL.replace('%SOURCE%', 'i.id >= ? AND i.id < ?');

export function prepareIncidentSpans(connection: SqliteConnection): (sinceMs: number, source: string) => Promise<IncidentSpan[]> {
  return async (sinceMs, source) => {
    const range = incidentIdRangeOfSource(source);
    const rows =
      source === MAIN_FEED_SOURCE
        ? await connection.rows<SpanRow>(SPANS_OF_MAIN_SQL, [SEEDED_KEY, sinceMs])
        : await connection.rows<SpanRow>(SPANS_OF_SOURCE_SQL, [SEEDED_KEY, sinceMs, range.from, range.before]);
    return rows.map(([id, title, type, status, servicesJson, createdMs, resolvedMs, firstSeenMs, firstNoteMs, backfill]) => ({
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
    }));
  };
}

/**
 * The main feed's oldest incident by the sort_key index (date_created order), or when the archive
 * was seeded. A watched page's incidents (their ids hold a colon) are its own past: one older than
 * the vendor's would have the vendor's record speak for time it never saw.
 */
const ARCHIVE_BEGAN_SQL = `SELECT coalesce((SELECT created_ms FROM incidents WHERE ${sqlText(isMainFeedIncidentId('id'))} ORDER BY sort_key LIMIT 1), (SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?))`;
/** The main feed's blind spells between two good reads (written with the run that ended each), ending in the window or after. */
const MAIN_FEED_GAPS_SQL = `SELECT since_ms, until_ms FROM source_blind_spells WHERE source_id = '${MAIN_FEED_SOURCE}' AND until_ms >= ? ORDER BY since_ms LIMIT ${BLIND_SPELLS_PER_SOURCE}`;
/**
 * Monitor events since a time, through the events_type index: at most two per quiet time
 * (monitor-episode.ts), so a year holds a few thousand at worst. The newest one is read too, so a
 * blindness begun before `sinceMs` and still going on is found.
 */
const MONITOR_EVENTS_SQL = `SELECT type, data_json FROM events
  WHERE type IN (SELECT value FROM json_each(?)) AND (detected_ms >= ? OR seq = (SELECT max(seq) FROM events WHERE type IN (SELECT value FROM json_each(?))))
  ORDER BY seq`;

export function prepareDataCoverage(connection: SqliteConnection): (sinceMs: number) => Promise<DataCoverage> {
  const types = JSON.stringify(MONITOR_EVENT_TYPES);
  return async (sinceMs) => {
    const [[beganRow], events, gaps] = await Promise.all([
      connection.rows<[number | null]>(ARCHIVE_BEGAN_SQL, [SEEDED_KEY]),
      connection.rows<[string, string]>(MONITOR_EVENTS_SQL, [types, sinceMs, types]),
      connection.rows<[number, number]>(MAIN_FEED_GAPS_SQL, [sinceMs]),
    ]);
    // The time between two good reads no read failed in (no poll ran): no episode says so.
    const blind: DataCoverage['blind'] = gaps.map(([since, until]) => ({ since, until }));
    events.forEach(([type, dataJson], index) => {
      const data = JSON.parse(dataJson) as MonitorEventData;
      // A never-read feed's blindness is the time before the archive began: covered by beganAt.
      if (data.since === null) return;
      if (data.type === 'monitor.recovered') blind.push({ since: Date.parse(data.since), until: Date.parse(data.recovered_at) });
      else if (type === 'monitor.blind' && index === events.length - 1) blind.push({ since: Date.parse(data.since), until: null });
    });
    return { beganAt: beganRow?.[0] ?? null, blind };
  };
}
