/** The dashboard's HTML pages: `/` (the state now), `/incidents` (the searchable history), `/incidents/:id`. */
import { Hono, type Context } from 'hono';
import { MAIN_FEED_SOURCE } from '../../core/statuspage/mapping.ts';
import { feedKnowledge } from '../../app/feed-knowledge.ts';
import { generationMemo } from '../../app/generation-memo.ts';
import { incidentHistory } from '../../app/incident-history.ts';
import { type IncidentPage as IncidentSearchPage, SearchRefusedError, searchIncidents } from '../../app/incident-search.ts';
import { knownServiceNames } from '../../app/known-services.ts';
import { mainFeedHistory, reliabilityFigures } from '../../app/reliability-figures.ts';
import { type SourceStatusStore, sourcesOverview, sourceStatus } from '../../app/source-status.ts';
import { ApiError } from '../../core/errors.ts';
import { compareUrgency } from '../../core/mirror.ts';
import type { ArchiveReads, IncidentFilter } from '../../core/ports.ts';
import { DAY_MS, NO_SERVICE_ROW, serviceDays } from '../../core/service-days.ts';
import { incidentState, serviceStatesNow, worstState } from '../../core/widget-state.ts';
import type { AppDeps } from '../deps.ts';
import { ErrorMessage } from '../pages/error-page.tsx';
import type { IncidentQuery } from '../pages/incident-filters.tsx';
import { IncidentPage } from '../pages/incident-page.tsx';
import { BadFiltersPage, IncidentsPage } from '../pages/incidents-page.tsx';
import { pageResponder } from '../pages/layout.tsx';
import { pageSecurity } from '../pages/page-security.ts';
import { SourcePage } from '../pages/source-pages.tsx';
import { StatusPage } from '../pages/status-page.tsx';
import { incidentFilterParams, listParam, pageLimit } from '../query-params.ts';

const BAR_DAYS = 90;
/** A page people read, not a batch for a client: smaller than the API's default. */
const PAGE_SIZE = 25;
const PAGE_SIZE_MAX = 100;
/** The bars end today (UTC): rebuilt at least this often, so a new day shows within a minute. */
const BARS_MAX_AGE_MS = 60_000;
const FILTER_PARAMS = ['q', 'service', 'type', 'status', 'since', 'until', 'limit', 'source'];

export type DashboardRouteDeps = Pick<AppDeps, 'clock' | 'cursors' | 'assets' | 'sanitizeHtml'> & { store: ArchiveReads & SourceStatusStore };

