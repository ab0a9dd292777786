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

export type EventData =
  | { type: 'incident.created'; incident: IncidentSummary; note?: NoteRef }
  | { type: 'incident.status_changed'; incident: IncidentSummary; from: string; to: string; note?: NoteRef }
  | { type: 'incident.note_added'; incident: IncidentSummary; note: NoteRef }
  | { type: 'incident.note_edited'; incident: IncidentSummary; note: NoteRef; from: string; to: string }
  | { type: 'incident.updated'; incident: IncidentSummary; changes: IncidentFieldChanges };

export type EventType = EventData['type'];

export const EVENT_TYPES: readonly EventType[] = [
  'incident.created',
  'incident.status_changed',
  'incident.note_added',
  'incident.note_edited',
  'incident.updated',
];

export type StatusEvent = {
  /** Deterministic: `<incident>.r<revision>.<what>`. Re-applying a poll yields the same ids. */
  id: string;
  type: EventType;
  incidentId: string;
  /** The incident revision this event produced. */
  revision: number;
  /** When the vendor says it happened (the note's time, or the incident's date_updated), epoch ms. */
  occurredAt: number;
  /** When we first saw it, epoch ms. */
  detectedAt: number;
  /** Recorded while seeding an empty archive: history, never to be notified. */
  backfill: boolean;
  data: EventData;
};

export function summarize(incident: Incident): IncidentSummary {
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
