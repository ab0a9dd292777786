/**
 * A planned piece of a poll as one fixed list of SQLite statements (sqlite-batch.ts): the poller
 * decided everything (versions, events, deliveries); these statements only write it, with the
 * revision each incident was planned against checked inside the list. Plain SQL text and
 * positional values, no I/O: better-sqlite3 runs the list as one transaction, D1 as one batch.
 */
import type { IncidentWrite } from '../core/diff.ts';
import type { StatusEvent } from '../core/events.ts';
import type { PlannedDelivery } from '../core/fanout.ts';
import { noteSearchText, type NoteWithText } from '../core/html-text.ts';
import { noteSeq, sameServices, type Note } from '../core/incident.ts';
import type { ApplyPollInput, BlindSpell, DiffedFeed, PollRun, RejectedPayload } from '../core/ports.ts';
import { toVendorIncident } from '../core/vendor-format.ts';
import { MAIN_FEED_SOURCE } from '../core/statuspage/mapping.ts';
import type { BatchStatement, SqlValue } from './sqlite-connection.ts';
import { releaseLeaseStatement } from './sqlite-leases.ts';
import { diffedFeedMembers } from './sqlite-diffed-feed.ts';
import { DIFFED_FEED_KEY, GENERATION_KEY, MAIN_GENERATION_KEY, SEEDED_KEY } from './sqlite-meta-keys.ts';
import { blindSpellStatements, componentStatesStatements } from './sqlite-sources.ts';
import { PRUNE_SQL } from './sqlite-retention.ts';
import { storeListedJsonSql } from './sqlite-incident-json.ts';
import { INCIDENTS_FTS, SORT_KEYS_PER_SECOND } from './store-schema.ts';

/**
 * Enough for a human to see what came (an error page, the start of a broken feed), and small
 * enough for any row: D1 stores at most 1,000,000 bytes a row, and 65,536 characters are at most
 * 262,144 bytes of UTF-8.
 */
const REJECTED_BODY_MAX_CHARS = 65_536;
/**
 * Outbox rows per INSERT: one JSON parameter of about 100 bytes a row stays near 100 KB, well
 * inside what D1 binds, and 10,000 subscribers take ten statements instead of 10,000.
 */
export const DELIVERIES_PER_STATEMENT = 1000;

/**
 * The revision guard. The version row's NOT NULL revision is fed by a sub-select that is NULL
 * unless the archived revision is still the one the plan saw (IS: NULL for a new incident), so
 * an incident another process wrote since planning fails this statement and the whole list
 * rolls back. It runs before the incident row is written, while that row still holds the
 * revision to check.
 */
const INSERT_VERSION_GUARDED = `INSERT INTO incident_versions (incident_id, revision, snapshot_json, recorded_ms, poll_run_id)
  VALUES (?, (SELECT ? WHERE (SELECT revision FROM incidents WHERE id = ?) IS ?), ?, ?, ?)`;
/** What SQLite (and D1, inside its own wording) says when the guard above fails. */
const REVISION_GUARD_FAILURE = 'NOT NULL constraint failed: incident_versions.revision';

export function isRevisionGuardFailure(error: unknown): boolean {
  return error instanceof Error && error.message.includes(REVISION_GUARD_FAILURE);
}

/**
 * The next free sort key in the second of `created_ms` (params: block end, block start, block
 * start, block end). NULL, and so a NOT NULL failure, if a million incidents share that second.
 */
const NEXT_SORT_KEY = `(SELECT CASE WHEN k < ? THEN k END FROM
  (SELECT coalesce(max(sort_key) + 1, ?) AS k FROM incidents WHERE sort_key >= ? AND sort_key < ?))`;

