/** Turns one event into the small JSON body of a webhook request: `{type, timestamp, data: {incident, changes?, note?}}`. */
import {
  type ComponentEvent,
  type ComponentEventData,
  isComponentEvent,
  isMonitorEvent,
  type EventType,
  type IncidentEvent,
  type IncidentFieldChanges,
  type IncidentSummary,
  type KnownIncident,
  type MonitorEvent,
  type MonitorEventData,
  type MonitorEventType,
  type NoteRef,
  type StatusEvent,
} from './events.ts';
import { noteText, type MessageSource } from './notification-message.ts';

export type WebhookNote = {
  date_created: string;
  /** As the vendor sent it: plain text before 2026, an HTML fragment since. Never safe to render as HTML. */
  body: string;
  text: string;
  /** The body or the text was cut to fit; the full note is on the incident page. */
  truncated?: true;
};

export type WebhookPayloadData = {
  incident: IncidentSummary;
  /** `incident.updated`: each changed field's `from` and `to`. */
  changes?: IncidentFieldChanges;
  note?: WebhookNote;
  /** `incident.status_changed`: the old status; `incident.note_edited`: the note's previous body. */
  from?: string;
  /** `incident.status_changed`: the new status. (An edited note's new body is `note.body`.) */
  to?: string;
  /** Some string in `data` was cut to fit (and ends in "…"), or a services list was shortened. */
  truncated?: true;
};

export type WebhookPayload = {
  type: EventType;
  /** When statuswatch saw the change (the event's detectedAt), ISO 8601 UTC. */
  timestamp: string;
  data: WebhookPayloadData;
};

/** `monitor.blind` and `monitor.recovered`: the data is the event's own (events.ts MonitorEventData, without `type`), bounded. */
export type MonitorWebhookPayload = {
  type: MonitorEventType;
  timestamp: string;
  data:
    | (Omit<Extract<MonitorEventData, { type: 'monitor.blind' }>, 'type'> & { truncated?: true })
    | Omit<Extract<MonitorEventData, { type: 'monitor.recovered' }>, 'type'>;
};

/**
 * `component.status_changed`: the event's own data (events.ts ComponentEventData, without `type`),
 * the page's and the component's names bounded.
 */
export type ComponentWebhookPayload = {
  type: ComponentEvent['type'];
  timestamp: string;
  data: Omit<ComponentEventData, 'type'> & { truncated?: true };
};

/** Where an event came from, in its body: a source's id and name as GET /api/sources lists them ("main": the main feed). */
export type WebhookSource = { id: string; name: string };

/**
 * The body of a webhook request for any event. With `source` (the channel sender always gives
 * it) the body carries `source` {id, name} beside the fields it always had, bounded like them.
 */
export function webhookPayloadOf(event: StatusEvent, source?: MessageSource): WebhookBody {
  const payload = isMonitorEvent(event) ? toMonitorWebhookPayload(event) : isComponentEvent(event) ? toComponentWebhookPayload(event) : toWebhookPayload(event);
  if (!source) return payload;
  const fit = new Fitter();
  const named = { id: fit.text(source.id, SHORT_MAX_BYTES), name: fit.text(source.name, SOURCE_NAME_MAX_BYTES) };
  return { type: payload.type, timestamp: payload.timestamp, source: named, data: payload.data } as WebhookBody;
}

/** A webhook request's body: an event's payload, and where it came from. */
export type WebhookBody = (WebhookPayload | MonitorWebhookPayload | ComponentWebhookPayload) & { source?: WebhookSource };

/** A source's name is at most 100 characters when saved; the bound holds whatever it holds. */
const SOURCE_NAME_MAX_BYTES = 300;

/**
 * Upper bound of the serialised payload in UTF-8 bytes, whatever the vendor sends: receivers
 * often cap bodies, and one hostile 1 MB note must not fail or bloat every delivery. The limits
 * below are chosen so their worst cases add up to less than this (tested per event type).
 */
export const WEBHOOK_PAYLOAD_MAX_BYTES = 8 * 1024;

// Limits in bytes of the JSON-escaped UTF-8 text, quotes excluded: what a string costs on the wire.
const NOTE_BODY_MAX_BYTES = 1536;
const NOTE_TEXT_MAX_BYTES = 1536;
const PREVIOUS_BODY_MAX_BYTES = 1536;
const TITLE_MAX_BYTES = 300;
const URL_MAX_BYTES = 512;
const SERVICE_NAME_MAX_BYTES = 100;
/** For the whole list: the vendor names about a dozen services, a few hundred bytes. */
const SERVICES_MAX_BYTES = 1024;
/** Ids, types, statuses and timestamps: short in every feed seen. */
const SHORT_MAX_BYTES = 64;
/**
 * How much of a body is turned into text. The tag-stripping regexes are quadratic on some
 * inputs ("<a<a<a…"), so they only ever see a bounded prefix; 4096 characters of any real note
 * give more text than NOTE_TEXT_MAX_BYTES keeps.
 */
