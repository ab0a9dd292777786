/** The archive's incidents: cursor-paginated, filtered, searchable; one incident with its history. */
import { Hono } from 'hono';
import { incidentHistory, incidentNotFound } from '../../app/incident-history.ts';
import { iso, toApiEvent } from '../api-json.ts';
import type { AppDeps } from '../deps.ts';
import type { ArchiveReads } from '../../core/ports.ts';
import { searchIncidents } from '../../app/incident-search.ts';
import { answerJsonText } from '../response-cache.ts';
import { serviceNamesOfSource } from '../../app/known-services.ts';
import { incidentFilterParams, pageLimit } from '../query-params.ts';

const VERSIONS_MAX = 1000;

export type IncidentRouteDeps = Pick<AppDeps, 'cursors' | 'clock'> & { store: ArchiveReads };

export function incidentRoutes({ store, cursors, clock }: IncidentRouteDeps) {
  const app = new Hono();
  const known = serviceNamesOfSource(store, clock);

  app.get('/api/incidents', async (c) => {
    const { incidents, nextCursor, total } = await searchIncidents(
      { store, cursors, known },
      { filter: incidentFilterParams(c), query: c.req.query('q'), limit: pageLimit(c.req.query('limit')), cursor: c.req.query('cursor') },
      'json',
    );
    // The incidents come as JSON text from the store: joined, not parsed and serialised again.
    const items = incidents.map((incident) => incident.json).join(',');
    const rest = JSON.stringify({ response_metadata: { next_cursor: nextCursor }, total: total.count, total_exact: total.exact });
    return answerJsonText(c, `{"ok":true,"incidents":[${items}],${rest.slice(1)}`);
  });

  app.get('/api/incidents/:id', async (c) => {
    const id = c.req.param('id');
    const found = await incidentHistory(store, id, 'json');
    if (!found) throw incidentNotFound(id);
    // The incident comes as JSON text from the store: spliced in, not parsed and serialised again.
    return answerJsonText(c, `{"ok":true,"incident":${found.incident.json},"events":${JSON.stringify(found.events.map(toApiEvent))}}`);
  });

  app.get('/api/incidents/:id/versions', async (c) => {
    const id = c.req.param('id');
    const versions = await store.listVersions(id, VERSIONS_MAX);
    if (versions.length === 0) throw incidentNotFound(id);
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
