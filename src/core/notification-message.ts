/** Turns one poll's events into one update per incident, and says in a headline what happened to it. */
import { isIncidentEvent, type IncidentEvent, type IncidentFieldChanges, type IncidentSummary, type NoteRef, type StatusEvent } from './events.ts';
import { htmlToText } from './html-text.ts';
import { isOngoing, noteSeq } from './incident.ts';
import { MAIN_FEED_SOURCE } from './statuspage/mapping.ts';
import { parseVendorTime } from './vendor-time.ts';

/** Where a delivery's events came from: a source's id and name as GET /api/sources lists them ("main": the main feed). */
export type MessageSource = { id: string; name: string };

/** What became of one incident in one poll: everything a message about it needs. */
export type IncidentUpdate = {
  incidentId: string;
  /**
   * The page's name when the incident is a source's (a status page watched beside the main feed),
   * for messages to name the vendor; null for the main feed's, whose messages name none.
   */
  vendor: string | null;
  /** The incident as the newest of its events saw it. */
  incident: IncidentSummary;
  /** The events this update stands for, oldest first: delivery bookkeeping marks them all sent. */
  eventIds: string[];
  /** Latest `occurredAt` among the events, epoch ms. */
  occurredAt: number;
  created: boolean;
  /** First `from` to last `to`; null when the status did not change (or changed back). */
  status: { from: string; to: string } | null;
  /** Title, type, services or url edits, first `from` to last `to`; only fields that still differ. */
  fields: IncidentFieldChanges;
  notesAdded: number;
  notesEdited: number;
  /** The newest note among the events (by the note's own time), to show with the message. */
  note: NoteRef | null;
};

/**
 * One update per incident, in the order each incident's first event came. Backfill events are
 * left out: they are history recorded while seeding, never news (events.ts); so are monitor
 * events, which are about no incident (monitor-message.ts renders them).
 */
export function groupForMessages(events: readonly StatusEvent[]): IncidentUpdate[] {
  const groups = new Map<string, IncidentEvent[]>();
  for (const event of events) {
    if (event.backfill || !isIncidentEvent(event)) continue;
    const group = groups.get(event.incidentId);
    if (group) group.push(event);
    else groups.set(event.incidentId, [event]);
  }
  return [...groups.values()].map(toUpdate);
}

function toUpdate(events: IncidentEvent[]): IncidentUpdate {
  const first = events[0]!;
  // The newest revision carries the newest summary; within a revision the later event wins.
  let latest = first;
  for (const event of events) if (event.revision >= latest.revision) latest = event;

  const update: IncidentUpdate = {
    incidentId: first.incidentId,
    vendor: null,
    incident: latest.data.incident,
    eventIds: events.map((e) => e.id),
    occurredAt: Math.max(...events.map((e) => e.occurredAt)),
    created: false,
    status: null,
    fields: {},
    notesAdded: 0,
    notesEdited: 0,
    note: null,
  };
  let statusFrom: string | null = null;
  let statusTo: string | null = null;
  const fields: Record<string, { from: unknown; to: unknown }> = {};

  for (const { data } of events) {
    if ('note' in data && data.note) update.note = newerNote(update.note, data.note);
    switch (data.type) {
      case 'incident.created':
        update.created = true;
        break;
      case 'incident.status_changed':
        statusFrom ??= data.from;
        statusTo = data.to;
        break;
      case 'incident.note_added':
        update.notesAdded += 1;
        break;
      case 'incident.note_edited':
        update.notesEdited += 1;
        break;
      case 'incident.updated':
        for (const [name, change] of Object.entries(data.changes)) {
          if (!change) continue;
          const seen = fields[name];
          fields[name] = { from: seen ? seen.from : change.from, to: change.to };
        }
        break;
    }
  }
  if (statusFrom !== null && statusTo !== null && statusFrom !== statusTo) update.status = { from: statusFrom, to: statusTo };
  for (const [name, change] of Object.entries(fields)) {
    if (JSON.stringify(change.from) !== JSON.stringify(change.to)) (update.fields as Record<string, unknown>)[name] = change;
  }
  return update;
}

/** Notes are ordered by their own time, then by the counter in the key (incident.ts). */
function newerNote(current: NoteRef | null, candidate: NoteRef): NoteRef {
  if (!current) return candidate;
  const a = parseVendorTime(current.date_created)?.ms ?? -Infinity;
  const b = parseVendorTime(candidate.date_created)?.ms ?? -Infinity;
  if (b !== a) return b > a ? candidate : current;
  return noteSeq(candidate) >= noteSeq(current) ? candidate : current;
}

/** The parts of a headline; `label` is one plain word or two, no emoji ("Resolved", "New incident"). */
export type Headline = { label: string; services: string; title: string };

/**
 * What happened, most important first: an end or a reopening beats a new note, which beats an
 * edit of the title or services. A new incident says its type (outage, notice), or its status
 * when it was already over the first time we saw it (a gap between polls).
 */
export function messageHeadline(update: IncidentUpdate): Headline {
  return { label: headlineLabel(update), services: servicesLabel(update.incident.services), title: namedTitle(update.incident.title, update.vendor) };
}

/**
 * An incident's title as every message names it: for a source's incident the page's name first
 * ("GitHub: Incident with Actions"), the main feed's as it is. On one line, so neither can add a
 * header; each channel escapes it as it escapes any vendor text.
 */
export function namedTitle(title: string, vendor: string | null): string {
  return vendor === null ? oneLine(title) : `${oneLine(vendor)}: ${oneLine(title)}`;
}

