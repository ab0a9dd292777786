/**
 * An incident as statuswatch's JSON API shows it, built as JSON text by SQLite's json_object:
 * listed by `GET /api/incidents` (stored with each write of the incident, storeListedJsonSql) and
 * alone by `GET /api/incidents/:id` (in the statement that reads it).
 * A page of 1,000 then makes no objects in JS and needs no JSON.stringify, which with the objects
 * were a third of its CPU. This is the only producer of an incident's API JSON: one list of the
 * fields every form shares, closed by each form's own tail.
 */
import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { FIRST_FOUR_DIGIT_YEAR_MS, LAST_FOUR_DIGIT_YEAR_MS } from '../core/vendor-time.ts';
import { LATEST_NOTE_ROWID, NOTE_COUNT } from './sqlite-incident-rows.ts';
import { sourceOfIncidentIdSql, sqlText } from './sqlite-incident-source.ts';
import * as t from './store-schema.ts';

/** 400 Gregorian years (146,097 days): the calendar repeats after them, weekdays and leap days alike. */
const GREGORIAN_CYCLE_MS = 12_622_780_800_000;

/**
 * Epoch ms (an integer column) as toIsoUtc writes it: `2026-11-27T18:33:15.000Z`, null for null.
 * datetime's `subsec` gives the milliseconds exactly (SQLite rounds ms / 1000.0 back to whole ms),
 * at half the CPU of strftime's `%f` (a page of 1,000 formats 6,000 instants). Both write years
 * 0000-9999 only; outside them, as toISOString does, a signed six-digit year: the instant is moved
 * by whole 400-year cycles into that range, formatted, and given its own year back.
 */
export function isoUtcSql(ms: AnyColumn | SQL): SQL<string | null> {
  const first = sql.raw(String(FIRST_FOUR_DIGIT_YEAR_MS));
  const cycle = sql.raw(String(GREGORIAN_CYCLE_MS));
  const cycles = sql`(CASE WHEN ${ms} >= ${first} THEN (${ms} - ${first}) / ${cycle} ELSE -((${first} - ${ms} + ${cycle} - 1) / ${cycle}) END)`;
  const moved = sql`(${ms} - ${cycles} * ${cycle}) / 1000.0`;
  // A null instant is in neither range: it falls to the second branch, whose concatenation is null.
  return sql<string | null>`(CASE WHEN ${ms} BETWEEN ${first} AND ${sql.raw(String(LAST_FOUR_DIGIT_YEAR_MS))}
    THEN replace(datetime(${ms} / 1000.0, 'unixepoch', 'subsec'), ' ', 'T') || 'Z'
    ELSE printf('%+07d', strftime('%Y', ${moved}, 'unixepoch') + 400 * ${cycles}) || substr(strftime('%Y-%m-%dT%H:%M:%fZ', ${moved}, 'unixepoch'), 5) END)`;
}

/** Whole seconds from created to resolved, rounded as Math.round does (halves up), in integer arithmetic. */
const DURATION_SECONDS = sql`(CASE WHEN ${t.incidents.resolvedMs} IS NULL THEN NULL
  WHEN ${t.incidents.resolvedMs} - ${t.incidents.createdMs} + 500 >= 0 THEN (${t.incidents.resolvedMs} - ${t.incidents.createdMs} + 500) / 1000
  ELSE -((${t.incidents.createdMs} - ${t.incidents.resolvedMs} - 500 + 999) / 1000) END)`;

/**
 * The fields of an incident in the API, as json_object's arguments, in the API's order: the event
 * summary's (`summarize`) first, then statuswatch's own. json_object keeps its arguments' order
 * and escapes as JSON.stringify does. In two parts around `last_seen_at`, the one field that
 * changes without a write of the incident (the last-seen refresh): a list reads the parts stored
 * (LISTED_JSON_STORE) and puts the field between them.
 */
const FIELDS_BEFORE_LAST_SEEN = sql`'id', ${t.incidents.id},
  'title', ${t.incidents.title},
  'type', ${t.incidents.type},
  'status', ${t.incidents.status},
  'url', ${t.incidents.url},
  'services', json(${t.incidents.servicesJson}),
  'date_created', ${t.incidents.dateCreated},
  'date_updated', ${t.incidents.dateUpdated},
  'source', ${sourceOfIncidentIdSql(t.incidents.id)},
  'created_at', ${isoUtcSql(t.incidents.createdMs)},
  'updated_at', ${isoUtcSql(t.incidents.updatedMs)},
  'resolved_at', ${isoUtcSql(t.incidents.resolvedMs)},
  'duration_seconds', ${DURATION_SECONDS},
  'first_seen_at', ${isoUtcSql(t.incidents.firstSeenMs)}`;
const LAST_SEEN_AT = isoUtcSql(t.incidents.lastSeenMs);
const FIELDS_AFTER_LAST_SEEN = sql`'revision', ${t.incidents.revision},
  'note_count', ${NOTE_COUNT}`;