export function dashboardRoutes(deps: DashboardRouteDeps) {
  const { store, clock, cursors } = deps;
  const app = new Hono();
  const known = knownServiceNames(store, clock);
  const figures = reliabilityFigures(store, clock);
  const secure = pageSecurity();

  const page = pageResponder(deps.assets);

  // The bars are most of the page's work and change only with the archive (or at midnight UTC).
  const bars = generationMemo({
    generation: () => store.archiveGeneration(),
    clock,
    maxAgeMs: BARS_MAX_AGE_MS,
    // A span that began before the window can still touch its first day.
    build: async (nowMs) => {
      const { spans, noData } = await mainFeedHistory(store, nowMs - BAR_DAYS * DAY_MS, nowMs);
      return serviceDays(spans, { nowMs, days: BAR_DAYS, noData });
    },
  });

  app.get('/', secure, async (c) => {
    const [ongoing, { health, knowledge }, rows, track, sources] = await Promise.all([
      store.ongoingIncidents(MAIN_FEED_SOURCE),
      feedKnowledge({ store }, clock.now()),
      bars(),
      figures(),
      sourcesOverview({ store }, clock.now()),
    ]);
    const now = serviceStatesNow(
      ongoing,
      rows.map((row) => row.service),
      knowledge.kind === 'known',
    );
    // Incidents that name no service are on no service's row, so none gets a state from them; the
    // banner and the list above speak for them.
    if (now.has(NO_SERVICE_ROW) && knowledge.kind === 'known') {
      now.set(NO_SERVICE_ROW, worstState(ongoing.filter((incident) => incident.services.length === 0).map(incidentState)));
    }
    const availability = new Map(
      track.services.map(({ service, windows }) => [service, windows.find((window) => window.days === BAR_DAYS)?.availability ?? null]),
    );
    const data = { ongoing: [...ongoing].sort(compareUrgency), health, knowledge, rows, days: BAR_DAYS, now, availability, sources };
    return page(c, 'Status', <StatusPage data={data} sanitize={deps.sanitizeHtml} />);
  });

  app.get('/sources/:id', secure, async (c) => {
    const id = c.req.param('id');
    let source: Awaited<ReturnType<typeof sourceStatus>>;
    try {
      source = await sourceStatus({ store }, id, clock.now());
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      const message = `No status page “${id.slice(0, 64)}” is watched.`;
      return page(
        c,
        'Status page not found',
        <ErrorMessage title="Status page not found" message={message}>
          <p>
            <a href="/">Every status page watched</a>
          </p>
        </ErrorMessage>,
        404,
      );
    }
    return page(c, source.name, <SourcePage source={source} sanitize={deps.sanitizeHtml} />);
  });

  app.get('/incidents', secure, async (c) => {
    const query = readQuery(c);
    const rawLimit = c.req.query('limit');
    const limit = rawLimit === undefined ? PAGE_SIZE : Math.min(pageLimit(rawLimit), PAGE_SIZE_MAX);
    const cursor = c.req.query('cursor');
    let result: IncidentSearchPage;
    try {
      result = await searchIncidents({ store, cursors, known }, { filter: readFilter(c), query: c.req.query('q'), limit, cursor });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      return page(c, 'Incidents: bad filters', <BadFiltersPage query={query} message={refusalMessage(error, query.q)} />, 400);
    }
    const { incidents, nextCursor, total } = result;
    const data = { query, incidents, params: filterParams(c), nextCursor, onFirstPage: !cursor, total };
    return page(c, 'Incidents', <IncidentsPage data={data} />);
  });

  app.get('/incidents/:id', secure, async (c) => {
    const id = c.req.param('id');
    const found = await incidentHistory(store, id);
    if (!found) {
      const message = `There is no incident “${id.slice(0, 64)}” in the archive.`;
      return page(
        c,
        'Incident not found',
        <ErrorMessage title="Incident not found" message={message}>
          <p>
            <a href="/incidents">Search all incidents</a>
          </p>
        </ErrorMessage>,
        404,
      );
    }
    const { incident, events } = found;
    return page(c, incident.title, <IncidentPage incident={incident} events={events} sanitize={deps.sanitizeHtml} />);
  });

  return app;
}

/** The filters as typed, for the form to show back; never refused (readFilter does that). */
function readQuery(c: Context): IncidentQuery {
  return {
    q: c.req.query('q')?.trim() ?? '',
    services: listParam(c, 'service') ?? [],
    types: listParam(c, 'type', (v) => v.toLowerCase()) ?? [],
    statuses: listParam(c, 'status', (v) => v.toLowerCase()) ?? [],
    since: c.req.query('since')?.trim() ?? '',
    until: c.req.query('until')?.trim() ?? '',
    source: c.req.query('source')?.trim() ?? '',
  };
}

/**
 * The filters the search takes, read as `GET /api/incidents` reads them, with the form's words
 * for the dates; throws ApiError(400) on a bad one. The words (q) are the search's to read.
 */
function readFilter(c: Context): Omit<IncidentFilter, 'q'> {
  const filter = incidentFilterParams(c, { since: '“From”', until: '“Before”' });
  // The form's own check: an empty range is a mistake in the form, not an empty archive.
  if (filter.sinceMs !== undefined && filter.untilMs !== undefined && filter.untilMs <= filter.sinceMs) {
    throw new ApiError(400, 'invalid_request', '“From” must be earlier than “Before”: no incident can fall between them.');
  }
  return filter;
}

/** A refused search, said in the words of the form the reader fills in. */
function refusalMessage(error: ApiError, q: string): string {
  if (error instanceof SearchRefusedError) {
    if (error.rule === 'no_words') return `The search “${q.slice(0, 40)}” has no words to look for.`;
    if (error.rule === 'too_complex') return `This search cannot be run: ${error.fact}. Search with fewer words.`;
    return `The search is too broad: ${error.fact}, too many to filter by service, type or status. Add a word, or narrow the dates.`;
  }
  if (error.code === 'invalid_cursor') return 'The link to this page of results is not valid; start again from the newest incidents.';
  return error.detail ?? 'The filters could not be read.';
}

/** The filters in the URL, without empty fields (a submitted form sends them all) or the cursor. */
function filterParams(c: Context): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of new URL(c.req.url).searchParams) {
    if (FILTER_PARAMS.includes(name) && value.trim() !== '') params.append(name, value);
  }
  return params;
}
