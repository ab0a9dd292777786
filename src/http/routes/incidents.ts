/** The archive's incidents: cursor-paginated, filtered, searchable; one incident with its history. */
import { Hono } from 'hono';
import { z } from 'zod';
import { ApiError, SearchTooBroadError } from '../../core/errors.ts';
import type { IncidentFilter, IncidentPosition } from '../../core/ports.ts';
import { parseSearch, SEARCH_LIMITS } from '../../core/search-query.ts';
import { iso, toApiEvent, toApiIncident, toApiListedIncident } from '../api-json.ts';
import type { AppDeps } from '../deps.ts';
import { knownServiceNames, requireKnownServices } from '../known-services.ts';
import { INCIDENT_TOTAL_MAX, incidentFilterParams, pageLimit, readCursor } from '../query-params.ts';

const incidentCursor = z.object({ k: z.literal('incidents'), s: z.number().int() });
const HISTORY_EVENTS_MAX = 1000;
const VERSIONS_MAX = 1000;

export function incidentRoutes({ store, cursors, clock }: AppDeps) {
  const app = new Hono();
  const known = knownServiceNames(store, clock);

  app.get('/api/incidents', async (c) => {
    const requestedLimit = pageLimit(c.req.query('limit'));
    const after = await readCursor<IncidentPosition>(cursors, c.req.query('cursor'), (payload) => {
      const parsed = incidentCursor.safeParse(payload);
      return parsed.success ? { sortKey: parsed.data.s } : null;
    });
    const filter: IncidentFilter = incidentFilterParams(c);
    // An empty list for a misspelt name would read as "no incidents ever": say the name is unknown.
    await requireKnownServices(known, 'service', filter.services);
    const q = c.req.query('q')?.trim();
    if (q) {
      const search = parseSearch(q);
      if (!search.ok) throw new ApiError(400, search.rule === 'no_words' ? 'invalid_request' : 'invalid_query', `q: ${search.detail}`);
      filter.q = search.match;
    }
    // A search's pages are smaller than a list's: adjusted, as every limit is, never refused.
    const limit = filter.q ? Math.min(requestedLimit, SEARCH_LIMITS.maxPageSize) : requestedLimit;
    // One extra row says whether another page exists without a count query.
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
    return c.json({
      ok: true,
      incidents: page.map(toApiListedIncident),
      response_metadata: { next_cursor: nextCursor },
      total: total.count,
      total_exact: total.exact,
    });
  });

  app.get('/api/incidents/:id', async (c) => {
    const id = c.req.param('id');
    const incident = await store.getIncident(id);
    if (!incident) throw new ApiError(404, 'incident_not_found', `no incident ${JSON.stringify(id.slice(0, 64))} in the archive`);
    const history = await store.listEvents({ incidentId: id }, 0, HISTORY_EVENTS_MAX);
    return c.json({ ok: true, incident: toApiIncident(incident), events: history.map(toApiEvent) });
  });

  app.get('/api/incidents/:id/versions', async (c) => {
    const id = c.req.param('id');
    const versions = await store.listVersions(id, VERSIONS_MAX);
    if (versions.length === 0) throw new ApiError(404, 'incident_not_found', `no incident ${JSON.stringify(id.slice(0, 64))} in the archive`);
    return c.json({
      ok: true,
      versions: versions.map((v) => ({
        revision: v.revision,
        recorded_at: iso(v.recordedAt),
        poll_run_id: v.pollRunId,
        incident: v.incident,
      })),
    });
  });

  return app;
}
