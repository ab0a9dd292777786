/**
 * The vendor's track record, as `/api/reliability`, the `/reliability` page and the MCP tool
 * `reliability` all answer it: read and computed once per archive change, shared by them all.
 */
import { noDataIntervals, type Interval } from '../core/coverage.ts';
import type { ArchiveReads, Clock, IncidentSpan, SourceStore, StoredSource } from '../core/ports.ts';
import { computeReliability, reliabilitySince, type Reliability } from '../core/reliability.ts';
import { MAIN_FEED_SOURCE } from '../core/statuspage/mapping.ts';
import { perStoreMemo } from './generation-memo.ts';
import { requireSource } from './source-status.ts';

/**
 * The figures move with the archive and with the clock (ongoing incidents, the windows): they are
 * rebuilt when the archive changed, or after this long, as the API's response cache does. A year
 * of a busy archive takes a hundred milliseconds or more to read and compute; a page view should not.
 */
const FIGURES_MAX_AGE_MS = 60_000;

/** What the figures are read from: the spans, the coverage and the feed's health, rebuilt when the generation moves. */
export type ReliabilityStore = Pick<ArchiveReads, 'archiveGeneration' | 'incidentSpans' | 'dataCoverage' | 'feedHealth'>;

/** The track record's figures, rebuilt when the archive changed or after FIGURES_MAX_AGE_MS. */
export const reliabilityFigures: (store: ReliabilityStore, clock: Clock) => () => Promise<Reliability> = perStoreMemo(
  FIGURES_MAX_AGE_MS,
  async (store: ReliabilityStore, nowMs) => {
    const { spans, noData } = await mainFeedHistory(store, reliabilitySince(nowMs), nowMs);
    return computeReliability(spans, { nowMs, noData });
  },
);

/**
 * The main feed's incident spans since `sinceMs` and the time it has no data for up to `nowMs`:
 * what the vendor's track record and its daily bars are drawn from. The other pages' incidents
 * are theirs, and so is their coverage.
 */
export async function mainFeedHistory(
  store: Pick<ArchiveReads, 'incidentSpans' | 'dataCoverage' | 'feedHealth'>,
  sinceMs: number,
  nowMs: number,
): Promise<{ spans: IncidentSpan[]; noData: Interval[] }> {
  const [spans, coverage, health] = await Promise.all([store.incidentSpans(sinceMs, MAIN_FEED_SOURCE), store.dataCoverage(sinceMs), store.feedHealth()]);
  return { spans, noData: noDataIntervals(coverage, health.lastSuccessAt, nowMs) };
}

/** What a watched page's track record is read from. */
export type SourceReliabilityStore = Pick<ArchiveReads, 'incidentSpans'> & Pick<SourceStore, 'getSource' | 'componentStates' | 'blindSpells'>;

/**
 * A watched page's track record, computed when asked (the faces' response caches keep it): its
 * incidents alone, over the time statuswatch has watched it. The archive holds the page's history
 * from before it was added, but no reads of that time, so that time counts neither way; nor do
 * the page's past blind spells, nor its blindness now. Throws ApiError 404 when no such page is watched.
 */
export async function sourceReliability(store: SourceReliabilityStore, id: string, nowMs: number): Promise<{ source: StoredSource; figures: Reliability }> {
  const source = await requireSource(store, id);
  const since = reliabilitySince(nowMs);
  const [spans, components, blind] = await Promise.all([
    store.incidentSpans(since, source.id),
    store.componentStates(source.id),
    store.blindSpells(source.id, since),
  ]);
  const noData = noDataIntervals({ beganAt: source.createdAt, blind }, source.poll.lastSuccessAt, nowMs);
  // The page's services are its components (groups are their children's).
  const services = components.filter((c) => !c.isGroup).map((c) => c.name);
  return { source, figures: computeReliability(spans, { nowMs, noData, services }) };
}
