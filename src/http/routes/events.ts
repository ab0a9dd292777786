/** The event log, oldest first, so a consumer can catch up from where its last cursor left it. */
import { Hono } from 'hono';
import { z } from 'zod';
import { ApiError } from '../../core/errors.ts';
import { EVENT_TYPES, type EventType } from '../../core/events.ts';
import { toApiEvent } from '../api-json.ts';
import type { AppDeps } from '../deps.ts';
import type { ArchiveQueries } from '../../core/ports.ts';
import { listParam, pageLimit } from '../query-params.ts';
import { readCursor } from '../../app/cursor-page.ts';

const eventCursor = z.object({ k: z.literal('events'), s: z.number().int().nonnegative() });

export type EventRouteDeps = Pick<AppDeps, 'cursors'> & { store: Pick<ArchiveQueries, 'listEvents'> };

export function eventRoutes({ store, cursors }: EventRouteDeps) {
  const app = new Hono();

  app.get('/api/events', async (c) => {
    const limit = pageLimit(c.req.query('limit'));
    const afterSeq = await readCursor(cursors, c.req.query('cursor'), (payload) => {
      const parsed = eventCursor.safeParse(payload);
      return parsed.success ? parsed.data.s : null;
    });
    const types = listParam(c, 'type', (v) => v.toLowerCase());
    const unknown = types?.filter((t) => !EVENT_TYPES.includes(t as EventType));
    if (unknown?.length) {
      throw new ApiError(400, 'invalid_request', `type: unknown ${unknown.join(', ')}; expected one of ${EVENT_TYPES.join(', ')}`);
    }
    const backfill = c.req.query('include_backfill');
    const rows = await store.listEvents(
      { types: types as EventType[] | undefined, incidentId: c.req.query('incident'), includeBackfill: backfill !== 'false' },
      afterSeq ?? 0,
      limit,
    );
    // Unlike incidents, the log grows at its end: a consumer keeps the last cursor even on the
    // final page, and passes it again later to get only what is new.
    const last = rows.at(-1);
    const position = last ? last.seq : (afterSeq ?? 0);
    const cursor = await cursors.encode({ k: 'events', s: position });
    return c.json({
      ok: true,
      events: rows.map(toApiEvent),
      response_metadata: { next_cursor: rows.length === limit ? cursor : '' },
      resume_cursor: cursor,
    });
  });

  return app;
}
