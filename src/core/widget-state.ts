/**
 * The embeddable widget's data (`/widget.json`, also behind the badge and the element): how the
 * vendor's services stand now, small and stable, built from the ongoing incidents and feed health.
 */
import { assessKnowledge, type Knowledge } from './knowledge.ts';
import { compareUrgency } from './mirror.ts';
import type { Incident } from './incident.ts';
import { incidentPageUrl, oneLine, truncate } from './notification-message.ts';
import { toIsoUtc } from './vendor-time.ts';

/**
 * Best first. `maintenance` is a planned window: status `scheduled`, or the type some clients expect.
 * `unknown` is a service name the archive has never seen: nothing can be claimed about it, so it
 * outranks only `ok` (a known service in trouble is still shown as such).
 */
export const WIDGET_STATES = ['ok', 'unknown', 'maintenance', 'notice', 'incident', 'outage'] as const;
export type WidgetState = (typeof WIDGET_STATES)[number];

/** A filter longer than the vendor's whole service list (15 names, old and new) is cut here. */
export const WIDGET_SERVICES_MAX = 20;

/**
 * A title longer than this many characters (code points) is cut, ending in an ellipsis: the widget
 * is embedded in other sites and answered on every view, and a vendor can send a megabyte of
 * title. Real titles are under 100 characters; the archive and `/api/incidents/:id` keep the full one.
 */
export const WIDGET_TITLE_MAX_CHARS = 200;

/**
 * `/widget.json`, a public API: fields may be added, never renamed or removed.
 *
 * - `state`: the worst state among what the widget covers, `ok` when nothing is going on;
 *   `unknown` when a service asked for is one statuswatch never saw and nothing worse goes on;
 *   `unknown` too, and for every service, while `stale`: a state we cannot back is not shown.
 * - `stale`: the vendor's feed has not been read successfully for STALE_AFTER_MS (or never).
 * - `reads_failing`: not stale, but the latest reads failed: `state` is as of `last_read_at`
 *   (knowledge.ts readsFailingWords), not a fresh read.
 * - `last_read_at`: the last good read of the feed (UTC, ISO 8601); null when never read.
 * - `unknown_since`: while stale, the last good read (UTC, ISO 8601); null when fresh or never read.
 * - `last_known_state`: while stale, what the archive last said (`state` as it would be if
 *   fresh); null when fresh, and when the feed was never read (the archive says nothing then).
 * - `updated_at`: the vendor's latest update to an incident the widget covers, ongoing or over
 *   (UTC, ISO 8601); null when the archive holds none. It moves only when the state can have.
 * - `url`: the dashboard.
 * - `services`: `{name, state}` for each service asked for, in the order asked; without a filter,
 *   each service an ongoing incident names, by name. A service not listed is `ok`; a name never
 *   seen is `unknown`.
 * - `incidents`: the ongoing incidents covered, worst first: `{id, title (one line), type, status,
 *   state, services, updated_at, url}` (`url`: its page on the dashboard; `title` at most
 *   WIDGET_TITLE_MAX_CHARS characters).
 *
 * - `source`: present when a watched page was asked for (`?source=`): `{id, name}` of that page.
 *   Its components' own states count then: a service's state is the worst of its incidents' and
 *   its component's, and without a filter, every component not operational is listed.
 *
 * With a filter, an incident is covered when it names one of the services asked for; without one,
 * every ongoing incident is, including those that name no service.
 */
export type WidgetJson = {
  state: WidgetState;
  stale: boolean;
  reads_failing: boolean;
  last_read_at: string | null;
  unknown_since: string | null;
  last_known_state: WidgetState | null;
  updated_at: string | null;
  url: string;
  services: { name: string; state: WidgetState }[];
  incidents: WidgetIncident[];
  source?: { id: string; name: string };
};

export type WidgetIncident = {
  id: string;
  title: string;
  type: string;
  status: string;
  state: WidgetState;
  services: string[];
  updated_at: string;
  url: string;
};

export type WidgetStateInput = {
  /** store.ongoingIncidents(). */
  ongoing: readonly Incident[];
  /** The most recently updated incident the filter covers, ongoing or not (store.recentlyUpdated). */
  latest: Pick<Incident, 'dateUpdated'> | null;
  /** feedHealth().lastSuccessAt: the last poll that read the feed. */
  lastSuccessAt: number | null;
  /** feedHealth().consecutiveFailures: reads failed since then. */
  consecutiveFailures?: number;
  now: number;
  /** Older than this, the last successful read makes the data stale. */
  staleAfterMs: number;
  /** Exact service names; absent or empty: everything. */
  services?: readonly string[];
  /** Origin (and path, if any) of the dashboard: PUBLIC_URL, or the request's own. */
  baseUrl: string;
  /** Names asked for that statuswatch does not know (see known-services.ts): their state is `unknown`. */
  unknownServices?: readonly string[];
  /** A watched page's: the page and the states it gives its components now (by name, groups left out). */
  source?: { id: string; name: string; components: ReadonlyMap<string, WidgetState> };
};

const RANK: Record<WidgetState, number> = { ok: 0, unknown: 1, maintenance: 2, notice: 3, incident: 4, outage: 5 };

/** The documented types by name; an unknown type is something going on, shown as a notice. */
export function incidentState(incident: Pick<Incident, 'type' | 'status'>): Exclude<WidgetState, 'ok' | 'unknown'> {
  if (incident.status === 'scheduled' || incident.type === 'maintenance') return 'maintenance';
  return incident.type === 'outage' || incident.type === 'incident' ? incident.type : 'notice';
}

