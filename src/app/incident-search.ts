/**
 * One page of the archive's incidents, filtered and searched: what `GET /api/incidents`, the
 * `/incidents` page and the MCP tool `search_incidents` all answer, with the same rules, limits
 * and cursors. Each face parses its own input and words a refusal its own way.
 */
import type { CursorCodec } from '../core/cursor.ts';
import { ApiError, SearchTooBroadError } from '../core/errors.ts';
import type { ArchiveQueries, IncidentCount, IncidentFilter, IncidentPosition, ListedIncident, ListedIncidentJson } from '../core/ports.ts';
import { parseSearch, SEARCH_LIMITS } from '../core/search-query.ts';
import { isWhole, keyedList, pageAfter, readPosition } from './cursor-page.ts';
import { requireKnownServices, type ServiceNamesOfSource } from './known-services.ts';

/**
 * A list's total is counted up to this many incidents, so the count never costs more than the page
 * beside it: over 100,000 incidents, counting 10,000 `service=Files` matches took 12 ms against
 * 1.2 ms for the page of 100, and 1,000 of them 1.2 ms. Past it the total is a floor.
 */
export const INCIDENT_TOTAL_MAX = 1_000;

/** The archive's incidents, newest first, by sort key. */
const INCIDENTS = keyedList<number>('incidents', 's', isWhole);

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
export type IncidentPage<Incident = ListedIncident> = { incidents: Incident[]; nextCursor: string; total: IncidentCount };

export type IncidentSearchDeps = {
  store: Pick<ArchiveQueries, 'listIncidents' | 'listIncidentsJson' | 'countIncidents'>;
  cursors: CursorCodec;
  known: ServiceNamesOfSource;
};

/** Why the words of a search were refused; `fact` says what was wrong, without the field's name. */
export type SearchRefusalRule = 'no_words' | 'too_complex' | 'too_broad';

/** A refused search: the API answers it as it is, a page words it for its form from `rule` and `fact`. */
export class SearchRefusedError extends ApiError {
  constructor(
    readonly rule: SearchRefusalRule,
    readonly fact: string,
    detail: string,
  ) {
    super(400, rule === 'no_words' ? 'invalid_request' : 'invalid_query', detail);
  }
}

/**
 * Throws ApiError (400): `invalid_cursor` for a cursor of another list, `unknown_service` naming
 * the known ones, and a SearchRefusedError for words beyond SEARCH_LIMITS.
 */
export function searchIncidents(deps: IncidentSearchDeps, search: IncidentSearch): Promise<IncidentPage>;
/** `json`: each incident as the JSON API lists it, as text (ArchiveQueries.listIncidentsJson). */
export function searchIncidents(deps: IncidentSearchDeps, search: IncidentSearch, as: 'json'): Promise<IncidentPage<ListedIncidentJson>>;
export function searchIncidents(deps: IncidentSearchDeps, search: IncidentSearch, as?: 'json'): Promise<IncidentPage<ListedIncident | ListedIncidentJson>> {
  if (as === 'json') return searchWith(deps, search, (filter, after, limit) => deps.store.listIncidentsJson(filter, after, limit));
  return searchWith(deps, search, (filter, after, limit) => deps.store.listIncidents(filter, after, limit));
}

async function searchWith<Incident extends { sortKey: number }>(
  { store, cursors, known }: IncidentSearchDeps,
  search: IncidentSearch,
  list: (filter: IncidentFilter, after: IncidentPosition | null, limit: number) => Promise<Incident[]>,
): Promise<IncidentPage<Incident>> {
  const after = await readPosition(cursors, INCIDENTS, search.cursor);
  const filter: IncidentFilter = { ...search.filter };
  // An empty list for a misspelt name would read as "no incidents ever": say the name is unknown.
  await requireKnownServices(() => known(filter.source), 'service', filter.services);
  const q = search.query?.trim();
  if (q) {
    const parsed = parseSearch(q);
    if (!parsed.ok) throw new SearchRefusedError(parsed.rule === 'no_words' ? 'no_words' : 'too_complex', parsed.detail, `q: ${parsed.detail}`);
    filter.q = parsed.match;
  }
  // A search's pages are smaller than a list's: adjusted, as every limit is, never refused.
  const limit = filter.q ? Math.min(search.limit, SEARCH_LIMITS.maxPageSize) : search.limit;
  // The total is counted beside the page, bounded.
  const [{ page, next }, total] = await Promise.all([
    pageAfter(
      cursors,
      INCIDENTS,
      after,
      limit,
      (sortKey, n) => list(filter, sortKey === null ? null : ({ sortKey } satisfies IncidentPosition), n),
      (incident) => incident.sortKey,
    ),
    store.countIncidents(filter, INCIDENT_TOTAL_MAX),
  ]).catch((error: unknown) => {
    if (!(error instanceof SearchTooBroadError)) throw error;
    throw new SearchRefusedError(
      'too_broad',
      error.message,
      `q: ${error.message}, too many to filter by service, type or status; add a word, or narrow the dates with since and until`,
    );
  });
  return { incidents: page, nextCursor: next, total };
}
