/** The body of `/incidents`: filters and search, then one page of results. */
import type { IncidentCount, ListedIncident } from '../../core/ports.ts';
import { IncidentFilters, type IncidentQuery } from './incident-filters.tsx';
import { IncidentList } from './incident-list.tsx';
import { Pagination } from './pagination.tsx';

export type IncidentsPageData = {
  query: IncidentQuery;
  incidents: ListedIncident[];
  /** The filters as URL parameters, without the cursor: what the page links keep. */
  params: URLSearchParams;
  nextCursor: string;
  onFirstPage: boolean;
  /** Every incident the filters match, on all pages (a floor when not exact). */
  total: IncidentCount;
};

export function IncidentsPage(props: { data: IncidentsPageData }) {
  const { query, incidents, params, nextCursor, onFirstPage, total } = props.data;
  const paged = !onFirstPage || nextCursor !== '';
  return (
    <>
      <h1>Incidents</h1>
      <IncidentFilters query={query} />
      <section aria-labelledby="results-title">
        <h2 id="results-title">{resultsTitle(total, incidents.length, isFiltered(query), onFirstPage)}</h2>
        {paged && incidents.length > 0 ? <p class="muted">{incidents.length} on this page.</p> : null}
        {incidents.length > 0 && <IncidentList incidents={incidents} />}
        <Pagination path="/incidents" params={params} nextCursor={nextCursor} onFirstPage={onFirstPage} />
      </section>
    </>
  );
}

function isFiltered(query: IncidentQuery): boolean {
  return (
    query.q !== '' || query.since !== '' || query.until !== '' || query.source !== '' || [query.services, query.types, query.statuses].some((l) => l.length > 0)
  );
}

/** "1,234 incidents matching, newest first": the count of every page, not of this one. */
function resultsTitle(total: IncidentCount, shown: number, filtered: boolean, onFirstPage: boolean): string {
  if (shown === 0 && onFirstPage) return filtered ? 'No incident matches these filters' : 'No incidents archived yet';
  // A count that stopped at its bound is a floor, and says so.
  const count = Math.max(total.count, shown);
  const number = `${total.exact ? '' : 'At least '}${count.toLocaleString('en-US')}`;
  const what = `${number} ${count === 1 ? 'incident' : 'incidents'}${filtered ? ' matching' : ''}`;
  return onFirstPage ? `${what}, newest first` : `${what}, continued`;
}

/** The form again, above the reason the filters could not be used: the reader fixes them in place. */
export function BadFiltersPage(props: { query: IncidentQuery; message: string }) {
  return (
    <>
      <h1>Incidents</h1>
      <div class="warning" role="alert">
        <p>
          <strong>These filters cannot be used.</strong> {props.message}
        </p>
      </div>
      <IncidentFilters query={props.query} />
    </>
  );
}
