/** Merges what one poll read from several feed endpoints into one view per incident. */
import type { Incident } from './incident.ts';

export type FeedSource = 'v2/current' | 'v1/current' | 'v2/history';

export type Observation = { source: FeedSource; incidents: readonly Incident[] };

/**
 * One incident per id: the copy with the later date_updated, and on a tie the copy from the
 * earlier source in the list (pass `current` first: it is the endpoint the vendor keeps freshest,
 * and the feed edits in place without moving date_updated).
 */
export function mergeObservations(observations: readonly Observation[]): Incident[] {
  const chosen = new Map<string, Incident>();
  for (const { incidents } of observations) {
    for (const incident of incidents) {
      const existing = chosen.get(incident.id);
      if (!existing || incident.dateUpdated.ms > existing.dateUpdated.ms) chosen.set(incident.id, incident);
    }
  }
  return [...chosen.values()];
}