const TEXT_SOURCE_MAX_CHARS = 4096;

const ELLIPSIS = '…';
const ELLIPSIS_BYTES = 3;

/** An incident event's body; a monitor event's is toMonitorWebhookPayload's (webhookPayloadOf picks). */
export function toWebhookPayload(event: StatusEvent): WebhookPayload {
  if (isMonitorEvent(event) || isComponentEvent(event)) throw new TypeError(`${event.type} is not about an incident: use webhookPayloadOf`);
  const fit = new Fitter();
  const { data } = event as IncidentEvent;
  const incident = fitIncident(fit, data.incident);
  let payloadData: WebhookPayloadData;
  switch (data.type) {
    case 'incident.created':
      payloadData = { incident, ...(data.note ? { note: fitNote(fit, data.note) } : {}) };
      break;
    case 'incident.status_changed':
      payloadData = {
        incident,
        from: fit.text(data.from, SHORT_MAX_BYTES),
        to: fit.text(data.to, SHORT_MAX_BYTES),
        ...(data.note ? { note: fitNote(fit, data.note) } : {}),
      };
      break;
    case 'incident.note_added':
      payloadData = { incident, note: fitNote(fit, data.note) };
      break;
    case 'incident.note_edited':
      payloadData = { incident, note: fitNote(fit, data.note), from: fit.text(data.from, PREVIOUS_BODY_MAX_BYTES) };
      break;
    case 'incident.updated':
      payloadData = { incident, changes: fitChanges(fit, data.changes) };
      break;
  }
  if (fit.cut) payloadData.truncated = true;
  return { type: event.type, timestamp: new Date(event.detectedAt).toISOString(), data: payloadData };
}

/** An error text of a failed poll names every endpoint; a kilobyte says what went wrong. */
const MONITOR_ERROR_MAX_BYTES = 1024;
/** Services named per last-known incident: the list is context, the incident page has it whole. */
const MONITOR_SERVICES_MAX = 5;

/**
 * Worst case: 1 KB of error and at most MONITOR_KNOWN_INCIDENTS_MAX (5) incidents of about 1 KB
 * each (64 + 300 + 64 + 64 + 5 x 100 bytes and their keys): under WEBHOOK_PAYLOAD_MAX_BYTES.
 */
export function toMonitorWebhookPayload(event: MonitorEvent): MonitorWebhookPayload {
  const fit = new Fitter();
  const { type, data } = event;
  const timestamp = new Date(event.detectedAt).toISOString();
  if (data.type === 'monitor.recovered') {
    const { since, recovered_at, blind_for_ms } = data;
    return { type, timestamp, data: { since, recovered_at, blind_for_ms } };
  }
  const known = (incident: KnownIncident): KnownIncident => ({
    id: fit.text(incident.id, SHORT_MAX_BYTES),
    title: fit.text(incident.title, TITLE_MAX_BYTES),
    type: fit.text(incident.type, SHORT_MAX_BYTES),
    status: fit.text(incident.status, SHORT_MAX_BYTES),
    services: incident.services.slice(0, MONITOR_SERVICES_MAX).map((name) => fit.text(name, SERVICE_NAME_MAX_BYTES)),
  });
  const payload = {
    since: data.since,
    last_error: fit.text(data.last_error, MONITOR_ERROR_MAX_BYTES),
    last_known: { ongoing: data.last_known.ongoing.slice(0, 5).map(known), more: data.last_known.more },
  };
  return { type, timestamp, data: fit.cut ? { ...payload, truncated: true } : payload };
}

/** Worst case: two names of SOURCE_NAME_MAX_BYTES, two of TITLE_MAX_BYTES, six short words: about 1.3 KB. */
export function toComponentWebhookPayload(event: ComponentEvent): ComponentWebhookPayload {
  const fit = new Fitter();
  const { data } = event;
  const { group } = data.component;
  const payload: ComponentWebhookPayload['data'] = {
    source: { id: fit.text(data.source.id, SHORT_MAX_BYTES), name: fit.text(data.source.name, SOURCE_NAME_MAX_BYTES) },
    component: {
      id: fit.text(data.component.id, SHORT_MAX_BYTES),
      name: fit.text(data.component.name, TITLE_MAX_BYTES),
      ...(group === undefined ? {} : { group: fit.text(group, TITLE_MAX_BYTES) }),
    },
    from: fit.text(data.from, SHORT_MAX_BYTES),
    to: fit.text(data.to, SHORT_MAX_BYTES),
    from_state: fit.text(data.from_state, SHORT_MAX_BYTES),
    to_state: fit.text(data.to_state, SHORT_MAX_BYTES),
  };
  if (fit.cut) payload.truncated = true;
  return { type: event.type, timestamp: new Date(event.detectedAt).toISOString(), data: payload };
}

