/** Fills a benchmark archive: through the real store (exact, ~2 ms per incident), or directly in SQL (fast). */
import { planPoll, resolvedAt } from '../../src/core/diff.ts';
import { htmlToText } from '../../src/core/html-text.ts';
import { noteSeq, type Incident } from '../../src/core/incident.ts';
import type { PollRun, Store } from '../../src/core/ports.ts';
import { toVendorIncident } from '../../src/core/vendor-format.ts';
import { storeListedJsonSql } from '../../src/adapters/sqlite-incident-json.ts';
import { SORT_KEYS_PER_SECOND } from '../../src/adapters/store-schema.ts';
import type { SqliteArchive } from '../../src/entry/open-sqlite.ts';

/** The poll run the seeded versions point at, so a row from either seed path carries the same run id. */
export const SEED_RUN_ID = 'bench-seed';

/** As a first poll would write them (backfill), `chunkSize` incidents per applyPoll transaction. */
export async function seedThroughStore(store: Store, incidents: readonly Incident[], nowMs: number, chunkSize: number): Promise<void> {
  for (let start = 0; start < incidents.length; start += chunkSize) {
    const chunk = incidents.slice(start, start + chunkSize);
    const ids = chunk.map((i) => i.id);
    const archived = await store.loadIncidents(ids);
    const plan = planPoll({ observed: chunk, archived, now: nowMs, backfill: true });
    const last = start + chunkSize >= incidents.length;
    // poll_runs.id is unique; every chunk after the first gets a suffix.
    const run = seedRun(start === 0 ? SEED_RUN_ID : `${SEED_RUN_ID}-${start}`, nowMs, plan.events.length);
    await store.applyPoll({ deliveries: [], run, plan, seenIds: ids, seenBefore: Number.MAX_SAFE_INTEGER, rejected: [], markSeeded: last });
  }
}

/**
 * Writes new incidents straight into the archive's tables in one transaction: what writeIncident in
 * src/adapters/sqlite-store.ts writes for a first-seen incident (revision 1, first and last seen
 * `nowMs`, the sort key of nextSortKey, the full-text row keyed by that sort key with the notes as
 * plain text), minus the events
 * and the Drizzle overhead. The query benchmark checks the result against the store.
 */
export function seedDirect(sqlite: SqliteArchive['sqlite'], incidents: readonly Incident[], nowMs: number): void {
  const insertIncident = sqlite.prepare(
    `INSERT INTO incidents (id, sort_key, title, type, status, url, services_json, date_created, date_updated,
       created_ms, updated_ms, resolved_ms, first_seen_ms, last_seen_ms, revision)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
  );
  const insertService = sqlite.prepare('INSERT INTO incident_services (incident_pk, service, sort_key) VALUES (?, ?, ?)');
  const insertNote = sqlite.prepare(
    `INSERT INTO notes (incident_id, key, date_created, created_ms, seq, body, text, first_seen_ms, changed_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertVersion = sqlite.prepare('INSERT INTO incident_versions (incident_id, revision, snapshot_json, recorded_ms, poll_run_id) VALUES (?, 1, ?, ?, ?)');
  const insertFts = sqlite.prepare('INSERT INTO incidents_fts (rowid, title, notes) VALUES (?, ?, ?)');
  const insertRun = sqlite.prepare(
    `INSERT INTO poll_runs (id, started_ms, finished_ms, outcome, sources_json, changes_json, event_count, error)
     VALUES (?, ?, ?, 'ok', '[]', '{}', 0, NULL)`,
  );
  const markSeeded = sqlite.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('seeded_at', ?)");

  // As nextSortKey in the store: seconds times a million, plus a counter within the second.
  const usedPerSecond = new Map<number, number>();
  sqlite.transaction(() => {
    insertRun.run(SEED_RUN_ID, nowMs, nowMs);
    for (const incident of incidents) {
      const second = Math.floor(incident.dateCreated.ms / 1000);
      const counter = usedPerSecond.get(second) ?? 0;
      usedPerSecond.set(second, counter + 1);
      const sortKey = second * SORT_KEYS_PER_SECOND + counter;
      const pk = Number(
        insertIncident.run(
          incident.id,
          sortKey,
          incident.title,
          incident.type,
          incident.status,
          incident.url,
          JSON.stringify(incident.services),
          incident.dateCreated.raw,
          incident.dateUpdated.raw,
          incident.dateCreated.ms,
          incident.dateUpdated.ms,
          resolvedAt(undefined, incident),
          nowMs,
          nowMs,
        ).lastInsertRowid,
      );
      for (const service of incident.services) insertService.run(pk, service, sortKey);
      const texts = incident.notes.map((n) => htmlToText(n.body));
      incident.notes.forEach((note, i) => {
        insertNote.run(incident.id, note.key, note.dateCreated.raw, note.dateCreated.ms, noteSeq(note), note.body, texts[i], nowMs, nowMs);
      });
      insertVersion.run(incident.id, JSON.stringify(toVendorIncident(incident)), nowMs, SEED_RUN_ID);
      insertFts.run(sortKey, incident.title, texts.join('\n\n'));
    }
    // Each incident's listed JSON, by the statement the store writes it with, once for them all.
    sqlite.exec(storeListedJsonSql('true'));
    markSeeded.run(String(nowMs));
  })();
}

/** Tables both seed paths write, with their rows in a stable order, to compare one with the other. */
const COMPARED_TABLES = [
  'SELECT * FROM incidents ORDER BY pk',
  'SELECT * FROM incident_services ORDER BY incident_pk, service',
  'SELECT * FROM incident_listed_json ORDER BY incident_pk',
  'SELECT * FROM notes ORDER BY incident_id, key',
  'SELECT * FROM incident_versions ORDER BY incident_id, revision',
  'SELECT rowid, title, notes FROM incidents_fts ORDER BY rowid',
];

/** The first query whose rows differ between two archives, or null when all agree. */
export function firstDifference(a: SqliteArchive['sqlite'], b: SqliteArchive['sqlite']): string | null {
  for (const query of COMPARED_TABLES) {
    if (JSON.stringify(a.prepare(query).all()) !== JSON.stringify(b.prepare(query).all())) return query;
  }
  return null;
}

function seedRun(id: string, nowMs: number, eventCount: number): PollRun {
  return { id, startedAt: nowMs, finishedAt: nowMs, outcome: 'ok', sources: [], changes: { 'incident.created': eventCount } };
}
