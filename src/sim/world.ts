/** The simulated vendor's world: the incidents it knows, as instants, independent of any wire format. */

export type SimNote = { body: string; dateCreatedMs: number };

export type SimIncident = {
  id: number;
  title: string;
  type: string;
  status: string;
  url: string;
  services: string[];
  dateCreatedMs: number;
  dateUpdatedMs: number;
  notes: SimNote[];
};

// "canceled" (one L) is not a vendor value, but one public client spells it so; treating it as
// finished keeps a test that uses it from showing up as an ongoing incident forever.
const FINISHED_STATUSES = new Set(['resolved', 'completed', 'cancelled', 'canceled']);

/** An incident is ongoing until it reaches a terminal status (the feed's "active_incidents"). */
export function isOngoing(incident: SimIncident): boolean {
  return !FINISHED_STATUSES.has(incident.status);
}

/** A deep copy, so callers holding a snapshot never see later steps mutate it. */
export function cloneIncident(incident: SimIncident): SimIncident {
  return { ...incident, services: [...incident.services], notes: incident.notes.map((n) => ({ ...n })) };
}
