/** The dashboard's HTML pages: `/` (the state now), `/incidents` (the searchable history), `/incidents/:id`. */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { noDataIntervals } from '../../core/coverage.ts';
import { ApiError, SearchTooBroadError } from '../../core/errors.ts';
import { assessKnowledge } from '../../core/knowledge.ts';
import { compareUrgency } from '../../core/mirror.ts';
import type { IncidentCount, IncidentFilter, IncidentPosition, ListedIncident } from '../../core/ports.ts';
import { parseSearch } from '../../core/search-query.ts';
import { DAY_MS, serviceDays } from '../../core/service-days.ts';
import type { AppDeps } from '../deps.ts';
import { generationMemo } from '../generation-memo.ts';
import { ErrorMessage } from '../pages/error-page.tsx';
import type { IncidentQuery } from '../pages/incident-filters.tsx';
import { IncidentPage } from '../pages/incident-page.tsx';
import { BadFiltersPage, IncidentsPage } from '../pages/incidents-page.tsx';
import { pageResponder } from '../pages/layout.tsx';
import { pageSecurity } from '../pages/page-security.ts';
import { StatusPage } from '../pages/status-page.tsx';
import { INCIDENT_TOTAL_MAX, incidentFilterParams, listParam, pageLimit, readCursor } from '../query-params.ts';

const BAR_DAYS = 90;
/** A page people read, not a batch for a client: smaller than the API's default. */
const PAGE_SIZE = 25;
const PAGE_SIZE_MAX = 100;
const HISTORY_EVENTS_MAX = 1000;
/** The bars end today (UTC): rebuilt at least this often, so a new day shows within a minute. */
const BARS_MAX_AGE_MS = 60_000;
/** The same cursors as `/api/incidents`: the same list in the same order. */
const incidentCursor = z.object({ k: z.literal('incidents'), s: z.number().int() });
const FILTER_PARAMS = ['q', 'service', 'type', 'status', 'since', 'until', 'limit'];

export function dashboardRoutes(deps: AppDeps) {
  const { store, clock, cursors } = deps;
  const app = new Hono();
  const secure = pageSecurity();

  const page = pageResponder(deps.assets);

  // The bars are most of the page's work and change only with the archive (or at midnight UTC).
  const bars = generationMemo({
    generation: () => store.archiveGeneration(),
    clock,
    maxAgeMs: BARS_MAX_AGE_MS,
    // A span that began before the window can still touch its first day.
    build: async (nowMs) => {
      const since = nowMs - BAR_DAYS * DAY_MS;
      const [spans, coverage, health] = await Promise.all([store.incidentSpans(since), store.dataCoverage(since), store.feedHealth()]);
      return serviceDays(spans, { nowMs, days: BAR_DAYS, noData: noDataIntervals(coverage, health.lastSuccessAt, nowMs) });
    },
  });

  app.get('/', secure, async (c) => {
    const [ongoing, health, rows] = await Promise.all([store.ongoingIncidents(), store.feedHealth(), bars()]);
    const knowledge = assessKnowledge({ lastSuccessAt: health.lastSuccessAt, now: clock.now() });
    const data = { ongoing: [...ongoing].sort(compareUrgency), health, knowledge, rows, days: BAR_DAYS };
    return page(c, 'Status', <StatusPage data={data} sanitize={deps.sanitizeHtml} />);
  });

  app.get('/incidents', secure, async (c) => {
    const query = readQuery(c);
    let filter: IncidentFilter;
    let after: IncidentPosition | null;
    try {
      filter = readFilter(c);
      after = await readCursor<IncidentPosition>(cursors, c.req.query('cursor'), (payload) => {
        const parsed = incidentCursor.safeParse(payload);
        return parsed.success ? { sortKey: parsed.data.s } : null;
      });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      const message =
        error.code === 'invalid_cursor'
          ? 'The link to this page of results is not valid; start again from the newest incidents.'
          : (error.detail ?? 'The filters could not be read.');
      return page(c, 'Incidents: bad filters', <BadFiltersPage query={query} message={message} />, 400);
    }
    const rawLimit = c.req.query('limit');
    const limit = rawLimit === undefined ? PAGE_SIZE : Math.min(pageLimit(rawLimit), PAGE_SIZE_MAX);
    // One extra row says whether another page exists without a count query.
    let rows: ListedIncident[];
    let total: IncidentCount;
    try {
      [rows, total] = await Promise.all([store.listIncidents(filter, after, limit + 1), store.countIncidents(filter, INCIDENT_TOTAL_MAX)]);
    } catch (error) {
      if (!(error instanceof SearchTooBroadError)) throw error;
      const message = `The search is too broad: ${error.message}, too many to filter by service, type or status. Add a word, or narrow the dates.`;
      return page(c, 'Incidents: bad filters', <BadFiltersPage query={query} message={message} />, 400);
    }
    const incidents = rows.slice(0, limit);
    const last = incidents.at(-1);
    const nextCursor = rows.length > limit && last ? await cursors.encode({ k: 'incidents', s: last.sortKey }) : '';
    const data = { query, incidents, params: filterParams(c), nextCursor, onFirstPage: after === null, total };
    return page(c, 'Incidents', <IncidentsPage data={data} />);
  });

  app.get('/incidents/:id', secure, async (c) => {
    const id = c.req.param('id');
    const incident = await store.getIncident(id);
    if (!incident) {
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
    const events = await store.listEvents({ incidentId: id }, 0, HISTORY_EVENTS_MAX);
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
  };
}

/** The same parameters, parsed the same way, as `GET /api/incidents`; throws ApiError(400) on a bad one. */
function readFilter(c: Context): IncidentFilter {
  // The form's words, so the reader can tell which field to fix.
  const filter: IncidentFilter = incidentFilterParams(c, { since: '“From”', until: '“Before”' });
  if (filter.sinceMs !== undefined && filter.untilMs !== undefined && filter.untilMs <= filter.sinceMs) {
    throw new ApiError(400, 'invalid_request', '“From” must be earlier than “Before”: no incident can fall between them.');
  }
  const q = c.req.query('q')?.trim();
  if (q) {
    const search = parseSearch(q);
    if (!search.ok && search.rule === 'no_words') throw new ApiError(400, 'invalid_request', `The search “${q.slice(0, 40)}” has no words to look for.`);
    if (!search.ok) throw new ApiError(400, 'invalid_query', `This search cannot be run: ${search.detail}. Search with fewer words.`);
    filter.q = search.match;
  }
  return filter;
}

/** The filters in the URL, without empty fields (a submitted form sends them all) or the cursor. */
function filterParams(c: Context): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of new URL(c.req.url).searchParams) {
    if (FILTER_PARAMS.includes(name) && value.trim() !== '') params.append(name, value);
  }
  return params;
}
