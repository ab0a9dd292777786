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

/**
 * A component of a watched page changed state between two good reads, whether or not an incident
 * says so (vendors often only flip a component). `from` and `to` are the page's own words
 * ("major_outage"); `from_state` and `to_state` are ours, as the dashboard says them
 * (source-state.ts: Operational, Degraded, Outage, Maintenance, Unknown).
 */
export type ComponentEventData = {
  type: 'component.status_changed';
  source: { id: string; name: string };
  /** `group`: the name of the group the component is listed under on the page, when it has one. */
  component: { id: string; name: string; group?: string };
  from: string;
  to: string;
  from_state: string;
  to_state: string;
};

export type EventData = IncidentEventData | MonitorEventData | ComponentEventData;

export type EventType = EventData['type'];
export type IncidentEventType = IncidentEventData['type'];
export type MonitorEventType = MonitorEventData['type'];
export type ComponentEventType = ComponentEventData['type'];

export const INCIDENT_EVENT_TYPES: readonly IncidentEventType[] = [
  'incident.created',
  'incident.status_changed',
  'incident.note_added',
  'incident.note_edited',
  'incident.updated',
];
export const MONITOR_EVENT_TYPES: readonly MonitorEventType[] = ['monitor.blind', 'monitor.recovered'];
export const COMPONENT_EVENT_TYPES: readonly ComponentEventType[] = ['component.status_changed'];
export const EVENT_TYPES: readonly EventType[] = [...INCIDENT_EVENT_TYPES, ...MONITOR_EVENT_TYPES, ...COMPONENT_EVENT_TYPES];

/** A StatusEvent about an incident (neither the monitor's own nor a component's). */
export type IncidentEvent = Omit<StatusEvent, 'type' | 'data'> & { type: IncidentEventType; data: IncidentEventData };
export type MonitorEvent = Omit<StatusEvent, 'type' | 'data'> & { type: MonitorEventType; data: MonitorEventData };
export type ComponentEvent = Omit<StatusEvent, 'type' | 'data'> & { type: ComponentEventType; data: ComponentEventData };

export function isMonitorEvent(event: StatusEvent): event is MonitorEvent {
  return event.data.type.startsWith('monitor.');
}
export function isComponentEvent(event: StatusEvent): event is ComponentEvent {
  return event.data.type.startsWith('component.');
}
export function isIncidentEvent(event: StatusEvent): event is IncidentEvent {
  return !isMonitorEvent(event) && !isComponentEvent(event);
}

/** The incident an event is about; null for a monitor or component event, which concern none. */
export function eventIncidentId(event: StatusEvent): string | null {
  return isIncidentEvent(event) ? event.incidentId : null;
}

export type StatusEvent = {
  /**
   * Deterministic: `<incident>.r<revision>.<what>`, `monitor.<blind|recovered>.<episode>` for the
   * monitor's own, `<component subject>.s<since>` for a component's (componentEventId).
   * Re-applying a poll yields the same ids.
   */
  id: string;
  type: EventType;
  /**
   * Empty for a monitor event: it concerns the feed, not an incident. For a component event, the
   * component's subject (statuspage/mapping.ts componentSubjectId): `<source>:component:<id>`,
   * never an incident's id, but read for its source as an incident's id is, so `?source=`, the
   * filters and the purge of a source find it where they find the source's incidents' events.
   */
  incidentId: string;
  /** The incident revision this event produced; 0 for a monitor or component event. */
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
