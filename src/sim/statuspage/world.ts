/** The simulated Statuspage page's world: its components, incidents and maintenances, as instants. */

export type SpSimAffected = { code: string; oldStatus: string; newStatus: string };

export type SpSimUpdate = {
  id: string;
  status: string;
  body: string;
  createdMs: number;
  /** Later than createdMs once the vendor edits the update in place. */
  updatedMs: number;
  affected: SpSimAffected[] | null;
};

export type SpSimIncident = {
  id: string;
  name: string;
  status: string;
  impact: string;
  createdMs: number;
  updatedMs: number;
  resolvedMs: number | null;
  componentIds: string[];
  /** Oldest first here; the wire sends them newest first. */
  updates: SpSimUpdate[];
  /** Set on maintenances only. */
  scheduledForMs?: number;
  scheduledUntilMs?: number;
};

export type SpSimComponent = {
  id: string;
  name: string;
  status: string;
  position: number;
  groupId: string | null;
  /** Child ids of a group row; null for an ordinary component. */
  children: string[] | null;
  updatedMs: number;
};

/** Bodies recorded from a real page, served as they were instead of rendering the world (see recorded.ts). */
export type SpRecordedBodies = { summary?: string; incidents?: string; 'scheduled-maintenances'?: string };

export type SpSimWorld = {
  page: { id: string; name: string; url: string; timeZone: string };
  components: SpSimComponent[];
  incidents: SpSimIncident[];
  maintenances: SpSimIncident[];
  /** The page's last change: page.updated_at and Last-Modified. */
  updatedMs: number;
  /** Set while the page replays recorded bodies. */
  recorded?: SpRecordedBodies;
};

const INCIDENT_DONE = new Set(['resolved', 'postmortem']);
const MAINTENANCE_DONE = new Set(['completed']);

/** Summary lists only what is open: a resolved incident or completed maintenance simply leaves it. */
export const isOpenIncident = (incident: SpSimIncident): boolean => !INCIDENT_DONE.has(incident.status);
export const isOpenMaintenance = (maintenance: SpSimIncident): boolean => !MAINTENANCE_DONE.has(maintenance.status);