/** A note in the API, as json_object's arguments, of the notes row `n` (the table, or an alias of it). */
function noteFields(n: SQL): SQL {
  return sql`'key', ${n}.key,
    'date_created', ${n}.date_created,
    'created_at', ${isoUtcSql(sql`${n}.created_ms`)},
    'body', ${n}.body,
    'text', ${n}.text`;
}

/** As lists show it: its newest note's fields, or null when it has none. */
const LATEST_NOTE = sql`'latest_note', json((SELECT json_object(${noteFields(sql.raw('n'))}) FROM ${t.notes} n WHERE n.rowid = ${LATEST_NOTE_ROWID}))`;

/**
 * The listed incident's JSON, kept in incident_listed_json, written with the incident by the same
 * statements (sqlite-poll-apply.ts): `head` is the object up to `"last_seen_at":`, `tail` the rest
 * after that field's value, so a page of 1,000 is its stored texts joined (built here on every
 * read, the columns, note seeks and instants cost about 4 ms of CPU a page). The head is the
 * fields' object without its closing brace: its last value is first_seen_at, a string or null,
 * so rtrim takes that brace alone.
 *
 * Each stored text names the incident revision it was written for. A page uses it only while the
 * incident is still at that revision, and builds the text from the rows otherwise: an incident
 * written by code that kept no text (an older Worker still running during a deploy) is listed as
 * it is, never as it was or not at all. A change to these fields needs a migration that writes
 * every stored text again (or deletes them all), as 0022 wrote the first.
 */
const LISTED_HEAD = sql`rtrim(json_object(${FIELDS_BEFORE_LAST_SEEN}), '}') || ',"last_seen_at":'`;
const LISTED_TAIL = sql`',' || substr(json_object(${FIELDS_AFTER_LAST_SEEN}, ${LATEST_NOTE}), 2)`;

/**
 * Writes the stored JSON of the incidents `where` selects (SQL text binding the statement's own
 * values): after their rows and notes, in the statements that write them.
 */
export function storeListedJsonSql(where: string): string {
  return `INSERT INTO ${sqlText(sql`${t.incidentListedJson}`)} (incident_pk, revision, json_head, json_tail)
  SELECT ${sqlText(sql`${t.incidents.pk}`)}, ${sqlText(sql`${t.incidents.revision}`)}, ${sqlText(LISTED_HEAD)}, ${sqlText(LISTED_TAIL)}
  FROM ${sqlText(sql`${t.incidents}`)} WHERE ${where}
  ON CONFLICT (incident_pk) DO UPDATE SET revision = excluded.revision, json_head = excluded.json_head, json_tail = excluded.json_tail`;
}

/**
 * As lists show it, read with the stored parts joined (LISTED_JSON_JOIN): last_seen_at put
 * between them as it is now. Without a stored text for the incident's revision, each part is
 * built here (coalesce evaluates its second argument only when the first is null).
 */
export const LISTED_JSON = renderedOnce(
  sql<string>`coalesce(${t.incidentListedJson.jsonHead}, ${LISTED_HEAD}) || json_quote(${LAST_SEEN_AT})
    || coalesce(${t.incidentListedJson.jsonTail}, ${LISTED_TAIL})`,
);

/** The join of an incident to its stored listed JSON, when that was written for its revision now. */
export const LISTED_JSON_JOIN = sql`${t.incidentListedJson.incidentPk} = ${t.incidents.pk} AND ${t.incidentListedJson.revision} = ${t.incidents.revision}`;

/**
 * On its own: every note, oldest first (by the vendor's date, then the key's counter), as
 * an array, `[]` for none. json() keeps the array JSON: a subquery's value reaches json_object
 * as text, which it would quote. Built on every read: one incident's costs little.
 */
export const SINGLE_JSON = renderedOnce(
  sql<string>`json_object(${FIELDS_BEFORE_LAST_SEEN}, 'last_seen_at', ${LAST_SEEN_AT}, ${FIELDS_AFTER_LAST_SEEN},
    'notes', json((SELECT json_group_array(json_object(${noteFields(sql.raw('n'))}) ORDER BY n.created_ms, n.seq)
    FROM ${t.notes} n WHERE n.incident_id = ${t.incidents.id})))`,
);

/**
 * One piece of SQL text rendered once: drizzle walked its hundreds of pieces again for every
 * request, a twentieth of the CPU of a page of 1,000.
 */
function renderedOnce(parts: SQL<string>): SQL<string> {
  return sql.raw(sqlText(parts)) as SQL<string>;
}

/** What listIncidentsJson reads of each incident, in this order: its sort key (for the cursor) and its JSON. */
export const LISTED_JSON_SELECTION = { sortKey: t.incidents.sortKey, json: LISTED_JSON };

/** A row of LISTED_JSON_SELECTION, as an array. */
export type ListedJsonRow = [sortKey: number, json: string];
