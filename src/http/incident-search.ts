/**
 * One page of the archive's incidents, filtered and searched: what `GET /api/incidents` and the
 * MCP tool `search_incidents` both answer, with the same rules, limits and cursors.
 */
import { z } from 'zod';
import type { CursorCodec } from '../core/cursor.ts';
import { ApiError, SearchTooBroadError } from '../core/errors.ts';
import type { IncidentCount, IncidentFilter, IncidentPosition, ListedIncident, Store } from '../core/ports.ts';
import { parseSearch, SEARCH_LIMITS } from '../core/search-query.ts';
import { requireKnownServices } from './known-services.ts';
import { INCIDENT_TOTAL_MAX, readCursor } from './query-params.ts';

const incidentCursor = z.object({ k: z.literal('incidents'), s: z.number().int() });

export type IncidentSearch = {
  /** Services, types, statuses and dates; `q` is taken from `query`. */
  filter: Omit<IncidentFilter, 'q'>;
  /** Words as a person typed them. */
  query?: string;
  /** Already adjusted to the list's bounds (pageLimit). */
  limit: number;
  cursor?: string;
};

/** `total`: how many match in all, counted up to INCIDENT_TOTAL_MAX (then `exact` is false). */
export type IncidentPage = { incidents: ListedIncident[]; nextCursor: string; total: IncidentCount };

export type IncidentSearchDeps = { store: Store; cursors: CursorCodec; known: () => Promise<string[]> };

/** Throws ApiError (400) for an unknown service, a bad cursor, or a search beyond SEARCH_LIMITS. */
export async function searchIncidents({ store, cursors, known }: IncidentSearchDeps, search: IncidentSearch): Promise<IncidentPage> {
  const after = await readCursor<IncidentPosition>(cursors, search.cursor, (payload) => {
    const parsed = incidentCursor.safeParse(payload);
    return parsed.success ? { sortKey: parsed.data.s } : null;
  });
  const filter: IncidentFilter = { ...search.filter };
  // An empty list for a misspelt name would read as "no incidents ever": say the name is unknown.
  await requireKnownServices(known, 'service', filter.services);
  const q = search.query?.trim();
  if (q) {
    const parsed = parseSearch(q);
    if (!parsed.ok) throw new ApiError(400, parsed.rule === 'no_words' ? 'invalid_request' : 'invalid_query', `q: ${parsed.detail}`);
    filter.q = parsed.match;
  }
  // A search's pages are smaller than a list's: adjusted, as every limit is, never refused.
  const limit = filter.q ? Math.min(search.limit, SEARCH_LIMITS.maxPageSize) : search.limit;
  // One extra row says whether another page exists; the total is counted beside it, bounded.
  const [rows, total] = await Promise.all([store.listIncidents(filter, after, limit + 1), store.countIncidents(filter, INCIDENT_TOTAL_MAX)]).catch(
    (error: unknown) => {
      if (!(error instanceof SearchTooBroadError)) throw error;
      throw new ApiError(
        400,
        'invalid_query',
        `q: ${error.message}, too many to filter by service, type or status; add a word, or narrow the dates with since and until`,
      );
    },
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rows.length > limit && last ? await cursors.encode({ k: 'incidents', s: last.sortKey }) : '';
  return { incidents: page, nextCursor, total };
}
