/**
 * Incidents read back from SQLite as the ports' types: whole (with notes) or as lists show them
 * (the latest note and a count). Shared by the archive's read and write adapters.
 */
import type { Note } from '../core/incident.ts';
import type { ListedIncident, ListedNote, PollRun, SourceReport, StoredIncident } from '../core/ports.ts';
import type { SqliteConnection } from './sqlite-connection.ts';
import { LATEST_NOTES_SQL, type LatestNoteRow, type PollStatements } from './sqlite-statements.ts';
import type * as t from './store-schema.ts';

export type IncidentRows = {
  loadByIds(ids: readonly string[]): Promise<StoredIncident[]>;
  withNotes(rows: (typeof t.incidents.$inferSelect)[]): Promise<StoredIncident[]>;
  toListed(rows: (typeof t.incidents.$inferSelect)[]): Promise<ListedIncident[]>;
};

export function createIncidentRows(connection: SqliteConnection, st: PollStatements): IncidentRows {
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
      // Added to the columns' object rather than spread into a new one: a page of 1,000 makes
      // 1,000 of them, and copying each was a tenth of the page's time.
      return Object.assign(incidentColumns(row), {
        sortKey: row.sortKey,
        noteCount: note?.note_count ?? 0,
        latestNote: note ? { key: note.key, dateCreated: { raw: note.date_created, ms: note.created_ms }, body: note.body, text: note.text } : null,
      });
    });
  }

  return { loadByIds, withNotes, toListed };
}

/** The columns every reader wants, as the port names them. */
export function incidentColumns(row: typeof t.incidents.$inferSelect): Omit<StoredIncident, 'notes'> {
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

export function toPollRun(row: typeof t.pollRuns.$inferSelect): PollRun {
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