function fitIncident(fit: Fitter, incident: IncidentSummary): IncidentSummary {
  return {
    id: fit.text(incident.id, SHORT_MAX_BYTES),
    title: fit.text(incident.title, TITLE_MAX_BYTES),
    type: fit.text(incident.type, SHORT_MAX_BYTES),
    status: fit.text(incident.status, SHORT_MAX_BYTES),
    url: fit.text(incident.url, URL_MAX_BYTES),
    services: fit.services(incident.services),
    date_created: fit.text(incident.date_created, SHORT_MAX_BYTES),
    date_updated: fit.text(incident.date_updated, SHORT_MAX_BYTES),
  };
}

function fitChanges(fit: Fitter, changes: IncidentFieldChanges): IncidentFieldChanges {
  const out: IncidentFieldChanges = {};
  if (changes.title) out.title = { from: fit.text(changes.title.from, TITLE_MAX_BYTES), to: fit.text(changes.title.to, TITLE_MAX_BYTES) };
  if (changes.type) out.type = { from: fit.text(changes.type.from, SHORT_MAX_BYTES), to: fit.text(changes.type.to, SHORT_MAX_BYTES) };
  if (changes.services) out.services = { from: fit.services(changes.services.from), to: fit.services(changes.services.to) };
  if (changes.url) out.url = { from: fit.text(changes.url.from, URL_MAX_BYTES), to: fit.text(changes.url.to, URL_MAX_BYTES) };
  return out;
}

function fitNote(fit: Fitter, note: NoteRef): WebhookNote {
  // A Fitter of its own, so the note says whether the note in particular was cut.
  const own = new Fitter();
  const source = textSource(note.body);
  const fitted = {
    date_created: own.text(note.date_created, SHORT_MAX_BYTES),
    body: own.text(note.body, NOTE_BODY_MAX_BYTES),
    text: own.text(noteText(source), NOTE_TEXT_MAX_BYTES),
  };
  if (!own.cut && source.length === note.body.length) return fitted;
  fit.cut = true;
  return { ...fitted, truncated: true };
}

/** The start of a long body, without a tag or entity cut in half (it would show as text). */
function textSource(body: string): string {
  if (body.length <= TEXT_SOURCE_MAX_CHARS) return body;
  let end = TEXT_SOURCE_MAX_CHARS;
  if (isHighSurrogate(body.charCodeAt(end - 1))) end -= 1;
  return body
    .slice(0, end)
    .replace(/<[^<>]*$/, '')
    .replace(/&#?[a-z0-9]*$/i, '');
}

/** Cuts strings to a byte budget and remembers whether it had to. */
class Fitter {
  cut = false;

  /** `text` if it fits in `maxBytes` (JSON-escaped UTF-8), else its longest prefix that fits with "…". */
  text(text: string, maxBytes: number): string {
    let bytes = 0;
    let fitEnd = 0;
    let index = 0;
    // Walks at most maxBytes code points, so a 1 MB string costs no more than a short one.
    for (const char of text) {
      bytes += jsonBytes(char);
      if (bytes > maxBytes) {
        this.cut = true;
        return text.slice(0, fitEnd).trimEnd() + ELLIPSIS;
      }
      index += char.length;
      if (bytes <= maxBytes - ELLIPSIS_BYTES) fitEnd = index;
    }
    return text;
  }

  /** Each name bounded, and the list as a whole: names past the budget are left off. */
  services(services: readonly string[]): string[] {
    const out: string[] = [];
    let bytes = 0;
    for (const name of services) {
      const fitted = this.text(name, SERVICE_NAME_MAX_BYTES);
      // Two quotes and a comma around each name.
      bytes += jsonLength(fitted) + 3;
      if (bytes > SERVICES_MAX_BYTES) {
        this.cut = true;
        break;
      }
      out.push(fitted);
    }
    return out;
  }
}

/** What one code point costs inside a JSON string as UTF-8, by the escapes JSON.stringify uses. */
function jsonBytes(char: string): number {
  const code = char.codePointAt(0)!;
  if (code === 0x22 || code === 0x5c) return 2;
  if (code < 0x20) return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  // A lone surrogate (for-of yields one when it is unpaired) is written as \udxxx.
  if (code >= 0xd800 && code <= 0xdfff) return 6;
  if (code < 0x10000) return 3;
  return 4;
}

function jsonLength(text: string): number {
  let bytes = 0;
  for (const char of text) bytes += jsonBytes(char);
  return bytes;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
