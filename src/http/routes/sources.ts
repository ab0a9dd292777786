/**
 * The sources over JSON: an admin adds a status page in the Statuspage format by its address and
 * removes it; anyone lists every source, the main feed first, each with what is known of it now.
 * The use case (app/sources.ts) is the same one the admin page calls.
 */
import { Hono } from 'hono';
import type { z } from 'zod';
import type { SourceService, SourceView } from '../../app/sources.ts';
import { ApiError } from '../../core/errors.ts';
import { parseRequest } from '../../core/parse-request.ts';
import { iso } from '../api-json.ts';
import { jsonBody } from '../json-body.ts';
import { type apiSourceSchema, newSourceBody } from '../openapi/api-schemas.ts';
import { type AdminGuardDeps, requireAdmin } from './admin.ts';

export const toApiSource = (source: SourceView): z.infer<typeof apiSourceSchema> => ({
  id: source.id,
  kind: source.kind,
  name: source.name,
  url: source.url,
  created_at: iso(source.createdAt),
  state: source.state,
  last_success_at: iso(source.lastSuccessAt),
  consecutive_failures: source.consecutiveFailures,
});

export type SourceRouteDeps = AdminGuardDeps & { sources: SourceService };

export function sourceRoutes(deps: SourceRouteDeps) {
  const { sources } = deps;
  const app = new Hono();
  app.use('/api/admin/sources', requireAdmin(deps));
  app.use('/api/admin/sources/*', requireAdmin(deps));

  app.post('/api/admin/sources', async (c) => {
    const input = parseRequest(newSourceBody, await jsonBody(c));
    const source = await sources.add(input);
    return c.json({ ok: true, source: toApiSource(source) }, 201);
  });

  app.delete('/api/admin/sources/:id', async (c) => {
    // Removing keeps the source's archive unless asked: `?purge=true` deletes it too.
    const purge = c.req.query('purge');
    if (purge !== undefined && purge !== 'true' && purge !== 'false') {
      throw new ApiError(400, 'invalid_request', 'purge: "true" deletes the archive with the source, "false" (or none) keeps it');
    }
    const id = c.req.param('id');
    if (purge === 'true') {
      const outcome = await sources.purge(id);
      if (!outcome) throw new ApiError(404, 'source_not_found', 'no source with that id');
      if (outcome.archive === 'deleted') return c.json({ ok: true, archive: 'deleted' });
      return c.json({ ok: true, archive: 'deleting', left: outcome.left });
    }
    if (!(await sources.remove(id))) throw new ApiError(404, 'source_not_found', 'no source with that id');
    return c.json({ ok: true, archive: 'kept' });
  });

  app.get('/api/sources', async (c) => c.json({ ok: true, sources: (await sources.list()).map(toApiSource) }));

  return app;
}
