/**
 * A Statuspage page's incidents, maintenances and components mapped onto statuswatch's model:
 * incidents and maintenances become `Incident`s (updates as notes, affected components as
 * services) with the vendor's own status and impact kept beside ours; components keep a state of
 * their own. Pure: the poller passes what it read.
 */
import type { Incident, Note } from '../incident.ts';
import type { VendorTime } from '../vendor-time.ts';
import type { ComponentStatus, Impact, Known, SpComponent, SpIncident, SpMaintenance, SpSummary, SpUpdate } from './schema.ts';

/**
 * Our status for the vendor's. Incidents: investigating, identified and monitoring are `active`;
 * resolved and postmortem (which comes days after resolved) are `resolved`. Maintenances keep the
 * main feed's words: scheduled, `active` while in progress or verifying, completed. A word we do
 * not know stays `unknown`, which is not finished: nothing is resolved that the vendor did not resolve.
 */
const OUR_STATUS: Readonly<Record<string, string>> = {
  investigating: 'active',
  identified: 'active',
  monitoring: 'active',
  resolved: 'resolved',
  postmortem: 'resolved',
  scheduled: 'scheduled',
  in_progress: 'active',
  verifying: 'active',
  completed: 'completed',
};

export function ourStatus(status: Known<string>): string {
  return status.value === 'unknown' ? 'unknown' : (OUR_STATUS[status.value] ?? 'unknown');
}

/**
 * Our incident type for the vendor's impact: the main feed's three kinds (outage, incident,
 * notice). A maintenance is a `maintenance` whatever its impact (some are filed `major`). An
 * impact we do not know is `incident`, the kind that claims no severity.
 */
export function ourType(kind: 'incident' | 'maintenance', impact: Known<Impact>): string {
  if (kind === 'maintenance') return 'maintenance';
  switch (impact.value) {
    case 'critical':
    case 'major':
      return 'outage';
    case 'none':
    case 'maintenance':
      return 'notice';
    default:
      return 'incident';
  }
}

/** An incident of a source: our model, plus what the vendor said in its own words. */
export type SourceIncident = Incident & {
  kind: 'incident' | 'maintenance';
  /** The vendor's own status word ("identified") and impact word ("major"), "" when absent. */
  vendorStatus: string;
  vendorImpact: string;
  /** The affected components by id, in the order of `services`. */
  componentIds: string[];
  scheduledFor: VendorTime | null;
  scheduledUntil: VendorTime | null;
};

/** A page's components by id, with the group each belongs to when its row is there. */
export type ComponentDirectory = ReadonlyMap<string, { name: string; groupName: string | null }>;

export function componentDirectory(components: readonly SpComponent[]): ComponentDirectory {
  const byId = new Map(components.map((c) => [c.id, c]));
  // A trimmed body can name a group_id whose row is absent: the child simply has no group name.
  return new Map(components.map((c) => [c.id, { name: c.name, groupName: c.group_id ? (byId.get(c.group_id)?.name ?? null) : null }]));
}

/**
 * Incident ids stay unique across sources: the source id, a colon, the vendor's id. The main
 * feed's ids never hold a colon before their digits, so the two can never meet.
 */
export function sourceIncidentId(sourceId: string, vendorId: string): string {
  return `${sourceId}:${vendorId}`;
}

/** The main feed's name among sources: its incident ids are the vendor's own, without a colon. */
export const MAIN_FEED_SOURCE = 'main';

/**
 * What a source id looks like: "main", or `src_` and lower-case letters and digits (never a colon),
 * as GET /api/sources lists them.
 */
export const SOURCE_ID_PATTERN = /^(?:main|src_[a-z0-9]{1,64})$/;

export function isSourceId(text: string): boolean {
  return SOURCE_ID_PATTERN.test(text);
}

/** The source an archived incident (or its event) came from: what comes before its id's colon, or the main feed. */
export function sourceOfIncidentId(incidentId: string): string {
  const colon = incidentId.indexOf(':');
  return colon < 0 ? MAIN_FEED_SOURCE : incidentId.slice(0, colon);
}

