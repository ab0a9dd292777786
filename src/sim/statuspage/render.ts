/** The simulated page's world as Statuspage v2 bodies, in the wire's key order. */
import type { FeedDocument } from '../wire.ts';
import { recordedBody } from './recorded.ts';
import { isOpenIncident, isOpenMaintenance, type SpSimComponent, type SpSimIncident, type SpSimWorld } from './world.ts';

export type SpEndpoint = 'summary' | 'incidents' | 'scheduled-maintenances';

/** incidents.json and scheduled-maintenances.json show the 50 most recent, as real pages do. */
export const SP_LIST_WINDOW = 50;

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : iso(ms));

function page(world: SpSimWorld): Record<string, unknown> {
  const { id, name, url, timeZone } = world.page;
  return { id, name, url, time_zone: timeZone, updated_at: iso(world.updatedMs) };
}

function component(c: SpSimComponent, pageId: string): Record<string, unknown> {
  return {
    id: c.id,
    name: c.name,
    status: c.status,
    created_at: '2017-03-01T18:00:00.000Z',
    updated_at: iso(c.updatedMs),
    position: c.position,
    description: null,
    showcase: false,
    start_date: null,
    group_id: c.groupId,
    page_id: pageId,
    group: c.children !== null,
    only_show_if_degraded: false,
    ...(c.children !== null ? { components: c.children } : {}),
  };
}

function incident(i: SpSimIncident, world: SpSimWorld): Record<string, unknown> {
  const byId = new Map(world.components.map((c) => [c.id, c]));
  const monitoring = i.updates.findLast((u) => u.status === 'monitoring' || u.status === 'verifying');
  return {
    id: i.id,
    name: i.name,
    status: i.status,
    created_at: iso(i.createdMs),
    updated_at: iso(i.updatedMs),
    monitoring_at: isoOrNull(monitoring?.createdMs),
    resolved_at: isoOrNull(i.resolvedMs),
    impact: i.impact,
    shortlink: `https://stspg.io/${i.id.slice(0, 12)}`,
    started_at: iso(i.createdMs),
    page_id: world.page.id,
    incident_updates: [...i.updates]
      .sort((a, b) => b.createdMs - a.createdMs)
      .map((u) => ({
        id: u.id,
        status: u.status,
        body: u.body,
        incident_id: i.id,
        created_at: iso(u.createdMs),
        updated_at: iso(u.updatedMs),
        display_at: iso(u.createdMs),
        affected_components:
          u.affected?.map((a) => ({ code: a.code, name: byId.get(a.code)?.name ?? a.code, old_status: a.oldStatus, new_status: a.newStatus })) ?? null,
        deliver_notifications: true,
        custom_tweet: null,
        tweet_id: null,
      })),
    // A snapshot of the components now, as real pages serve it.
    components: i.componentIds.flatMap((id) => {
      const c = byId.get(id);
      return c ? [component(c, world.page.id)] : [];
    }),
    reminder_intervals: null,
    ...(i.scheduledForMs !== undefined ? { scheduled_for: iso(i.scheduledForMs), scheduled_until: isoOrNull(i.scheduledUntilMs) } : {}),
  };
}

/** The headline: the worst component state, as Statuspage derives it (not the incidents' impact). */
function indicator(world: SpSimWorld): { indicator: string; description: string } {
  const states = new Set(world.components.map((c) => c.status));
  if (states.has('major_outage')) return { indicator: 'major', description: 'Major System Outage' };
  if (states.has('partial_outage') || states.has('degraded_performance')) return { indicator: 'minor', description: 'Partially Degraded Service' };
  if (states.has('under_maintenance')) return { indicator: 'maintenance', description: 'Service Under Maintenance' };
  return { indicator: 'none', description: 'All Systems Operational' };
}

const newestFirst = (list: readonly SpSimIncident[]) => [...list].sort((a, b) => b.createdMs - a.createdMs);

export function renderSpEndpoint(endpoint: SpEndpoint, world: SpSimWorld): FeedDocument {
  if (world.recorded) return { body: recordedBody(endpoint, world.recorded), lastModifiedMs: world.updatedMs };
  let value: Record<string, unknown>;
  switch (endpoint) {
    case 'summary':
      value = {
        page: page(world),
        components: world.components.map((c) => component(c, world.page.id)),
        incidents: newestFirst(world.incidents.filter(isOpenIncident)).map((i) => incident(i, world)),
        scheduled_maintenances: newestFirst(world.maintenances.filter(isOpenMaintenance)).map((m) => incident(m, world)),
        status: indicator(world),
      };
      break;
    case 'incidents':
      value = {
        page: page(world),
        incidents: newestFirst(world.incidents)
          .slice(0, SP_LIST_WINDOW)
          .map((i) => incident(i, world)),
      };
      break;
    case 'scheduled-maintenances':
      value = {
        page: page(world),
        scheduled_maintenances: newestFirst(world.maintenances)
          .slice(0, SP_LIST_WINDOW)
          .map((m) => incident(m, world)),
      };
      break;
  }
  return { body: JSON.stringify(value), lastModifiedMs: world.updatedMs };
}

/** A valid-looking summary of 12 MB, for clients that must cap what they read. */
export function oversizeSpBody(world: SpSimWorld, bytes: number): Uint8Array<ArrayBuffer> {
  const filler = { id: 'filler', name: 'x'.repeat(1000), status: 'operational', position: 1, group_id: null, group: false };
  const count = Math.ceil(bytes / (JSON.stringify(filler).length + 1)) + 1;
  const value = {
    page: page(world),
    components: Array.from({ length: count }, () => filler),
    incidents: [],
    scheduled_maintenances: [],
    status: indicator(world),
  };
  return new TextEncoder().encode(JSON.stringify(value));
}
