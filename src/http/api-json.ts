/** How incidents, notes and events look in statuswatch's own JSON API. */
import { eventIncidentId, type IncidentSummary, type StatusEvent } from '../core/events.ts';
import { htmlToText } from '../core/html-text.ts';
import { toIsoUtc } from '../core/vendor-time.ts';
import type { Note } from '../core/incident.ts';
import type { PollRun, SourceReport, StoredIncident } from '../core/ports.ts';
import type { PollResult } from '../app/poller.ts';
import type { SourcePollResult } from '../app/source-poller.ts';
import { sourceOfIncidentId } from '../core/statuspage/mapping.ts';

/** An instant in the API: ISO 8601 in UTC with milliseconds, or null. */
export const iso = (ms: number | null) => (ms === null ? null : toIsoUtc(ms));

/** `text` is the body without HTML: stored with listed notes, derived here for the others. */
export function toApiNote(note: Note & { text?: string }) {
  return {
    key: note.key,
    date_created: note.dateCreated.raw,
    created_at: iso(note.dateCreated.ms),
    /** As the vendor sent it: may be HTML. Escape or sanitise before putting it in a page. */
    body: note.body,
    text: note.text ?? htmlToText(note.body),
  };
}

/**
 * An incident's fields in the API, with its notes' part last: the event summary's fields
 * (`summarize`) first, in its order, then statuswatch's own. One object literal, not
 * `{ ...summarize(incident), ... }`: objects built by spreading serialised 5-8x slower. Lists build
 * the same fields in SQL (src/adapters/sqlite-listed-json.ts), with `note_count` and `latest_note`;
 * test/http/listed-incident-json.test.ts holds the two equal, test/http/api.test.ts the order.
 */
function incidentFields<K extends string, V>(incident: Omit<StoredIncident, 'notes'>, noteCount: number, notesKey: K, notes: V) {
  const fields = {
    id: incident.id,
    title: incident.title,
    type: incident.type,
    status: incident.status,
    url: incident.url,
    services: incident.services,
    date_created: incident.dateCreated.raw,
    date_updated: incident.dateUpdated.raw,
    source: sourceOfIncidentId(incident.id),
    created_at: iso(incident.dateCreated.ms),
    updated_at: iso(incident.dateUpdated.ms),
    resolved_at: iso(incident.resolvedAt),
    duration_seconds: incident.resolvedAt === null ? null : Math.round((incident.resolvedAt - incident.dateCreated.ms) / 1000),
    first_seen_at: iso(incident.firstSeenAt),
    last_seen_at: iso(incident.lastSeenAt),
    revision: incident.revision,
    note_count: noteCount,
  } satisfies IncidentSummary & Record<string, unknown>;
  // Added to the literal's shape, as its last property: no copy.
  return Object.assign(fields, { [notesKey]: notes } as Record<K, V>);
}

/** On its own: every note, oldest first. */
export function toApiIncident(incident: StoredIncident) {
  return incidentFields(incident, incident.notes.length, 'notes', incident.notes.map(toApiNote));
}

export function toApiEvent(event: StatusEvent) {
  return {
    id: event.id,
    type: event.type,
    // A monitor event (monitor.blind, monitor.recovered) is about the feed, a component event
    // (component.status_changed) about a page's component: neither is about an incident.
    incident_id: eventIncidentId(event),
    // The main feed's for a monitor event, whose incident id is empty.
    source: sourceOfIncidentId(event.incidentId),
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
    sources: run.sources.map(toApiSourceReport),
    changes: run.changes,
    ...(run.error ? { error: run.error } : {}),
  };
}

/** One feed read of a poll, in the API's snake_case; fields the read did not reach stay absent. */
export function toApiSourceReport(report: SourceReport) {
  return {
    source: report.source,
    path: report.path,
    ...(report.url !== undefined ? { url: report.url } : {}),
    ...(report.httpStatus !== undefined ? { http_status: report.httpStatus } : {}),
    ...(report.bytes !== undefined ? { bytes: report.bytes } : {}),
    duration_ms: report.durationMs,
    ...(report.notModified !== undefined ? { not_modified: report.notModified } : {}),
    ...(report.incidents !== undefined ? { incidents: report.incidents } : {}),
    ...(report.skipped !== undefined ? { skipped: report.skipped } : {}),
    ...(report.error !== undefined ? { error: report.error } : {}),
  };
}

/**
 * A poll that ran, as `POST /api/admin/poll` answers and `statuswatch poll --json` prints it: one
 * shape for scripts either way. `ok` says the poll ran; `outcome` says whether the feed was read.
 */
export function toApiPollResult(result: Exclude<PollResult, { status: 'skipped' }>) {
  return { ok: true, outcome: result.status, unchanged: result.unchanged, run: toApiPollRun(result.run), events: result.events.map(toApiEvent) };
}

/** One source's poll, as the admin's poll answer lists it beside the main feed's. */
export function toApiSourcePollResult(result: SourcePollResult) {
  if (result.status === 'skipped') return { source: result.sourceId, outcome: 'skipped' as const, reason: result.reason };
  return {
    source: result.sourceId,
    outcome: result.status,
    unchanged: result.unchanged,
    events: result.events.map(toApiEvent),
    component_changes: result.componentChanges.map((c) => ({ id: c.id, name: c.name, from: c.from, to: c.to })),
    pending_incidents: result.pendingIncidents,
    reads: result.reads.map((r) => ({
      path: r.path,
      duration_ms: r.durationMs,
      ...(r.notModified !== undefined ? { not_modified: r.notModified } : {}),
      ...(r.bytes !== undefined ? { bytes: r.bytes } : {}),
      ...(r.error !== undefined ? { error: r.error } : {}),
    })),
    ...(result.error !== undefined ? { error: result.error } : {}),
  };
}
