/** The vendor's public feed endpoints, with faults, conditional requests, the moved host and the redirect hop. */
import { Hono } from 'hono';
import { documentResponse } from './conditional.ts';
import { faultResponse, NOT_FOUND_TEXT, REDIRECTED_PREFIX } from './fault-responses.ts';
import type { FeedEndpoint } from './feed-views.ts';
import { oversizeBody } from './oversize-body.ts';
import type { RequestLogEntry } from './request-log.ts';
import type { VendorState } from './vendor-state.ts';

/** Unversioned paths are v1, as the docs say. */
export const FEED_PATHS: Readonly<Record<string, FeedEndpoint>> = {
  '/api/v2.0.0/current': 'v2/current',
  '/api/v2.0.0/history': 'v2/history',
  '/api/v1.0.0/current': 'v1/current',
  '/api/v1.0.0/history': 'v1/history',
  '/api/current': 'v1/current',
  '/api/history': 'v1/history',
};

export type FeedEnv = { Variables: { logEntry: RequestLogEntry } };

const notFound = (): Response => new Response(NOT_FOUND_TEXT, { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });

function pathAndQuery(url: string): { path: string; query: string } {
  const parsed = new URL(url);
  return { path: parsed.pathname, query: parsed.search };
}

/** Everything a client of the vendor can reach; `/_sim` control routes live elsewhere. */
export function feedRoutes(state: VendorState): Hono<FeedEnv> {
  const app = new Hono<FeedEnv>();

  app.use('*', async (c, next) => {
    const { path, query } = pathAndQuery(c.req.url);
    const entry = state.requests.record({
      atMs: state.now(),
      method: c.req.method,
      path: path + query,
      ifNoneMatch: c.req.header('if-none-match') !== undefined,
      ifModifiedSince: c.req.header('if-modified-since') !== undefined,
    });
    c.set('logEntry', entry);
    await next();
    // A timeout fault answers only once the client is gone; nobody received that status.
    if (entry.fault !== 'timeout') entry.status = c.res.status;
  });

  for (const [path, endpoint] of Object.entries(FEED_PATHS)) {
    app.get(path, async (c) => {
      const fault = state.faults.take(endpoint);
      if (!fault) return documentResponse(c.req.raw, state.render(endpoint), state.conditional);
      c.get('logEntry').fault = fault.kind;
      const { path: requestPath, query } = pathAndQuery(c.req.url);
      return faultResponse(fault, {
        request: c.req.raw,
        oversizeBody: () => oversizeBody(endpoint),
        pathAndQuery: requestPath + query,
        document: () => state.render(endpoint),
        conditional: state.conditional,
        held: state.held,
      });
    });
  }

  // The end of a `redirect` fault's hop: the real answer, never faulted again (that would loop).
  app.get(`${REDIRECTED_PREFIX}/*`, (c) => {
    const endpoint = FEED_PATHS[pathAndQuery(c.req.url).path.slice(REDIRECTED_PREFIX.length)];
    if (!endpoint) return notFound();
    return documentResponse(c.req.raw, state.render(endpoint), state.conditional);
  });

  // The vendor moved hosts once; clients must follow a permanent redirect.
  app.get('/moved/*', (c) => {
    const { path, query } = pathAndQuery(c.req.url);
    return new Response(null, { status: 301, headers: { Location: `${path.slice('/moved'.length)}${query}` } });
  });

  app.notFound(() => notFound());
  return app;
}
