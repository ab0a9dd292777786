/** The event log, oldest first, so a consumer can catch up from where its last cursor left it. */
import { Hono } from 'hono';
import { ApiError } from '../../core/errors.ts';
import { EVENT_TYPES, type EventType } from '../../core/events.ts';
import { toApiEvent } from '../api-json.ts';
import type { AppDeps } from '../deps.ts';
import type { ArchiveQueries } from '../../core/ports.ts';
import { listParam, pageLimit, sourceParam } from '../query-params.ts';
import { isSequence, keyedList, logPageAfter, readPosition } from '../../app/cursor-page.ts';

/** The event log by sequence number; 0 is before the first event. */
const EVENTS = keyedList<number>('events', 's', isSequence);

export type EventRouteDeps = Pick<AppDeps, 'cursors'> & { store: Pick<ArchiveQueries, 'listEvents'> };

export function eventRoutes({ store, cursors }: EventRouteDeps) {
  const app = new Hono();

  app.get('/api/events', async (c) => {
    const limit = pageLimit(c.req.query('limit'));
    const afterSeq = await readPosition(cursors, EVENTS, c.req.query('cursor'));
    const types = listParam(c, 'type', (v) => v.toLowerCase());
    const unknown = types?.filter((t) => !EVENT_TYPES.includes(t as EventType));
    if (unknown?.length) {
      throw new ApiError(400, 'invalid_request', `type: unknown ${unknown.join(', ')}; expected one of ${EVENT_TYPES.join(', ')}`);
    }
    const backfill = c.req.query('include_backfill');
    const filter = {
      types: types as EventType[] | undefined,
      incidentId: c.req.query('incident'),
      includeBackfill: backfill !== 'false',
      source: sourceParam(c),
    };
    // Unlike incidents, the log grows at its end: a consumer keeps the last cursor even on the
    // final page, and passes it again later to get only what is new.
    const { page, next, resume } = await logPageAfter(
      cursors,
      EVENTS,
      afterSeq,
      0,
      limit,
      (after, n) => store.listEvents(filter, after, n),
      (event) => event.seq,
    );
    return c.json({ ok: true, events: page.map(toApiEvent), response_metadata: { next_cursor: next }, resume_cursor: resume });
  });

  return app;
}
