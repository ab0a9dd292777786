/** Pure decisions about what each feed endpoint shows, given the world and the current time. */
import { isOngoing, type SimIncident } from './world.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The feed endpoints the sim serves; v1 history is the same document as v2 history. */
export type FeedEndpoint = 'v2/current' | 'v2/history' | 'v1/current' | 'v1/history';

export type CurrentV2View = {
  status: 'ok' | 'active';
  dateCreatedMs: number;
  dateUpdatedMs: number;
  active: SimIncident[];
};

export type CurrentV1View = { kind: 'incident'; incident: SimIncident } | { kind: 'ok'; dateCreatedMs: number; dateUpdatedMs: number };

const byCreatedDesc = (a: SimIncident, b: SimIncident): number => b.dateCreatedMs - a.dateCreatedMs || b.dateUpdatedMs - a.dateUpdatedMs || b.id - a.id;

const byUpdatedDesc = (a: SimIncident, b: SimIncident): number => b.dateUpdatedMs - a.dateUpdatedMs || b.dateCreatedMs - a.dateCreatedMs || b.id - a.id;

/**
 * v2 current lists every ongoing incident. The top-level dates are not the request time: when ok
 * they echo the most recently created incident, when active the newest active one.
 * `emptyWorldMs` stands in when there is no incident at all.
 */
export function currentV2View(incidents: readonly SimIncident[], emptyWorldMs: number): CurrentV2View {
  const active = incidents.filter(isOngoing).sort(byCreatedDesc);
  const newest = active[0] ?? [...incidents].sort(byCreatedDesc)[0];
  return {
    status: active.length > 0 ? 'active' : 'ok',
    dateCreatedMs: newest?.dateCreatedMs ?? emptyWorldMs,
    dateUpdatedMs: newest?.dateUpdatedMs ?? emptyWorldMs,
    active,
  };
}

const TYPE_RANK: Readonly<Record<string, number>> = { outage: 0, incident: 1, notice: 2 };
const typeRank = (incident: SimIncident): number => TYPE_RANK[incident.type] ?? 3;

/** The "internal ranking" the docs mention, as we model it: outage > incident > notice, active first, newest. */
export function compareUrgency(a: SimIncident, b: SimIncident): number {
  const activeRank = (i: SimIncident): number => (i.status === 'active' ? 0 : 1);
  return typeRank(a) - typeRank(b) || activeRank(a) - activeRank(b) || byUpdatedDesc(a, b);
}

/**
 * v1 current shows one incident: the most urgent ongoing one; else the most recent one updated in
 * the last hour (so it can be `resolved`); else the terse ok object.
 */
export function currentV1View(incidents: readonly SimIncident[], nowMs: number, emptyWorldMs: number): CurrentV1View {
  const urgent = incidents.filter(isOngoing).sort(compareUrgency)[0];
  if (urgent) return { kind: 'incident', incident: urgent };
  const recent = incidents.filter((i) => i.dateUpdatedMs >= nowMs - HOUR_MS).sort(byUpdatedDesc)[0];
  if (recent) return { kind: 'incident', incident: recent };
  const v2 = currentV2View(incidents, emptyWorldMs);
  return { kind: 'ok', dateCreatedMs: v2.dateCreatedMs, dateUpdatedMs: v2.dateUpdatedMs };
}

/** History is a rolling window on date_updated, newest update first; ongoing incidents included. */
export function historyView(incidents: readonly SimIncident[], nowMs: number, windowDays: number): SimIncident[] {
  const oldestMs = nowMs - windowDays * DAY_MS;
  return incidents.filter((i) => i.dateUpdatedMs >= oldestMs).sort(byUpdatedDesc);
}