const INSERT_INCIDENT = `INSERT INTO incidents (id, sort_key, title, type, status, url, services_json, date_created,
  date_updated, created_ms, updated_ms, resolved_ms, revision, first_seen_ms, last_seen_ms)
  VALUES (?, ${NEXT_SORT_KEY}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The sort key stays unless date_created moved; the guard above already proved the base revision. */
const UPDATE_INCIDENT = `UPDATE incidents SET sort_key = CASE WHEN created_ms = ? THEN sort_key ELSE ${NEXT_SORT_KEY} END,
  title = ?, type = ?, status = ?, url = ?, services_json = ?, date_created = ?, date_updated = ?, created_ms = ?,
  updated_ms = ?, resolved_ms = ?, revision = ?, last_seen_ms = ?
  WHERE id = ?`;
/**
 * The same for a version whose indexed columns (sort_key, type, status, updated_ms, resolved_ms)
 * hold: SQLite rewrites the entry of every index whose column an UPDATE sets, equal or not, so
 * leaving them out spares five index entries and the pages they dirty (a title or note edit).
 */
const UPDATE_INCIDENT_UNINDEXED = `UPDATE incidents SET title = ?, url = ?, services_json = ?, date_created = ?, date_updated = ?,
  revision = ?, last_seen_ms = ?
  WHERE id = ?`;

const DELETE_SERVICES = `DELETE FROM incident_services WHERE incident_pk = (SELECT pk FROM incidents WHERE id = ?)`;
const INSERT_SERVICES = `INSERT INTO incident_services (incident_pk, service, sort_key)
  SELECT i.pk, s.value, i.sort_key FROM incidents i, json_each(?) s WHERE i.id = ?`;

const UPSERT_NOTE = `INSERT INTO notes (incident_id, key, date_created, created_ms, seq, body, text, first_seen_ms, changed_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (incident_id, key) DO UPDATE SET body = excluded.body, text = excluded.text,
    date_created = excluded.date_created, changed_ms = excluded.changed_ms
  WHERE notes.body <> excluded.body OR notes.date_created <> excluded.date_created`;

/** The incident's listed JSON, stored once its row and notes are written (param: its id). */
const STORE_LISTED_JSON = storeListedJsonSql('incidents.id = ?');

/**
 * The search row is keyed by sort_key: deleted while the incident row still holds the old one.
 * VALUES with a scalar sub-select, not INSERT ... SELECT: FTS5 flushes its pending terms for the
 * latter, 4 more shadow-table rows per rewritten incident (total_changes, poll-cycle bench).
 */
const DELETE_SEARCH_ROW = `DELETE FROM ${INCIDENTS_FTS} WHERE rowid = (SELECT sort_key FROM incidents WHERE id = ?)`;
const INSERT_SEARCH_ROW = `INSERT INTO ${INCIDENTS_FTS} (rowid, title, notes) VALUES ((SELECT sort_key FROM incidents WHERE id = ?), ?, ?)`;

/**
 * The guard that opens a source's poll write: it fails the whole list when the source is gone
 * or purging, so a poll under way when a purge began writes nothing after it. An upsert that never inserts: for a watched source the name is found and the id
 * conflicts (nothing happens); otherwise the name is NULL and the NOT NULL constraint fails.
 */
const SOURCE_WRITE_GUARD = `INSERT INTO sources (id, kind, name, url, created_ms)
  VALUES (?, 'statuspage', (SELECT name FROM sources WHERE id = ? AND purging_ms IS NULL), '', 0)
  ON CONFLICT (id) DO NOTHING`;
/** What SQLite (and D1, inside its own wording) says when the guard above fails. */
const SOURCE_WRITE_GUARD_FAILURE = 'NOT NULL constraint failed: sources.name';

export function isSourceWriteGuardFailure(error: unknown): boolean {
  return error instanceof Error && error.message.includes(SOURCE_WRITE_GUARD_FAILURE);
}

/** Deterministic ids (events.ts): an event already recorded is left alone. */
const INSERT_EVENT = `INSERT INTO events (id, type, incident_id, revision, occurred_ms, detected_ms, backfill, data_json, poll_run_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`;

/**
 * Outbox rows from a JSON array of [key, subscription id, channel, event ids JSON], in array
 * order. Only for subscriptions still active when the list runs: one deleted or paused after the
 * poller read the list gets nothing (a deleted one would otherwise leave rows no one claims).
 */
const INSERT_DELIVERIES = `INSERT INTO deliveries (key, subscription_id, channel, event_ids_json, state, attempts, next_attempt_ms, created_ms)
  SELECT json_extract(d.value, '$[0]'), json_extract(d.value, '$[1]'), json_extract(d.value, '$[2]'), json_extract(d.value, '$[3]'),
    'pending', 0, ?, ?
  FROM json_each(?) d
  WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE s.id = json_extract(d.value, '$[1]') AND s.status = 'active')
  ORDER BY d.key
  ON CONFLICT (key) DO NOTHING`;

const TOUCH_SEEN = `UPDATE incidents SET last_seen_ms = ? WHERE id IN (SELECT value FROM json_each(?)) AND last_seen_ms < ?`;
/** Moves a generation (a meta key) by one where `condition` holds. */
const bumpSql = (key: string, condition: string) => `INSERT INTO meta (key, value) SELECT '${key}', '1' WHERE ${condition}
  ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`;
/**
 * The archive generation moves when any incident row is written: by this piece's writes (the
 * param), or by the last_seen_at refresh right before it, whose rows changes() counts; the seen
 * list is read once. The main feed's bump follows this one and moves when it moved (changes()
 * is then this upsert's one row, or none).
 */
const BUMP_GENERATION = bumpSql(GENERATION_KEY, '? OR changes() > 0');
/**
 * The same without a refresh: a piece that saw no incident (or a diff that skipped the refresh,
 * last-seen.ts) leaves TOUCH_SEEN out, whose json_each costs as much with no ids as a write.
 */
const BUMP_GENERATION_IF_WRITTEN = bumpSql(GENERATION_KEY, '?');
const BUMP_MAIN_GENERATION = bumpSql(MAIN_GENERATION_KEY, 'changes() > 0');
const MARK_SEEDED = `INSERT INTO meta (key, value) VALUES ('${SEEDED_KEY}', ?) ON CONFLICT (key) DO NOTHING`;
/**
 * The DiffedFeed (ports), with the main feed's generation as this piece leaves it: after the bump
 * above, in the same list, so a kept digest always names the archive state its diff saw. The
 * generation goes in as the object's first member, spliced before the rest of the JSON object
 * (param: its text after the opening brace, from a separating comma): json_set would parse and
 * print every digest again.
 */
const KEEP_DIFFED_FEED = `INSERT INTO meta (key, value)
  VALUES ('${DIFFED_FEED_KEY}', '{"generation":' || coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '${MAIN_GENERATION_KEY}'), 0) || ?)
  ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
