/**
 * What the MCP tools answer: structured content an agent can read field by field, and a short text
 * of the same facts for a model to quote. Vendor text goes out as plain text only (titles on one
 * line, notes without their HTML), and every link points at the dashboard under PUBLIC_URL.
 */
import { readsFailingWords } from '../../core/knowledge.ts';
import { plural } from '../../core/plural.ts';
import { eventIncidentId, type EventData, type StatusEvent } from '../../core/events.ts';
import { htmlToText } from '../../core/html-text.ts';
import type { Note } from '../../core/incident.ts';
import { incidentPageUrl, oneLine, truncate, vendorUrl } from '../../core/notification-message.ts';
import type { IncidentCount, ListedIncident, StoredIncident } from '../../core/ports.ts';
import { percentFloor, percentText, type Reliability } from '../../core/reliability.ts';
import { sourceOfIncidentId } from '../../core/statuspage/mapping.ts';
import type { WidgetJson } from '../../core/widget-state.ts';
import { iso } from '../api-json.ts';

/** A title longer than this is cut in the text rendering (the structured content keeps it whole, as plain text). */
const TEXT_TITLE_MAX_CHARS = 160;
/** Incidents or events the text rendering lists; the structured content has them all. */
const TEXT_LINES_MAX = 20;

export type ToolAnswer = { content: { type: 'text'; text: string }[]; structuredContent: Record<string, unknown>; isError?: boolean };

