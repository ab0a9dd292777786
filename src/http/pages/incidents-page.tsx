/** The body of `/incidents`: filters and search, then one page of results. */
import type { ListedIncident } from '../../core/ports.ts';
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
};

export function IncidentsPage(props: { data: IncidentsPageData }) {
  const { query, incidents, params, nextCursor, onFirstPage } = props.data;
  return (
    <>
      <h1>Incidents</h1>
      <IncidentFilters query={query} />
      <section aria-labelledby="results-title">
        <h2 id="results-title">{resultsTitle(incidents.length, isFiltered(query), onFirstPage)}</h2>
        {incidents.length > 0 && <IncidentList incidents={incidents} />}
        <Pagination path="/incidents" params={params} nextCursor={nextCursor} onFirstPage={onFirstPage} />
      </section>
    </>
  );
}

function isFiltered(query: IncidentQuery): boolean {
  return query.q !== '' || query.since !== '' || query.until !== '' || [query.services, query.types, query.statuses].some((l) => l.length > 0);
}

function resultsTitle(count: number, filtered: boolean, onFirstPage: boolean): string {
  if (count === 0) return filtered ? 'No incident matches these filters' : 'No incidents archived yet';
  const what = `${count} ${count === 1 ? 'incident' : 'incidents'}${filtered ? ' matching' : ''}`;
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