const FORGET_DIFFED_FEED = `DELETE FROM meta WHERE key = '${DIFFED_FEED_KEY}'`;
/** The one read, after every write: what the poller remembers to skip the next unchanged poll. */
export const READ_GENERATION = `SELECT value FROM meta WHERE key = '${GENERATION_KEY}'`;
/** The main feed's generation and the kept DiffedFeed, in one read. */
export const READ_LAST_DIFF = `SELECT (SELECT value FROM meta WHERE key = '${MAIN_GENERATION_KEY}') AS generation,
  (SELECT value FROM meta WHERE key = '${DIFFED_FEED_KEY}') AS diffed`;

/** A poll applied in pieces records its run with each piece: the latest piece says it all. */
const UPSERT_POLL_RUN = `INSERT INTO poll_runs (id, started_ms, finished_ms, outcome, sources_json, changes_json, event_count, pending_incidents, error)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (id) DO UPDATE SET finished_ms = excluded.finished_ms, outcome = excluded.outcome, sources_json = excluded.sources_json,
    changes_json = excluded.changes_json, event_count = excluded.event_count, pending_incidents = excluded.pending_incidents, error = excluded.error`;
/** One copy per distinct body: a body seen before only counts, and its text is not written again. */
const INSERT_REJECTED_TEXT = `INSERT INTO rejected_body_texts (hash, body) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING`;
const COUNT_REJECTED_BODY = `INSERT INTO rejected_bodies (hash, bytes, seen_count, first_seen_ms, last_seen_ms) VALUES (?, ?, 1, ?, ?)
  ON CONFLICT (hash) DO UPDATE SET seen_count = seen_count + 1, last_seen_ms = max(last_seen_ms, excluded.last_seen_ms)`;
const INSERT_REJECTION = `INSERT INTO poll_run_rejections (poll_run_id, source, url, error, body_hash, received_ms) VALUES (?, ?, ?, ?, ?, ?)`;
/**
 * Bodies a write that adds refused payloads removes beyond the size cap, least recently seen
 * first. Held at every write, the cap is passed by at most the bodies of one poll (three); a cap
 * lowered in the settings is reached by retention's prune (sqlite-retention.ts), in batches.
 */
const REJECTED_OVERFLOW_PER_WRITE = 100;

const utf8 = new TextEncoder();

/**
 * Every statement of one planned piece, in order; the last one reads the archive generation.
 * `keptMembers` writes the kept DiffedFeed's JSON (a store's codec, which remembers it).
 */
