/** How incidents, notes and events look in statuswatch's own JSON API. */
import type { StatusEvent } from '../core/events.ts';
import { htmlToText } from '../core/html-text.ts';
import type { Note } from '../core/incident.ts';
import type { PollRun, StoredIncident } from '../core/ports.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toApiNote(note: Note) {
  return {
    key: note.key,
    date_created: note.dateCreated.raw,
    created_at: iso(note.dateCreated.ms),
    /** As the vendor sent it: may be HTML. Escape or sanitise before putting it in a page. */
    body: note.body,
    text: htmlToText(note.body),
  };
}

export function toApiIncident(incident: StoredIncident, detail: 'summary' | 'full') {
  const latest = incident.notes.at(-1);
  return {
    id: incident.id,
    title: incident.title,
    type: incident.type,
    status: incident.status,
    url: incident.url,
    services: incident.services,
    date_created: incident.dateCreated.raw,
    date_updated: incident.dateUpdated.raw,
    created_at: iso(incident.dateCreated.ms),
    updated_at: iso(incident.dateUpdated.ms),
    resolved_at: iso(incident.resolvedAt),
    duration_seconds: incident.resolvedAt === null ? null : Math.round((incident.resolvedAt - incident.dateCreated.ms) / 1000),
    first_seen_at: iso(incident.firstSeenAt),
    last_seen_at: iso(incident.lastSeenAt),
    revision: incident.revision,
    note_count: incident.notes.length,
    ...(detail === 'full'
      ? { notes: incident.notes.map(toApiNote) }
      : { latest_note: latest ? toApiNote(latest) : null }),
  };
}

export function toApiEvent(event: StatusEvent) {
  return {
    id: event.id,
    type: event.type,
    incident_id: event.incidentId,
    revision: event.revision,
    occurred_at: iso(event.occurredAt),
    detected_at: iso(event.detectedAt),
    backfill: event.backfill,
    data: event.data,
  };
}

export function toApiPollRun(run: PollRun) {
  return {
    id: run.id,
    started_at: iso(run.startedAt),
    finished_at: iso(run.finishedAt),
    duration_ms: run.finishedAt - run.startedAt,
    outcome: run.outcome,
    sources: run.sources,
    changes: run.changes,
    ...(run.error ? { error: run.error } : {}),
  };
}