/**
 * A service's state in words, as every face that names services says it (the dashboard's rows, the
 * widget's list). An incident that is not an outage means the service works, but not fully:
 * "Degraded". A notice is the vendor telling something (a change, a heads-up), not reporting a
 * fault: the service is "Operational", and the notice is listed as going on.
 */
export const SERVICE_STATE_WORDS: Record<WidgetState, string> = {
  ok: 'Operational',
  notice: 'Operational',
  maintenance: 'Maintenance',
  incident: 'Degraded',
  outage: 'Outage',
  unknown: 'Unknown',
};

/**
 * Each service's state now, from the ongoing incidents that name it (worst wins); a service no
 * ongoing incident names is `ok`. Blind (`known` false), every service is `unknown`.
 */
export function serviceStatesNow(
  ongoing: readonly Pick<Incident, 'type' | 'status' | 'services'>[],
  services: readonly string[],
  known: boolean,
): Map<string, WidgetState> {
  const states = new Map<string, WidgetState>(services.map((name) => [name, known ? 'ok' : 'unknown']));
  if (!known) return states;
  for (const incident of ongoing) {
    const state = incidentState(incident);
    for (const name of incident.services) if (states.has(name)) states.set(name, worstState([states.get(name)!, state]));
  }
  return states;
}

export function worstState(states: Iterable<WidgetState>): WidgetState {
  let worst: WidgetState = 'ok';
  for (const state of states) if (RANK[state] > RANK[worst]) worst = state;
  return worst;
}

/**
 * What a whole (the vendor, or a watched page) says of itself: the worst of its ongoing incidents
 * and of its components' own states (by name, groups left out: sourceComponentStates). The one
 * rule behind every face's overall state, the dashboard's overview and the widget alike.
 */
export function statedState(ongoing: readonly Pick<Incident, 'type' | 'status'>[], components: Iterable<WidgetState>): WidgetState {
  return worstState([...ongoing.map((incident) => incidentState(incident)), ...components]);
}

/** The whole's state now: what it says while known, `unknown` while blind or never read, whatever was last read. */
export function overallState(knowledge: Knowledge, stated: WidgetState): WidgetState {
  return knowledge.kind === 'known' ? stated : 'unknown';
}

export function buildWidgetState(input: WidgetStateInput): WidgetJson {
  const filter = input.services && input.services.length > 0 ? [...new Set(input.services)].slice(0, WIDGET_SERVICES_MAX) : null;
  const wanted = filter ? new Set(filter) : null;
  const covered = input.ongoing
    .filter((incident) => !wanted || incident.services.some((name) => wanted.has(name)))
    .map((incident) => ({ incident, state: incidentState(incident) }))
    .sort((a, b) => RANK[b.state] - RANK[a.state] || compareUrgency(a.incident, b.incident));

  const unknown = new Set(input.unknownServices);
  const components = input.source?.components ?? new Map<string, WidgetState>();
  // Without a filter, a page's components in trouble are listed as its incidents' services are.
  const troubled = filter ? [] : [...components].filter(([, state]) => state !== 'ok').map(([name]) => name);
  // Code-unit order, not the locale's: the same bytes on every host, so the same ETag.
  const names = filter ?? [...new Set([...covered.flatMap(({ incident }) => incident.services), ...troubled])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const byService = serviceStatesNow(
    covered.map(({ incident }) => incident),
    names,
    true,
  );
  for (const [name, state] of byService) {
    const own = components.get(name);
    if (own !== undefined) byService.set(name, worstState([state, own]));
  }
  for (const name of unknown) if (byService.has(name)) byService.set(name, worstState([byService.get(name)!, 'unknown']));

  const updatedMs = Math.max(input.latest?.dateUpdated.ms ?? -Infinity, ...covered.map(({ incident }) => incident.dateUpdated.ms));
  const lastKnown = worstState([
    statedState(
      covered.map(({ incident }) => incident),
      filter ? filter.flatMap((name) => components.get(name) ?? []) : components.values(),
    ),
    ...(filter?.some((name) => unknown.has(name)) ? ['unknown' as const] : []),
  ]);
  const knowledge = assessKnowledge({
    lastSuccessAt: input.lastSuccessAt,
    now: input.now,
    staleAfterMs: input.staleAfterMs,
    consecutiveFailures: input.consecutiveFailures,
  });
  const known = knowledge.kind === 'known';
  return {
    state: overallState(knowledge, lastKnown),
    stale: !known,
    reads_failing: knowledge.kind === 'known' && knowledge.readsFailing,
    last_read_at: input.lastSuccessAt === null ? null : toIsoUtc(input.lastSuccessAt),
    unknown_since: knowledge.kind === 'stale' ? toIsoUtc(knowledge.since) : null,
    last_known_state: knowledge.kind === 'stale' ? lastKnown : null,
    updated_at: Number.isFinite(updatedMs) ? toIsoUtc(updatedMs) : null,
    url: `${input.baseUrl.replace(/\/+$/, '')}/`,
    // Blind, no service is shown in a state: the ongoing incidents below are what we last knew.
    services: names.map((name) => ({ name, state: known ? (byService.get(name) ?? 'ok') : 'unknown' })),
    incidents: covered.map(({ incident, state }) => ({
      id: incident.id,
      title: truncate(oneLine(incident.title), WIDGET_TITLE_MAX_CHARS),
      type: incident.type,
      status: incident.status,
      state,
      services: incident.services,
      updated_at: toIsoUtc(incident.dateUpdated.ms),
      url: incidentPageUrl(input.baseUrl, incident.id),
    })),
    ...(input.source ? { source: { id: input.source.id, name: input.source.name } } : {}),
  };
}