export function applyPollStatements(
  {
    run,
    plan,
    deliveries,
    seenIds,
    seenBefore,
    rejected,
    markSeeded,
    diffedFeed,
    releaseLease,
    recordRun = true,
    endedSpell,
    source,
    components,
  }: ApplyPollInput,
  rejectedMaxBytes: number,
  keptMembers: (feed: Omit<DiffedFeed, 'generation'>) => string = diffedFeedMembers,
): BatchStatement[] {
  const now = run.startedAt;
  const list = recordRun ? pollRunStatements(run, rejected, rejectedMaxBytes, endedSpell) : [];
  if (source !== undefined) list.unshift({ sql: SOURCE_WRITE_GUARD, params: [source, source] });
  for (const write of plan.writes) list.push(...incidentStatements(write, now, run.id));
  for (const event of plan.events) list.push(eventStatement(event, run.id));
  list.push(...deliveryStatements(deliveries, now));
  if (components && source !== undefined) list.push(...componentStatesStatements(source, components, now));
  const wrote = plan.writes.length > 0 ? 1 : 0;
  // In this order, nothing between them: each bump counts the rows of the statement before it.
  if (seenIds.length > 0) {
    list.push({ sql: TOUCH_SEEN, params: [now, JSON.stringify(seenIds), seenBefore] });
    list.push({ sql: BUMP_GENERATION, params: [wrote] });
  } else list.push({ sql: BUMP_GENERATION_IF_WRITTEN, params: [wrote] });
  if (source === undefined) list.push({ sql: BUMP_MAIN_GENERATION, params: [] });
  if (markSeeded) list.push({ sql: MARK_SEEDED, params: [String(now)] });
  if (diffedFeed) list.push({ sql: KEEP_DIFFED_FEED, params: [keptMembers(diffedFeed)] });
  else if (diffedFeed === null) list.push({ sql: FORGET_DIFFED_FEED, params: [] });
  if (releaseLease) list.push(releaseLeaseStatement(releaseLease));
  list.push({ sql: READ_GENERATION, params: [] });
  return list;
}

/**
 * The run, the main feed's blind spell its good read ended (if any: the poller decides it), and
 * the payloads it rejected, within `rejectedMaxBytes` of refused bodies in all (the newest always
 * stays); also what a poll that applied nothing writes.
 */
export function pollRunStatements(run: PollRun, rejected: readonly RejectedPayload[], rejectedMaxBytes: number, endedSpell?: BlindSpell): BatchStatement[] {
  let eventCount = 0;
  for (const n of Object.values(run.changes)) eventCount += n ?? 0;
  const list: BatchStatement[] = [
    ...(endedSpell ? blindSpellStatements(MAIN_FEED_SOURCE, endedSpell) : []),
    {
      sql: UPSERT_POLL_RUN,
      params: [
        run.id,
        run.startedAt,
        run.finishedAt,
        run.outcome,
        JSON.stringify(run.sources),
        JSON.stringify(run.changes),
        eventCount,
        run.pendingIncidents ?? 0,
        run.error ?? null,
      ],
    },
  ];
  // Bytes per distinct body of this run: endpoints down together often answer the same page.
  const bytesByHash = new Map<string, number>();
  for (const payload of rejected) {
    let bytes = bytesByHash.get(payload.sha256);
    if (bytes === undefined) {
      const body = keptPrefix(payload.body, REJECTED_BODY_MAX_CHARS);
      bytes = utf8.encode(body).length;
      bytesByHash.set(payload.sha256, bytes);
      list.push({ sql: INSERT_REJECTED_TEXT, params: [payload.sha256, body] });
    }
    list.push({ sql: COUNT_REJECTED_BODY, params: [payload.sha256, bytes, run.startedAt, run.startedAt] });
    list.push({ sql: INSERT_REJECTION, params: [run.id, payload.source, payload.url, payload.error, payload.sha256, run.startedAt] });
  }
  if (rejected.length > 0) {
    // The prune's own rule, after the inserts so the new bodies count: texts first, then their
    // counters, which the same query still finds.
    list.push({ sql: PRUNE_SQL.oversizeTexts, params: [rejectedMaxBytes, REJECTED_OVERFLOW_PER_WRITE] });
    list.push({ sql: PRUNE_SQL.oversizeBodies, params: [rejectedMaxBytes, REJECTED_OVERFLOW_PER_WRITE] });
  }
  return list;
}

/**
 * One incident's new version. Only what differs from the version the plan saw is rewritten (the
 * guard proves that version is the archived one): a status change rewrites no note, no service
 * and no search row.
 */