/**
 * A source's incident ids as a range [from, before): every `sourceId:...` id and no other, since
 * ';' follows ':' in every collation by code point. An index on the id serves it.
 */
export function incidentIdRangeOfSource(sourceId: string): { from: string; before: string } {
  return { from: `${sourceId}:`, before: `${sourceId};` };
}

/** What every source's poll lease is named with, before the source's id. */
export const SOURCE_LEASE_PREFIX = 'poll:';

/**
 * A source's poll lease: one poll of a source at a time across processes and invocations. Its row
 * goes with the source (removed or purged), as its other rows do; one left behind all the same
 * (a process killed at the wrong moment) is swept by retention.
 */
export const sourceLeaseName = (sourceId: string): string => `${SOURCE_LEASE_PREFIX}${sourceId}`;

/**
 * Updates as notes, oldest first by created_at (pages send them newest first). The key is the
 * update's id, so an update edited in place (same id, new body) is an edit, never a new note.
 * The counter after the last dash is always 0: a counter per instant would shift when a new
 * update lands on the same second, and updates sharing an instant keep the order sorted here.
 */
export function updatesAsNotes(updates: readonly SpUpdate[]): Note[] {
  const unique = new Map<string, SpUpdate>();
  for (const u of updates) if (!unique.has(u.id)) unique.set(u.id, u);
  const ordered = [...unique.values()].sort((a, b) => a.created_at.ms - b.created_at.ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return ordered.map((u) => ({ key: `${u.id}-0`, dateCreated: u.created_at, body: u.body }));
}

/**
 * The components an incident affected, by id: those its updates name (by `code`) and those the
 * incident lists (a snapshot of today). Named by today's name from the page when known, else by
 * the newest name the incident gave; a name shared by several components carries its group's.
 */
export function affectedComponents(item: SpIncident | SpMaintenance, directory: ComponentDirectory): { ids: string[]; names: string[] } {
  const givenName = new Map<string, string>();
  const newestFirst = [...item.incident_updates.items].sort((a, b) => b.created_at.ms - a.created_at.ms);
  for (const c of item.components.items) if (c.name) givenName.set(c.id, c.name);
  for (const u of newestFirst) for (const c of u.affected_components.items) if (c.name && !givenName.has(c.code)) givenName.set(c.code, c.name);
  const ids = [
    ...new Set([...item.components.items.map((c) => c.id), ...newestFirst.toReversed().flatMap((u) => u.affected_components.items.map((c) => c.code))]),
  ];
  const serviceName = serviceNamer(directory);
  const names = ids.map((cid) => serviceName(cid) ?? givenName.get(cid) ?? cid);
  return { ids, names };
}

/** A component's name as a service: its own, or with its group's when several components share it; null when not in the directory. */
function serviceNamer(directory: ComponentDirectory): (id: string) => string | null {
  const nameCounts = new Map<string, number>();
  for (const entry of directory.values()) nameCounts.set(entry.name, (nameCounts.get(entry.name) ?? 0) + 1);
  return (id) => {
    const entry = directory.get(id);
    if (!entry) return null;
    return (nameCounts.get(entry.name) ?? 0) > 1 && entry.groupName ? groupedComponentName(entry.groupName, entry.name) : entry.name;
  };
}

/** A component named with its group, as pages list it and as a name shared by several components is told apart: "Core / API". */
export function groupedComponentName(group: string, name: string): string {
  return `${group} / ${name}`;
}

/**
 * The services a page's incidents may name, from its components' states: each component (group
 * rows left out) named as affectedComponents names it, in the page's order. What a subscriber
 * chooses among for a source.
 */
export function componentServiceNames(states: readonly Pick<ComponentState, 'id' | 'name' | 'groupId' | 'isGroup'>[]): string[] {
  const byId = new Map(states.map((c) => [c.id, c]));
  const directory: ComponentDirectory = new Map(states.map((c) => [c.id, { name: c.name, groupName: c.groupId ? (byId.get(c.groupId)?.name ?? null) : null }]));
  const serviceName = serviceNamer(directory);
  return [...new Set(states.filter((c) => !c.isGroup).map((c) => serviceName(c.id) ?? c.name))];
}

export function toSourceIncident(
  sourceId: string,
  item: SpIncident | SpMaintenance,
  kind: 'incident' | 'maintenance',
  directory: ComponentDirectory,
): SourceIncident {
  const { ids, names } = affectedComponents(item, directory);
  const scheduled = 'scheduled_for' in item ? item : null;
  return {
    id: sourceIncidentId(sourceId, item.id),
    title: item.name,
    type: ourType(kind, item.impact),
    status: ourStatus(item.status),
    url: item.shortlink,
    services: names,
    dateCreated: item.created_at,
    dateUpdated: item.updated_at,
    notes: updatesAsNotes(item.incident_updates.items),
    kind,
    vendorStatus: item.status.vendor,
    vendorImpact: item.impact.vendor,
    componentIds: ids,
    scheduledFor: scheduled?.scheduled_for ?? null,
    scheduledUntil: scheduled?.scheduled_until ?? null,
  };
}

/** What one poll of a page read; any endpoint may be absent (not fetched, 304, or failed). */
export type PageReading = {
  summary?: SpSummary;
  incidents?: readonly SpIncident[];
  maintenances?: readonly SpMaintenance[];
};

/**
 * The incidents a poll saw, one per id: where two endpoints show the same incident, the version
 * updated last wins (on equal instants, the full list over the summary). Only what was seen is
 * returned: an incident absent from the summary (which drops resolved ones) or from the 50-item
 * window is not observed, so the diff leaves it as the archive knows it, never resolved by absence.
 */
export function observedIncidents(sourceId: string, reading: PageReading, directory: ComponentDirectory): SourceIncident[] {
  const chosen = new Map<string, SourceIncident>();
  const offer = (item: SpIncident | SpMaintenance, kind: 'incident' | 'maintenance') => {
    const mapped = toSourceIncident(sourceId, item, kind, directory);
    const held = chosen.get(mapped.id);
    if (!held || mapped.dateUpdated.ms >= held.dateUpdated.ms) chosen.set(mapped.id, mapped);
  };
  for (const item of reading.summary?.incidents.items ?? []) offer(item, 'incident');
  for (const item of reading.summary?.scheduledMaintenances.items ?? []) offer(item, 'maintenance');
  for (const item of reading.incidents ?? []) offer(item, 'incident');
  for (const item of reading.maintenances ?? []) offer(item, 'maintenance');
  return [...chosen.values()];
}

/** A component's state now: its own, not an incident's. */
export type ComponentState = {
  id: string;
  name: string;
  status: ComponentStatus | 'unknown';
  /** The vendor's own word, kept when it is not one we know. */
  vendorStatus: string;
  groupId: string | null;
  position: number | null;
  /** A group row (its state is its children's). */
  isGroup: boolean;
};

export function componentStates(components: readonly SpComponent[]): ComponentState[] {
  return components.map((c) => ({
    id: c.id,
    name: c.name,
    status: c.status.value,
    vendorStatus: c.status.vendor,
    groupId: c.group_id,
    position: c.position,
    isGroup: c.group,
  }));
}

export type ComponentChange = { id: string; name: string; from: ComponentStatus | 'unknown' | null; to: ComponentStatus | 'unknown' };

/**
 * Components whose state moved since the last reading, whether or not an incident says so
 * (vendors often only flip a component). A component seen for the first time is a change from
 * null; one that left the page is not a change (a trimmed or partial body drops rows).
 */
export function componentChanges(before: ReadonlyMap<string, ComponentState>, now: readonly ComponentState[]): ComponentChange[] {
  const changes: ComponentChange[] = [];
  for (const c of now) {
    const previous = before.get(c.id);
    if (previous && previous.vendorStatus === c.vendorStatus) continue;
    changes.push({ id: c.id, name: c.name, from: previous?.status ?? null, to: c.status });
  }
  return changes;
}
