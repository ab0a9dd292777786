/**
 * Incidents read back from SQLite as the ports' types: whole (with notes) or as lists show them
 * (the latest note and a count, in the same row). Shared by the archive's read and write adapters.
 */
import type { Note } from '../core/incident.ts';
import type { ListedIncident, ListedNote, PollRun, SourceReport, StoredIncident } from '../core/ports.ts';
import { sql } from 'drizzle-orm';
import type { PollStatements } from './sqlite-statements.ts';
import * as t from './store-schema.ts';

export type IncidentRows = {
  loadByIds(ids: readonly string[]): Promise<StoredIncident[]>;
  withNotes(rows: (typeof t.incidents.$inferSelect)[]): Promise<StoredIncident[]>;
};

export function createIncidentRows(st: PollStatements): IncidentRows {
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

  return { loadByIds, withNotes };
}

/** How many notes the incident has, in a list's statement. */
export const NOTE_COUNT = sql<number>`(SELECT count(*) FROM ${t.notes} c WHERE c.incident_id = ${t.incidents.id})`;

/**
 * What a list reads of each incident, in one statement: its columns, how many notes it has, and
 * its newest note, joined by one seek in notes_latest. Read as arrays (`connection.rows`), in this
 * order (listedIncident below): a page of 1,000 read as objects, then its notes by a second
 * statement, spent a third of the page's time building and collecting the rows' objects.
 */
export const LISTED_SELECTION = {
  sortKey: t.incidents.sortKey,
  id: t.incidents.id,
  title: t.incidents.title,
  type: t.incidents.type,
  status: t.incidents.status,
  url: t.incidents.url,
  servicesJson: t.incidents.servicesJson,
  dateCreated: t.incidents.dateCreated,
  createdMs: t.incidents.createdMs,
  dateUpdated: t.incidents.dateUpdated,
  updatedMs: t.incidents.updatedMs,
  revision: t.incidents.revision,
  resolvedMs: t.incidents.resolvedMs,
  firstSeenMs: t.incidents.firstSeenMs,
  lastSeenMs: t.incidents.lastSeenMs,
  noteCount: NOTE_COUNT,
  noteKey: t.notes.key,
  noteDateCreated: t.notes.dateCreated,
  noteCreatedMs: t.notes.createdMs,
  noteBody: t.notes.body,
  noteText: t.notes.text,
};

/** The rowid of the incident's newest note (by the vendor's date, then the key's counter); null for none. */
export const LATEST_NOTE_ROWID = sql`(SELECT m.rowid FROM ${t.notes} m WHERE m.incident_id = ${t.incidents.id} ORDER BY m.created_ms DESC, m.seq DESC LIMIT 1)`;

/** The join of an incident to its newest note (LISTED_SELECTION's note columns); none for an incident without notes. */
export const LATEST_NOTE_JOIN = sql`${t.notes}.rowid = ${LATEST_NOTE_ROWID}`;

/** A row of LISTED_SELECTION, as an array. */
export type ListedRow = [
  sortKey: number,
  id: string,
  title: string,
  type: string,
  status: string,
  url: string,
  servicesJson: string,
  dateCreated: string,
  createdMs: number,
  dateUpdated: string,
  updatedMs: number,
  revision: number,
  resolvedMs: number | null,
  firstSeenMs: number,
  lastSeenMs: number,
  noteCount: number,
  noteKey: string | null,
  noteDateCreated: string | null,
  noteCreatedMs: number | null,
  noteBody: string | null,
  noteText: string | null,
];

/** One incident of a list from its row: one object literal, every object of one shape. */
export function listedIncident(row: ListedRow): ListedIncident {
  const noteKey = row[16];
  return {
    id: row[1],
    title: row[2],
    type: row[3],
    status: row[4],
    url: row[5],
    services: JSON.parse(row[6]) as string[],
    dateCreated: { raw: row[7], ms: row[8] },
    dateUpdated: { raw: row[9], ms: row[10] },
    revision: row[11],
    resolvedAt: row[12],
    firstSeenAt: row[13],
    lastSeenAt: row[14],
    sortKey: row[0],
    noteCount: row[15],
    latestNote:
      noteKey === null
        ? null
        : { key: noteKey, dateCreated: { raw: row[17] as string, ms: row[18] as number }, body: row[19] as string, text: row[20] as string },
  };
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