/** The update as a message of `source` tells it: named after the page unless it is the main feed's. */
export function fromSource(update: IncidentUpdate, source: MessageSource | null): IncidentUpdate {
  return source === null || source.id === MAIN_FEED_SOURCE ? update : { ...update, vendor: source.name };
}

function headlineLabel(update: IncidentUpdate): string {
  const { incident, status } = update;
  if (update.created) {
    if (!isOngoing(incident.status)) return finishedLabel(incident.status);
    if (incident.status === 'scheduled') return 'Scheduled';
    if (incident.type === 'outage') return 'Outage';
    if (incident.type === 'notice') return 'Notice';
    return 'New incident';
  }
  if (status) {
    if (!isOngoing(status.to)) return finishedLabel(status.to);
    if (!isOngoing(status.from)) return 'Reopened';
    return 'Update';
  }
  if (update.notesAdded > 0 || update.notesEdited > 0) return 'Update';
  return 'Changed';
}

function finishedLabel(status: string): string {
  if (status === 'completed') return 'Completed';
  if (status === 'cancelled' || status === 'canceled') return 'Cancelled';
  return 'Resolved';
}

/** Longest title a subject keeps; longer ones end in an ellipsis. */
export const SUBJECT_TITLE_MAX_CHARS = 120;
/** A headline names at most this many services, then "+N more"; the body lists them all. */
const HEADLINE_SERVICES_MAX = 3;

/**
 * `[Resolved] Files: Some files fail to upload`, on one line and of bounded length; a source's
 * incident names the page first: `[Outage] GitHub · Actions: Incident with Actions`.
 */
export function emailSubject(update: IncidentUpdate): string {
  const { label, services } = messageHeadline(update);
  const vendor = update.vendor === null ? '' : `${truncate(oneLine(update.vendor), VENDOR_NAME_MAX_CHARS)} · `;
  return `[${label}] ${vendor}${services}: ${truncate(oneLine(update.incident.title), SUBJECT_TITLE_MAX_CHARS)}`;
}

/** Longest page name a subject keeps (a source's name is at most 100 characters already). */
const VENDOR_NAME_MAX_CHARS = 100;

/** Services for a headline. No services named means the whole product (incidents 1558, 1566, 1571). */
export function servicesLabel(services: readonly string[]): string {
  const names = services.map(oneLine).filter((s) => s !== '');
  if (names.length === 0) return 'All services';
  if (names.length <= HEADLINE_SERVICES_MAX) return names.join(', ');
  return `${names.slice(0, HEADLINE_SERVICES_MAX).join(', ')} +${names.length - HEADLINE_SERVICES_MAX} more`;
}

/** Every service by name, for message bodies. */
export function servicesList(services: readonly string[]): string {
  const names = services.map(oneLine).filter((s) => s !== '');
  return names.length === 0 ? 'All services' : names.join(', ');
}

/**
 * Vendor text made safe for a header or a title line: line breaks and other control characters
 * become spaces, so a title cannot add a header or break a subject in two.
 */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** At most `maxChars` code points, the last one an ellipsis when cut; never splits a surrogate pair. */
export function truncate(text: string, maxChars: number): string {
  const chars = Array.from(text);
  if (chars.length <= maxChars) return text;
  return (
    chars
      .slice(0, Math.max(0, maxChars - 1))
      .join('')
      .trimEnd() + '…'
  );
}

/** "resolved" → "Resolved": statuses arrive lower-cased (incident.ts). */
export function statusWord(status: string): string {
  const word = oneLine(status);
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** The status now, and what it was when this update changed it: "Resolved (was Active)". */
export function statusText(update: IncidentUpdate): string {
  const now = statusWord(update.incident.status);
  return update.status ? `${now} (was ${statusWord(update.status.from)})` : now;
}

/** Sentences on what changed besides the status (statusText says that), for message bodies. */
export function changeLines(update: IncidentUpdate): string[] {
  const lines: string[] = [];
  if (update.created) lines.push(update.incident.type === 'incident' ? 'New incident.' : `New ${oneLine(update.incident.type)}.`);
  const { title, services, type, url } = update.fields;
  if (title) lines.push(`Title changed from “${oneLine(title.from)}”.`);
  if (services) lines.push(`Services: ${servicesList(services.from)} → ${servicesList(services.to)}.`);
  if (type) lines.push(`Type: ${oneLine(type.from)} → ${oneLine(type.to)}.`);
  if (url) lines.push('The vendor moved the incident page.');
  if (update.notesAdded > 1) lines.push(`${update.notesAdded} new notes; the latest is below.`);
  else if (update.notesAdded === 1) lines.push('New note.');
  if (update.notesEdited > 0) lines.push(update.notesEdited > 1 ? `${update.notesEdited} notes edited.` : 'A note was edited.');
  return lines;
}

/**
 * A note body as plain text. 2019-2023 bodies are plain text, where "<" is just a character;
 * since 2026 they are HTML. Only the vendor's own tags make a body HTML.
 */
export function noteText(body: string): string {
  return htmlToText(isHtmlNote(body) ? body : body.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
}

// `[^<>]*`, not `[^>]*`: an unterminated `<p<p<p...` must not make each `<` scan to the end.
const VENDOR_TAG = /<\/?(p|br|strong|b|em|i|u|ul|ol|li|a|span|div|h[1-6])\b[^<>]*>/i;

export function isHtmlNote(body: string): boolean {
  return VENDOR_TAG.test(body);
}

/** Our page for the incident: `${publicUrl}/incidents/${id}`. */
export function incidentPageUrl(publicUrl: string, incidentId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/incidents/${encodeURIComponent(incidentId)}`;
}

/** The vendor's own link, only when it is http(s): it ends up in an href. */
export function vendorUrl(url: string): string | null {
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}
