/** The typed events a change in the feed becomes, with ids that are the same however often a poll is applied. */
import type { Incident } from './incident.ts';

export type FieldChange<T> = { from: T; to: T };

/** The fields whose change is an `incident.updated` event. */
export type IncidentFieldChanges = Partial<{
  title: FieldChange<string>;
  type: FieldChange<string>;
  services: FieldChange<string[]>;
  url: FieldChange<string>;
}>;

export type NoteRef = { key: string; date_created: string; body: string };

export type IncidentSummary = {
  id: string;
  title: string;
  type: string;
  status: string;
  url: string;
  services: string[];
  date_created: string;
  date_updated: string;
};

export type IncidentEventData =
  | { type: 'incident.created'; incident: IncidentSummary; note?: NoteRef }
  | { type: 'incident.status_changed'; incident: IncidentSummary; from: string; to: string; note?: NoteRef }
  | { type: 'incident.note_added'; incident: IncidentSummary; note: NoteRef }
  | { type: 'incident.note_edited'; incident: IncidentSummary; note: NoteRef; from: string; to: string }
  | { type: 'incident.updated'; incident: IncidentSummary; changes: IncidentFieldChanges };

/** An ongoing incident as the archive last knew it, for "what we last knew" while blind. */
export type KnownIncident = { id: string; title: string; type: string; status: string; services: string[] };

/**
 * News about the monitor itself (monitor-episode.ts): it stopped seeing the vendor's feed, or sees
 * it again. `since` is the last good read before the blindness (UTC ISO 8601), null when the feed
 * was never read.
 */
export type MonitorEventData =
  | {
      type: 'monitor.blind';
      since: string | null;
      /** The error of the poll that found the feed unreadable past the limit. */
      last_error: string;
      /** The incidents going on at the last good read, at most MONITOR_KNOWN_INCIDENTS_MAX. */
      last_known: { ongoing: KnownIncident[]; more: number };
    }
  | { type: 'monitor.recovered'; since: string | null; recovered_at: string; blind_for_ms: number | null };

export type EventData = IncidentEventData | MonitorEventData;

export type EventType = EventData['type'];
export type IncidentEventType = IncidentEventData['type'];
export type MonitorEventType = MonitorEventData['type'];

export const INCIDENT_EVENT_TYPES: readonly IncidentEventType[] = [
  'incident.created',
  'incident.status_changed',
  'incident.note_added',
  'incident.note_edited',
  'incident.updated',
];
export const MONITOR_EVENT_TYPES: readonly MonitorEventType[] = ['monitor.blind', 'monitor.recovered'];
export const EVENT_TYPES: readonly EventType[] = [...INCIDENT_EVENT_TYPES, ...MONITOR_EVENT_TYPES];

/** A StatusEvent about an incident (every event but the monitor's own). */
export type IncidentEvent = Omit<StatusEvent, 'type' | 'data'> & { type: IncidentEventType; data: IncidentEventData };
export type MonitorEvent = Omit<StatusEvent, 'type' | 'data'> & { type: MonitorEventType; data: MonitorEventData };

export function isMonitorEvent(event: StatusEvent): event is MonitorEvent {
  return event.data.type.startsWith('monitor.');
}
export function isIncidentEvent(event: StatusEvent): event is IncidentEvent {
  return !isMonitorEvent(event);
}

export type StatusEvent = {
  /**
   * Deterministic: `<incident>.r<revision>.<what>`, `monitor.<blind|recovered>.<episode>` for the
   * monitor's own. Re-applying a poll yields the same ids.
   */
  id: string;
  type: EventType;
  /** Empty for a monitor event: it concerns the feed, not an incident. */
  incidentId: string;
  /** The incident revision this event produced; 0 for a monitor event. */
  revision: number;
  /** When the vendor says it happened (the note's time, or the incident's date_updated), epoch ms. */
  occurredAt: number;
  /** When we first saw it, epoch ms. */
  detectedAt: number;
  /** Recorded while seeding an empty archive: history, never to be notified. */
  backfill: boolean;
  data: EventData;
};

/** An incident's own fields as the vendor gave them: in every event, and first in the API's incident JSON. */
export function summarize(incident: Omit<Incident, 'notes'>): IncidentSummary {
  return {
    id: incident.id,
    title: incident.title,
    type: incident.type,
    status: incident.status,
    url: incident.url,
    services: incident.services,
    date_created: incident.dateCreated.raw,
    date_updated: incident.dateUpdated.raw,
  };
}

export function eventId(incidentId: string, revision: number, what: string): string {
  return `${incidentId}.r${revision}.${what}`;
}
