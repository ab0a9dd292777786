/**
 * Deleting a source's archive with it, in bounded steps. A source's incidents, notes, versions and
 * events are found by their incident id's range (`sourceId:` up to `sourceId;`, statuspage/mapping.ts),
 * its outbox rows by their key's (a key begins with its first event id, fanout.ts): every delete
 * seeks an index, and each picks at most `limit` rows in a LIMITed subquery, so one step is a
 * fixed list of statements, one transaction or one D1 batch, with no read before the writes.
 * Every statement also asks that the source be marked purging, so no step ever deletes a row of
 * a source that is watched, nor of the main feed (whose ids hold no colon).
 */
import { incidentIdRangeOfSource, sourceLeaseName } from '../core/statuspage/mapping.ts';
import type { BatchStatement, SqlValue } from './sqlite-connection.ts';
import { GENERATION_KEY } from './sqlite-meta-keys.ts';
import { INCIDENTS_FTS } from './store-schema.ts';

/** One scalar lookup by the primary key: the guard every statement carries (param: the source id). */
const PURGING = 'EXISTS (SELECT 1 FROM sources WHERE id = ? AND purging_ms IS NOT NULL)';

/** The first `limit` incidents of the source by id (params: from, before, source id, limit). */
const FIRST_INCIDENTS = (column: 'pk' | 'sort_key') => `SELECT ${column} FROM incidents WHERE id >= ? AND id < ? AND ${PURGING} ORDER BY id LIMIT ?`;

/** The first `limit` rows of a table keyed by incident id (params: from, before, source id, limit). */
const FIRST_ROWS = (table: string, key: string) => `SELECT ${key} FROM ${table} WHERE incident_id >= ? AND incident_id < ? AND ${PURGING} LIMIT ?`;

/**
 * Outbox rows of the source's events not yet sent (params: from, before, now, source id, limit).
 * Sent and given-up rows are kept, as every delivery's record is (the record of what went out);
 * so is a row under a live claim: its deliverer may be sending it, and the attempt it records
 * says what went out. A claim whose lease ran out is a deliverer that died: its row goes.
 */
const PENDING_DELIVERIES = `SELECT id FROM deliveries WHERE key >= ? AND key < ? AND state = 'pending'
  AND (claim_until_ms IS NULL OR claim_until_ms <= ?) AND ${PURGING} ORDER BY key LIMIT ?`;

const LEFT = (table: string, column: string) => `EXISTS (SELECT 1 FROM ${table} WHERE ${column} >= ? AND ${column} < ?)`;

/**
 * Every statement of one purge step, in order, exported so a test can check each one's query
 * plan. The search rows, services and stored JSON are found through their incident row, so they go before it.
 * An incident's services are at most the page's components: `limit` incidents bound them too.
 */
export const PURGE_SQL = {
  // Moves the archive generation (the response caches' key), never the main feed's own: a
  // source's purge costs the main poll nothing.
  bumpGeneration: `INSERT INTO meta (key, value) SELECT '${GENERATION_KEY}', '1' WHERE ${PURGING}
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`,
  // FTS5 tables take no RETURNING: a search row goes with its incident, which is counted.
  searchRows: `DELETE FROM ${INCIDENTS_FTS} WHERE rowid IN (${FIRST_INCIDENTS('sort_key')})`,
  services: `DELETE FROM incident_services WHERE incident_pk IN (${FIRST_INCIDENTS('pk')}) RETURNING 1`,
  // Not counted either: an incident's stored JSON is part of its row, which is.
  listedJson: `DELETE FROM incident_listed_json WHERE incident_pk IN (${FIRST_INCIDENTS('pk')})`,
  incidents: `DELETE FROM incidents WHERE pk IN (${FIRST_INCIDENTS('pk')}) RETURNING 1`,
  notes: `DELETE FROM notes WHERE rowid IN (${FIRST_ROWS('notes', 'rowid')}) RETURNING 1`,
  versions: `DELETE FROM incident_versions WHERE rowid IN (${FIRST_ROWS('incident_versions', 'rowid')}) RETURNING 1`,
  events: `DELETE FROM events WHERE seq IN (${FIRST_ROWS('events', 'seq')}) RETURNING 1`,
  attempts: `DELETE FROM delivery_attempts WHERE delivery_id IN (${PENDING_DELIVERIES}) RETURNING 1`,
  deliveries: `DELETE FROM deliveries WHERE id IN (${PENDING_DELIVERIES}) RETURNING 1`,
  components: `DELETE FROM source_components WHERE source_id = ? AND ${PURGING} RETURNING 1`,
  // A poll that took the source's lease while the purge went on, and died with it. Not counted:
  // the lease is no part of the archive.
  lease: `DELETE FROM leases WHERE name = ? AND ${PURGING}`,
  // The row goes last, once nothing of the archive is left: until then its id and address stay taken.
  source: `DELETE FROM sources WHERE id = ? AND purging_ms IS NOT NULL
    AND NOT ${LEFT('incidents', 'id')} AND NOT ${LEFT('notes', 'incident_id')}
    AND NOT ${LEFT('incident_versions', 'incident_id')} AND NOT ${LEFT('events', 'incident_id')}
    AND NOT EXISTS (SELECT 1 FROM deliveries WHERE key >= ? AND key < ? AND state = 'pending')
    RETURNING 1`,
  // Done when the row is gone (or never was a purging one): then no later step finds anything.
  stillPurging: `SELECT 1 FROM sources WHERE id = ? AND purging_ms IS NOT NULL`,
} as const;

/** The statements of one step of the source's purge, with their values. */
export function purgeStepStatements(sourceId: string, limit: number, now: number): BatchStatement[] {
  const { from, before } = incidentIdRangeOfSource(sourceId);
  const batch: SqlValue[] = [from, before, sourceId, limit];
  const unclaimed: SqlValue[] = [from, before, now, sourceId, limit];
  const range = [from, before];
  return [
    { sql: PURGE_SQL.bumpGeneration, params: [sourceId] },
    { sql: PURGE_SQL.searchRows, params: batch },
    { sql: PURGE_SQL.services, params: batch },
    { sql: PURGE_SQL.listedJson, params: batch },
    { sql: PURGE_SQL.incidents, params: batch },
    { sql: PURGE_SQL.notes, params: batch },
    { sql: PURGE_SQL.versions, params: batch },
    { sql: PURGE_SQL.events, params: batch },
    { sql: PURGE_SQL.attempts, params: unclaimed },
    { sql: PURGE_SQL.deliveries, params: unclaimed },
    { sql: PURGE_SQL.components, params: [sourceId, sourceId] },
    { sql: PURGE_SQL.lease, params: [sourceLeaseName(sourceId), sourceId] },
    { sql: PURGE_SQL.source, params: [sourceId, ...range, ...range, ...range, ...range, ...range] },
    { sql: PURGE_SQL.stillPurging, params: [sourceId] },
  ];
}

/** What is left of a source's archive, each count capped (params: from, before, cap, twice). */
export const ARCHIVE_LEFT_SQL = `SELECT
  (SELECT count(*) FROM (SELECT 1 FROM incidents WHERE id >= ? AND id < ? LIMIT ?)) AS incidents,
  (SELECT count(*) FROM (SELECT 1 FROM events WHERE incident_id >= ? AND incident_id < ? LIMIT ?)) AS events`;

export function archiveLeftStatement(sourceId: string, cap: number): BatchStatement {
  const { from, before } = incidentIdRangeOfSource(sourceId);
  return { sql: ARCHIVE_LEFT_SQL, params: [from, before, cap, from, before, cap] };
}
