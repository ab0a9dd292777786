/**
 * How the watched pages stand now, read once for a face: the overview of every source on `/`, one
 * source's page, and the source a `?source=` names (the widget, the badge, the feeds, MCP). Each
 * source's knowledge comes from its own polls, with the main feed's limit and words
 * (core/knowledge.ts), so a page that is blind or never read is unknown on every face.
 */
import { ApiError } from '../core/errors.ts';
import { assessKnowledge, type Knowledge } from '../core/knowledge.ts';
import type { ArchiveQueries, ListedIncident, SourceStore, StoredComponentState, StoredIncident, StoredSource } from '../core/ports.ts';
import { componentState, sourceState } from '../core/source-state.ts';
import { compareUrgency } from '../core/mirror.ts';
import { MAIN_FEED_SOURCE, sourceOfIncidentId } from '../core/statuspage/mapping.ts';
import type { WidgetState } from '../core/widget-state.ts';

/** A source's page lists at most this many of its latest incidents, ongoing or over. */
export const SOURCE_RECENT_INCIDENTS = 10;

export type SourceStatusStore = Pick<SourceStore, 'listSources' | 'getSource' | 'componentStates' | 'allComponentStates'> &
  Pick<ArchiveQueries, 'ongoingIncidents' | 'recentlyUpdated'>;

/** One source in the overview: what it is, its state as a whole, and what goes on there. */
export type SourceOverview = {
  id: string;
  name: string;
  url: string;
  knowledge: Knowledge;
  state: WidgetState;
  /** Worst first. */
  ongoing: StoredIncident[];
};

export type SourceComponentView = StoredComponentState & { state: WidgetState };

export type SourceDetail = SourceOverview & {
  /** Consecutive failed reads since the last good one. */
  consecutiveFailures: number;
  components: SourceComponentView[];
  /** Newest update first, ongoing or over. */
  recent: ListedIncident[];
};

export function sourceKnowledge(source: StoredSource, nowMs: number): Knowledge {
  return assessKnowledge({ lastSuccessAt: source.poll.lastSuccessAt, now: nowMs, consecutiveFailures: source.poll.consecutiveFailures });
}

/** The source an id names; ApiError 404 `source_not_found` when there is none ("main" is not one: it has faces of its own). */
export async function requireSource(store: Pick<SourceStore, 'getSource'>, id: string): Promise<StoredSource> {
  const source = id === MAIN_FEED_SOURCE ? null : await store.getSource(id);
  if (!source) throw new ApiError(404, 'source_not_found', 'no source with that id: GET /api/sources lists them');
  return source;
}

/**
 * The watched page a person named, as in a chat command: its own name, in any case, spaces around
 * ignored; the oldest when two share it; null when none has it.
 */
export function sourceNamed<S extends Pick<StoredSource, 'name'>>(sources: readonly S[], asked: string): S | null {
  const folded = asked.trim().toLowerCase();
  return sources.find((source) => source.name.trim().toLowerCase() === folded) ?? null;
}

function overviewOf(source: StoredSource, components: StoredComponentState[], ongoing: StoredIncident[], nowMs: number): SourceOverview {
  const knowledge = sourceKnowledge(source, nowMs);
  const view: SourceOverview = {
    id: source.id,
    name: source.name,
    url: source.url,
    knowledge,
    state: sourceState({ knowledge, components, ongoing }),
    ongoing: [...ongoing].sort(compareUrgency),
  };
  return view;
}

/** Every source added beside the main feed, oldest first, each with its state now. */
export async function sourcesOverview({ store }: { store: SourceStatusStore }, nowMs: number): Promise<SourceOverview[]> {
  // Three reads however many pages are watched: the list is rebuilt on every render of `/`.
  const [sources, ongoing, components] = await Promise.all([store.listSources(), store.ongoingIncidents(), store.allComponentStates()]);
  const bySource = new Map<string, StoredIncident[]>();
  for (const incident of ongoing) {
    const id = sourceOfIncidentId(incident.id);
    if (id === MAIN_FEED_SOURCE) continue;
    const list = bySource.get(id) ?? [];
    list.push(incident);
    bySource.set(id, list);
  }
  return sources.map((source) => overviewOf(source, components.get(source.id) ?? [], bySource.get(source.id) ?? [], nowMs));
}

/** One source's page: its state, its components and theirs, its ongoing and latest incidents. Throws 404 for no such source. */
export async function sourceStatus({ store }: { store: SourceStatusStore }, id: string, nowMs: number): Promise<SourceDetail> {
  const source = await requireSource(store, id);
  const [ongoing, recent, components] = await Promise.all([
    store.ongoingIncidents(source.id),
    store.recentlyUpdated({ source: source.id }, SOURCE_RECENT_INCIDENTS),
    store.componentStates(source.id),
  ]);
  const view = overviewOf(source, components, ongoing, nowMs);
  const known = view.knowledge.kind === 'known';
  return {
    ...view,
    consecutiveFailures: source.poll.consecutiveFailures,
    components: components.map((c) => ({ ...c, state: componentState(c.status, known) })),
    recent,
  };
}