export function answer(text: string, structured: Record<string, unknown>): ToolAnswer {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** A refusal the agent can act on: the API's error code and detail, never a stack. */
export function refusal(code: string, detail: string | undefined): ToolAnswer {
  return { isError: true, content: [{ type: 'text', text: detail ? `${code}: ${detail}` : code }], structuredContent: { ok: false, error: code, detail } };
}

const title = (text: string) => truncate(oneLine(text), TEXT_TITLE_MAX_CHARS);

function noteJson(note: Note & { text?: string }) {
  return { created_at: iso(note.dateCreated.ms), text: note.text ?? htmlToText(note.body) };
}

/**
 * An incident as the tools give it: the fields below in this order, then its notes' part
 * (`note_count` and `latest_note` in a list, `notes` on its own). One object literal, not
 * `{ ...fields, ... }`: objects built by spreading serialise several times slower (as the API's
 * incidents did, api-json.ts). test/mcp/mcp-tools.test.ts holds the order.
 */
function incidentJson<T extends Record<string, unknown>>(incident: Omit<StoredIncident, 'notes'>, baseUrl: string, notesPart: T) {
  const fields = {
    id: incident.id,
    // As the API's incidents carry it: "main" for the vendor's feed, else the watched page's id.
    source: sourceOfIncidentId(incident.id),
    title: oneLine(incident.title),
    type: incident.type,
    status: incident.status,
    services: incident.services,
    created_at: iso(incident.dateCreated.ms),
    updated_at: iso(incident.dateUpdated.ms),
    resolved_at: iso(incident.resolvedAt),
    duration_seconds: incident.resolvedAt === null ? null : Math.round((incident.resolvedAt - incident.dateCreated.ms) / 1000),
    dashboard_url: incidentPageUrl(baseUrl, incident.id),
    vendor_url: vendorUrl(incident.url),
  };
  // Added to the literal's shape, as its last properties: no copy.
  return Object.assign(fields, notesPart);
}

function incidentLine(incident: Omit<StoredIncident, 'notes'>, baseUrl: string): string {
  const when = iso(incident.dateCreated.ms)?.slice(0, 16).replace('T', ' ');
  const lasted = incident.resolvedAt === null ? 'ongoing' : `lasted ${durationWords(incident.resolvedAt - incident.dateCreated.ms)}`;
  const services = incident.services.length > 0 ? incident.services.join(', ') : 'no service named';
  return `- ${when} UTC, ${incident.type} (${incident.status}, ${lasted}) in ${services}: ${title(incident.title)} ${incidentPageUrl(baseUrl, incident.id)}`;
}

export function durationWords(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

export function currentStatusAnswer(widget: WidgetJson): ToolAnswer {
  // A watched page's answer names it first: "the vendor's feed" below is that page's.
  const lines: string[] = widget.source ? [`Status page: ${oneLine(widget.source.name)} (${widget.source.id})`] : [];
  if (widget.stale) {
    lines.push(
      widget.unknown_since
        ? `Unknown: the vendor's feed has not been read since ${widget.unknown_since}. What it said then: ${widget.last_known_state}.`
        : "Unknown: the vendor's feed has never been read yet.",
    );
  } else {
    lines.push(widget.state === 'ok' ? 'All clear: no incident is going on.' : `State: ${widget.state}.`);
    if (widget.reads_failing && widget.last_read_at) lines.push(readsFailingWords(widget.last_read_at));
  }
  for (const service of widget.services) lines.push(`- ${service.name}: ${service.state}`);
  for (const incident of widget.incidents.slice(0, TEXT_LINES_MAX)) {
    lines.push(`- ${incident.state}: ${title(incident.title)} (${incident.status}; ${incident.services.join(', ') || 'no service named'}) ${incident.url}`);
  }
  lines.push(`Dashboard: ${widget.url}`);
  return answer(lines.join('\n'), { ok: true, ...widget });
}

export function incidentPageAnswer(incidents: ListedIncident[], nextCursor: string, total: IncidentCount, baseUrl: string, searchUrl: string): ToolAnswer {
  const structured = {
    ok: true,
    // As /api/incidents counts them: exact up to INCIDENT_TOTAL_MAX, "at least" beyond.
    total: total.count,
    total_exact: total.exact,
    incidents: incidents.map((incident) =>
      incidentJson(incident, baseUrl, {
        note_count: incident.noteCount,
        latest_note: incident.latestNote ? noteJson(incident.latestNote) : null,
      }),
    ),
    next_cursor: nextCursor,
    dashboard_url: searchUrl,
  };
  const matching = `${total.exact ? '' : 'at least '}${total.count} incident${total.count === 1 ? '' : 's'} match`;
  const lines = incidents.length === 0 ? ['No incident in the archive matches.'] : [`${matching}; ${incidents.length} on this page, newest first:`];
  lines.push(...incidents.slice(0, TEXT_LINES_MAX).map((incident) => incidentLine(incident, baseUrl)));
  if (incidents.length > TEXT_LINES_MAX) lines.push(`... and ${incidents.length - TEXT_LINES_MAX} more in the structured content.`);
  if (nextCursor) lines.push('More match: call again with the same arguments and cursor = next_cursor.');
  lines.push(`On the dashboard: ${searchUrl}`);
  return answer(lines.join('\n'), structured);
}

export function incidentAnswer(incident: StoredIncident, history: StatusEvent[], baseUrl: string): ToolAnswer {
  const structured = {
    ok: true,
    incident: incidentJson(incident, baseUrl, { notes: incident.notes.map(noteJson) }),
    changes: history.map(eventJson),
  };
  const lines = [incidentLine(incident, baseUrl), `${incident.notes.length} note${incident.notes.length === 1 ? '' : 's'}, oldest first:`];
  for (const note of incident.notes.slice(-TEXT_LINES_MAX)) {
    lines.push(`- ${iso(note.dateCreated.ms)}: ${truncate(oneLine(htmlToText(note.body)), 400)}`);
  }
  lines.push(`${history.length} recorded change${history.length === 1 ? '' : 's'} (see changes).`);
  return answer(lines.join('\n'), structured);
}

export function eventJson(event: StatusEvent) {
  return {
    id: event.id,
    type: event.type,
    incident_id: eventIncidentId(event),
    revision: event.revision,
    occurred_at: iso(event.occurredAt),
    detected_at: iso(event.detectedAt),
    data: plainEventData(event.data),
  };
}

/** An event's data with the vendor's text made plain: note bodies without HTML, titles on one line. */
function plainEventData(data: EventData): Record<string, unknown> {
  const plain: Record<string, unknown> = { ...data };
  // The vendor's link only when it is http(s), as everywhere it is shown.
  if ('incident' in data) plain.incident = { ...data.incident, title: oneLine(data.incident.title), url: vendorUrl(data.incident.url) };
  if ('note' in data && data.note) plain.note = { key: data.note.key, date_created: data.note.date_created, text: htmlToText(data.note.body) };
  if (data.type === 'incident.note_edited') {
    plain.from = htmlToText(data.from);
    plain.to = htmlToText(data.to);
  }
  if (data.type === 'incident.updated') {
    const { title, url } = data.changes;
    plain.changes = {
      ...data.changes,
      ...(title ? { title: { from: oneLine(title.from), to: oneLine(title.to) } } : {}),
      ...(url ? { url: { from: vendorUrl(url.from), to: vendorUrl(url.to) } } : {}),
    };
  }
  return plain;
}

export type FeedKnowledge = { stale: boolean; last_read_at: string | null };

export function recentChangesAnswer(events: StatusEvent[], since: number, nextCursor: string, feed: FeedKnowledge, baseUrl: string): ToolAnswer {
  const structured = { ok: true, since: iso(since), events: events.map(eventJson), next_cursor: nextCursor, feed };
  const lines = [
    events.length === 0
      ? `No change recorded since ${iso(since)}.`
      : `${events.length} change${events.length === 1 ? '' : 's'} since ${iso(since)}, oldest first:`,
  ];
  for (const event of events.slice(0, TEXT_LINES_MAX)) {
    const incidentId = eventIncidentId(event);
    const link = incidentId ? ` ${incidentPageUrl(baseUrl, incidentId)}` : '';
    const about =
      event.data.type === 'component.status_changed'
        ? ` of ${oneLine(event.data.source.name)}: ${oneLine(event.data.component.name)} ${event.data.from_state} -> ${event.data.to_state}`
        : incidentId
          ? ` of incident ${incidentId}`
          : '';
    lines.push(`- ${iso(event.detectedAt)}: ${event.type}${about}${link}`);
  }
  if (nextCursor) lines.push('More follow: call again with cursor = next_cursor.');
  if (feed.stale) {
    lines.push(
      feed.last_read_at
        ? `Unknown after ${feed.last_read_at}: the vendor's feed has not been read since, so later changes may be missing.`
        : "Unknown: the vendor's feed has never been read.",
    );
  }
  return answer(lines.join('\n'), structured);
}

/** The track record's answer: the vendor's (`page` null) or a watched page's, named in the text and linked to its own chart. */
export function reliabilityAnswer(
  figures: Reliability,
  services: string[],
  windowDays: number,
  baseUrl: string,
  page: { id: string; name: string } | null,
): ToolAnswer {
  const chosen = figures.services.filter((s) => services.length === 0 || services.includes(s.service));
  const rows = chosen.map((s) => {
    const w = s.windows.find((x) => x.days === windowDays)!;
    return {
      service: s.service,
      window_days: w.days,
      start_at: iso(w.startMs),
      end_at: iso(w.endMs),
      availability: w.availability,
      // Rounded down: a service that was down at all never reads 100%.
      availability_percent: w.availability === null ? null : percentFloor(w.availability),
      observed_ms: w.observedMs,
      downtime_ms: Math.round(w.downtimeMs),
      outage_ms: w.outageMs,
      partial_ms: w.partialMs,
      incidents: w.incidents,
    };
  });
  const months = figures.months.map((m) => ({
    month: m.month,
    // 0: the archive saw none of the month; its zeros are no data, not a record.
    observed_ms: m.observedMs,
    incidents: m.incidents,
    time_to_resolve: { count: m.timeToResolve.count, median_ms: m.timeToResolve.medianMs, p90_ms: m.timeToResolve.p90Ms },
    time_to_first_update: { count: m.timeToFirstUpdate.count, median_ms: m.timeToFirstUpdate.medianMs, p90_ms: m.timeToFirstUpdate.p90Ms },
  }));
  const dashboardUrl = page ? `${baseUrl}/reliability?source=${encodeURIComponent(page.id)}` : `${baseUrl}/reliability`;
  const structured = {
    ok: true,
    generated_at: iso(figures.nowMs),
    ...(page ? { source: page } : {}),
    window_days: windowDays,
    services: rows,
    months,
    dashboard_url: dashboardUrl,
  };
  const lines = [`Availability${page ? ` of ${page.name}` : ''} over the last ${windowDays} days (no data counts neither way):`];
  // A name from the vendor's old history (Calls, Posts/Files) may have no row in the window.
  if (rows.length === 0) lines.push(`- ${services.join(', ')}: no figures; no incident named it in the last ${windowDays} days or it is no longer listed.`);
  for (const row of rows) {
    if (row.availability === null) {
      lines.push(`- ${row.service}: no data`);
      continue;
    }
    lines.push(`- ${row.service}: ${percentText(row.availability)}, ${plural(row.incidents, 'incident')}, down ${durationWords(row.downtime_ms)}`);
  }
  lines.push(`Charts and monthly figures: ${dashboardUrl}`);
  return answer(lines.join('\n'), structured);
}