function incidentStatements(write: IncidentWrite, now: number, pollRunId: string): BatchStatement[] {
  const { incident, previous } = write;
  const id = incident.id;
  const createdMs = incident.dateCreated.ms;
  const block = Math.floor(createdMs / 1000) * SORT_KEYS_PER_SECOND;
  const nextSortKey: SqlValue[] = [block + SORT_KEYS_PER_SECOND, block, block, block + SORT_KEYS_PER_SECOND];
  const servicesJson = JSON.stringify(incident.services);
  const fields: SqlValue[] = [
    incident.title,
    incident.type,
    incident.status,
    incident.url,
    servicesJson,
    incident.dateCreated.raw,
    incident.dateUpdated.raw,
    createdMs,
    incident.dateUpdated.ms,
    write.resolvedAt,
    write.revision,
  ];

  // Each note's text is found once, for its row and for the search row alike: a note the archive
  // holds with the same body keeps the text stored with it.
  const previousNotes = new Map<string, NoteWithText>(previous?.notes.map((n) => [n.key, n]));
  const texts = new Map<string, string>();
  const textOf = (note: Note) => texts.get(note.key) ?? texts.set(note.key, noteSearchText(note, previousNotes.get(note.key))).get(note.key)!;
  const changedNotes = incident.notes.filter((note) => {
    const before = previousNotes.get(note.key);
    return !before || before.body !== note.body || before.dateCreated.raw !== note.dateCreated.raw;
  });
  const sortKeyMoves = !previous || previous.dateCreated.ms !== createdMs;
  const rewriteServices = sortKeyMoves || !sameServices(previous.services, incident.services);
  const rewriteSearch = sortKeyMoves || previous.title !== incident.title || changedNotes.length > 0;

  const list: BatchStatement[] = [
    { sql: INSERT_VERSION_GUARDED, params: [id, write.revision, id, write.baseRevision, JSON.stringify(toVendorIncident(incident)), now, pollRunId] },
  ];
  if (previous) {
    if (rewriteSearch) list.push({ sql: DELETE_SEARCH_ROW, params: [id] });
    if (rewriteServices) list.push({ sql: DELETE_SERVICES, params: [id] });
    const indexedHold =
      !sortKeyMoves &&
      previous.type === incident.type &&
      previous.status === incident.status &&
      previous.dateUpdated.ms === incident.dateUpdated.ms &&
      previous.resolvedAt === write.resolvedAt;
    if (indexedHold) {
      const unindexed = [incident.title, incident.url, servicesJson, incident.dateCreated.raw, incident.dateUpdated.raw, write.revision, now, id];
      list.push({ sql: UPDATE_INCIDENT_UNINDEXED, params: unindexed });
    } else {
      list.push({ sql: UPDATE_INCIDENT, params: [createdMs, ...nextSortKey, ...fields, now, id] });
    }
  } else {
    list.push({ sql: INSERT_INCIDENT, params: [id, ...nextSortKey, ...fields, now, now] });
  }
  if (rewriteServices) list.push({ sql: INSERT_SERVICES, params: [servicesJson, id] });
  for (const note of changedNotes) {
    list.push({ sql: UPSERT_NOTE, params: [id, note.key, note.dateCreated.raw, note.dateCreated.ms, noteSeq(note), note.body, textOf(note), now, now] });
  }
  if (rewriteSearch) list.push({ sql: INSERT_SEARCH_ROW, params: [id, incident.title, incident.notes.map(textOf).join('\n\n')] });
  list.push({ sql: STORE_LISTED_JSON, params: [id] });
  return list;
}

function eventStatement(event: StatusEvent, pollRunId: string): BatchStatement {
  return {
    sql: INSERT_EVENT,
    params: [
      event.id,
      event.type,
      event.incidentId,
      event.revision,
      event.occurredAt,
      event.detectedAt,
      event.backfill ? 1 : 0,
      JSON.stringify(event.data),
      pollRunId,
    ],
  };
}

function deliveryStatements(deliveries: readonly PlannedDelivery[], now: number): BatchStatement[] {
  const list: BatchStatement[] = [];
  for (let start = 0; start < deliveries.length; start += DELIVERIES_PER_STATEMENT) {
    const rows = deliveries.slice(start, start + DELIVERIES_PER_STATEMENT).map((d) => [d.key, d.subscriptionId, d.channel, JSON.stringify(d.eventIds)]);
    list.push({ sql: INSERT_DELIVERIES, params: [now, now, JSON.stringify(rows)] });
  }
  return list;
}

/** The first `maxChars` UTF-16 units, never cutting a surrogate pair in half. */
function keptPrefix(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const code = text.charCodeAt(maxChars - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? maxChars - 1 : maxChars);
}
