/**
 * How events and poll runs look in statuswatch's own JSON API. Incidents and their notes are built
 * as JSON text by the store's SQL (src/adapters/sqlite-incident-json.ts), listed and alone.
 */
import { eventIncidentId, type StatusEvent } from '../core/events.ts';
import { toIsoUtc } from '../core/vendor-time.ts';
import type { PollRun, SourceReport } from '../core/ports.ts';
import type { PollResult } from '../app/poller.ts';
import type { SourcePollResult } from '../app/source-poller.ts';
import { sourceOfIncidentId } from '../core/statuspage/mapping.ts';

/** An instant in the API: ISO 8601 in UTC with milliseconds, or null. */
export const iso = (ms: number | null) => (ms === null ? null : toIsoUtc(ms));

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
