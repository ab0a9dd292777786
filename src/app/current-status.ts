/**
 * The vendor's state now: what `/widget.json` (and the badge, embed and script built on it), the
 * MCP tool `current_status` and the workspace app's slash command all answer, from one read of the
 * archive, with one rule for a stale feed and for names never seen.
 */
import { STALE_AFTER_MS } from '../core/knowledge.ts';
import { MAIN_FEED_SOURCE } from '../core/statuspage/mapping.ts';
import { unknownServices } from '../core/known-services.ts';
import type { Clock, Store } from '../core/ports.ts';
import { type KnownServicesStore, vendorServiceNames } from './known-services.ts';
import { sourceComponentStates } from '../core/source-state.ts';
import { buildWidgetState, type WidgetJson } from '../core/widget-state.ts';
import { requireSource } from './source-status.ts';

export type CurrentStatusDeps = {
  store: Pick<Store, 'ongoingIncidents' | 'recentlyUpdated' | 'feedHealth' | 'getSource' | 'componentStates'> & KnownServicesStore;
  clock: Clock;
};

/**
 * `services`: exact names, already bounded by the face; undefined for every service. `baseUrl`: the dashboard's.
 * `source`: a watched page's id for that page's state (ApiError 404 when there is none); absent or "main", the vendor's.
 */
export async function currentStatus(
  { store, clock }: CurrentStatusDeps,
  request: { services: string[] | undefined; baseUrl: string; nowMs: number; source?: string },
): Promise<WidgetJson> {
  if (request.source !== undefined && request.source !== MAIN_FEED_SOURCE) return sourceCurrentStatus(store, request.source, request);
  const { services } = request;
  const [ongoing, latest, health, names] = await Promise.all([
    // The main feed's state: another source's incidents are not this vendor's.
    store.ongoingIncidents(MAIN_FEED_SOURCE),
    store.recentlyUpdated({ services, source: MAIN_FEED_SOURCE }, 1),
    store.feedHealth(),
    // The vendor's own names: a name only a watched page uses is not one of the vendor's services.
    services ? vendorServiceNames(store, clock)() : Promise.resolve([]),
  ]);
  return buildWidgetState({
    ongoing,
    latest: latest[0] ?? null,
    lastSuccessAt: health.lastSuccessAt,
    consecutiveFailures: health.consecutiveFailures,
    now: request.nowMs,
    staleAfterMs: STALE_AFTER_MS,
    services,
    unknownServices: unknownServices(services, names),
    baseUrl: request.baseUrl,
  });
}

/** A watched page's state: its incidents and its components' own states, known from its own polls. */
async function sourceCurrentStatus(
  store: CurrentStatusDeps['store'],
  id: string,
  request: { services: string[] | undefined; baseUrl: string; nowMs: number },
): Promise<WidgetJson> {
  const { services } = request;
  const source = await requireSource(store, id);
  const [ongoing, latest, components] = await Promise.all([
    store.ongoingIncidents(source.id),
    store.recentlyUpdated({ services, source: source.id }, 1),
    store.componentStates(source.id),
  ]);
  const states = sourceComponentStates(components);
  return buildWidgetState({
    ongoing,
    latest: latest[0] ?? null,
    lastSuccessAt: source.poll.lastSuccessAt,
    consecutiveFailures: source.poll.consecutiveFailures,
    now: request.nowMs,
    staleAfterMs: STALE_AFTER_MS,
    services,
    // The page's own components are the names it knows.
    unknownServices: unknownServices(services, [...states.keys()]),
    baseUrl: request.baseUrl,
    source: { id: source.id, name: source.name, components: states },
  });
}
