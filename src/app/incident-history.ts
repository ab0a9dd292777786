/**
 * One incident of the archive with every change recorded for it, oldest first: what
 * `GET /api/incidents/:id`, the `/incidents/:id` page and the MCP tool `get_incident` show.
 */
import { ApiError } from '../core/errors.ts';
import type { ArchiveQueries, IncidentJson, StoredEvent, StoredIncident } from '../core/ports.ts';

/** An incident's history is read up to this many events: a bound on one answer, never reached by a real incident. */
export const HISTORY_EVENTS_MAX = 1000;

export type IncidentHistory<Incident = StoredIncident> = { incident: Incident; events: StoredEvent[] };

export type IncidentHistoryStore = Pick<ArchiveQueries, 'getIncident' | 'getIncidentJson' | 'listEvents'>;

/** Null when the archive has no incident with that id. */
export function incidentHistory(store: IncidentHistoryStore, id: string): Promise<IncidentHistory | null>;
/** `json`: the incident as the JSON API shows it, as text (ArchiveQueries.getIncidentJson). */
export function incidentHistory(store: IncidentHistoryStore, id: string, as: 'json'): Promise<IncidentHistory<IncidentJson> | null>;
export async function incidentHistory(store: IncidentHistoryStore, id: string, as?: 'json'): Promise<IncidentHistory<StoredIncident | IncidentJson> | null> {
  const incident = as === 'json' ? await store.getIncidentJson(id) : await store.getIncident(id);
  if (!incident) return null;
  return { incident, events: await store.listEvents({ incidentId: id }, 0, HISTORY_EVENTS_MAX) };
}

/** The 404 the API and the MCP tools answer for an id the archive does not have. */
export function incidentNotFound(id: string): ApiError {
  return new ApiError(404, 'incident_not_found', `no incident ${JSON.stringify(id.slice(0, 64))} in the archive`);
}
